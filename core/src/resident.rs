//! Resident layers: quads recorded once and kept on the device, drawn each frame by one item
//! in the stream ([`crate::TextureStore::create_resident`], [`crate::Batcher::draw_resident`]).

use crate::{Affine2, QuadError, ResidentId, TextureId};

/// How a resident layer is drawn ([`crate::Batcher::draw_resident`]), on top of the batcher's
/// draw state at that point (its blend mode, clip and transform).
///
/// ```
/// use layerbatch_core::{Affine2, ResidentStyle};
/// let style = ResidentStyle::default().with_transform(Affine2::translation(-40.0, 0.0)).with_tint([0.5, 0.5, 0.5, 0.5]);
/// assert!(style.visible);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ResidentStyle {
    /// Applied to the layer's quads before the batcher's transform (a scroll, a parallax
    /// offset). Default identity.
    pub transform: Affine2,
    /// Premultiplied RGBA (`0.0..=1.0`) multiplied with every quad's tint (a fade: all four
    /// channels by the same factor). Default `[1, 1, 1, 1]`.
    pub tint: [f32; 4],
    /// Pixels outside `[x, y, width, height]` of the target are left untouched; intersected
    /// with the batcher's clip. Default `None`.
    pub clip_px: Option<[u32; 4]>,
    /// `false`: drawing the layer records nothing and costs nothing. Default `true`.
    pub visible: bool,
}

impl Default for ResidentStyle {
    fn default() -> Self {
        Self { transform: Affine2::default(), tint: [1.0; 4], clip_px: None, visible: true }
    }
}

impl ResidentStyle {
    /// With `transform`.
    #[must_use]
    pub fn with_transform(mut self, transform: impl Into<Affine2>) -> Self {
        self.transform = transform.into();
        self
    }
    /// With `tint` (premultiplied).
    #[must_use]
    pub const fn with_tint(mut self, tint: [f32; 4]) -> Self {
        self.tint = tint;
        self
    }
    /// With `clip_px`.
    #[must_use]
    pub const fn with_clip(mut self, clip_px: Option<[u32; 4]>) -> Self {
        self.clip_px = clip_px;
        self
    }
    /// With `visible`.
    #[must_use]
    pub const fn with_visible(mut self, visible: bool) -> Self {
        self.visible = visible;
        self
    }
}

/// Why a resident layer could not be created, updated, drawn or destroyed. Nothing changed
/// when one is returned.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ResidentError {
    /// The id names a destroyed resident, or another batcher's.
    #[error("resident layer {0:?} was destroyed, or belongs to another batcher")]
    Stale(ResidentId),
    /// A quad cannot be recorded: a stale texture, a coordinate out of range.
    #[error("quad {index} of the resident layer: {error}")]
    Quad {
        /// Index of the quad in the slice given.
        index: usize,
        /// Why.
        error: QuadError,
    },
    /// A resident layer holds at least one quad.
    #[error("a resident layer holds at least one quad")]
    Empty,
    /// The layer's buffer would pass the device's largest buffer.
    #[error(
        "{instances} quads make {bytes} bytes of resident vertices ({quad_bytes} a quad): above the device's \
         largest buffer of {max_buffer_bytes} bytes; split the layer"
    )]
    TooLarge {
        /// Quads asked for.
        instances: usize,
        /// Bytes they take on the device.
        bytes: u64,
        /// Bytes a quad takes: [`crate::plan::Instance::quad_bytes`] of the budget's `indexed_quads`.
        quad_bytes: u32,
        /// The device's `max_buffer_bytes`.
        max_buffer_bytes: u64,
    },
    /// The layer's buffer does not fit the byte budget beside what is held.
    #[error(
        "a resident layer of {requested_bytes} bytes does not fit the budget of {budget_bytes} bytes beside \
         the {held_bytes} held (textures and resident layers)"
    )]
    OverBudget {
        /// Bytes of the layer.
        requested_bytes: u64,
        /// Bytes held against the budget now.
        held_bytes: u64,
        /// The budget.
        budget_bytes: u64,
    },
    /// The layer's quads sample more arrays than one draw can bind.
    #[error("the resident layer's quads sample {arrays} texture arrays; one draw binds at most {slots}")]
    TooManyArrays {
        /// Arrays its textures live in.
        arrays: usize,
        /// The budget's slots.
        slots: u32,
    },
    /// An update names quads past the layer's end.
    #[error("quads {first}..{end} are outside the resident layer's {len}", end = *first as u64 + *count as u64)]
    OutOfRange {
        /// The first quad named.
        first: u32,
        /// Quads given.
        count: usize,
        /// Quads the layer holds.
        len: u32,
    },
    /// A moving layer's sprite count passes what its motion texture can hold.
    #[error(
        "a moving layer of {sprites} sprites: its motion texture holds at most {max_sprites} \
         (1024 a row, {max_texture_size_px} rows, the device's largest texture); split the layer"
    )]
    TooManySprites {
        /// Sprites asked for.
        sprites: usize,
        /// `MOTION_ROW_TEXELS * max_texture_size_px`.
        max_sprites: u64,
        /// The device's largest texture side.
        max_texture_size_px: u32,
    },
    /// Motions given for a layer made without them ([`crate::TextureStore::create_resident`]
    /// instead of [`crate::TextureStore::create_moving`]).
    #[error("resident layer {0:?} is not a moving layer: make it with create_moving")]
    NotMoving(ResidentId),
    /// A motion with a NaN or infinite component.
    #[error("motion {index} is not finite: {motion:?}")]
    BadMotion {
        /// Index of the motion in the slice given.
        index: usize,
        /// The motion.
        motion: crate::Motion,
    },
    /// A tile grid's cells on the device need a device that culls on the GPU
    /// ([`crate::Limits::gpu_culling`]), storage bindings as large as the cells, and quads
    /// drawn instanced ([`crate::Budget::indexed_quads`] false). [`crate::tilegrid::TileGrid`]
    /// draws on the CPU then.
    #[error(
        "a tile grid of {cells} cells ({bytes} bytes) on the device needs GPU culling: storage bindings of \
         {max_storage_binding_bytes} bytes (0: no compute pass), indexed quads {indexed_quads}"
    )]
    NoGpuGrid {
        /// Cells of the grid.
        cells: usize,
        /// Bytes of its cell buffer, 4 a cell.
        bytes: u64,
        /// The device's largest storage binding ([`crate::Limits::max_storage_binding_bytes`],
        /// within its largest buffer).
        max_storage_binding_bytes: u64,
        /// The budget draws indexed quads (a tile grid's GPU path draws instanced).
        indexed_quads: bool,
    },
    /// The layer is not a tile grid's ([`crate::tilegrid::TileGrid`]).
    #[error("resident layer {0:?} is not a tile grid's layer")]
    NotGrid(ResidentId),
    /// Drawn outside a frame.
    #[error("no frame is open: draw resident layers between begin_frame and finish")]
    NoFrame,
    /// Drawn into a render target one of its quads samples.
    #[error("resident layer {resident:?} samples texture {texture:?}, the render target of this frame")]
    SamplesTarget {
        /// The layer.
        resident: ResidentId,
        /// The target.
        texture: TextureId,
    },
}
