//! The budget: a [`Config`] clamped by the device's [`Limits`], derived once when the batcher
//! is made.

use crate::error::ConfigError;
use crate::limits::{QuadVertices, VictimChoice, MAX_SLOTS_PER_DRAW};
use crate::plan::Instance;
use crate::{Config, FormatFamilies, FormatFamily, Limits};

/// What the batcher works with: [`Config`] clamped by [`Limits`], derived once at creation and
/// never changed afterwards.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Budget {
    /// Most slots one draw samples: the one number both backends size their shaders by.
    pub slots: u32,
    /// The shader slot tiers, ascending: 1, 2, 4, ... and `slots` itself. One program or
    /// pipeline per tier is built at creation.
    pub tiers: Vec<u32>,
    /// Layer cap per array.
    pub max_layers_per_array: u32,
    /// Layers of a newly opened array.
    pub initial_layers: u32,
    /// Largest texture width or height accepted.
    pub max_texture_size_px: u32,
    /// Textures larger than this in either dimension get their own array.
    pub max_class_size_px: u32,
    /// Hard cap on allocated texture bytes.
    pub budget_bytes: u64,
    /// See [`Config::max_padding_waste`].
    pub max_padding_waste: f32,
    /// See [`Config::arrays_enabled`].
    pub arrays_enabled: bool,
    /// See [`Config::instance_capacity`].
    pub instance_capacity: u32,
    /// See [`Config::victim`].
    pub victim: VictimChoice,
    /// See [`Limits::avoid_ambiguous_layer_counts`].
    pub avoid_ambiguous_layer_counts: bool,
    /// See [`Config::keep_pixels`].
    pub keep_pixels: bool,
    /// See [`Config::max_packed_size_px`] (0: no packing, also when arrays are off).
    pub max_packed_size_px: u32,
    /// See [`Config::page_size_px`].
    pub page_size_px: u32,
    /// See [`Config::auto_compact`].
    pub auto_compact: bool,
    /// Whether backends draw indexed quads (each instance once per corner) rather than
    /// instanced ones: [`Config::quad_vertices`], with [`QuadVertices::Auto`] resolved by
    /// [`Limits::software_rasterizer`].
    pub indexed_quads: bool,
    /// See [`Limits::format_families`].
    pub format_families: FormatFamilies,
    /// See [`Limits::compressed_copies`].
    pub compressed_copies: bool,
    /// See [`Config::effects`].
    pub effects: &'static [crate::Effect],
    /// See [`Config::lights`] (0: lights off, no normal maps).
    pub max_lights: u32,
    /// Largest cell buffer of a tile grid the device holds, bytes: the device's
    /// [`Limits::max_storage_binding_bytes`] within its largest buffer, or 0 where tile grids
    /// draw on the CPU (no GPU culling, or indexed quads). Backends build their culling pass
    /// when it is above 0.
    pub max_cell_bytes: u64,
    /// See [`Limits::staged_motion_writes`]: executors copy motions with
    /// [`crate::copy_checked`], and core does not check those written in place when it plans.
    pub staged_motion_writes: bool,
    /// See [`Limits::host_texture_views`]: host textures are viewed ([`crate::plan::HostAccess::View`])
    /// rather than copied.
    pub host_texture_views: bool,
}

impl Budget {
    /// The id quads draw the declared `effect` with (the first declared effect equal to it),
    /// or `None` when this budget does not declare it. See [`crate::EffectId`].
    pub fn effect_id(&self, effect: &crate::Effect) -> Option<crate::EffectId> {
        let k = self.effects.iter().position(|e| e == effect)?;
        self.effect_at(k + 1)
    }

    /// The id of the `k`-th declared effect, counting from 1 ([`Config::effects`]' order), or
    /// `None` past them (and for 0: [`crate::EffectId::NONE`] is none).
    pub fn effect_at(&self, k: usize) -> Option<crate::EffectId> {
        let k = u8::try_from(k).ok().filter(|&k| k >= 1 && usize::from(k) <= self.effects.len())?;
        Some(crate::EffectId::declared(k))
    }

    /// Checks a budget that may have been edited after [`Budget::new`] (its fields are
    /// public): at most [`MAX_SLOTS_PER_DRAW`] slots, and the tiers [`Budget::new`] would make
    /// for them. Every executor ([`crate::MockDevice`], [`crate::validate::PlanValidator`], both
    /// backends) works only with a budget that passes; a budget from [`Budget::new`] always
    /// does.
    ///
    /// ```
    /// use layerbatch_core::{Budget, Config, Limits};
    /// let mut b = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
    /// assert!(b.check().is_ok());
    /// b.slots = 64;
    /// assert!(b.check().is_err());
    /// ```
    ///
    /// # Errors
    /// [`ConfigError::EditedBudget`].
    pub fn check(&self) -> Result<(), ConfigError> {
        let tiers_ok = self.slots >= 1 && self.slots <= MAX_SLOTS_PER_DRAW && self.tiers == tiers_for(self.slots);
        if tiers_ok {
            Ok(())
        } else {
            Err(ConfigError::EditedBudget {
                slots: self.slots,
                tiers: self.tiers.clone(),
                max_slots: MAX_SLOTS_PER_DRAW,
            })
        }
    }

