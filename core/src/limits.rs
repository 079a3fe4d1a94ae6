//! Device limits, caller configuration, and the budget derived once from both.

use crate::{FormatFamilies, FormatFamily};

/// The hard ceiling on slots per draw, whatever the device reports: every slot a shader
/// branches over costs fill rate (32 slots measured ~11x one array sampler on llvmpipe), and
/// slot masks are 32 bits wide.
pub const MAX_SLOTS_PER_DRAW: u32 = 32;

/// What the device reports. Backends fill this once, at creation.
///
/// `#[non_exhaustive]`: build it with [`Limits::new`] or a profile and the `with_*` methods,
/// so that new limits can be added without breaking callers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Textures a fragment shader may sample (`MAX_TEXTURE_IMAGE_UNITS`,
    /// `max_sampled_textures_per_shader_stage`).
    pub max_texture_units: u32,
    /// Samplers a fragment shader may use (`max_samplers_per_shader_stage`; on GL, equal to the
    /// texture units).
    pub max_samplers: u32,
    /// Layers in one array texture (`MAX_ARRAY_TEXTURE_LAYERS`, `max_texture_array_layers`).
    pub max_array_layers: u32,
    /// Largest width or height of a 2D texture (`MAX_TEXTURE_SIZE`, `max_texture_dimension_2d`).
    pub max_texture_size_px: u32,
    /// The device guesses a texture's view type from its layer count (wgpu's GL backend: 1
    /// layer is read as 2D, a multiple of 6 as a cube). When set, core never creates an array
    /// with 1 layer or a multiple of 6 layers.
    pub avoid_ambiguous_layer_counts: bool,
    /// Largest buffer the device can create, bytes (`max_buffer_size` on wgpu; on GL, whose
    /// buffer sizes and attribute offsets are 32-bit signed, `i32::MAX`). Caps
    /// [`Config::instance_capacity`], so that one block of primitives always fits one buffer
    /// even indexed ([`Instance::QUAD_BYTES`](crate::plan::Instance::QUAD_BYTES) each: plans with triangles are drawn indexed).
    pub max_buffer_bytes: u64,
    /// The device rasterizes on the CPU (llvmpipe, lavapipe, SwiftShader: Chromium's WebGL2
    /// and WebGPU without a GPU). [`QuadVertices::Auto`] draws indexed quads there. `false`
    /// unless the backend's limits query finds one.
    pub software_rasterizer: bool,
    /// The texture format families the device samples (GL extensions; wgpu's enabled
    /// `TEXTURE_COMPRESSION_*` features). A texture of another family is refused with
    /// [`crate::TextureError::FormatUnsupported`], or decoded to RGBA8 on the CPU with the
    /// `decode` feature. Default [`FormatFamilies::RGBA8`].
    pub format_families: FormatFamilies,
    /// The device copies compressed texels between arrays on the GPU (`glCopyImageSubData`:
    /// GL 4.3, GLES 3.2; every wgpu device). Without it (WebGL2, GLES 3.0/3.1) a compressed
    /// array the device holds never grows, shrinks or is compacted: a full one is joined by
    /// a new array instead. Default `true`.
    pub compressed_copies: bool,
    /// Largest storage buffer a compute pass may bind, bytes (`max_storage_buffer_binding_size`
    /// on wgpu), or 0 where the device runs no compute pass that writes indirect draw
    /// arguments (GL, GLES, WebGL2, wgpu's GL backend). Above 0, a
    /// [`TileGrid`](crate::tilegrid::TileGrid) keeps its cells on the device and the GPU picks
    /// the tiles a view shows ([`Limits::gpu_culling`]). Default 0.
    pub max_storage_binding_bytes: u64,
    /// The executor writes a moving layer's motions by copying them into staging memory of
    /// its own with [`copy_checked`](crate::copy_checked) (layerbatch-wgpu: a mapped buffer,
    /// then a copy into the motion texture on the GPU). Core then finds the NaN or infinite
    /// motions a host wrote in place in that copy, counted in
    /// [`DeviceCounters::motions_rejected`](crate::DeviceCounters::motions_rejected), instead
    /// of in a pass of their own when it plans ([`crate::Counters::motions_rejected`]): a
    /// frame reads its motions once, not twice. Default `false`.
    pub staged_motion_writes: bool,
    /// The device samples a host's 2D texture as a one-layer array through a view
    /// (`wgpu::TextureViewDimension::D2Array` on native wgpu and WebGPU), so a
    /// [`crate::Usage::Host`] texture is drawn with no copy. Without (GL, GLES, WebGL2, wgpu's
    /// GL backend: a `GL_TEXTURE_2D` cannot be sampled as an array), core plans a GPU copy of
    /// it into an array of its own at registration and after each
    /// [`crate::TextureStore::host_changed`]. Default `false`.
    pub host_texture_views: bool,
}

