//! The GL contract and the GL state a paint depends on (issue item 14): each piece of state
//! the host may leave at a non-default value (logic op, sample mask, clip distances, clip
//! origin, primitive restart, several draw buffers with per-buffer blend and colour masks)
//! is set before a paint; the paint's pixels come out right and the state reads back exactly
//! as the host left it. Every scene runs on desktop GL 3.3 and GLES 3.0 contexts; a feature
//! the context lacks is left out there, and the paint must then raise no GL error either
//! (it must not touch state the context does not have).
// The tests drive GL directly (host-side state, readback): every call is in `unsafe`.
#![allow(unsafe_code)]

use crate::common;

use std::ffi::{c_void, CStr};

use common::{over, Ctx, Flavor, Image, Offscreen};
use layerbatch_core::{Batcher, Config, Quad, QuadVertices, TextureDesc, TextureId, Usage};
use layerbatch_gl::glow::{self, HasContext};
use layerbatch_gl::{Renderer, Target};

const W: u32 = 64;
const H: u32 = 64;
/// The background, as the clear colour's bytes and floats.
const BG: [u8; 4] = [51, 102, 153, 255];
const BG_F: [f32; 4] = [0.2, 0.4, 0.6, 1.0];
const RED: [u8; 4] = [255, 0, 0, 255];
/// Premultiplied half-transparent green.
const GREEN: [u8; 4] = [0, 128, 0, 128];

/// A GL entry point glow does not wrap.
///
/// # Safety
/// `F` must be a function pointer type with the C signature of `name`.
unsafe fn gl_fn<F: Copy>(ctx: &Ctx, name: &CStr) -> F {
    let p = ctx.proc_address(name);
    assert!(!p.is_null(), "the driver has no {name:?}");
    assert_eq!(size_of::<F>(), size_of::<*const c_void>());
    std::mem::transmute_copy(&p)
}

/// The context's version is at least `major.minor`.
fn at_least(ctx: &Ctx, major: u32, minor: u32) -> bool {
    let v = ctx.gl.version();
    (v.major, v.minor) >= (major, minor)
}

fn has_ext(ctx: &Ctx, name: &str) -> bool {
    ctx.gl.supported_extensions().contains(name)
}

/// A batcher and a renderer on one context, and the white texture.
struct Scene {
    batcher: Batcher,
    renderer: Option<Renderer>,
    white: TextureId,
}

impl Scene {
    fn new(ctx: &Ctx, config: Config) -> Self {
        let mut batcher = Batcher::new(Renderer::query_limits(&ctx.gl), config).expect("budget");
        let white = batcher.textures().white().expect("white");
        let renderer = Renderer::new(ctx.gl.clone(), batcher.budget()).expect("renderer");
        Self { batcher, renderer: Some(renderer), white }
    }

    fn renderer(&mut self) -> &mut Renderer {
        self.renderer.as_mut().expect("live renderer")
    }

    /// Paints `quads` into `target`.
    fn paint(&mut self, target: &Target, quads: &[Quad]) {
        self.batcher.begin_frame();
        for q in quads {
            self.batcher.push(q).expect("push");
        }
        let plan = self.batcher.finish();
        self.renderer.as_mut().expect("live renderer").paint(plan, target).expect("paint");
    }

    /// An opaque red square at the top-left corner, and a translucent green one over its
    /// bottom-right quarter: orientation, coverage and blending in one picture.
    fn quads(&self) -> [Quad; 2] {
        [
            Quad::solid(self.white, [0.0, 0.0], [16.0, 16.0], RED),
            Quad::solid(self.white, [8.0, 8.0], [16.0, 16.0], GREEN),
        ]
    }

    fn finish(mut self) {
        self.renderer.take().expect("live renderer").destroy();
    }
}

/// The pixels of [`Scene::quads`] over `bg`.
fn check_scene(img: &Image, bg: [u8; 4], what: &str) {
    let mut want = Image::filled(img.width, img.height, bg);
    want.fill([0, 0, 16, 16], RED);
    want.fill([16, 8, 24, 24], over(GREEN, bg));
    want.fill([8, 16, 16, 24], over(GREEN, bg));
    want.fill([8, 8, 16, 16], over(GREEN, RED));
    for (x, y, got) in img.pixels() {
        let w = want.at(x, y);
        assert!(common::close(got, w, 1), "{what}: pixel ({x}, {y}) is {got:?}, want {w:?}");
    }
}

