//! Per-pixel cost of layerbatch-gl's fragment work against a plain sprite shader, in one
//! criterion group so the ratios come from one run: `K` full-target quads (fill-bound) drawn by
//!
//! - `baseline`: a minimal instanced sprite program written here, `texture(sampler2DArray,
//!   vec3(uv, layer)) * tint` with UVs already in `0..1`: what any 2D batcher's shader costs;
//! - `tier1`: layerbatch's tier-1 program (one array, an atlas-page texture: clamped to its
//!   rectangle);
//! - `tier4`: layerbatch's tier-4 program (four arrays, quads alternating between them: the
//!   stress scene's tier).
//!
//! Each iteration clears, draws and waits (`glFinish`), so per pixel = time / (K * w * h).
//! `cargo bench --bench fill`; with `CI` set, a smaller target. GL 3.3 core on EGL (llvmpipe
//! here).
#![allow(unsafe_code)]

#[allow(dead_code)]
#[path = "../examples/support/egl.rs"]
mod egl;

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use layerbatch::{Batcher, Config, Quad, TextureDesc, TextureId};
use layerbatch_gl::glow::{self, HasContext};
use layerbatch_gl::{Renderer, Target};

/// Full-target quads per frame.
const K: u32 = 8;

const BASE_VS: &str = r"#version 330 core
layout(location = 0) in vec4 a_rect;   // x, y, w, h in pixels
layout(location = 1) in vec4 a_color;
uniform vec2 u_viewport_px;
uniform sampler2DArray u_tex;
out vec2 v_uv;
flat out vec4 v_color;
flat out vec4 v_bounds;
void main() {
    vec2 st = vec2(float(gl_VertexID % 2), float(gl_VertexID / 2));
    vec2 pos = a_rect.xy + st * a_rect.zw;
    gl_Position = vec4(pos.x / u_viewport_px.x * 2.0 - 1.0, 1.0 - pos.y / u_viewport_px.y * 2.0, 0.0, 1.0);
    vec2 inv = 1.0 / vec2(textureSize(u_tex, 0).xy);
    v_uv = SCALE;
    v_bounds = vec4(0.5, 0.5, 63.5, 63.5) * BSCALE;
    v_color = a_color;
}
";

/// Fragment variants measured beside the baseline (experiments on the per-pixel cost).
const VARIANTS: [(&str, &str, &str, &str); 4] = [
    ("v0_texels_grad_size", "st * 64.0", "1.0", "vec2 ddx = dFdx(v_uv); vec2 ddy = dFdy(v_uv); vec2 p = clamp(v_uv, v_bounds.xy, v_bounds.zw); vec2 i = 1.0 / vec2(textureSize(u_tex, 0).xy); o_color = textureGrad(u_tex, vec3(p * i, 0.0), ddx * i, ddy * i) * v_color;"),
    ("v1_norm_grad_clamp", "st", "inv.xyxy", "vec2 ddx = dFdx(v_uv); vec2 ddy = dFdy(v_uv); vec2 p = clamp(v_uv, v_bounds.xy, v_bounds.zw); o_color = textureGrad(u_tex, vec3(p, 0.0), ddx, ddy) * v_color;"),
    ("v2_norm_tex_clamp", "st", "inv.xyxy", "vec2 p = clamp(v_uv, v_bounds.xy, v_bounds.zw); o_color = texture(u_tex, vec3(p, 0.0)) * v_color;"),
    ("v3_norm_grad_noclamp", "st", "inv.xyxy", "o_color = textureGrad(u_tex, vec3(v_uv, 0.0), dFdx(v_uv), dFdy(v_uv)) * v_color;"),
];

const BASE_FS: &str = r"#version 330 core
uniform sampler2DArray u_tex;
in vec2 v_uv;
flat in vec4 v_color;
flat in vec4 v_bounds;
layout(location = 0) out vec4 o_color;
void main() {
    BODY
}
";

/// The plain sprite program and its objects.
struct Baseline {
    program: glow::Program,
    vao: glow::VertexArray,
    _vbo: glow::Buffer,
    texture: glow::Texture,
}

