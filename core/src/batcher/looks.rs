//! Effects on quads: which declared effect, with which parameters, quads pushed now draw
//! with, and the time effects see.

use super::recorder::Look;
use super::Batcher;
use crate::effect::pack_params;
use crate::plan::Instance;
use crate::{EffectError, EffectId};

impl Batcher {
    /// Quads pushed from now on (and meshes, nine-slices, shapes and text) draw with `effect`,
    /// one of [`Config::effects`](crate::Config::effects) by its id from 1, and its 4
    /// `params` (each `0.0..=1.0`, carried in 8 bits). [`EffectId::NONE`] turns effects off.
    /// Lasts until set again; [`Batcher::begin_frame`] starts every frame without an effect.
    ///
    /// The effect is per quad: changing it never ends a draw (every tier program has every
    /// declared effect, compiled when the renderer was made). Resident layers draw without
    /// effects.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Effect, EffectId, Limits, Quad, TextureDesc};
    /// const EFFECTS: [Effect; 5] = Effect::BUILT_IN; // flash, greyscale, dissolve, outline, palette
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default().with_effects(&EFFECTS))?;
    /// let enemy = batcher.register(&TextureDesc::new(16, 16), &[255; 16 * 16 * 4])?;
    /// batcher.begin_frame();
    /// batcher.set_effect(EffectId(1), [1.0, 1.0, 1.0, 0.8])?; // flash white, 80%
    /// batcher.push(&Quad::rect(enemy, [0.0, 0.0], [16.0, 16.0]))?;
    /// batcher.set_effect(EffectId::NONE, [0.0; 4])?;
    /// batcher.push(&Quad::rect(enemy, [20.0, 0.0], [16.0, 16.0]))?;
    /// let plan = batcher.finish();
    /// assert_eq!(plan.segments.len(), 1); // one draw
    /// assert_eq!((plan.instances[0].effect, plan.instances[0].effect_params), (1, [255, 255, 255, 204]));
    /// assert_eq!(plan.instances[1].effect, 0);
    /// assert!(batcher.set_effect(EffectId(6), [0.0; 4]).is_err()); // 5 declared
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`EffectError::Undeclared`] for an id past the declared effects;
    /// [`EffectError::Parameter`] for a NaN parameter or one outside `0.0..=1.0`. Either way
    /// the effect in force does not change.
    pub fn set_effect(&mut self, effect: EffectId, params: [f32; 4]) -> Result<(), EffectError> {
        let declared = self.budget.effects.len();
        if usize::from(effect.0) > declared {
            return Err(EffectError::Undeclared { effect, declared });
        }
        let params = pack_params(params)?;
        // Being lit and the colour offset are the look's other parts: they stay.
        let rest = self.recorder.look.effect & !Instance::EFFECT_MASK;
        self.recorder.look = Look { effect: rest | u32::from(effect.0), params };
        self.recorder.effects_used |= effect != EffectId::NONE;
        Ok(())
    }

    /// The effect quads pushed now draw with, and its parameters as carried (`0..=255`).
    pub fn effect(&self) -> (EffectId, [u8; 4]) {
        let look = self.recorder.look;
        (EffectId((look.effect & Instance::EFFECT_MASK) as u8), look.params)
    }

    /// Adds `rgb` (`0..=255` for `0.0..=1.0`), times its coverage, to the colour each item
    /// pushed from now on draws, after its tint, lights and effect: a "second tint" that
    /// brightens towards white where the tint can only darken (a hit flash, a selection
    /// glow) with no effect declared. Drawing state: `[0, 0, 0]` (none) at `begin_frame`,
    /// saved and restored with the rest; resident layers draw without it. Premultiplied, the
    /// colour drawn is `rgb + offset * a`, so a sprite's transparent texels stay transparent.
    ///
    /// ```
    /// use layerbatch_core::{plan::Instance, Batcher, Config, Limits, Quad, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let hero = batcher.register(&TextureDesc::new(8, 8), &[128; 8 * 8 * 4])?;
    /// batcher.begin_frame();
    /// batcher.set_color_offset([255, 64, 0]); // hit: flare orange
    /// batcher.push(&Quad::rect(hero, [0.0, 0.0], [8.0, 8.0]))?;
    /// let plan = batcher.finish();
    /// assert_eq!(plan.instances[0].effect >> Instance::COLOR_OFFSET_SHIFT, 0x00_40_ff);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_color_offset(&mut self, rgb: [u8; 3]) {
        let [r, g, b] = rgb.map(u32::from);
        let offset = (r | g << 8 | b << 16) << Instance::COLOR_OFFSET_SHIFT;
        let look = &mut self.recorder.look;
        look.effect = (look.effect & !(u32::MAX << Instance::COLOR_OFFSET_SHIFT)) | offset;
    }

    /// The colour offset items pushed now draw with ([`Batcher::set_color_offset`]).
    pub fn color_offset(&self) -> [u8; 3] {
        let [r, g, b, _] = (self.recorder.look.effect >> Instance::COLOR_OFFSET_SHIFT).to_le_bytes();
        [r, g, b]
    }

    /// The time, in seconds, effects see as `time_s` in the plans finished from now on (an
    /// animated dissolve, a pulsing outline). Any origin; 0 until set. A non-finite value is
    /// taken as 0.
    pub fn set_time_s(&mut self, time_s: f32) {
        self.time_s = if time_s.is_finite() { time_s } else { 0.0 };
    }
}
