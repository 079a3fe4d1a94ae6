//! The texture registry: which ids are live, what each texture is and where it is stored,
//! and the 32 bytes per texture `push` reads.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::alloc::Allocator;
use crate::alloc::Placement;
use crate::ladder::SlotLadder;
use crate::plan::Instance;
use crate::texture::{Filter, Wrap};
use crate::{TextureDesc, TextureError, TextureId};

/// Tags of batchers created in this process, so an id from one is rejected by another.
static NEXT_BATCHER_TAG: AtomicU32 = AtomicU32::new(1);

#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub(super) generation: u32,
    pub(super) live: bool,
    pub(super) desc: TextureDesc,
    pub(super) placement: Placement,
    /// The level-0 pixels last written, kept when [`crate::Config::keep_pixels`] is on (empty
    /// otherwise), so [`crate::Batcher::restore`] can re-upload them itself.
    pub(super) pixels: Vec<u8>,
    /// `Some` once a normal map is registered ([`crate::TextureStore::register_normal_map`]): its
    /// level-0 pixels when [`crate::Config::keep_pixels`] is on, empty otherwise.
    pub(super) normals: Option<Vec<u8>>,
}

/// Every texture a batcher registered: entries by index, generations that retire stale ids,
/// and the batcher's tag that refuses another batcher's ids.
#[derive(Debug)]
pub(super) struct Registry {
    pub(super) tag: u32,
    pub(super) entries: Vec<Entry>,
    /// Per entry: what `push` reads.
    pub(super) hot: Vec<Hot>,
    pub(super) free_indices: Vec<u32>,
}

impl Registry {
    pub(super) fn new() -> Self {
        Self {
            tag: NEXT_BATCHER_TAG.fetch_add(1, Ordering::Relaxed),
            entries: Vec::new(),
            hot: Vec::new(),
            free_indices: Vec::new(),
        }
    }

    /// The index the next registered texture gets.
    pub(super) fn next_index(&self) -> u32 {
        self.free_indices.last().copied().unwrap_or(self.entries.len() as u32)
    }

    /// Stores a new live entry at [`Registry::next_index`] and returns its id.
    pub(super) fn insert(&mut self, entry: Entry) -> TextureId {
        let batcher = self.tag;
        match self.free_indices.pop() {
            Some(index) => {
                let e = &mut self.entries[index as usize];
                let generation = e.generation;
                *e = Entry { generation, ..entry };
                TextureId { index, generation, batcher }
            }
            None => {
                self.entries.push(Entry { generation: 1, ..entry });
                self.hot.push(Hot::DEAD);
                TextureId { index: self.entries.len() as u32 - 1, generation: 1, batcher }
            }
        }
    }

    /// Marks a live id dead: its index is reused with the next generation, until the
    /// generation range is spent. Returns its entry's CPU copy bytes, now dropped.
    pub(super) fn remove(&mut self, id: TextureId) -> u64 {
        self.hot[id.index as usize] = Hot::DEAD;
        let e = &mut self.entries[id.index as usize];
        e.live = false;
        let dropped = e.pixels.len() as u64 + e.normals.take().map_or(0, |n| n.len() as u64);
        e.pixels = Vec::new();
        if let Some(next) = e.generation.checked_add(1) {
            e.generation = next;
            self.free_indices.push(id.index);
        }
        dropped
    }

    /// The live entry of `id`.
    ///
    /// # Errors
    /// [`TextureError::Stale`] for a freed or foreign id.
    pub(super) fn entry(&self, id: TextureId) -> Result<&Entry, TextureError> {
        debug_assert_eq!(
            self.entries
                .get(id.index as usize)
                .is_some_and(|e| e.live && e.generation == id.generation && id.batcher == self.tag),
            self.hot.get(id.index as usize).is_some_and(|h| h.key == Hot::key(id.batcher, id.generation)),
        );
        match self.entries.get(id.index as usize) {
            Some(e) if e.live && e.generation == id.generation && id.batcher == self.tag => Ok(e),
            _ => Err(TextureError::Stale(id)),
        }
    }

    /// The id of the live entry at `index`.
    pub(super) fn id(&self, index: usize) -> TextureId {
        TextureId { index: index as u32, generation: self.entries[index].generation, batcher: self.tag }
    }