impl Limits {
    /// A device with `max_texture_units` texture units (and as many samplers),
    /// `max_array_layers` layers per array texture and `max_texture_size_px` a side; layer
    /// counts unambiguous, buffers unbounded (`u64::MAX`). Refine with the `with_*` methods.
    pub const fn new(max_texture_units: u32, max_array_layers: u32, max_texture_size_px: u32) -> Self {
        Self {
            max_texture_units,
            max_samplers: max_texture_units,
            max_array_layers,
            max_texture_size_px,
            avoid_ambiguous_layer_counts: false,
            max_buffer_bytes: u64::MAX,
            software_rasterizer: false,
            format_families: FormatFamilies::RGBA8,
            compressed_copies: true,
            max_storage_binding_bytes: 0,
            staged_motion_writes: false,
            host_texture_views: false,
        }
    }

    /// Whether the device culls on the GPU: a compute pass with storage buffers that writes
    /// the arguments of indirect draws (`max_storage_binding_bytes` above 0).
    pub const fn gpu_culling(&self) -> bool {
        self.max_storage_binding_bytes > 0
    }

    /// Sets `max_storage_binding_bytes`.
    #[must_use]
    pub const fn with_max_storage_binding_bytes(mut self, max_storage_binding_bytes: u64) -> Self {
        self.max_storage_binding_bytes = max_storage_binding_bytes;
        self
    }

    /// Sets `staged_motion_writes`.
    #[must_use]
    pub const fn with_staged_motion_writes(mut self, staged_motion_writes: bool) -> Self {
        self.staged_motion_writes = staged_motion_writes;
        self
    }

    /// Sets `host_texture_views`.
    #[must_use]
    pub const fn with_host_texture_views(mut self, host_texture_views: bool) -> Self {
        self.host_texture_views = host_texture_views;
        self
    }

    /// Sets `max_texture_units`.
    #[must_use]
    pub const fn with_max_texture_units(mut self, max_texture_units: u32) -> Self {
        self.max_texture_units = max_texture_units;
        self
    }
    /// Sets `max_samplers`.
    #[must_use]
    pub const fn with_max_samplers(mut self, max_samplers: u32) -> Self {
        self.max_samplers = max_samplers;
        self
    }
    /// Sets `max_array_layers`.
    #[must_use]
    pub const fn with_max_array_layers(mut self, max_array_layers: u32) -> Self {
        self.max_array_layers = max_array_layers;
        self
    }
    /// Sets `max_texture_size_px`.
    #[must_use]
    pub const fn with_max_texture_size_px(mut self, max_texture_size_px: u32) -> Self {
        self.max_texture_size_px = max_texture_size_px;
        self
    }
    /// Sets `avoid_ambiguous_layer_counts`.
    #[must_use]
    pub const fn with_avoid_ambiguous_layer_counts(mut self, avoid_ambiguous_layer_counts: bool) -> Self {
        self.avoid_ambiguous_layer_counts = avoid_ambiguous_layer_counts;
        self
    }
    /// Sets `max_buffer_bytes`.
    #[must_use]
    pub const fn with_max_buffer_bytes(mut self, max_buffer_bytes: u64) -> Self {
        self.max_buffer_bytes = max_buffer_bytes;
        self
    }
    /// Sets `software_rasterizer`.
    #[must_use]
    pub const fn with_software_rasterizer(mut self, software_rasterizer: bool) -> Self {
        self.software_rasterizer = software_rasterizer;
        self
    }
    /// Sets `format_families` (RGBA8 is always among them).
    #[must_use]
    pub const fn with_format_families(mut self, format_families: FormatFamilies) -> Self {
        self.format_families = format_families.with(FormatFamily::Rgba8);
        self
    }
    /// Sets `compressed_copies`.
    #[must_use]
    pub const fn with_compressed_copies(mut self, compressed_copies: bool) -> Self {
        self.compressed_copies = compressed_copies;
        self
    }