fn no_gl_error(gl: &glow::Context, what: &str) {
    // SAFETY: an error query on the current context.
    let e = unsafe { gl.get_error() };
    assert_eq!(e, glow::NO_ERROR, "{what}: GL error {e:#x}");
}

/// `Renderer` is `Send + Sync`: an egui paint callback (which must be) can hold it, as the
/// egui_glow integration does in an `Arc<Mutex<..>>`. The contract that comes with it, the
/// renderer's context current on the calling thread for every GL-issuing method, is in the
/// crate docs (threads and the current context).
#[test]
fn gl_contract_send_sync() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<Renderer>();
    send_sync::<std::sync::Arc<std::sync::Mutex<Renderer>>>();
}

/// Logic op (desktop only) XOR on: without the paint disabling it, the quads would be XORed
/// into the background instead of blended.
fn gl_state_logic_op(ctx: &Ctx) {
    let gl = &*ctx.gl;
    let mut s = Scene::new(ctx, Config::default());
    let target = Offscreen::new(gl, W, H, BG_F);
    let desktop = ctx.flavor == Flavor::Gl33;
    if desktop {
        // SAFETY: glLogicOp is `void (GLenum)`; host-side state on the current context.
        unsafe {
            let logic_op: unsafe extern "system" fn(u32) = gl_fn(ctx, c"glLogicOp");
            gl.enable(glow::COLOR_LOGIC_OP);
            logic_op(glow::XOR);
        }
    }
    let quads = s.quads();
    s.paint(&Target::framebuffer(target.fbo, [W, H]), &quads);
    no_gl_error(gl, "paint with the host's logic op");
    if desktop {
        // SAFETY: state queries and a state call on the current context.
        unsafe {
            assert!(gl.is_enabled(glow::COLOR_LOGIC_OP), "COLOR_LOGIC_OP back on");
            assert_eq!(gl.get_parameter_i32(glow::LOGIC_OP_MODE) as u32, glow::XOR, "LOGIC_OP_MODE back");
            gl.disable(glow::COLOR_LOGIC_OP);
        }
    }
    check_scene(&target.read(gl), BG, "logic op XOR on");
    s.finish();
    target.delete(gl);
}
both_flavors!(gl_state_logic_op);

/// Sample mask 0 on a 4x multisampled framebuffer (GL 3.2, GLES 3.1): without the paint
/// disabling `SAMPLE_MASK`, no sample would be written.
fn gl_state_sample_mask(ctx: &Ctx) {
    let gl = &*ctx.gl;
    let supported = ctx.flavor == Flavor::Gl33 || at_least(ctx, 3, 1);
    let mut s = Scene::new(ctx, Config::default());
    let target = Offscreen::new(gl, W, H, BG_F);
    // SAFETY: the test's own objects on the current context.
    let (fbo, rb) = unsafe {
        let fbo = gl.create_framebuffer().unwrap();
        let rb = gl.create_renderbuffer().unwrap();
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
        gl.renderbuffer_storage_multisample(glow::RENDERBUFFER, 4, glow::RGBA8, W as i32, H as i32);
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, glow::COLOR_ATTACHMENT0, glow::RENDERBUFFER, Some(rb));
        assert_eq!(gl.check_framebuffer_status(glow::FRAMEBUFFER), glow::FRAMEBUFFER_COMPLETE);
        assert!(gl.get_parameter_i32(glow::SAMPLES) > 1, "a multisampled framebuffer");
        gl.clear_color(BG_F[0], BG_F[1], BG_F[2], BG_F[3]);
        gl.clear(glow::COLOR_BUFFER_BIT);
        if supported {
            // glSampleMaski is `void (GLuint, GLbitfield)`.
            let sample_mask: unsafe extern "system" fn(u32, u32) = gl_fn(ctx, c"glSampleMaski");
            gl.enable(glow::SAMPLE_MASK);
            sample_mask(0, 0);
        }
        (fbo, rb)
    };
    let quads = s.quads();
    s.paint(&Target::framebuffer(fbo, [W, H]), &quads);
    no_gl_error(gl, "paint with the host's sample mask");
    // SAFETY: state queries, state calls and a resolve blit between the test's framebuffers.
    unsafe {
        if supported {
            assert!(gl.is_enabled(glow::SAMPLE_MASK), "SAMPLE_MASK back on");
            assert_eq!(gl.get_parameter_indexed_i32(glow::SAMPLE_MASK_VALUE, 0), 0, "SAMPLE_MASK_VALUE back");
            gl.disable(glow::SAMPLE_MASK);
        }
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(target.fbo));
        let (w, h) = (W as i32, H as i32);
        gl.blit_framebuffer(0, 0, w, h, 0, 0, w, h, glow::COLOR_BUFFER_BIT, glow::NEAREST);
    }
    check_scene(&target.read(gl), BG, "sample mask 0");
    // SAFETY: the test's own objects.
    unsafe {
        gl.delete_framebuffer(fbo);
        gl.delete_renderbuffer(rb);
    }
    s.finish();
    target.delete(gl);
}
both_flavors!(gl_state_sample_mask);

