//! Render targets with mip levels: levels `1..` regenerated after the plan's draws.
#![allow(unsafe_code)]

use glow::HasContext;

use layerbatch_core::FramePlan;

use super::Renderer;
use crate::error::{check_gl, Error};

impl Renderer {
    /// After a plan with a render target whose array has mip levels, regenerates levels `1..`
    /// of that array from level 0 (`glGenerateMipmap`, a box filter), as core documents for
    /// every executor (`PlanTarget`): a target drawn minified later shows what was drawn.
    /// Render-target arrays hold one texture each in core, so regenerating the whole array is
    /// regenerating the target's layer. The paint then counts them with core's
    /// `PlanRunner::count_target_mips` (one per level above 0), whether or not the plan drew
    /// anything.
    ///
    /// Binds the array on unit 0 (the paint saved unit 0's binding and `ACTIVE_TEXTURE`).
    pub(super) fn regenerate_target_mips(&mut self, plan: &FramePlan) -> Result<(), Error> {
        let Some(t) = plan.target else { return Ok(()) };
        // The validator checked the target names an array the device holds after the ops.
        let Some((texture, desc)) = self.arrays.get(t.array) else { return Ok(()) };
        let levels = desc.mip_levels;
        if levels <= 1 {
            return Ok(());
        }
        let gl = &self.gl;
        // SAFETY: a live texture of ours, mip levels 0..levels allocated and TEXTURE_MAX_LEVEL
        // set to the last at creation; unit 0's TEXTURE_2D_ARRAY binding and ACTIVE_TEXTURE
        // were saved by the paint (`Needs::units` is at least 1 for a plan with a target).
        // Only levels above 0 are written, and only level 0 is attached to the target's
        // framebuffer: no feedback.
        unsafe {
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            gl.generate_mipmap(glow::TEXTURE_2D_ARRAY);
        }
        check_gl(gl, || format!("regenerate mip levels 1..{levels} of render target array {}", t.array.0))
    }
}
