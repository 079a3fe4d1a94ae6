//! Render targets with mip levels: levels `1..` regenerated after the plan's draws, by a box
//! filter of the renderer's own (`glGenerateMipmap`'s filter is the driver's: Mesa's llvmpipe
//! takes one bilinear sample per texel, which on an odd side drops texels: a 3 px side kept
//! only its middle one). The same filter as layerbatch-wgpu's, so both backends agree.
#![allow(unsafe_code)]

use glow::HasContext;

use layerbatch_core::{Format, FramePlan};

use super::Renderer;
use crate::error::{check_gl, Error};
use crate::program::compile_program;

/// The vertex stage: a triangle covering the viewport.
const VERTEX: &str = r"
void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
";

/// The fragment stage: texel `at` of level `n` as the box filter of level `n - 1` (the base
/// level of `u_level` while it runs). On an even side a texel covers two texels of the level
/// above, equally; on an odd side `2m + 1`, three, weighted by a box `(2m + 1) / m` texels wide
/// (NVIDIA's non-power-of-two mipmapping).
const FRAGMENT: &str = r"
uniform highp sampler2DArray u_level;
uniform int u_layer;
out vec4 o_color;

vec3 weights(int src, int i) {
    if (src == 1) {
        return vec3(1.0, 0.0, 0.0);
    }
    if (src % 2 == 0) {
        return vec3(0.5, 0.5, 0.0);
    }
    float n = float(src / 2);
    float k = float(i);
    return vec3(n - k, n, k + 1.0) / (2.0 * n + 1.0);
}

void main() {
    ivec2 src = textureSize(u_level, 0).xy;
    ivec2 at = ivec2(gl_FragCoord.xy);
    vec3 wx = weights(src.x, at.x);
    vec3 wy = weights(src.y, at.y);
    vec4 sum = vec4(0.0);
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 3; x++) {
            float w = wx[x] * wy[y];
            if (w > 0.0) {
                ivec2 texel = min(2 * at + ivec2(x, y), src - 1);
                sum += w * texelFetch(u_level, ivec3(texel, u_layer), 0);
            }
        }
    }
    o_color = sum;
}
";

/// The program, vertex array (no attributes) and framebuffer of the mip pass, made with the
/// renderer.
#[derive(Debug)]
pub(super) struct MipPass {
    program: glow::Program,
    layer: Option<glow::UniformLocation>,
    vao: glow::VertexArray,
    fbo: glow::Framebuffer,
}

impl MipPass {
    /// Compiles the pass for GLSL 3.30 or GLSL ES 3.00 (`gles`). Leaves its program current
    /// (the caller restores `CURRENT_PROGRAM`); deletes what it made on failure.
    pub(super) fn new(gl: &glow::Context, gles: bool) -> Result<Self, Error> {
        let header = if gles {
            "#version 300 es\nprecision highp float;\nprecision highp int;\n"
        } else {
            "#version 330 core\n"
        };
        let program = compile_program(gl, &format!("{header}{VERTEX}"), &format!("{header}{FRAGMENT}"), None)?;
        // SAFETY: object creation and uniform setup on the current context; what was made is
        // deleted on failure.
        unsafe {
            let vao = match gl.create_vertex_array() {
                Ok(vao) => vao,
                Err(message) => {
                    gl.delete_program(program);
                    return Err(Error::create_object("vertex array", message));
                }
            };
            let fbo = match gl.create_framebuffer() {
                Ok(fbo) => fbo,
                Err(message) => {
                    gl.delete_program(program);
                    gl.delete_vertex_array(vao);
                    return Err(Error::create_object("framebuffer", message));
                }
            };
            gl.use_program(Some(program));
            let sampler = gl.get_uniform_location(program, "u_level");
            gl.uniform_1_i32(sampler.as_ref(), 0);
            let layer = gl.get_uniform_location(program, "u_layer");
            Ok(Self { program, layer, vao, fbo })
        }
    }