/// Every clip distance enabled (desktop GL; GLES with `GL_EXT_clip_cull_distance`), as a host
/// whose own shaders clip leaves them: the renderer's vertex stage writes none, so they would
/// clip by undefined values.
fn gl_state_clip_distances(ctx: &Ctx) {
    let gl = &*ctx.gl;
    let supported = ctx.flavor == Flavor::Gl33 || has_ext(ctx, "GL_EXT_clip_cull_distance");
    let mut s = Scene::new(ctx, Config::default());
    let target = Offscreen::new(gl, W, H, BG_F);
    // SAFETY: an integer query and capability changes on the current context.
    let n = if supported { (unsafe { gl.get_parameter_i32(glow::MAX_CLIP_DISTANCES) }) as u32 } else { 0 };
    for i in 0..n {
        // SAFETY: a capability below MAX_CLIP_DISTANCES.
        unsafe { gl.enable(glow::CLIP_DISTANCE0 + i) };
    }
    let quads = s.quads();
    s.paint(&Target::framebuffer(target.fbo, [W, H]), &quads);
    no_gl_error(gl, "paint with the host's clip distances");
    for i in 0..n {
        // SAFETY: capability queries and changes below MAX_CLIP_DISTANCES.
        unsafe {
            assert!(gl.is_enabled(glow::CLIP_DISTANCE0 + i), "CLIP_DISTANCE{i} back on");
            gl.disable(glow::CLIP_DISTANCE0 + i);
        }
    }
    check_scene(&target.read(gl), BG, "clip distances on");
    s.finish();
    target.delete(gl);
}
both_flavors!(gl_state_clip_distances);