    /// The weakest device layerbatch supports: GLES 3.0 / WebGL2 / wgpu downlevel. 16 texture
    /// units and samplers, 256 array layers, 2048 px.
    pub const fn guaranteed_minimum() -> Self {
        Self {
            max_texture_units: 16,
            max_samplers: 16,
            max_array_layers: 256,
            max_texture_size_px: 2048,
            avoid_ambiguous_layer_counts: false,
            max_buffer_bytes: 256 << 20,
            software_rasterizer: false,
            format_families: FormatFamilies::RGBA8,
            compressed_copies: true,
            max_storage_binding_bytes: 0,
            staged_motion_writes: false,
            host_texture_views: false,
        }
    }

    /// A typical desktop GL 4.x driver: 32 units, 2048 layers, 16384 px.
    pub const fn desktop() -> Self {
        Self {
            max_texture_units: 32,
            max_samplers: 32,
            max_array_layers: 2048,
            max_texture_size_px: 16384,
            avoid_ambiguous_layer_counts: false,
            max_buffer_bytes: u64::MAX,
            software_rasterizer: false,
            format_families: FormatFamilies::RGBA8,
            compressed_copies: true,
            max_storage_binding_bytes: 0,
            staged_motion_writes: false,
            host_texture_views: false,
        }
    }
}

/// How backends feed quads to the GPU. Either way a quad is one 64-byte [`Instance`](crate::plan::Instance) in the
/// plan and the pixels are the same; what differs is the vertex bytes and the draw call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuadVertices {
    /// [`QuadVertices::Indexed`] on a software rasterizer ([`Limits::software_rasterizer`]),
    /// [`QuadVertices::Instanced`] elsewhere. The default.
    #[default]
    Auto,
    /// One instance per quad, drawn instanced over 4 vertices: [`Instance::BYTES`](crate::plan::Instance::BYTES) a quad.
    /// Measured on an NVIDIA H200 (stress scene, 20,000 to 1,000,000 sprites, CPU-bound): 3-19%
    /// shorter frames than indexed quads, for a quarter of the bytes.
    Instanced,
    /// Each instance written once per corner and drawn as two indexed triangles
    /// ([`Instance::VERTICES`](crate::plan::Instance::VERTICES)): [`Instance::QUAD_BYTES`](crate::plan::Instance::QUAD_BYTES) a quad. Software rasterizers run an
    /// instanced draw as one internal draw per instance. In Chromium's SwiftShader, in one
    /// run (20,000 sprites of one texture), layerbatch-gl took 291 ms a frame instanced and
    /// 118 ms indexed, layerbatch-wgpu on WebGL2 505 and 116 ms.
    Indexed,
}

/// Which bound array the slot ladder replaces when a quad needs an array no slot holds and no
/// slot is free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VictimChoice {
    /// The slot whose array is next used farthest ahead in the recorded frame (Belady). About
    /// one bind per flush on a round-robin. The default: frames are recorded before planning.
    NextUse,
    /// The least recently used slot. Re-binds on nearly every quad of a round-robin.
    LeastRecentlyUsed,
    /// Flush and drop every assignment whenever the slots are full (what melonJS did). Counted
    /// as a cache reset. Only for comparisons: never use it in production.
    WipeAll,
}

