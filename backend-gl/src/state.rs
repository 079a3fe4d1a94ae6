//! Saving the host's GL state before a paint and restoring it after.
#![allow(unsafe_code)]

use glow::HasContext;

use crate::fixed::{DrawBuffers, StateCaps, MAX_CLIP_DISTANCES};
use crate::host::{Bound, HostGl};

/// Which groups of state a paint is about to change.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Needs {
    /// Texture units `0..units` get `TEXTURE_2D_ARRAY` bindings and sampler 0.
    pub(crate) units: u32,
    /// Draws: program, VAO, array buffer, viewport, blend, capabilities, colour mask, clip
    /// origin (read only), the host framebuffer's draw buffers.
    pub(crate) draw: bool,
    /// The draw framebuffer is rebound to the target's.
    pub(crate) draw_framebuffer: bool,
    /// `texSubImage3D` from client memory: pixel-unpack state.
    pub(crate) upload: bool,
    /// Layer copies by framebuffer blit: scissor, discard, colour mask. (The blit itself puts
    /// back the framebuffer bindings and `FRAMEBUFFER_SRGB` it changes, before any draw.)
    pub(crate) blit: bool,
    /// Segments with a clip rectangle set the scissor box.
    pub(crate) scissor: bool,
    /// A render target is cleared: the clear colour changes.
    pub(crate) clear: bool,
    /// Resident layer buffers are made or written: `GL_ARRAY_BUFFER`'s binding changes.
    pub(crate) vertex_buffer: bool,
    /// Motion textures are made, written or drawn on this unit: its `TEXTURE_2D` binding and
    /// sampler change.
    pub(crate) motion_unit: Option<u32>,
}

/// Capabilities a paint disables (draws and blits must not be clipped, discarded or tested),
/// on every context; [`StateCaps::extra_disabled`] adds those only some contexts have.
const DISABLED_CAPS: [u32; 7] = [
    glow::SCISSOR_TEST,
    glow::DEPTH_TEST,
    glow::STENCIL_TEST,
    glow::CULL_FACE,
    glow::RASTERIZER_DISCARD,
    glow::SAMPLE_ALPHA_TO_COVERAGE,
    glow::SAMPLE_COVERAGE,
];

#[derive(Debug)]
struct Unpack {
    buffer: Bound<glow::Buffer>,
    params: [i32; 6],
}

/// Room for every capability a paint may disable.
const MAX_ENABLED: usize = DISABLED_CAPS.len() + 3 + MAX_CLIP_DISTANCES as usize;

const UNPACK_PARAMS: [u32; 6] = [
    glow::UNPACK_ALIGNMENT,
    glow::UNPACK_ROW_LENGTH,
    glow::UNPACK_IMAGE_HEIGHT,
    glow::UNPACK_SKIP_PIXELS,
    glow::UNPACK_SKIP_ROWS,
    glow::UNPACK_SKIP_IMAGES,
];

/// The host's state, as found.
#[derive(Debug)]
pub(crate) struct Saved {
    active_texture: u32,
    units: Vec<(Bound<glow::Texture>, Bound<glow::Sampler>)>,
    /// The motion unit's `TEXTURE_2D` binding and sampler.
    motion_unit: Option<(u32, Bound<glow::Texture>, Bound<glow::Sampler>)>,
    program: Option<Bound<glow::Program>>,
    vao: Option<Bound<glow::VertexArray>>,
    array_buffer: Option<Bound<glow::Buffer>>,
    draw_fb: Option<Bound<glow::Framebuffer>>,
    viewport: Option<[i32; 4]>,
    /// Capabilities changed and whether each was on: the first `enabled_len` entries. A fixed
    /// array, so saving them allocates nothing.
    enabled: [(u32, bool); MAX_ENABLED],
    enabled_len: usize,
    /// `BLEND` of draw buffer 0 (`glIsEnabled(GL_BLEND)` reports draw buffer 0's).
    blend_enabled: Option<bool>,
    /// Draw buffer 0's blend functions and equations (the non-indexed queries report draw
    /// buffer 0's).
    blend: Option<[i32; 6]>,
    scissor_box: Option<[i32; 4]>,
    /// Draw buffer 0's colour write mask.
    color_mask: Option<[bool; 4]>,
    /// The host's `CLIP_ORIGIN` is `UPPER_LEFT` (read for draws, never changed).
    clip_upper_left: bool,
    /// The host framebuffer's draw buffers, where the paint limited them to the first.
    draw_buffers: Option<DrawBuffers>,
    clear_color: Option<[f32; 4]>,
    unpack: Option<Unpack>,
}

