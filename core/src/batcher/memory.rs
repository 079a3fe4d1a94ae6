//! Memory by format: what a batcher's textures take against what their arrays hold.

use super::Batcher;
use crate::texture::mip_chain_bytes;
use crate::Format;

/// The memory of one format ([`TextureStore::memory_by_format`](crate::TextureStore::memory_by_format)). Bytes are as stored: blocks, for a
/// compressed format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FormatMemory {
    /// The format.
    pub format: Format,
    /// Live textures of the format.
    pub textures: u64,
    /// Their own bytes: every level of each, in whole blocks (an RGBA8 texture's mips are
    /// core's).
    pub texel_bytes: u64,
    /// Bytes of the arrays of the format, against the budget.
    pub allocated_bytes: u64,
}

impl Default for Format {
    /// [`Format::Rgba8Unorm`].
    fn default() -> Self {
        Format::Rgba8Unorm
    }
}

impl Batcher {
    pub(crate) fn memory_by_format(&self) -> Vec<FormatMemory> {
        let mut rows: Vec<(Format, u64, u64, u64)> = Vec::new();
        for e in self.registry.entries.iter().filter(|e| e.live) {
            let d = e.desc;
            rows.push((d.format, 1, mip_chain_bytes(d.width_px, d.height_px, d.mip_levels, d.format), 0));
        }
        for (_, desc) in self.alloc.arrays() {
            rows.push((desc.format, 0, 0, desc.bytes()));
        }
        let mut by: Vec<FormatMemory> = Vec::new();
        for (format, textures, texels, allocated) in rows {
            let i = match by.iter().position(|m| m.format == format) {
                Some(i) => i,
                None => {
                    by.push(FormatMemory { format, ..FormatMemory::default() });
                    by.len() - 1
                }
            };
            by[i].textures += textures;
            by[i].texel_bytes += texels;
            by[i].allocated_bytes += allocated;
        }
        by.sort_by_key(|m| m.format);
        by
    }
}