    /// Deletes the pass's objects.
    pub(super) fn delete(&self, gl: &glow::Context) {
        // SAFETY: objects of ours on the current context, deleted once (by `destroy`).
        unsafe {
            gl.delete_program(self.program);
            gl.delete_vertex_array(self.vao);
            gl.delete_framebuffer(self.fbo);
        }
    }
}

impl Renderer {
    /// After a plan with a render target whose array has mip levels, regenerates levels `1..`
    /// of the target's layer from level 0, each from the level above by [`MipPass`]'s box
    /// filter, as core documents for every executor (`PlanTarget`): a target drawn minified
    /// later shows what was drawn. The paint then counts them with core's
    /// `PlanRunner::count_target_mips` (one per level above 0), whether or not the plan drew
    /// anything.
    ///
    /// Changes, all saved by the paint (`Needs::draw` and `draw_framebuffer` for a target):
    /// unit 0's `TEXTURE_2D_ARRAY` binding and `ACTIVE_TEXTURE`, the program, the vertex array,
    /// the draw framebuffer, the viewport, `BLEND` and `SCISSOR_TEST` (off); `FRAMEBUFFER_SRGB` for an sRGB target
    /// on desktop GL is put back as found. The array's `TEXTURE_BASE_LEVEL` and
    /// `TEXTURE_MAX_LEVEL` are narrowed to the level read while each level is drawn (so that
    /// the level drawn is never one the program may sample), then set back to the whole chain.
    pub(super) fn regenerate_target_mips(&mut self, plan: &FramePlan) -> Result<(), Error> {
        let Some(t) = plan.target else { return Ok(()) };
        // The validator checked the target names an array the device holds after the ops.
        let Some((texture, desc)) = self.arrays.get(t.array) else { return Ok(()) };
        let levels = desc.mip_levels;
        if levels <= 1 {
            return Ok(());
        }
        let gl = &self.gl;
        let pass = &self.mips;
        let srgb = desc.format == Format::Rgba8UnormSrgb && !self.caps.gles;
        // SAFETY: a live texture of ours with levels 0..levels allocated; the pass's own
        // program, vertex array and framebuffer; every binding changed here is saved and
        // restored by the paint, FRAMEBUFFER_SRGB is put back below. While level `l` is drawn,
        // only level `l - 1` is in the texture's base..max range: no feedback loop.
        unsafe {
            let was_srgb = srgb && gl.is_enabled(glow::FRAMEBUFFER_SRGB);
            if srgb {
                gl.enable(glow::FRAMEBUFFER_SRGB);
            }
            gl.disable(glow::BLEND);
            gl.disable(glow::SCISSOR_TEST);
            gl.use_program(Some(pass.program));
            gl.uniform_1_i32(pass.layer.as_ref(), t.layer as i32);
            gl.bind_vertex_array(Some(pass.vao));
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(pass.fbo));
            for level in 1..levels {
                let (w, h) = layerbatch_core::mip_size(desc.width_px, desc.height_px, level);
                gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_BASE_LEVEL, level as i32 - 1);
                gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_MAX_LEVEL, level as i32 - 1);
                gl.framebuffer_texture_layer(
                    glow::DRAW_FRAMEBUFFER,
                    glow::COLOR_ATTACHMENT0,
                    Some(texture),
                    level as i32,
                    t.layer as i32,
                );
                gl.viewport(0, 0, w as i32, h as i32);
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
            }
            gl.framebuffer_texture_layer(glow::DRAW_FRAMEBUFFER, glow::COLOR_ATTACHMENT0, None, 0, 0);
            gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_BASE_LEVEL, 0);
            gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_MAX_LEVEL, levels as i32 - 1);
            if srgb && !was_srgb {
                gl.disable(glow::FRAMEBUFFER_SRGB);
            }
        }
        check_gl(gl, || format!("regenerate mip levels 1..{levels} of render target array {}", t.array.0))
    }
}