/// A host clip origin of `UPPER_LEFT` (GL 4.5 / `GL_ARB_clip_control`, GLES with
/// `GL_EXT_clip_control`), with the `ZERO_TO_ONE` depth mode: the quads still come out
/// upright on screen and in a render target, and both clip-control values read back.
fn gl_state_clip_origin(ctx: &Ctx) {
    let gl = &*ctx.gl;
    let desktop = ctx.flavor == Flavor::Gl33;
    let supported = if desktop {
        at_least(ctx, 4, 5) || has_ext(ctx, "GL_ARB_clip_control")
    } else {
        has_ext(ctx, "GL_EXT_clip_control")
    };
    let mut s = Scene::new(ctx, Config::default());
    let target = Offscreen::new(gl, W, H, BG_F);
    let rt =
        s.batcher.textures().register(&TextureDesc::new(32, 32).with_usage(Usage::RenderTarget), &[]).expect("target");
    // glClipControl(EXT) is `void (GLenum, GLenum)`.
    let clip_control = supported.then(|| {
        // SAFETY: the signature above.
        unsafe {
            gl_fn::<unsafe extern "system" fn(u32, u32)>(
                ctx,
                if desktop { c"glClipControl" } else { c"glClipControlEXT" },
            )
        }
    });
    if let Some(clip_control) = clip_control {
        // SAFETY: host-side state on the current context.
        unsafe { clip_control(glow::UPPER_LEFT, glow::ZERO_TO_ONE) };
    }
    // Into a render target: red over its top half.
    s.batcher.begin_frame_into(rt, Some([0.0, 0.0, 0.0, 1.0])).expect("target frame");
    s.batcher.push(&Quad::solid(s.white, [0.0, 0.0], [32.0, 16.0], RED)).expect("push");
    let plan = s.batcher.finish();
    s.renderer.as_mut().expect("live renderer").paint(plan, &Target::bound([W, H])).expect("paint into the target");
    // On screen.
    let quads = s.quads();
    s.paint(&Target::framebuffer(target.fbo, [W, H]), &quads);
    no_gl_error(gl, "paint with the host's clip origin");
    if let Some(clip_control) = clip_control {
        // SAFETY: state queries and a state call on the current context.
        unsafe {
            assert_eq!(gl.get_parameter_i32(glow::CLIP_ORIGIN) as u32, glow::UPPER_LEFT, "CLIP_ORIGIN back");
            assert_eq!(gl.get_parameter_i32(glow::CLIP_DEPTH_MODE) as u32, glow::ZERO_TO_ONE, "CLIP_DEPTH_MODE back");
            clip_control(glow::LOWER_LEFT, glow::NEGATIVE_ONE_TO_ONE);
        }
    }
    check_scene(&target.read(gl), BG, "clip origin UPPER_LEFT, on screen");
    // The render target, drawn with the default origin: upright.
    target.clear(gl, BG_F);
    s.paint(&Target::framebuffer(target.fbo, [W, H]), &[Quad::rect(rt, [0.0, 0.0], [32.0, 32.0])]);
    let img = target.read(gl);
    img.assert_rect([0, 0, 32, 16], RED, 0, "the target's top half, drawn under UPPER_LEFT");
    img.assert_rect([0, 16, 32, 32], [0, 0, 0, 255], 0, "the target's bottom half");
    s.finish();
    target.delete(gl);
}
both_flavors!(gl_state_clip_origin);

/// Primitive restart on (desktop GL 3.1) with restart index 1, and indexed quads: index 1 is
/// a corner of the first quad, so without the paint disabling it the first triangle would
/// be cut.
fn gl_state_primitive_restart(ctx: &Ctx) {
    let gl = &*ctx.gl;
    let desktop = ctx.flavor == Flavor::Gl33;
    let mut s = Scene::new(ctx, Config::default().with_quad_vertices(QuadVertices::Indexed));
    assert!(s.renderer().indexed_quads());
    let target = Offscreen::new(gl, W, H, BG_F);
    if desktop {
        // SAFETY: glPrimitiveRestartIndex is `void (GLuint)`; host-side state.
        unsafe {
            let restart_index: unsafe extern "system" fn(u32) = gl_fn(ctx, c"glPrimitiveRestartIndex");
            gl.enable(glow::PRIMITIVE_RESTART);
            restart_index(1);
        }
    }
    let quads = s.quads();
    s.paint(&Target::framebuffer(target.fbo, [W, H]), &quads);
    no_gl_error(gl, "paint with the host's primitive restart");
    if desktop {
        // SAFETY: state queries and a state call on the current context.
        unsafe {
            assert!(gl.is_enabled(glow::PRIMITIVE_RESTART), "PRIMITIVE_RESTART back on");
            assert_eq!(gl.get_parameter_i32(glow::PRIMITIVE_RESTART_INDEX), 1, "PRIMITIVE_RESTART_INDEX back");
            gl.disable(glow::PRIMITIVE_RESTART);
        }
    }
    check_scene(&target.read(gl), BG, "primitive restart at index 1");
    s.finish();
    target.delete(gl);
}
both_flavors!(gl_state_primitive_restart);