/// What the caller asks for. Every field is clamped by the device's [`Limits`] into a
/// [`Budget`](crate::Budget).
///
/// `#[non_exhaustive]`: start from `Config::default()` and change fields with the `with_*`
/// methods (or assign them), so that new options can be added without breaking callers.
///
/// ```
/// use layerbatch_core::Config;
/// let config = Config::default().with_max_slots(8).with_keep_pixels(true);
/// assert_eq!((config.max_slots, config.instance_capacity), (8, 65536));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Config {
    /// Most slots (bound arrays) one draw may sample. Default 16, the guaranteed minimum.
    /// Clamped to the device's units and to [`MAX_SLOTS_PER_DRAW`].
    pub max_slots: u32,
    /// Share arrays between textures of one size class. Default `true`. With `false`, every
    /// texture gets its own one-texture array: a plain slot ladder, for comparison.
    pub arrays_enabled: bool,
    /// Layer cap per array. Default 256. Clamped to the device's `max_array_layers`.
    pub max_layers_per_array: u32,
    /// Layers of a newly opened array; it then doubles up to the cap. Default 4.
    pub initial_layers: u32,
    /// Hard cap on bytes of GPU texture memory the allocator may hold at any moment, mips and
    /// growth copies included. Default 256 MiB.
    pub budget_bytes: u64,
    /// Textures wider or taller than this get their own array. Default 1024. Clamped to the
    /// device's `max_texture_size_px`.
    pub max_class_size_px: u32,
    /// A texture is padded up to the next power-of-two class when at most this fraction of the
    /// padded layer is wasted; otherwise it gets a class of its own exact size. 0 disables
    /// padding. Default 0.5.
    pub max_padding_waste: f32,
    /// Quads per vertex-buffer block. A frame with more quads flushes (counted) at each
    /// multiple. Default 65536: 4 MiB of instances, or with indexed quads
    /// ([`QuadVertices::Indexed`]) 16 MiB of vertices (4 of 64 bytes a quad,
    /// [`Instance::QUAD_BYTES`](crate::plan::Instance::QUAD_BYTES)) and an index buffer of 1.5 MiB (6 `u32` a quad) that each
    /// backend makes once. Clamped so one block fits the device's `max_buffer_bytes`.
    pub instance_capacity: u32,
    /// Victim choice of the slot ladder. Default [`VictimChoice::NextUse`].
    pub victim: VictimChoice,
    /// Static clamp-to-edge textures of one level, at most this many pixels a side, are packed
    /// into rectangles of shared atlas pages (one array per format and filter) instead of a
    /// size class each. 0 turns packing off. Default 2048, the page size: backgrounds share
    /// pages too, so a real game's set lives in few arrays (the 759 images of a real CC0 pack,
    /// up to 1664x1536 in pages: two arrays at 1.085x their texel bytes, one draw at tier 2;
    /// with 256, each image over 256 px took a class of its own).
    pub max_packed_size_px: u32,
    /// Side of a full atlas page, pixels. A page array starts at 16 px (or the first
    /// texture's size) and grows one side at a time (256x256 to 512x256), in powers of two,
    /// up to this while it is one page, then by an eighth more layers; a set registered
    /// before its first plan is laid out at the page size (any power-of-two width and height
    /// up to this, any layer count) that takes the fewest bytes. Default 2048 (the guaranteed minimum texture size):
    /// the real pack above needs 2048 for its 1664x1536 sheet, and a set of small images is
    /// laid out in smaller pages anyway. Clamped to the device's texture size; raised to
    /// `max_packed_size_px`.
    pub page_size_px: u32,
    /// Repack a page array whose texels fill less than half of it into a smaller array (GPU
    /// copies, counted as `rect_copies`) when that has held for 3 plans, and settle an array
    /// untouched for 30 plans into its canonical layout (pages) or its used layers (classes)
    /// when that saves memory. Default `true`. [`crate::TextureStore::compact`] repacks on demand.
    pub auto_compact: bool,
    /// How backends draw quads. Default [`QuadVertices::Auto`]: indexed on software
    /// rasterizers, instanced elsewhere.
    pub quad_vertices: QuadVertices,
    /// Keep a CPU copy of every texture's level-0 pixels (render targets excepted), so that
    /// [`crate::Batcher::restore`] after a lost context or device re-uploads everything by
    /// itself. Costs the texels' bytes in RAM, reported as `Counters::cpu_copy_bytes`.
    /// Default `false`: `restore` returns the ids the host must re-upload.
    pub keep_pixels: bool,
    /// The effects quads may draw with ([`crate::Effect`]; none by default), in the order of
    /// their ids from 1 ([`crate::EffectId`]). Both backends compile every one into every tier
    /// program when the renderer is made, so the program set never changes after: a changed
    /// set means a new batcher and renderer. At most [`crate::MAX_EFFECTS`].
    pub effects: &'static [crate::Effect],
    /// Point lights a frame draws with at most ([`crate::PointLight`]); 0, the default, turns
    /// lights off. Every tier program then reads this many lights and a sibling normal-map
    /// array per slot, so a lit draw covers half the slots ([`Budget::slots`](crate::Budget::slots)). At most
    /// [`crate::MAX_LIGHTS`].
    pub lights: u32,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_slots: 16,
            arrays_enabled: true,
            max_layers_per_array: 256,
            initial_layers: 4,
            budget_bytes: 256 << 20,
            max_class_size_px: 1024,
            max_padding_waste: 0.5,
            instance_capacity: 65536,
            victim: VictimChoice::NextUse,
            max_packed_size_px: 2048,
            page_size_px: 2048,
            auto_compact: true,
            quad_vertices: QuadVertices::Auto,
            keep_pixels: false,
            effects: &[],
            lights: 0,
        }
    }
}

