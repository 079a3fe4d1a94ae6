//! Lights: the frame's ambient colour and point lights, which quads are lit, and the normal
//! maps beside textures (DESIGN 24: a fixed light count in every program).

use super::textures::whole_write;
use super::Batcher;
use crate::light::keep_by_priority;
use crate::plan::Instance;
use crate::texture::push_mip_chain;
use crate::{Format, LightError, PointLight, TextureId};

/// The lights of the frame being recorded.
#[derive(Debug)]
pub(super) struct Lighting {
    /// Linear RGB lit quads get from everywhere; persists frame to frame.
    pub(super) ambient: [f32; 3],
    /// Added since the frame began.
    pub(super) lights: Vec<PointLight>,
    /// Scratch for keeping the highest priorities.
    order: Vec<u32>,
    /// The cap was logged once.
    logged_cap: bool,
}

impl Default for Lighting {
    fn default() -> Self {
        Self { ambient: [1.0; 3], lights: Vec::new(), order: Vec::new(), logged_cap: false }
    }
}

impl Batcher {
    pub(crate) fn set_lit(&mut self, lit: bool) {
        // Without lights there is nothing to be lit by: quads draw as they are.
        let lit = lit && self.budget.max_lights > 0;
        let look = &mut self.recorder.look;
        look.effect = (look.effect & !Instance::EFFECT_LIT) | if lit { Instance::EFFECT_LIT } else { 0 };
    }

    pub(crate) fn lit(&self) -> bool {
        self.recorder.look.effect & Instance::EFFECT_LIT != 0
    }

    /// The light lit quads get from everywhere, linear RGB (`[1, 1, 1]` until set: lit quads
    /// look unlit until the lights go down). Lasts until set again, frame to frame.
    ///
    /// # Errors
    /// [`LightError::Color`] for a NaN, infinite or negative channel (then nothing changes).
    pub fn set_ambient(&mut self, color: [f32; 3]) -> Result<(), LightError> {
        if !color.iter().all(|c| c.is_finite() && *c >= 0.0) {
            return Err(LightError::Color { color });
        }
        self.lighting.ambient = color;
        Ok(())
    }

    /// Adds a point light to the frame being recorded (lights last one frame). A frame keeps
    /// [`Budget::max_lights`](crate::Budget::max_lights) of them, the highest priorities
    /// ([`PointLight::priority`], the earlier added among equals); the rest are dropped in
    /// `finish` and counted in `Counters::lights_dropped`. Nothing compiles: every program
    /// reads the cap's worth of lights, whatever the count.
    ///
    /// # Errors
    /// [`LightError::Off`] without lights; [`LightError::NoFrame`] outside a frame (a light
    /// added between frames would belong to none); [`LightError::Radius`],
    /// [`LightError::Position`], [`LightError::Color`] or [`LightError::Falloff`] for a
    /// light that cannot light anything sensibly (then nothing is added).
    pub fn add_light(&mut self, light: PointLight) -> Result<(), LightError> {
        if self.budget.max_lights == 0 {
            return Err(LightError::Off);
        }
        if !self.recorder.open {
            return Err(LightError::NoFrame);
        }
        light.check()?;
        self.lighting.lights.push(light);
        Ok(())
    }

    /// Queues the write of a normal map into the sibling at the texture's place, superseding
    /// its earlier pending normal-map writes, and keeps the CPU copy (always: a restore
    /// without it would leave lit sprites flat, and nothing would tell the host).
    pub(super) fn queue_normal_write(&mut self, id: TextureId, normals: &[u8]) {
        self.writes.supersede(id, Some(true), &mut self.ops, &mut self.upload_bytes);
        self.writes.note(id, self.ops.len());
        let e = &mut self.registry.entries[id.index as usize];
        let old = e.normals.replace(normals.to_vec());
        self.cpu_copy_bytes =
            self.cpu_copy_bytes - old.map_or(0, |o| o.len() as u64) + e.normals.as_ref().map_or(0, |n| n.len() as u64);
        let start = self.upload_bytes.len();
        let (w, h, levels) = (e.desc.width_px, e.desc.height_px, e.desc.mip_levels);
        push_mip_chain(&mut self.upload_bytes, normals, w, h, levels, Format::Rgba8Unorm);
        self.ops.push(whole_write(id, e, start..self.upload_bytes.len(), true));
    }

    /// Puts the frame's lights into the plan: the ambient colour, and the lights within the
    /// cap by priority. Returns `(lights, dropped)`.
    pub(super) fn plan_lights(&mut self) -> (u64, u64) {
        let cap = self.budget.max_lights as usize;
        let l = &mut self.lighting;
        let dropped = keep_by_priority(&mut l.lights, &mut l.order, cap);
        if dropped > 0 && !l.logged_cap {
            l.logged_cap = true;
            log::debug!("{} lights in a frame capped at {cap}: dropped by priority", cap + dropped as usize);
        }
        self.plan.ambient = l.ambient;
        self.plan.lights.clear();
        self.plan.lights.extend_from_slice(&l.lights);
        l.lights.clear();
        (self.plan.lights.len() as u64, u64::from(dropped))
    }

    /// Texture `id` loses its normal map (a resize: it no longer fits): its pending writes
    /// are dead, its copy goes, and its quads draw flat until one is registered again.
    pub(super) fn drop_normal_map(&mut self, id: TextureId) {
        if !self.recorder.open {
            // No quad of an open frame draws the old place: its pending writes are dead.
            self.writes.supersede(id, Some(true), &mut self.ops, &mut self.upload_bytes);
        }
        let e = &mut self.registry.entries[id.index as usize];
        if let Some(old) = e.normals.take() {
            self.cpu_copy_bytes -= old.len() as u64;
        }
    }
}
