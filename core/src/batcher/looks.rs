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
        // Being lit is the look's other part: it stays.
        let lit = self.recorder.look.effect & Instance::EFFECT_LIT;
        self.recorder.look = Look { effect: lit | u32::from(effect.0), params };
        self.recorder.effects_used |= effect != EffectId::NONE;
        Ok(())
    }

    /// The effect quads pushed now draw with, and its parameters as carried (`0..=255`).
    pub fn effect(&self) -> (EffectId, [u8; 4]) {
        let look = self.recorder.look;
        (EffectId((look.effect & Instance::EFFECT_MASK) as u8), look.params)
    }

    /// The time, in seconds, effects see as `time_s` in the plans finished from now on (an
    /// animated dissolve, a pulsing outline). Any origin; 0 until set. A non-finite value is
    /// taken as 0.
    pub fn set_time_s(&mut self, time_s: f32) {
        self.time_s = if time_s.is_finite() { time_s } else { 0.0 };
    }
}