    /// Derives the budget. Logs each value the device forces below the config once, at `warn!`.
    ///
    /// ```
    /// use layerbatch_core::{Budget, Config, Limits};
    /// let b = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
    /// assert_eq!(b.slots, 16);
    /// assert_eq!(b.tiers, vec![1, 2, 4, 8, 16]);
    /// ```
    pub fn new(limits: &Limits, config: &Config) -> Result<Self, ConfigError> {
        if config.max_slots == 0 {
            return Err(ConfigError::Zero("max_slots"));
        }
        if config.max_layers_per_array == 0 {
            return Err(ConfigError::Zero("max_layers_per_array"));
        }
        if config.initial_layers == 0 {
            return Err(ConfigError::Zero("initial_layers"));
        }
        if config.instance_capacity == 0 {
            return Err(ConfigError::Zero("instance_capacity"));
        }
        if config.budget_bytes == 0 {
            return Err(ConfigError::Zero("budget_bytes"));
        }
        if !(0.0..1.0).contains(&config.max_padding_waste) {
            return Err(ConfigError::PaddingWaste(config.max_padding_waste));
        }
        if config.effects.len() > crate::MAX_EFFECTS {
            return Err(ConfigError::TooManyEffects { effects: config.effects.len(), max: crate::MAX_EFFECTS });
        }
        if config.lights > crate::MAX_LIGHTS {
            return Err(ConfigError::TooManyLights { lights: config.lights, max: crate::MAX_LIGHTS });
        }
        // A lit program samples each slot's array and its normal-map sibling; a ramp takes
        // one unit of its own.
        let samplers_per_slot = if config.lights > 0 { 2 } else { 1 };
        let ramp = config.effects.iter().find(|e| e.ramp);
        let ramp_units = u32::from(ramp.is_some());
        if let Some(effect) = ramp {
            let needed = ramp_units + samplers_per_slot;
            if limits.max_texture_units < needed {
                return Err(ConfigError::EffectSamplers {
                    effect: effect.name,
                    needed,
                    lights: config.lights,
                    texture_units: limits.max_texture_units,
                });
            }
        }
        let device_slots =
            (limits.max_texture_units.saturating_sub(ramp_units) / samplers_per_slot).min(MAX_SLOTS_PER_DRAW);
        let indexed_quads = match config.quad_vertices {
            QuadVertices::Auto => limits.software_rasterizer,
            QuadVertices::Instanced => false,
            QuadVertices::Indexed => true,
        };
        // A plan with triangles is drawn indexed whatever the budget says
        // (`FramePlan::indexed`): a block must fit one buffer at indexed size.
        let device_instances =
            (limits.max_buffer_bytes / u64::from(Instance::QUAD_BYTES)).min(u64::from(u32::MAX)) as u32;
        if device_slots == 0 || limits.max_array_layers == 0 || limits.max_texture_size_px == 0 || device_instances == 0
        {
            return Err(ConfigError::DeviceLimits(*limits));
        }
        let slots = cut("max_slots", config.max_slots, device_slots);
        let max_layers =
            cut("max_layers_per_array", config.max_layers_per_array, limits.max_array_layers.min(Instance::MAX_LAYERS));
        let max_class = cut("max_class_size_px", config.max_class_size_px, limits.max_texture_size_px);
        let page =
            cut("page_size_px", config.page_size_px.max(config.max_packed_size_px).max(1), limits.max_texture_size_px);
        let packed = if config.arrays_enabled { config.max_packed_size_px.min(page) } else { 0 };
        let tiers = tiers_for(slots);
        Ok(Self {
            slots,
            tiers,
            max_layers_per_array: max_layers,
            initial_layers: config.initial_layers.min(max_layers),
            max_texture_size_px: limits.max_texture_size_px,
            max_class_size_px: max_class,
            budget_bytes: config.budget_bytes,
            max_padding_waste: config.max_padding_waste,
            arrays_enabled: config.arrays_enabled,
            instance_capacity: cut("instance_capacity", config.instance_capacity, device_instances),
            victim: config.victim,
            avoid_ambiguous_layer_counts: limits.avoid_ambiguous_layer_counts,
            keep_pixels: config.keep_pixels,
            max_packed_size_px: packed,
            page_size_px: page,
            auto_compact: config.auto_compact,
            indexed_quads,
            format_families: limits.format_families.with(FormatFamily::Rgba8),
            compressed_copies: limits.compressed_copies,
            effects: config.effects,
            max_lights: config.lights,
            max_cell_bytes: if indexed_quads {
                0
            } else {
                limits.max_storage_binding_bytes.min(limits.max_buffer_bytes)
            },
            staged_motion_writes: limits.staged_motion_writes,
            host_texture_views: limits.host_texture_views,
        })
    }

