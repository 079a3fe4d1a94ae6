//! The fixed-function state a paint depends on beyond what every context has, by what the
//! context offers: logic op, sample mask, primitive restart, clip distances, the clip origin,
//! several draw buffers, and per-draw-buffer blend and colour-mask state.
//!
//! Per-draw-buffer state: the paint draws into draw buffer 0 only (the others are switched
//! off for its draws, see [`DrawBuffers`]), so it changes the blend enable, blend functions,
//! blend equations and colour mask of draw buffer 0 only, with the indexed setters
//! (`glEnablei`, `glBlendFuncSeparatei`, `glBlendEquationSeparatei`, `glColorMaski`) where
//! the context has them. The non-indexed queries (`glIsEnabled(GL_BLEND)`,
//! `glGetIntegerv(GL_BLEND_SRC_RGB)`, `glGetBooleanv(GL_COLOR_WRITEMASK)`, ...) report draw
//! buffer 0's state, so that is what is saved and put back, and every other draw buffer's
//! state is never touched. Without the indexed setters the global ones are used, which set
//! every draw buffer at once: exact where the host cannot set them apart either.
#![allow(unsafe_code)]

use glow::HasContext;

/// `CLIP_ORIGIN` (GL 4.5, `GL_ARB_clip_control`; `CLIP_ORIGIN_EXT` of `GL_EXT_clip_control`
/// has the same value).
const CLIP_ORIGIN: u32 = glow::CLIP_ORIGIN;

/// At most this many clip distances are saved and disabled (drivers commonly report 8).
pub(crate) const MAX_CLIP_DISTANCES: u32 = 16;

/// What the context offers of the state a paint depends on, detected once at creation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StateCaps {
    /// `COLOR_LOGIC_OP` (desktop GL only): disabled while painting.
    pub(crate) logic_op: bool,
    /// `SAMPLE_MASK` (GL 3.2, GLES 3.1): disabled while painting.
    pub(crate) sample_mask: bool,
    /// `PRIMITIVE_RESTART` (desktop GL 3.1): disabled while painting (an indexed quad's
    /// index could equal the host's `PRIMITIVE_RESTART_INDEX`).
    pub(crate) primitive_restart: bool,
    /// `CLIP_DISTANCE0..n` (desktop GL 3.0, GLES with `GL_EXT_clip_cull_distance`), at most
    /// [`MAX_CLIP_DISTANCES`]: disabled while drawing (the vertex stage writes none).
    pub(crate) clip_distances: u32,
    /// `CLIP_ORIGIN` can be queried (GL 4.5, `GL_ARB_clip_control`, `GL_EXT_clip_control`).
    pub(crate) clip_origin: bool,
    /// `glEnablei` / `glColorMaski` (GL 3.0, GLES 3.2).
    pub(crate) indexed_mask: bool,
    /// `glBlendFuncSeparatei` / `glBlendEquationSeparatei` (GL 4.0, GLES 3.2).
    pub(crate) indexed_blend: bool,
    /// `MAX_DRAW_BUFFERS`.
    pub(crate) max_draw_buffers: u32,
}

impl StateCaps {
    /// Reads them from the current context. glow loads the core names of the indexed
    /// functions only (not the `ARB`, `EXT` or `OES` aliases), so those need the core
    /// version.
    pub(crate) fn detect(gl: &glow::Context) -> Self {
        let v = gl.version();
        let ext = gl.supported_extensions();
        let at_least = |major: u32, minor: u32| (v.major, v.minor) >= (major, minor);
        let desktop = !v.is_embedded;
        let clip_distances = if desktop || ext.contains("GL_EXT_clip_cull_distance") {
            // SAFETY: an integer query on the current context, which has clip distances.
            let n = unsafe { gl.get_parameter_i32(glow::MAX_CLIP_DISTANCES) };
            (n.max(0) as u32).min(MAX_CLIP_DISTANCES)
        } else {
            0
        };
        // SAFETY: an integer query every GL 3.3 and GLES 3.0 context answers.
        let max_draw_buffers = unsafe { gl.get_parameter_i32(glow::MAX_DRAW_BUFFERS) }.max(1) as u32;
        Self {
            logic_op: desktop,
            sample_mask: if desktop { at_least(3, 2) } else { at_least(3, 1) },
            primitive_restart: desktop && at_least(3, 1),
            clip_distances,
            clip_origin: if desktop {
                at_least(4, 5) || ext.contains("GL_ARB_clip_control")
            } else {
                ext.contains("GL_EXT_clip_control")
            },
            indexed_mask: if desktop { at_least(3, 0) } else { at_least(3, 2) },
            indexed_blend: if desktop { at_least(4, 0) } else { at_least(3, 2) },
            max_draw_buffers,
        }
    }

