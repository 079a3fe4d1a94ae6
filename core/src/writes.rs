//! The pending layer writes of each texture, so that a whole write supersedes the texture's
//! earlier ones: a host that updates a texture a thousand times while it skips frames queues
//! one write, not a thousand.
//!
//! Nothing is ever removed from the pending ops in place: an op that no longer belongs in
//! the plan (a superseded write, a resident's creation taken back) is a tombstone here until
//! the ops are compacted, which re-indexes every live write. So the indices this table keeps
//! never shift under it (a removal did once, and `finish` panicked or dropped another
//! texture's upload).

use std::collections::HashMap;

use crate::plan::ResourceOp;
use crate::TextureId;

/// Dead bytes above which pending writes are compacted before the plan (when they are also
/// more than the live ones): memory stays bounded however long a host goes without `finish`.
const COMPACT_ABOVE_BYTES: u64 = 4 << 20;

#[derive(Debug, Default)]
pub(crate) struct PendingWrites {
    /// Indices into the pending ops of each texture's writes. By id, not registry index: a
    /// texture freed in a frame that draws it keeps its writes when its index is reused.
    by_texture: HashMap<TextureId, Vec<u32>>,
    /// Indices of superseded writes and taken-back ops (tombstones).
    dead: Vec<u32>,
    dead_bytes: u64,
}

impl PendingWrites {
    /// Bytes of superseded writes not yet reclaimed.
    pub(crate) fn dead_bytes(&self) -> usize {
        self.dead_bytes as usize
    }

    /// Op `op` (about to be pushed, or just pushed) writes texture `texture`.
    pub(crate) fn note(&mut self, texture: TextureId, op: usize) {
        self.by_texture.entry(texture).or_default().push(op as u32);
    }

    /// Every pending write of `texture` is dead (of its colour or its normal map, by
    /// `normal_map`; `None`: both): a whole write follows, or the texture was freed with no
    /// frame drawing it. Compacts `ops` and `upload` when dead bytes dominate.
    pub(crate) fn supersede(
        &mut self,
        texture: TextureId,
        normal_map: Option<bool>,
        ops: &mut Vec<ResourceOp>,
        upload: &mut Vec<u8>,
    ) {
        let Some(list) = self.by_texture.get_mut(&texture) else { return };
        let (dead, dead_bytes) = (&mut self.dead, &mut self.dead_bytes);
        list.retain(|&i| match ops.get(i as usize) {
            // The op's own texture is checked too: an index that pointed elsewhere would kill
            // another texture's upload.
            Some(ResourceOp::WriteLayer { texture: t, bytes, normal_map: n, .. })
                if *t == texture && normal_map.is_none_or(|w| w == *n) =>
            {
                *dead_bytes += bytes.len() as u64;
                dead.push(i);
                false
            }
            _ => true,
        });
        let live_bytes = upload.len() as u64 - self.dead_bytes.min(upload.len() as u64);
        if self.dead_bytes > COMPACT_ABOVE_BYTES && self.dead_bytes > live_bytes {
            self.compact(ops, upload);
        }
    }

    /// Op `op` (a resource op that carries no bytes) leaves the plan: a tombstone until the
    /// ops are compacted.
    pub(crate) fn take_back(&mut self, op: usize) {
        if !self.is_dead(op) {
            self.dead.push(op as u32);
        }
    }

    /// Whether op `op` is superseded or taken back.
    pub(crate) fn is_dead(&self, op: usize) -> bool {
        self.dead.contains(&(op as u32))
    }

    /// Removes the dead writes and their bytes, and forgets every index: the ops are handed
    /// over in a plan, or rebuilt.
    pub(crate) fn drop_superseded(&mut self, ops: &mut Vec<ResourceOp>, upload: &mut Vec<u8>) {
        if !self.dead.is_empty() {
            self.compact(ops, upload);
        }
        // Every plan: clearing walks the whole table even when it is empty, so only clear
        // one that holds something (a load of 40,000 textures leaves a large one behind).
        if !self.by_texture.is_empty() {
            self.by_texture.clear();
        }
    }

    /// Drops the dead writes, packs the live bytes, and re-indexes the live writes.
    fn compact(&mut self, ops: &mut Vec<ResourceOp>, upload: &mut Vec<u8>) {
        let mut dead = vec![false; ops.len()];
        for &i in &self.dead {
            if let Some(d) = dead.get_mut(i as usize) {
                *d = true;
            }
        }
        let live_bytes = upload.len() - (self.dead_bytes as usize).min(upload.len());
        let mut packed = Vec::with_capacity(live_bytes);
        let mut k = 0;
        ops.retain_mut(|op| {
            let keep = !dead[k];
            k += 1;
            if let (true, ResourceOp::WriteLayer { bytes, .. }) = (keep, op) {
                let start = packed.len();
                packed.extend_from_slice(&upload[bytes.clone()]);
                *bytes = start..packed.len();
            }
            keep
        });
        *upload = packed;
        self.dead.clear();
        self.dead_bytes = 0;
        self.by_texture.clear();
        for (i, op) in ops.iter().enumerate() {
            if let ResourceOp::WriteLayer { texture, .. } = op {
                self.note(*texture, i);
            }
        }
    }
}