    /// Programs (GL) or shader modules (wgpu) each tier has: 1, or 2 with declared effects, a
    /// plain one and one with every effect ([`crate::plan::Segment::effects`] picks), so that quads
    /// without an effect never pay for the effects' code.
    ///
    /// ```
    /// use layerbatch_core::{Budget, Config, Effect, Limits};
    /// const EFFECTS: [Effect; 1] = [Effect::FLASH];
    /// let l = Limits::guaranteed_minimum();
    /// assert_eq!(Budget::new(&l, &Config::default())?.programs_per_tier(), 1);
    /// assert_eq!(Budget::new(&l, &Config::default().with_effects(&EFFECTS))?.programs_per_tier(), 2);
    /// # Ok::<(), layerbatch_core::ConfigError>(())
    /// ```
    pub fn programs_per_tier(&self) -> u32 {
        if self.effects.is_empty() {
            1
        } else {
            2
        }
    }

    /// Some declared effect samples the ramp ([`crate::Effect::with_ramp`]): every effect
    /// program binds the ramp texture ([`crate::RAMP_WIDTH_PX`] x [`crate::RAMP_ROWS`] RGBA8)
    /// on one texture unit beyond the slots' ([`Budget::ramp_unit`]), so the slots cover one
    /// unit less. Derived from `effects`, so an edited budget cannot disagree with its shaders.
    pub fn ramp(&self) -> bool {
        self.effects.iter().any(|e| e.ramp)
    }

    /// The texture unit (GL) the ramp is bound on when [`Budget::ramp`]: the first past the
    /// slots' (and with lights their normal maps'). `None` without a ramp.
    ///
    /// ```
    /// use layerbatch_core::{Budget, Config, Effect, Limits};
    /// const EFFECTS: [Effect; 1] = [Effect::PALETTE];
    /// let b = Budget::new(&Limits::guaranteed_minimum(), &Config::default().with_effects(&EFFECTS))?;
    /// assert_eq!((b.slots, b.ramp_unit()), (15, Some(15))); // 16 units: 15 slots and the ramp
    /// let lit = Budget::new(&Limits::guaranteed_minimum(), &Config::default().with_effects(&EFFECTS).with_lights(4))?;
    /// assert_eq!((lit.slots, lit.ramp_unit()), (7, Some(14))); // 7 slots, 7 normal maps
    /// # Ok::<(), layerbatch_core::ConfigError>(())
    /// ```
    pub fn ramp_unit(&self) -> Option<u32> {
        let samplers_per_slot = if self.max_lights > 0 { 2 } else { 1 };
        self.ramp().then_some(self.slots * samplers_per_slot)
    }

    /// The texture unit (GL) a moving layer's motion texture is bound on, in the vertex stage
    /// ([`crate::TextureStore::create_moving`]): the first past every unit the fragment stage
    /// binds (the slots, their normal maps, the ramp). Every program reads it; GL 3.3 and
    /// GLES 3.0 have at least 16 vertex and 32 combined units.
    ///
    /// ```
    /// use layerbatch_core::{Budget, Config, Limits};
    /// let b = Budget::new(&Limits::guaranteed_minimum(), &Config::default())?;
    /// assert_eq!((b.slots, b.motion_unit()), (16, 16));
    /// # Ok::<(), layerbatch_core::ConfigError>(())
    /// ```
    pub fn motion_unit(&self) -> u32 {
        let samplers_per_slot = if self.max_lights > 0 { 2 } else { 1 };
        self.slots * samplers_per_slot + u32::from(self.ramp())
    }

    /// Vertex bytes a quad takes in a backend's vertex buffer: [`Instance::QUAD_BYTES`] with
    /// indexed quads, [`Instance::BYTES`] with instanced ones.
    pub const fn quad_bytes(&self) -> u32 {
        Instance::quad_bytes(self.indexed_quads)
    }

    /// The smallest tier that covers `slots_used` slots.
    ///
    /// # Panics
    /// If `slots_used` exceeds [`Budget::slots`].
    pub fn tier_for(&self, slots_used: u32) -> u32 {
        *self.tiers.iter().find(|&&t| t >= slots_used).expect("slots_used exceeds the slot budget")
    }
}

/// The tiers of `slots` slots: 1, 2, 4, ... below it, then `slots` itself.
fn tiers_for(slots: u32) -> Vec<u32> {
    let mut tiers = Vec::new();
    let mut t = 1;
    while t < slots {
        tiers.push(t);
        t *= 2;
    }
    tiers.push(slots);
    tiers
}

fn cut(name: &str, asked: u32, device: u32) -> u32 {
    if asked > device {
        log::warn!("layerbatch: {name} cut from {asked} to {device} by the device");
        device
    } else {
        asked
    }
}