impl Saved {
    /// Reads every piece of state `needs` says will change, then sets the state every paint
    /// step relies on: sampler objects unbound from the units, tests, discard, logic op,
    /// sample mask, primitive restart and clip distances disabled (those the context has,
    /// `caps`), all colour channels of draw buffer 0 written, tightly packed unpack rows from
    /// client memory. Object bindings are read and put back through `host` (glow's getters
    /// natively, the raw WebGL2 context in a browser).
    pub(crate) fn capture_and_prepare(gl: &glow::Context, host: &HostGl, needs: Needs, caps: &StateCaps) -> Self {
        // SAFETY: state queries and state-setting calls with valid enums on the current
        // context; nothing is dereferenced beyond glow's own out-parameters.
        unsafe {
            let active_texture = gl.get_parameter_i32(glow::ACTIVE_TEXTURE) as u32;
            let mut units = Vec::with_capacity(needs.units as usize);
            for unit in 0..needs.units {
                gl.active_texture(glow::TEXTURE0 + unit);
                units.push((host.texture_2d_array(gl), host.sampler(gl)));
                gl.bind_sampler(unit, None);
            }
            let motion_unit = needs.motion_unit.map(|unit| {
                gl.active_texture(glow::TEXTURE0 + unit);
                let bound = (unit, host.texture_2d(gl), host.sampler(gl));
                gl.bind_sampler(unit, None);
                bound
            });
            let draw = needs.draw;
            let fixed = draw || needs.blit;
            let mut saved = Saved {
                active_texture,
                units,
                motion_unit,
                program: draw.then(|| host.program(gl)),
                vao: draw.then(|| host.vertex_array(gl)),
                array_buffer: (draw || needs.vertex_buffer).then(|| host.buffer(gl, glow::ARRAY_BUFFER_BINDING)),
                draw_fb: needs.draw_framebuffer.then(|| host.framebuffer(gl, glow::DRAW_FRAMEBUFFER_BINDING)),
                viewport: draw.then(|| {
                    let mut v = [0i32; 4];
                    gl.get_parameter_i32_slice(glow::VIEWPORT, &mut v);
                    v
                }),
                enabled: [(0, false); MAX_ENABLED],
                enabled_len: 0,
                blend_enabled: draw.then(|| gl.is_enabled(glow::BLEND)),
                blend: draw.then(|| {
                    [
                        glow::BLEND_SRC_RGB,
                        glow::BLEND_DST_RGB,
                        glow::BLEND_SRC_ALPHA,
                        glow::BLEND_DST_ALPHA,
                        glow::BLEND_EQUATION_RGB,
                        glow::BLEND_EQUATION_ALPHA,
                    ]
                    .map(|p| gl.get_parameter_i32(p))
                }),
                scissor_box: needs.scissor.then(|| {
                    let mut v = [0i32; 4];
                    gl.get_parameter_i32_slice(glow::SCISSOR_BOX, &mut v);
                    v
                }),
                color_mask: fixed.then(|| gl.get_parameter_bool_array::<4>(glow::COLOR_WRITEMASK)),
                clip_upper_left: draw && caps.clip_upper_left(gl),
                draw_buffers: None,
                clear_color: needs.clear.then(|| {
                    let mut v = [0f32; 4];
                    gl.get_parameter_f32_slice(glow::COLOR_CLEAR_VALUE, &mut v);
                    v
                }),
                unpack: needs.upload.then(|| Unpack {
                    buffer: host.buffer(gl, glow::PIXEL_UNPACK_BUFFER_BINDING),
                    params: UNPACK_PARAMS.map(|p| gl.get_parameter_i32(p)),
                }),
            };
            if fixed {
                for cap in DISABLED_CAPS.into_iter().chain(caps.extra_disabled()) {
                    saved.enabled[saved.enabled_len] = (cap, gl.is_enabled(cap));
                    saved.enabled_len += 1;
                    gl.disable(cap);
                }
                caps.set_color_mask(gl, [true; 4]);
            }
            if let Some(unpack) = &saved.unpack {
                if unpack.buffer.is_some() {
                    gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
                }
                // Rows are tightly packed whatever the format's bytes per pixel: alignment 1.
                for (p, v) in UNPACK_PARAMS.into_iter().zip([1, 0, 0, 0, 0, 0]) {
                    gl.pixel_store_i32(p, v);
                }
            }
            gl.active_texture(glow::TEXTURE0);
            saved
        }
    }

