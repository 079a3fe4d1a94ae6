//! GPU array textures as plans name them: ids, descriptions (with their normal-map
//! siblings), and the ops that create, grow, shrink, copy and destroy them.

use crate::texture::{mip_chain_bytes, Format, Sampler};

/// A GPU array texture. A grown or shrunk array gets a new id, and the old one is destroyed.
/// An id retired by a plan (destroyed, grown or shrunk from) may name a new array from the
/// next plan on: executors forget everything about an id when they destroy it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArrayId(pub u32);

impl ArrayId {
    /// The bit that marks an array's normal-map sibling ([`ArrayDesc::normal_map`]): no plan
    /// names an array with it; executors get the sibling of `a` as `a.normal_map()`.
    pub const NORMAL_MAP_BIT: u32 = 1 << 31;

    /// The id executors hold this array's normal-map sibling under.
    pub const fn normal_map(self) -> ArrayId {
        ArrayId(self.0 | Self::NORMAL_MAP_BIT)
    }
}

/// Everything a backend needs to create an array texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArrayDesc {
    /// Width of every layer.
    pub width_px: u32,
    /// Height of every layer.
    pub height_px: u32,
    /// Layers.
    pub layers: u32,
    /// Format of every layer.
    pub format: Format,
    /// Mip levels of every layer.
    pub mip_levels: u32,
    /// Filters and wraps of the whole array.
    pub sampler: Sampler,
    /// The array holds a [`crate::Usage::RenderTarget`] texture: plans may draw into its layer
    /// ([`super::FramePlan::target`]), so the device creates it renderable.
    pub render_target: bool,
    /// The array has a sibling: an [`Format::Rgba8Unorm`] array of the same size, layers and
    /// mip levels holding normal maps ([`crate::TextureStore::register_normal_map`]) at the same
    /// places, sampled through the same sampler. Every op on the array applies to its
    /// sibling too (growth, shrink, rectangle copies, destruction); writes with
    /// `normal_map` go to the sibling. Set for the uncompressed arrays of a batcher with
    /// lights ([`crate::Config::lights`]); counted in [`ArrayDesc::bytes`].
    pub normal_map: bool,
    /// The array is a host texture's ([`crate::Usage::Host`]): one layer (two where the
    /// budget avoids ambiguous layer counts; the texture is layer 0), one level, never written
    /// from the CPU. [`HostAccess::View`]: the executor creates nothing and makes the array a
    /// view of the host's texture at [`ArrayOp::HostContents`]; [`HostAccess::Copy`]: it
    /// creates the array as any other and copies the host's texture into layer 0 at each
    /// [`ArrayOp::HostContents`]. `None` for every other array.
    pub host: Option<HostAccess>,
}

/// How an executor shows a host texture's array ([`ArrayDesc::host`]), as core chose from
/// [`crate::Limits::host_texture_views`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostAccess {
    /// The array is the host's texture, viewed as a one-layer array: no storage, no copy, and
    /// what the host draws into it shows at once.
    View,
    /// The array is storage of its own, and the host's texture is copied into it on the GPU at
    /// each [`ArrayOp::HostContents`].
    Copy,
}

impl ArrayDesc {
    /// The description of the array's normal-map sibling: RGBA8, the same size, layers, mip
    /// levels and sampler ([`ArrayDesc::normal_map`]).
    pub const fn normal_map_sibling(&self) -> ArrayDesc {
        ArrayDesc { format: Format::Rgba8Unorm, normal_map: false, render_target: false, host: None, ..*self }
    }
    /// Bytes of one layer, all mips: 0 for a host texture's view ([`HostAccess::View`]: the
    /// host's memory). Saturates at `u64::MAX` (which no budget admits) instead of wrapping.
    pub const fn layer_bytes(&self) -> u64 {
        if matches!(self.host, Some(HostAccess::View)) {
            return 0;
        }
        let colour = mip_chain_bytes(self.width_px, self.height_px, self.mip_levels, self.format);
        match self.normal_map {
            true => colour.saturating_add(mip_chain_bytes(
                self.width_px,
                self.height_px,
                self.mip_levels,
                Format::Rgba8Unorm,
            )),
            false => colour,
        }
    }
    /// Bytes of the whole array, all layers and mips. Saturates at `u64::MAX`.
    pub const fn bytes(&self) -> u64 {
        self.layer_bytes().saturating_mul(self.layers as u64)
    }
}

/// A change to GPU arrays, produced by the allocator for the backend to apply in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayOp {
    /// Create `array` with `desc` (storage for every layer at once).
    Create {
        /// New array id.
        array: ArrayId,
        /// Its description.
        desc: ArrayDesc,
    },
    /// Create `to` with `desc`, copy layers `0..copy_layers` (all mips) of `from` into it on
    /// the GPU, then destroy `from`. `desc` has at least `from`'s layers, width and height
    /// (atlas pages grow in size before they grow in layers), and equals it otherwise; each
    /// layer is copied to the same place, `from`'s width x height at the origin, so texel
    /// coordinates stay valid.
    Grow {
        /// The full array.
        from: ArrayId,
        /// The new, larger array.
        to: ArrayId,
        /// Description of `to`.
        desc: ArrayDesc,
        /// Layers to copy (all of `from`).
        copy_layers: u32,
    },
    /// Create `to` with `desc`, copy layers `0..copy_layers` (all mips) of `from` into it on
    /// the GPU, then destroy `from`: an array whose top layers emptied gives memory back.
    /// `desc` equals `from`'s but for fewer layers.
    Shrink {
        /// The array to shrink.
        from: ArrayId,
        /// The new, smaller array.
        to: ArrayId,
        /// Description of `to`.
        desc: ArrayDesc,
        /// Layers to copy (the occupied ones, all at the bottom).
        copy_layers: u32,
    },
    /// Copy a rectangle of level 0 on the GPU, from a layer of `from` to a layer of `to`
    /// (compaction of atlas pages into a new, smaller array; both arrays have one mip level
    /// and one format). Within one array the layers differ.
    CopyRect {
        /// Source array.
        from: ArrayId,
        /// Source layer.
        from_layer: u32,
        /// Source top-left corner, texels.
        from_xy: [u32; 2],
        /// Destination array.
        to: ArrayId,
        /// Destination layer.
        to_layer: u32,
        /// Destination top-left corner, texels.
        to_xy: [u32; 2],
        /// Width and height, texels.
        size: [u32; 2],
    },
    /// Bring host texture `texture`'s contents into `array`, a host texture's array
    /// ([`ArrayDesc::host`]): make the array a view of it ([`HostAccess::View`]), or copy its
    /// level 0 into layer 0 on the GPU ([`HostAccess::Copy`]). Follows the array's creation in
    /// the same plan, and (copies only) each [`crate::TextureStore::host_changed`].
    HostContents {
        /// The host texture (the id the host handed its texture to the backend under).
        texture: crate::TextureId,
        /// Its array.
        array: ArrayId,
    },
    /// Destroy `array`.
    Destroy {
        /// The array.
        array: ArrayId,
    },
}

impl ArrayOp {
    /// Whether the op copies on the GPU (growth, shrink, rectangle copy, a host texture's
    /// contents, which may be a copy): a backend that
    /// writes texels through a queue that runs before its command stream must order later
    /// writes after it.
    pub const fn is_gpu_copy(&self) -> bool {
        matches!(
            self,
            ArrayOp::Grow { .. } | ArrayOp::Shrink { .. } | ArrayOp::CopyRect { .. } | ArrayOp::HostContents { .. }
        )
    }
}