/// Draw buffer `i`'s state, read with the indexed queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BufferState {
    blend: bool,
    mask: [bool; 4],
    /// Blend functions and equations: `None` without indexed blend state (GL 4.0, GLES 3.2).
    funcs: Option<[u32; 6]>,
}

/// The host's per-draw-buffer state the test sets, for buffers 0, 1 and 2 (the defaults: an
/// output the fragment stage does not write would land there).
const HOST_STATE: [BufferState; 3] = [
    BufferState {
        blend: false,
        mask: [true, false, true, false],
        funcs: Some([glow::DST_COLOR, glow::ZERO, glow::ONE, glow::ZERO, glow::FUNC_REVERSE_SUBTRACT, glow::FUNC_ADD]),
    },
    BufferState {
        blend: true,
        mask: [false, true, false, true],
        funcs: Some([glow::SRC_ALPHA, glow::ONE, glow::ZERO, glow::DST_ALPHA, glow::FUNC_SUBTRACT, glow::MAX]),
    },
    BufferState {
        blend: false,
        mask: [true; 4],
        funcs: Some([glow::ONE, glow::ZERO, glow::ONE, glow::ZERO, glow::FUNC_ADD, glow::FUNC_ADD]),
    },
];

const BLEND_PARAMS: [u32; 6] = [
    glow::BLEND_SRC_RGB,
    glow::BLEND_DST_RGB,
    glow::BLEND_SRC_ALPHA,
    glow::BLEND_DST_ALPHA,
    glow::BLEND_EQUATION_RGB,
    glow::BLEND_EQUATION_ALPHA,
];