    /// Recomputes what `push` reads of a live entry.
    pub(super) fn refresh_hot(&mut self, index: u32, alloc: &Allocator, ladder: &SlotLadder) {
        let e = &self.entries[index as usize];
        let [x, y, w, h] = e.placement.rect_px.map(|v| v as f32);
        self.hot[index as usize] = Hot {
            key: Hot::key(self.tag, e.generation),
            uv_offset: [x, y, x, y],
            uv_scale: [w, h, w, h],
            tex_rect: rect_u16(e.placement.rect_px),
            flags_layer: flags_layer(&e.desc, &e.placement, alloc.packs(&e.desc))
                | if e.normals.is_some() { Instance::FLAG_NORMAL_MAP << Instance::FLAGS_SHIFT } else { 0 },
            array: e.placement.array.0,
            slot: ladder.resident(e.placement.array.0).unwrap_or(Hot::NO_SLOT),
        };
    }

    /// Re-reads every live texture's slot after the ladder changed.
    pub(super) fn refresh_slots(&mut self, ladder: &SlotLadder) {
        for h in self.hot.iter_mut().filter(|h| h.key != 0) {
            h.slot = ladder.resident(h.array).unwrap_or(Hot::NO_SLOT);
        }
    }
}

/// What `push` reads of a texture, kept apart from the rest of its entry so the hot loop
/// touches 32 bytes per texture.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hot {
    /// [`Hot::key`] of the live id; 0 when the index holds no live texture.
    pub(super) key: u64,
    /// The top-left corner of the texture's rectangle in its layer, texels, twice.
    pub(super) uv_offset: [f32; 4],
    /// The rectangle's width and height, twice: with `uv_offset`, one multiply-add maps a
    /// quad's UVs to texels.
    pub(super) uv_scale: [f32; 4],
    /// [`Instance::tex_rect`].
    pub(super) tex_rect: [u16; 4],
    /// Layer and flags bits of [`Instance::slot_flags_layer`].
    pub(super) flags_layer: u32,
    /// The array.
    pub(super) array: u32,
    /// The slot holding the array, or [`Hot::NO_SLOT`]. Slots change only while a frame is
    /// planned and when arrays grow or die; each refreshes this.
    pub(super) slot: u32,
}

impl Hot {
    pub(super) const DEAD: Hot = Hot {
        key: 0,
        uv_offset: [0.0; 4],
        uv_scale: [0.0; 4],
        tex_rect: [0; 4],
        flags_layer: 0,
        array: 0,
        slot: Hot::NO_SLOT,
    };
    /// No slot holds the array. Has no bit in [`Instance::SLOT_MASK`].
    pub(super) const NO_SLOT: u32 = 1 << 31;

    /// Batcher tag and generation in one word: one compare checks both. Never 0 for a live
    /// id (generations start at 1).
    pub(super) const fn key(batcher: u32, generation: u32) -> u64 {
        ((batcher as u64) << 32) | generation as u64
    }
}

/// The flags and layer of a texture's instances. `packed`: it lives in an atlas page, which may
/// grow in size around it.
fn flags_layer(desc: &TextureDesc, placement: &Placement, packed: bool) -> u32 {
    // A clamp-to-edge texture that fills its layer for good (alone in a class layer of its
    // size, or in an array of its own) is clamped by the sampler, at every mip level: the
    // shader's clamp is only for textures that share or pad their layer (never mipmapped).
    let fills_layer = !packed && placement.uv_rect == [0.0, 0.0, 1.0, 1.0];
    let sampler = desc.sampler;
    let wraps = [sampler.wrap_u, sampler.wrap_v];
    let wrap = match wraps {
        [Wrap::ClampToEdge, Wrap::ClampToEdge] if fills_layer => 0,
        [Wrap::ClampToEdge, Wrap::ClampToEdge] => Instance::FLAG_CLAMP_TO_RECT,
        _ => wraps.iter().fold(0, |flags, w| match w {
            Wrap::ClampToEdge => flags,
            Wrap::Repeat => flags | Instance::FLAG_REPEAT,
            Wrap::MirroredRepeat => flags | Instance::FLAG_MIRROR,
        }),
    };
    let linear = sampler.mag_filter == Filter::Linear || sampler.min_filter == Filter::Linear;
    let filter = if linear { Instance::FLAG_LINEAR } else { 0 };
    let alpha = if desc.alpha == crate::Alpha::Straight { Instance::FLAG_STRAIGHT_ALPHA } else { 0 };
    Instance::pack(0, wrap | filter | alpha, placement.layer)
}

/// A placement's rectangle `[x, y, w, h]` as [`Instance::tex_rect`]'s corners: whole texels,
/// within a layer no larger than the device's texture size (at most 65,535 on any device
/// `Limits` accepts; saturated otherwise).
fn rect_u16([x, y, w, h]: [u32; 4]) -> [u16; 4] {
    [x, y, x + w, y + h].map(|v| v.min(u32::from(u16::MAX)) as u16)
}
