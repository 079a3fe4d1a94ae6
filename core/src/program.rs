//! What a tier program is made of: the one key both backends make their shader sources of.

use crate::{Budget, Effect};

/// Everything a backend's shader source for one tier depends on: the slots it samples, the
/// effects it applies and the lights it reads. Each backend has one source function of a
/// key (`layerbatch_gl::program_sources`, `layerbatch_wgpu::pipeline_source`), and a renderer
/// makes its programs of the keys [`ProgramKey::of_budget`] gives: a program set that is
/// fixed when the renderer is made.
///
/// ```
/// use layerbatch_core::{Budget, Config, Effect, Limits, ProgramKey};
/// let config = Config::default().with_effects(&Effect::BUILT_IN).with_lights(4);
/// let budget = Budget::new(&Limits::guaranteed_minimum(), &config)?;
/// let key = ProgramKey::of_budget(&budget, 2, true);
/// assert_eq!(key, ProgramKey::plain(2).with_effects(&Effect::BUILT_IN).with_lights(4));
/// assert_eq!(ProgramKey::of_budget(&budget, 2, false).effects.len(), 0); // frames without effects
/// # Ok::<(), layerbatch_core::ConfigError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ProgramKey<'a> {
    /// Slots the program samples: one of the budget's tiers, at least 1.
    pub tier: u32,
    /// Effects compiled in, in the order of their ids from 1 ([`Budget::effects`]); none for
    /// the plain program.
    pub effects: &'a [Effect],
    /// Point lights the program reads ([`Budget::max_lights`]); 0: no lighting.
    pub lights: u32,
}

impl<'a> ProgramKey<'a> {
    /// The plain program of `tier` slots: no effect, no lights.
    pub const fn plain(tier: u32) -> Self {
        Self { tier, effects: &[], lights: 0 }
    }

    /// This key with `effects` compiled in.
    pub const fn with_effects(self, effects: &'a [Effect]) -> Self {
        Self { effects, ..self }
    }

    /// This key reading `lights` point lights.
    pub const fn with_lights(self, lights: u32) -> Self {
        Self { lights, ..self }
    }

    /// The program `budget`'s renderer makes for `tier`: with the budget's effects (segments
    /// that draw one) or without (the rest), and its lights either way.
    pub fn of_budget(budget: &'a Budget, tier: u32, with_effects: bool) -> Self {
        let effects = if with_effects { budget.effects } else { &[] };
        Self { tier, effects, lights: budget.max_lights }
    }
}