/// Three colour attachments, all three draw buffers on, and different blend enables, blend
/// functions and equations and colour masks per draw buffer (where the context has indexed
/// state: GL 3.0 for enables and masks, GL 4.0 for functions; GLES 3.2): the paint draws
/// into draw buffer 0 only, with its own blending and every channel written, leaves
/// attachments 1 and 2 untouched (2 has the default state, where llvmpipe would write zeros
/// for the output the fragment stage does not write), and puts back the draw buffers and
/// every buffer's state exactly (no flattening to buffer 0's).
fn gl_state_draw_buffers(ctx: &Ctx) {
    let gl = &*ctx.gl;
    let desktop = ctx.flavor == Flavor::Gl33;
    let indexed_mask = if desktop { at_least(ctx, 3, 0) } else { at_least(ctx, 3, 2) };
    let indexed_blend = if desktop { at_least(ctx, 4, 0) } else { at_least(ctx, 3, 2) };
    let mut s = Scene::new(ctx, Config::default());
    const ATTACHMENTS: [u32; 3] = [glow::COLOR_ATTACHMENT0, glow::COLOR_ATTACHMENT1, glow::COLOR_ATTACHMENT2];
    const OTHER: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
    // SAFETY: the test's own objects and host-side state on the current context; the loaded
    // functions have the signatures named.
    let (fbo, rbs) = unsafe {
        let fbo = gl.create_framebuffer().unwrap();
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        let mut rbs = Vec::new();
        for attachment in ATTACHMENTS {
            let rb = gl.create_renderbuffer().unwrap();
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, W as i32, H as i32);
            gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, attachment, glow::RENDERBUFFER, Some(rb));
            rbs.push(rb);
        }
        gl.draw_buffers(&ATTACHMENTS);
        assert_eq!(gl.check_framebuffer_status(glow::FRAMEBUFFER), glow::FRAMEBUFFER_COMPLETE);
        gl.viewport(0, 0, W as i32, H as i32);
        gl.clear_buffer_f32_slice(glow::COLOR, 0, &BG_F);
        gl.clear_buffer_f32_slice(glow::COLOR, 1, &OTHER);
        gl.clear_buffer_f32_slice(glow::COLOR, 2, &OTHER);
        if indexed_mask {
            for (i, b) in HOST_STATE.iter().enumerate() {
                let [r, g, bl, a] = b.mask;
                gl.color_mask_draw_buffer(i as u32, r, g, bl, a);
                if b.blend {
                    gl.enable_draw_buffer(glow::BLEND, i as u32);
                } else {
                    gl.disable_draw_buffer(glow::BLEND, i as u32);
                }
                if let (true, Some([src, dst, src_a, dst_a, eq, eq_a])) = (indexed_blend, b.funcs) {
                    gl.blend_func_separate_draw_buffer(i as u32, src, dst, src_a, dst_a);
                    gl.blend_equation_separate_draw_buffer(i as u32, eq, eq_a);
                }
            }
        }
        (fbo, rbs)
    };
    let read_state = |i: u32| -> BufferState {
        // SAFETY: glIsEnabledi is `GLboolean (GLenum, GLuint)`, glGetBooleani_v
        // `void (GLenum, GLuint, GLboolean *)` (COLOR_WRITEMASK: four values); the queries
        // are below MAX_DRAW_BUFFERS.
        unsafe {
            let is_enabled_i: unsafe extern "system" fn(u32, u32) -> u8 = gl_fn(ctx, c"glIsEnabledi");
            let get_booleani: unsafe extern "system" fn(u32, u32, *mut u8) = gl_fn(ctx, c"glGetBooleani_v");
            let mut mask = [0u8; 4];
            get_booleani(glow::COLOR_WRITEMASK, i, mask.as_mut_ptr());
            BufferState {
                blend: is_enabled_i(glow::BLEND, i) != 0,
                mask: mask.map(|m| m != 0),
                funcs: indexed_blend.then(|| BLEND_PARAMS.map(|p| gl.get_parameter_indexed_i32(p, i) as u32)),
            }
        }
    };
    let want = |i: usize| BufferState { funcs: HOST_STATE[i].funcs.filter(|_| indexed_blend), ..HOST_STATE[i] };
    if indexed_mask {
        assert_eq!([0, 1, 2].map(read_state), [0, 1, 2].map(want), "the host's state as set");
    }
    let quads = s.quads();
    s.paint(&Target::framebuffer(fbo, [W, H]), &quads);
    no_gl_error(gl, "paint into two draw buffers");
    // SAFETY: state queries on the current context, the framebuffer bound again.
    unsafe {
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        let buffers = [0, 1, 2, 3].map(|i| gl.get_parameter_i32(glow::DRAW_BUFFER0 + i) as u32);
        let want = [ATTACHMENTS[0], ATTACHMENTS[1], ATTACHMENTS[2], glow::NONE];
        assert_eq!(buffers, want, "the draw buffers back");
    }
    if indexed_mask {
        assert_eq!([0, 1, 2].map(read_state), [0, 1, 2].map(want), "every draw buffer's state back");
    }
    let read = |attachment: u32| -> Image {
        let mut px = vec![0u8; (W * H * 4) as usize];
        // SAFETY: reads W x H RGBA8 pixels into a buffer of exactly that size; the host's
        // write masks do not apply to reads.
        unsafe {
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
            gl.read_buffer(attachment);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
            let slice = glow::PixelPackData::Slice(Some(&mut px));
            gl.read_pixels(0, 0, W as i32, H as i32, glow::RGBA, glow::UNSIGNED_BYTE, slice);
        }
        // Rows bottom-up: flip to top-down.
        let row = (W * 4) as usize;
        let px = px.chunks(row).rev().flatten().copied().collect();
        Image { width: W, height: H, px }
    };
    check_scene(&read(glow::COLOR_ATTACHMENT0), BG, "draw buffer 0, through the host's per-buffer state");
    read(glow::COLOR_ATTACHMENT1).assert_rect([0, 0, W, H], [0, 0, 255, 255], 0, "draw buffer 1, untouched");
    read(glow::COLOR_ATTACHMENT2).assert_rect([0, 0, W, H], [0, 0, 255, 255], 0, "draw buffer 2, untouched");
    // SAFETY: the test's own objects; the global mask back to the default for later tests.
    unsafe {
        gl.color_mask(true, true, true, true);
        gl.bind_framebuffer(glow::FRAMEBUFFER, None);
        gl.delete_framebuffer(fbo);
        for rb in rbs {
            gl.delete_renderbuffer(rb);
        }
    }
    s.finish();
}
both_flavors!(gl_state_draw_buffers);
