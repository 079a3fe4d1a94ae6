//! Effects on quads: which declared effect, with which parameters, quads pushed now draw
//! with, and the time effects see.

use super::recorder::Look;
use super::Batcher;
use crate::effect::pack_params;
use crate::plan::Instance;
use crate::{EffectId, TintEncoding};

impl Batcher {
    pub(crate) fn set_effect(&mut self, effect: EffectId, params: [f32; 4]) {
        let declared = self.budget.effects.len();
        // Ids are made by a budget: one past this budget's effects came from another's.
        let effect = if usize::from(effect.index()) > declared {
            if !std::mem::replace(&mut self.recorder.foreign_effect_warned, true) {
                log::warn!(
                    "effect id {} of another budget: this batcher declares {declared}; drawn without",
                    effect.index()
                );
            }
            EffectId::NONE
        } else {
            effect
        };
        let params = pack_params(params);
        // Being lit and the colour offset are the look's other parts: they stay.
        let rest = self.recorder.look.effect & !Instance::EFFECT_MASK;
        let flags = self.recorder.look.flags;
        self.recorder.look = Look { effect: rest | u32::from(effect.index()), params, flags };
        self.recorder.effects_used |= effect != EffectId::NONE;
    }

    pub(crate) fn effect(&self) -> (EffectId, [u8; 4]) {
        let look = self.recorder.look;
        (EffectId::declared((look.effect & Instance::EFFECT_MASK) as u8), look.params)
    }

    pub(crate) fn set_color_offset(&mut self, rgb: [u8; 3]) {
        let [r, g, b] = rgb.map(u32::from);
        let offset = (r | g << 8 | b << 16) << Instance::COLOR_OFFSET_SHIFT;
        let look = &mut self.recorder.look;
        look.effect = (look.effect & !(u32::MAX << Instance::COLOR_OFFSET_SHIFT)) | offset;
    }

    pub(crate) fn set_tint_encoding(&mut self, encoding: TintEncoding) {
        let bit = Instance::FLAG_SRGB_TINT << Instance::FLAGS_SHIFT;
        let look = &mut self.recorder.look;
        look.flags = (look.flags & !bit) | if encoding == TintEncoding::Srgb { bit } else { 0 };
    }

    pub(crate) fn tint_encoding(&self) -> TintEncoding {
        let bit = Instance::FLAG_SRGB_TINT << Instance::FLAGS_SHIFT;
        if self.recorder.look.flags & bit != 0 {
            TintEncoding::Srgb
        } else {
            TintEncoding::Linear
        }
    }

    pub(crate) fn color_offset(&self) -> [u8; 3] {
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