impl Config {
    /// Sets `max_packed_size_px`.
    #[must_use]
    pub const fn with_max_packed_size_px(mut self, max_packed_size_px: u32) -> Self {
        self.max_packed_size_px = max_packed_size_px;
        self
    }
    /// Sets `page_size_px`.
    #[must_use]
    pub const fn with_page_size_px(mut self, page_size_px: u32) -> Self {
        self.page_size_px = page_size_px;
        self
    }
    /// Sets `auto_compact`.
    #[must_use]
    pub const fn with_auto_compact(mut self, auto_compact: bool) -> Self {
        self.auto_compact = auto_compact;
        self
    }
    /// Sets `quad_vertices`.
    #[must_use]
    pub const fn with_quad_vertices(mut self, quad_vertices: QuadVertices) -> Self {
        self.quad_vertices = quad_vertices;
        self
    }
    /// Sets `max_slots`.
    #[must_use]
    pub const fn with_max_slots(mut self, max_slots: u32) -> Self {
        self.max_slots = max_slots;
        self
    }
    /// Sets `arrays_enabled`.
    #[must_use]
    pub const fn with_arrays_enabled(mut self, arrays_enabled: bool) -> Self {
        self.arrays_enabled = arrays_enabled;
        self
    }
    /// Sets `max_layers_per_array`.
    #[must_use]
    pub const fn with_max_layers_per_array(mut self, max_layers_per_array: u32) -> Self {
        self.max_layers_per_array = max_layers_per_array;
        self
    }
    /// Sets `initial_layers`.
    #[must_use]
    pub const fn with_initial_layers(mut self, initial_layers: u32) -> Self {
        self.initial_layers = initial_layers;
        self
    }
    /// Sets `budget_bytes`.
    #[must_use]
    pub const fn with_budget_bytes(mut self, budget_bytes: u64) -> Self {
        self.budget_bytes = budget_bytes;
        self
    }
    /// Sets `max_class_size_px`.
    #[must_use]
    pub const fn with_max_class_size_px(mut self, max_class_size_px: u32) -> Self {
        self.max_class_size_px = max_class_size_px;
        self
    }
    /// Sets `max_padding_waste`.
    #[must_use]
    pub const fn with_max_padding_waste(mut self, max_padding_waste: f32) -> Self {
        self.max_padding_waste = max_padding_waste;
        self
    }
    /// Sets `effects`.
    ///
    /// ```
    /// use layerbatch_core::{Config, Effect};
    /// const EFFECTS: [Effect; 5] = Effect::BUILT_IN;
    /// let config = Config::default().with_effects(&EFFECTS);
    /// assert_eq!(config.effects.len(), 5);
    /// ```
    #[must_use]
    pub const fn with_effects(mut self, effects: &'static [crate::Effect]) -> Self {
        self.effects = effects;
        self
    }
    /// Sets `lights`.
    ///
    /// ```
    /// use layerbatch_core::{Budget, Config, Limits};
    /// let lit = Budget::new(&Limits::guaranteed_minimum(), &Config::default().with_lights(8)).unwrap();
    /// assert_eq!((lit.max_lights, lit.slots), (8, 8)); // 16 samplers: 8 slots, 8 normal maps
    /// ```
    #[must_use]
    pub const fn with_lights(mut self, lights: u32) -> Self {
        self.lights = lights;
        self
    }
    /// Sets `instance_capacity`.
    #[must_use]
    pub const fn with_instance_capacity(mut self, instance_capacity: u32) -> Self {
        self.instance_capacity = instance_capacity;
        self
    }
    /// Sets `victim`.
    #[must_use]
    pub const fn with_victim(mut self, victim: VictimChoice) -> Self {
        self.victim = victim;
        self
    }
    /// Sets `keep_pixels`.
    #[must_use]
    pub const fn with_keep_pixels(mut self, keep_pixels: bool) -> Self {
        self.keep_pixels = keep_pixels;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Budget, ConfigError};