impl Baseline {
    fn new(gl: &glow::Context, size: [u32; 2], variant: (&str, &str, &str, &str)) -> Self {
        let vs = BASE_VS.replace("BSCALE", variant.2).replace("SCALE", variant.1);
        let fs = BASE_FS.replace("BODY", variant.3);
        // SAFETY: object creation and uploads on the current context, from valid data.
        unsafe {
            let program = gl.create_program().unwrap();
            for (kind, src) in [(glow::VERTEX_SHADER, vs.as_str()), (glow::FRAGMENT_SHADER, fs.as_str())] {
                let s = gl.create_shader(kind).unwrap();
                gl.shader_source(s, src);
                gl.compile_shader(s);
                assert!(gl.get_shader_compile_status(s), "{}", gl.get_shader_info_log(s));
                gl.attach_shader(program, s);
            }
            gl.link_program(program);
            assert!(gl.get_program_link_status(program), "{}", gl.get_program_info_log(program));
            let texture = gl.create_texture().unwrap();
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            gl.tex_storage_3d(glow::TEXTURE_2D_ARRAY, 1, glow::RGBA8, 64, 64, 2);
            let px = texels(64);
            gl.tex_sub_image_3d(
                glow::TEXTURE_2D_ARRAY,
                0,
                0,
                0,
                0,
                64,
                64,
                1,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(&px)),
            );
            for (p, v) in [
                (glow::TEXTURE_MIN_FILTER, glow::LINEAR),
                (glow::TEXTURE_MAG_FILTER, glow::LINEAR),
                (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
                (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
            ] {
                gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, p, v as i32);
            }
            let vao = gl.create_vertex_array().unwrap();
            gl.bind_vertex_array(Some(vao));
            let vbo = gl.create_buffer().unwrap();
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            let mut data: Vec<f32> = Vec::new();
            for _ in 0..K {
                data.extend_from_slice(&[0.0, 0.0, size[0] as f32, size[1] as f32]);
                data.extend_from_slice(&[0.5, 0.5, 0.5, 0.5]);
            }
            let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_ne_bytes()).collect();
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            for (loc, offset) in [(0, 0), (1, 16)] {
                gl.enable_vertex_attrib_array(loc);
                gl.vertex_attrib_pointer_f32(loc, 4, glow::FLOAT, false, 32, offset);
                gl.vertex_attrib_divisor(loc, 1);
            }
            gl.use_program(Some(program));
            let vp = gl.get_uniform_location(program, "u_viewport_px");
            gl.uniform_2_f32(vp.as_ref(), size[0] as f32, size[1] as f32);
            Self { program, vao, _vbo: vbo, texture }
        }
    }

    fn draw(&self, gl: &glow::Context) {
        // SAFETY: our own objects on the current context.
        unsafe {
            gl.use_program(Some(self.program));
            gl.bind_vertex_array(Some(self.vao));
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(self.texture));
            gl.enable(glow::BLEND);
            gl.blend_func(glow::ONE, glow::ONE_MINUS_SRC_ALPHA);
            gl.draw_arrays_instanced(glow::TRIANGLE_STRIP, 0, 4, K as i32);
            gl.disable(glow::BLEND);
        }
    }
}

/// A `side` x `side` RGBA8 gradient, premultiplied (opaque).
fn texels(side: u32) -> Vec<u8> {
    (0..side * side).flat_map(|i| [(i % side * 4) as u8, (i / side * 4) as u8, 128, 255]).collect()
}

fn bench(c: &mut Criterion) {
    let size: [u32; 2] = if std::env::var_os("CI").is_some() { [256, 192] } else { [640, 480] };
    let egl::Egl { gl, context, display } = match egl::surfaceless(false) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("skipped: fill: no GL 3.3 context: {e}");
            return;
        }
    };
    let gl = Arc::new(gl);
    // SAFETY: an offscreen colour target on the current context.
    let fbo = unsafe {
        let fbo = gl.create_framebuffer().unwrap();
        let rb = gl.create_renderbuffer().unwrap();
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
        gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, size[0] as i32, size[1] as i32);
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, glow::COLOR_ATTACHMENT0, glow::RENDERBUFFER, Some(rb));
        gl.viewport(0, 0, size[0] as i32, size[1] as i32);
        fbo
    };
    let clear = |gl: &glow::Context| {
        // SAFETY: clears our own framebuffer.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.clear_color(0.0, 0.0, 0.0, 1.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
        }
    };
    let finish = |gl: &glow::Context| {
        // SAFETY: a synchronisation call.
        unsafe { gl.finish() };
    };
    let pixels = u64::from(K) * u64::from(size[0]) * u64::from(size[1]);
    let mut g = c.benchmark_group("fill");
    g.sample_size(20);
    g.throughput(Throughput::Elements(pixels));
    eprintln!("fill: {K} quads of {}x{} per frame, {pixels} pixels, on {:?}", size[0], size[1], gl.version());

    let base = ("baseline", "st", "1.0", "o_color = texture(u_tex, vec3(v_uv, 0.0)) * v_color;");
    for variant in std::iter::once(base).chain(VARIANTS) {
        let baseline = Baseline::new(&gl, size, variant);
        g.bench_function(BenchmarkId::new(variant.0, pixels), |b| {
            b.iter(|| {
                clear(&gl);
                baseline.draw(&gl);
                finish(&gl);
            })
        });
    }

    // layerbatch: tier 1 (one atlas-page texture) and tier 4 (four class arrays).
    let cases: [(&str, Config, &[u32]); 2] = [
        ("tier1", Config::default(), &[64]),
        ("tier4", Config::default().with_max_packed_size_px(0), &[16, 32, 64, 128]),
    ];
    for (name, config, sides) in cases {
        let mut batcher = Batcher::new(Renderer::query_limits(&gl), config).expect("budget");
        let mut renderer = Renderer::new(gl.clone(), batcher.budget()).expect("renderer");
        let ids: Vec<TextureId> =
            sides.iter().map(|&s| batcher.register(&TextureDesc::new(s, s), &texels(s)).expect("register")).collect();
        let target = Target::framebuffer(fbo, size);
        let frame = |batcher: &mut Batcher, renderer: &mut Renderer| {
            batcher.begin_frame();
            for i in 0..K as usize {
                let q = Quad::rect(ids[i % ids.len()], [0.0, 0.0], [size[0] as f32, size[1] as f32]);
                batcher.push(&q.with_color([128, 128, 128, 128])).expect("push");
            }
            clear(&gl);
            renderer.paint(batcher.finish(), &target).expect("paint");
            finish(&gl);
        };
        frame(&mut batcher, &mut renderer); // uploads
        let tiers = renderer.last_drawn_tiers().to_vec();
        eprintln!("fill/{name}: draws of tiers {tiers:?}");
        g.bench_function(BenchmarkId::new(name, pixels), |b| b.iter(|| frame(&mut batcher, &mut renderer)));
        renderer.destroy();
    }
    g.finish();
    drop(gl);
    drop(context);
    drop(display);
}

criterion_group!(benches, bench);
criterion_main!(benches);