    /// Turns `SCISSOR_TEST` and `STENCIL_TEST` back on where the host had them on, for draws
    /// through the host's clip (after the layer copies, which must not be clipped).
    pub(crate) fn reenable_host_clip(&self, gl: &glow::Context) {
        for &(cap, on) in &self.enabled[..self.enabled_len] {
            if on && (cap == glow::SCISSOR_TEST || cap == glow::STENCIL_TEST) {
                // SAFETY: enabling a capability the host had enabled, on the current context.
                unsafe { gl.enable(cap) };
            }
        }
    }

    /// The host's scissor box where the host had `SCISSOR_TEST` on and the box was captured
    /// (`Needs::scissor`): segment clips are intersected with it when the host's clip is kept.
    pub(crate) fn host_scissor(&self) -> Option<[i32; 4]> {
        let on = self.enabled[..self.enabled_len].iter().any(|&(cap, on)| cap == glow::SCISSOR_TEST && on);
        self.scissor_box.filter(|_| on)
    }

    /// Whether the host's clip origin is `UPPER_LEFT` (read for draws).
    pub(crate) fn clip_upper_left(&self) -> bool {
        self.clip_upper_left
    }

    /// With the host's framebuffer bound for drawing: when it has several draw buffers, limits
    /// them to the first for the paint's draws ([`DrawBuffers`]); [`Saved::restore`] puts them
    /// back first, while that framebuffer is still bound.
    pub(crate) fn limit_draw_buffers(&mut self, gl: &glow::Context, caps: &StateCaps) {
        if self.draw_buffers.is_none() {
            self.draw_buffers = DrawBuffers::limit(gl, caps);
        }
    }

    /// Puts back everything captured. A texture the paint deleted (`deleted`) is not rebound:
    /// its unit gets texture 0, as GL itself does when a bound texture is deleted.
    pub(crate) fn restore(self, gl: &glow::Context, host: &HostGl, caps: &StateCaps, deleted: &[glow::Texture]) {
        // The host framebuffer whose draw buffers were limited is still bound for drawing.
        if let Some(d) = self.draw_buffers {
            d.restore(gl);
        }
        // SAFETY: restores values read from this context by `capture_and_prepare`; objects
        // the paint deleted are skipped, so no deleted name is ever bound.
        unsafe {
            for (unit, (texture, sampler)) in self.units.into_iter().enumerate() {
                gl.active_texture(glow::TEXTURE0 + unit as u32);
                host.bind_texture_2d_array(gl, &texture, deleted);
                host.bind_sampler(gl, unit as u32, &sampler);
            }
            if let Some((unit, texture, sampler)) = &self.motion_unit {
                gl.active_texture(glow::TEXTURE0 + unit);
                host.bind_texture_2d(gl, texture);
                host.bind_sampler(gl, *unit, sampler);
            }
            gl.active_texture(self.active_texture);
            if let Some(p) = &self.program {
                host.use_program(gl, p);
            }
            if let Some(v) = &self.vao {
                host.bind_vertex_array(gl, v);
            }
            if let Some(b) = &self.array_buffer {
                host.bind_buffer(gl, glow::ARRAY_BUFFER, b);
            }
            if let Some(f) = &self.draw_fb {
                host.bind_framebuffer(gl, glow::DRAW_FRAMEBUFFER, f);
            }
            if let Some([x, y, w, h]) = self.viewport {
                gl.viewport(x, y, w, h);
            }
            for &(cap, on) in &self.enabled[..self.enabled_len] {
                if on {
                    gl.enable(cap);
                } else {
                    gl.disable(cap);
                }
            }
            if let Some(on) = self.blend_enabled {
                caps.set_blend_enabled(gl, on);
            }
            if let Some([src_rgb, dst_rgb, src_a, dst_a, eq_rgb, eq_a]) = self.blend {
                caps.set_blend_func(gl, [src_rgb, dst_rgb, src_a, dst_a].map(|v| v as u32));
                caps.set_blend_equation(gl, eq_rgb as u32, eq_a as u32);
            }
            if let Some([x, y, w, h]) = self.scissor_box {
                gl.scissor(x, y, w, h);
            }
            if let Some(mask) = self.color_mask {
                caps.set_color_mask(gl, mask);
            }
            if let Some([r, g, b, a]) = self.clear_color {
                gl.clear_color(r, g, b, a);
            }
            if let Some(unpack) = self.unpack {
                for (p, v) in UNPACK_PARAMS.into_iter().zip(unpack.params) {
                    gl.pixel_store_i32(p, v);
                }
                if unpack.buffer.is_some() {
                    host.bind_buffer(gl, glow::PIXEL_UNPACK_BUFFER, &unpack.buffer);
                }
            }
        }
    }
}