    #[test]
    fn guaranteed_minimum_budget() {
        let cfg = Config { max_slots: 32, max_layers_per_array: 2048, max_class_size_px: 4096, ..Config::default() };
        let b = Budget::new(&Limits::guaranteed_minimum(), &cfg).unwrap();
        assert_eq!(b.slots, 16);
        assert_eq!(b.tiers, [1, 2, 4, 8, 16]);
        assert_eq!(b.max_layers_per_array, 256);
        assert_eq!(b.max_class_size_px, 2048);
        assert_eq!(b.max_texture_size_px, 2048);
        assert_eq!(b.budget_bytes, 256 << 20);
    }

    #[test]
    fn desktop_budget() {
        let cfg = Config { max_slots: 32, max_layers_per_array: 2048, max_class_size_px: 4096, ..Config::default() };
        let b = Budget::new(&Limits::desktop(), &cfg).unwrap();
        assert_eq!(b.slots, 32);
        assert_eq!(b.tiers, [1, 2, 4, 8, 16, 32]);
        assert_eq!(b.max_layers_per_array, 2048);
        assert_eq!(b.max_class_size_px, 4096);
        // Defaults stay within the guaranteed minimum even on a bigger device.
        let d = Budget::new(&Limits::desktop(), &Config::default()).unwrap();
        assert_eq!((d.slots, d.max_layers_per_array, d.max_class_size_px), (16, 256, 1024));
        // Odd unit counts get a last tier of their own; 37 (lavapipe) is capped at 32.
        let odd = Limits { max_texture_units: 10, ..Limits::desktop() };
        assert_eq!(Budget::new(&odd, &cfg).unwrap().tiers, [1, 2, 4, 8, 10]);
        let lvp = Limits { max_texture_units: 37, ..Limits::desktop() };
        assert_eq!(Budget::new(&lvp, &cfg).unwrap().slots, 32);
    }

    #[test]
    fn tier_for() {
        let b = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
        assert_eq!([1, 2, 3, 4, 5, 9, 16].map(|k| b.tier_for(k)), [1, 2, 4, 4, 8, 16, 16]);
        assert_eq!(b.tier_for(0), 1);
    }

    #[test]
    fn bad_config_is_an_error() {
        let l = Limits::guaranteed_minimum();
        assert!(matches!(
            Budget::new(&l, &Config { max_slots: 0, ..Config::default() }),
            Err(ConfigError::Zero("max_slots"))
        ));
        assert!(Budget::new(&l, &Config { max_padding_waste: 1.5, ..Config::default() }).is_err());
        assert!(Budget::new(&l, &Config { max_padding_waste: f32::NAN, ..Config::default() }).is_err());
        assert!(Budget::new(&Limits { max_texture_units: 0, ..l }, &Config::default()).is_err());
    }
}
