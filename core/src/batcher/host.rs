//! Host textures ([`Usage::Host`]): textures the host owns on the device, drawn through the
//! slot ladder from arrays that are views of them or copies made on the GPU.
//!
//! Core decides when an array takes its host texture's contents ([`ArrayOp::HostContents`]):
//! every host texture's array the plan creates (registration, resize, the rebuild after a
//! lost device) takes them once, and, where the array is a copy
//! ([`crate::plan::HostAccess::Copy`]), again after each [`TextureStore::host_changed`]. So
//! no plan makes a view without its contents, whatever happened to its texture since. The
//! contents land at the end of the plan's ops, once per array, in arrays still alive then.
//!
//! [`TextureStore::host_changed`]: crate::TextureStore::host_changed

use std::collections::BTreeMap;

use super::Batcher;
use crate::plan::{ArrayId, ArrayOp, ResourceOp};
use crate::texture::Usage;
use crate::{TextureError, TextureId};

/// The host texture each host texture's array holds, and the arrays the next plan fills.
#[derive(Debug, Default)]
pub(super) struct HostContents {
    /// Every host texture's array made, with its texture (an entry of an array destroyed since
    /// is stale until its id names another host texture's array, which replaces it; only
    /// arrays a plan creates with `ArrayDesc::host` are looked up).
    owners: BTreeMap<ArrayId, TextureId>,
    /// Copies [`crate::TextureStore::host_changed`] asked for.
    changed: BTreeMap<ArrayId, TextureId>,
}

impl Batcher {
    /// The checks of a host texture's description at registration: one level, uncompressed,
    /// no pixels.
    pub(super) fn validate_host(desc: &crate::TextureDesc, pixels: &[u8]) -> Result<(), TextureError> {
        if !pixels.is_empty() {
            return Err(TextureError::HostPixels { texture: None, pixel_bytes: pixels.len() });
        }
        if desc.mip_levels != 1 || desc.format.is_compressed() {
            return Err(TextureError::HostDesc { format: desc.format, mip_levels: desc.mip_levels });
        }
        Ok(())
    }

    /// After texture `id` got a new array (registered or resized): a host texture's array is
    /// its texture's.
    pub(super) fn note_host_array(&mut self, id: TextureId) {
        if let Ok(e) = self.registry.entry(id) {
            if e.desc.usage == Usage::Host {
                // A copy asked for into its old array is void: the new one is filled anyway.
                self.host.changed.retain(|_, t| *t != id);
                self.host.owners.insert(e.placement.array, id);
            }
        }
    }

    pub(crate) fn host_changed(&mut self, id: TextureId) -> Result<(), TextureError> {
        let e = self.registry.entry(id)?;
        if e.desc.usage != Usage::Host {
            return Err(TextureError::NotHost(id));
        }
        // A view shows what the host draws at once: nothing to plan.
        if !self.budget.host_texture_views {
            self.host.changed.insert(e.placement.array, id);
        }
        Ok(())
    }

    /// Before a restore: host textures' arrays freed while the host's frame holds frees are
    /// released now. Only plans of the lost device drew them, and their host textures may be
    /// of another size since (a resize), which no new array of the old size could show.
    pub(super) fn release_waiting_host_arrays(&mut self) {
        let waiting = std::mem::take(&mut self.frames.waiting);
        let (host, rest): (Vec<_>, Vec<_>) =
            waiting.into_iter().partition(|(p, _)| self.alloc.array(p.array).is_some_and(|d| d.host.is_some()));
        self.frames.waiting = rest;
        for (placement, _) in host {
            self.free_placement(placement);
        }
        self.drain_alloc_ops();
    }

    /// Stage: the host textures' contents, at the end of the pending ops (after every array
    /// they name is made): each host texture's array the plan creates, and each copy asked
    /// for, in arrays still alive.
    pub(super) fn plan_host_contents(&mut self) {
        if self.host.owners.is_empty() {
            return;
        }
        let mut fills = std::mem::take(&mut self.host.changed);
        for op in &self.ops {
            if let ResourceOp::Array(ArrayOp::Create { array, desc }) = op {
                if let (Some(_), Some(&texture)) = (desc.host, self.host.owners.get(array)) {
                    fills.insert(*array, texture);
                }
            }
        }
        for (array, texture) in fills {
            if self.alloc.array(array).is_some_and(|d| d.host.is_some()) {
                self.ops.push(ResourceOp::Array(ArrayOp::HostContents { texture, array }));
            }
        }
    }
}
