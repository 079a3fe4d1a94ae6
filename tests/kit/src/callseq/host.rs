//! Host textures in the model: registered with [`Usage::Host`], drawn into by the host on the
//! mock device ([`layerbatch_core::MockDevice::set_host_texture`]), announced with
//! `host_changed` (or not), resized, freed, and brought back after a restore, on a device
//! that views them (the `desktop` setup, as wgpu) or copies them (the others, as GL).
//!
//! What a quad of a host texture must show: on a viewing device, what the host drew last,
//! always; on a copying one, what it drew last when it said so with `host_changed` (or
//! registered, resized or restored it) and drew nothing since: otherwise not known.

use layerbatch_core::{Filter, MockDevice, TextureDesc, TextureError, Usage};

use super::ops::{solid, trace};
use super::{Choices, World};

impl World {
    /// Registers a host texture, and the host makes its texture on the device.
    pub(super) fn register_host(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let side = |c: &mut dyn Choices| 1 + c.below(32) as u32;
        let desc = TextureDesc::new(side(c), side(c)).with_filter(Filter::Nearest).with_usage(Usage::Host);
        match self.batcher.textures().register(&desc, &[]) {
            Ok(id) => {
                let color = self.color(c);
                let px = solid(&desc, color);
                self.hand_over(id, [desc.width_px, desc.height_px], &px);
                trace(|| format!("register host texture {id:?} {desc:?}"));
                self.model.written(id, desc, &px, Some(color));
                Ok(())
            }
            Err(TextureError::BudgetExhausted { .. }) => {
                self.tally.refused += 1;
                Ok(())
            }
            Err(e) => Err(format!("register host texture {desc:?}: {e}")),
        }
    }

    /// The host draws into one of its textures, and says so (mostly); or misuses the API.
    pub(super) fn host_draw(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        if c.chance(10) {
            // Misuse: pixels for a host texture, or host_changed on another texture.
            return self.host_misuse(c);
        }
        let Some(id) = self.pick(c, |t| t.desc.usage == Usage::Host) else { return Ok(()) };
        let desc = self.model.live[&id].desc;
        let color = self.color(c);
        let px = solid(&desc, color);
        self.hand_over(id, [desc.width_px, desc.height_px], &px);
        let told = c.chance(75);
        if told {
            self.batcher.textures().host_changed(id).map_err(|e| format!("host_changed {id:?}: {e}"))?;
        }
        trace(|| format!("host draws into {id:?}, told: {told}"));
        let views = self.batcher.budget().host_texture_views;
        self.model.written(id, desc, &px, Some(color));
        if !(told || views) {
            let t = self.model.live.get_mut(&id).ok_or("drew into a dead texture")?;
            (t.content, t.color) = (None, None);
        }
        Ok(())
    }

    fn host_misuse(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        if let Some(id) = self.pick(c, |t| t.desc.usage == Usage::Host) {
            let desc = self.model.live[&id].desc;
            let px = solid(&desc, [1, 2, 3, 255]);
            match self.batcher.textures().update(id, &px) {
                Err(TextureError::HostPixels { texture: Some(t), .. }) if t == id => {}
                r => return Err(format!("update of host texture {id:?}: {r:?}")),
            }
        }
        if let Some(id) = self.pick(c, |t| t.desc.usage != Usage::Host) {
            match self.batcher.textures().host_changed(id) {
                Err(TextureError::NotHost(t)) if t == id => {}
                r => return Err(format!("host_changed of {id:?}, no host texture: {r:?}")),
            }
        }
        self.tally.refused += 1;
        Ok(())
    }

    /// After a resize of host texture `desc` (the new size): the host's texture of that size.
    pub(super) fn host_resized(&mut self, id: layerbatch_core::TextureId, desc: TextureDesc, px: &[u8]) {
        self.hand_over(id, [desc.width_px, desc.height_px], px);
    }

    /// The host's texture for `id` is `size` and shows `px` now, on the mock device; kept to
    /// hand to a new device after a restore.
    fn hand_over(&mut self, id: layerbatch_core::TextureId, size: [u32; 2], px: &[u8]) {
        self.device.set_host_texture(id, size, px);
        self.host_textures.insert(id, (size, px.to_vec()));
    }

    /// After a restore: the host hands a new device its textures again (a kept device still
    /// holds them), and every host texture's array is filled again from what the host drew
    /// last.
    pub(super) fn host_restored(&mut self) {
        // Freed ones too: a frame may still draw them (the host keeps a texture until the plan
        // after its free).
        for (id, (size, px)) in &self.host_textures {
            self.device.set_host_texture(*id, *size, px);
        }
        for (_, t) in self.model.live.iter_mut().filter(|(_, t)| t.desc.usage == Usage::Host) {
            t.content = Some(MockDevice::hash(&t.pixels));
            t.color = t.pixels.get(..4).map(|p| [p[0], p[1], p[2], p[3]]);
        }
    }
}