    /// The capabilities a paint disables beyond the ones every context has, in order:
    /// logic op, sample mask, primitive restart, then `CLIP_DISTANCE0..n`.
    pub(crate) fn extra_disabled(&self) -> impl Iterator<Item = u32> {
        let flags = [
            (self.logic_op, glow::COLOR_LOGIC_OP),
            (self.sample_mask, glow::SAMPLE_MASK),
            (self.primitive_restart, glow::PRIMITIVE_RESTART),
        ];
        flags
            .into_iter()
            .filter_map(|(on, cap)| on.then_some(cap))
            .chain((0..self.clip_distances).map(|i| glow::CLIP_DISTANCE0 + i))
    }

    /// Whether the host's clip origin is `UPPER_LEFT` (its y axis is flipped): the draws then
    /// flip their quads to come out upright. `false` where the context has no clip control.
    pub(crate) fn clip_upper_left(&self, gl: &glow::Context) -> bool {
        // SAFETY: an integer query the context supports (`clip_origin`).
        self.clip_origin && unsafe { gl.get_parameter_i32(CLIP_ORIGIN) } as u32 == glow::UPPER_LEFT
    }

    /// Enables or disables blending for draw buffer 0 (every draw buffer without
    /// `indexed_mask`).
    pub(crate) fn set_blend_enabled(&self, gl: &glow::Context, on: bool) {
        // SAFETY: a capability change on the current context; the indexed form only where
        // the context has it.
        unsafe {
            match (self.indexed_mask, on) {
                (true, true) => gl.enable_draw_buffer(glow::BLEND, 0),
                (true, false) => gl.disable_draw_buffer(glow::BLEND, 0),
                (false, true) => gl.enable(glow::BLEND),
                (false, false) => gl.disable(glow::BLEND),
            }
        }
    }

    /// Sets the blend functions `[src_rgb, dst_rgb, src_alpha, dst_alpha]` of draw buffer 0
    /// (every draw buffer without `indexed_blend`).
    pub(crate) fn set_blend_func(&self, gl: &glow::Context, [src, dst, src_a, dst_a]: [u32; 4]) {
        // SAFETY: blend state on the current context with blend factor enums; the indexed
        // form only where the context has it.
        unsafe {
            if self.indexed_blend {
                gl.blend_func_separate_draw_buffer(0, src, dst, src_a, dst_a);
            } else {
                gl.blend_func_separate(src, dst, src_a, dst_a);
            }
        }
    }

    /// Sets the blend equations of draw buffer 0 (every draw buffer without
    /// `indexed_blend`).
    pub(crate) fn set_blend_equation(&self, gl: &glow::Context, rgb: u32, alpha: u32) {
        // SAFETY: as `set_blend_func`, with blend equation enums.
        unsafe {
            if self.indexed_blend {
                gl.blend_equation_separate_draw_buffer(0, rgb, alpha);
            } else {
                gl.blend_equation_separate(rgb, alpha);
            }
        }
    }

    /// Sets the colour write mask of draw buffer 0 (every draw buffer without
    /// `indexed_mask`).
    pub(crate) fn set_color_mask(&self, gl: &glow::Context, [r, g, b, a]: [bool; 4]) {
        // SAFETY: a write-mask change on the current context; the indexed form only where the
        // context has it.
        unsafe {
            if self.indexed_mask {
                gl.color_mask_draw_buffer(0, r, g, b, a);
            } else {
                gl.color_mask(r, g, b, a);
            }
        }
    }
}

/// The draw buffers of the host's framebuffer, when it has more than one: the paint draws
/// into draw buffer 0 only (the fragment stage writes output 0 only; any other draw buffer
/// would get undefined values), so for its draws `glDrawBuffers` is set to draw buffer 0's
/// buffer alone, and the list is put back afterwards.
#[derive(Debug)]
pub(crate) struct DrawBuffers {
    /// `DRAW_BUFFER0..n` as found, up to the last that is not `NONE`.
    buffers: Vec<u32>,
}

impl DrawBuffers {
    /// Reads the draw buffers of the bound draw framebuffer; when any beyond the first is
    /// in use, keeps only the first for the paint's draws and returns the list to restore.
    pub(crate) fn limit(gl: &glow::Context, caps: &StateCaps) -> Option<Self> {
        // SAFETY: `DRAW_BUFFERi` queries below `MAX_DRAW_BUFFERS` on the current context.
        let read = |i: u32| unsafe { gl.get_parameter_i32(glow::DRAW_BUFFER0 + i) } as u32;
        let last = (1..caps.max_draw_buffers).rev().find(|&i| read(i) != glow::NONE)?;
        let buffers: Vec<u32> = (0..=last).map(read).collect();
        // SAFETY: draw buffer 0's own buffer, at index 0: valid wherever it was (GLES allows
        // `COLOR_ATTACHMENT0` or `NONE` there, desktop GL any colour buffer), and the other
        // draw buffers become `NONE`.
        unsafe { gl.draw_buffers(&buffers[..1]) };
        Some(Self { buffers })
    }

    /// Puts the draw buffers back; the framebuffer [`DrawBuffers::limit`] read must still be
    /// the bound draw framebuffer.
    pub(crate) fn restore(self, gl: &glow::Context) {
        // SAFETY: the list read from the bound draw framebuffer, which the host had set.
        unsafe { gl.draw_buffers(&self.buffers) };
    }
}
