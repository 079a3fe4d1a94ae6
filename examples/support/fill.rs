//! The per-pixel cost of layerbatch's fragment work against a plain sprite shader, on GL:
//! `K` full-target quads per frame (fill-bound), drawn by a hand-written program or by
//! layerbatch-gl. Shared by `benches/fill.rs` (time) and `examples/pixel_cost.rs`
//! (instructions, under callgrind).
//!
//! Cases ([`CASES`]):
//! - `baseline`: `texture(sampler2DArray, vec3(uv, layer)) * tint` with UVs in `0..1`, what
//!   any 2D batcher's sprite shader does per pixel;
//! - `previous_tier1`: layerbatch's tier-1 fragment work before this change (texel
//!   coordinates, the layer size asked and divided by per pixel), hand-written;
//! - `tier1`: layerbatch-gl's tier-1 program (one atlas-page texture: clamped to its rectangle);
//! - `tier4`: layerbatch-gl's tier-4 program (four class arrays, quads alternating).

use std::sync::Arc;

use glutin::api::egl::{context::PossiblyCurrentContext, display::Display};
use layerbatch::{Batcher, Config, Quad, TextureDesc, TextureId};
use layerbatch_gl::glow::{self, HasContext};
use layerbatch_gl::{Renderer, Target};

use crate::egl;

/// The cases, in the order they are measured (on GL and on wgpu).
pub const CASES: [&str; 4] = ["baseline", "previous_tier1", "tier1", "tier4"];

/// Full-target quads per frame.
pub const K: u32 = 8;

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

/// The hand-written programs: `(name, uv expression, bounds scale, fragment body)`.
const RAW: [(&str, &str, &str, &str); 2] = [
    // What any 2D batcher's sprite shader does per pixel.
    ("baseline", "st", "1.0", "o_color = texture(u_tex, vec3(v_uv, 0.0)) * v_color;"),
    // layerbatch's tier-1 fragment work before the vertex stage divided by the layer size:
    // texel coordinates, the size asked and divided by per pixel.
    (
        "previous_tier1",
        "st * 64.0",
        "1.0",
        "vec2 ddx = dFdx(v_uv); vec2 ddy = dFdy(v_uv); vec2 p = clamp(v_uv, v_bounds.xy, v_bounds.zw); \
         vec2 i = 1.0 / vec2(textureSize(u_tex, 0).xy); \
         o_color = textureGrad(u_tex, vec3(p * i, 0.0), ddx * i, ddy * i) * v_color;",
    ),
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

/// A hand-written sprite program and its objects.
pub struct Raw {
    program: glow::Program,
    vao: glow::VertexArray,
    _vbo: glow::Buffer,
    texture: glow::Texture,
}

impl Raw {
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

/// A GL 3.3 core context (EGL, no window) with an offscreen RGBA8 target.
pub struct GlRig {
    // Field order: `gl` goes before the context and display.
    /// The context's functions.
    pub gl: Arc<glow::Context>,
    fbo: glow::Framebuffer,
    /// The target's size.
    pub size: [u32; 2],
    _context: PossiblyCurrentContext,
    _display: Display,
}

impl GlRig {
    /// The context and a `size` target.
    pub fn new(size: [u32; 2]) -> Result<Self, String> {
        let egl::Egl { gl, context, display } = egl::surfaceless(false)?;
        // SAFETY: an offscreen colour target on the current context.
        let fbo = unsafe {
            let fbo = gl.create_framebuffer()?;
            let rb = gl.create_renderbuffer()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, size[0] as i32, size[1] as i32);
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, glow::COLOR_ATTACHMENT0, glow::RENDERBUFFER, Some(rb));
            gl.viewport(0, 0, size[0] as i32, size[1] as i32);
            fbo
        };
        Ok(Self { gl: Arc::new(gl), fbo, size, _context: context, _display: display })
    }

    /// Pixels shaded per frame.
    pub fn pixels(&self) -> u64 {
        u64::from(K) * u64::from(self.size[0]) * u64::from(self.size[1])
    }

    fn clear(&self) {
        // SAFETY: clears our own framebuffer.
        unsafe {
            self.gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.fbo));
            self.gl.clear_color(0.0, 0.0, 0.0, 1.0);
            self.gl.clear(glow::COLOR_BUFFER_BIT);
        }
    }
}

/// One case, ready to draw frames.
// One value per measurement: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub enum GlCase {
    /// A hand-written program.
    Raw(Raw),
    /// layerbatch-gl.
    Layerbatch {
        /// The batcher.
        batcher: Batcher,
        /// The renderer.
        renderer: Renderer,
        /// The textures the quads alternate between.
        ids: Vec<TextureId>,
    },
}

impl GlCase {
    /// The case `name` of [`CASES`] on `rig`, its textures uploaded and its programs
    /// compiled (one frame drawn).
    pub fn new(rig: &GlRig, name: &str) -> Option<Self> {
        let mut case = if let Some(&raw) = RAW.iter().find(|r| r.0 == name) {
            GlCase::Raw(Raw::new(&rig.gl, rig.size, raw))
        } else {
            let (config, sides): (Config, &[u32]) = match name {
                "tier1" => (Config::default(), &[64]),
                "tier4" => (Config::default().with_max_packed_size_px(0), &[16, 32, 64, 128]),
                _ => return None,
            };
            let mut batcher = Batcher::new(Renderer::query_limits(&rig.gl), config).expect("budget");
            let renderer = Renderer::new(rig.gl.clone(), batcher.budget()).expect("renderer");
            let ids = sides
                .iter()
                .map(|&s| batcher.register(&TextureDesc::new(s, s), &texels(s)).expect("register"))
                .collect();
            GlCase::Layerbatch { batcher, renderer, ids }
        };
        case.frame(rig);
        Some(case)
    }

    /// The slot tiers the last frame drew with (empty for a hand-written program).
    pub fn tiers(&self) -> Vec<u32> {
        match self {
            GlCase::Raw(_) => Vec::new(),
            GlCase::Layerbatch { renderer, .. } => renderer.last_drawn_tiers().to_vec(),
        }
    }

    /// Clears, draws `K` full-target quads, and waits for the device.
    pub fn frame(&mut self, rig: &GlRig) {
        rig.clear();
        match self {
            GlCase::Raw(raw) => raw.draw(&rig.gl),
            GlCase::Layerbatch { batcher, renderer, ids } => {
                batcher.begin_frame();
                for i in 0..K as usize {
                    let q = Quad::rect(ids[i % ids.len()], [0.0, 0.0], [rig.size[0] as f32, rig.size[1] as f32]);
                    batcher.push(&q.with_color([128, 128, 128, 128])).expect("push");
                }
                renderer.paint(batcher.finish(), &Target::framebuffer(rig.fbo, rig.size)).expect("paint");
            }
        }
        // SAFETY: a synchronisation call.
        unsafe { rig.gl.finish() };
    }

    /// Deletes the case's GL objects (the rig's context current).
    pub fn destroy(self) {
        if let GlCase::Layerbatch { renderer, .. } = self {
            renderer.destroy();
        }
    }
}

const WGSL: &str = r"
@group(0) @binding(0) var<uniform> viewport_px: vec4<f32>;
@group(0) @binding(1) var tex: texture_2d_array<f32>;
@group(0) @binding(2) var samp: sampler;

struct VsOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) COLOR_INTERPOLATION color: vec4<f32>,
    @location(2) @interpolate(flat) bounds: vec4<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) i: u32, @location(0) rect: vec4<f32>, @location(1) color: vec4<f32>) -> VsOut {
    let st = vec2<f32>(f32(i % 2u), f32(i / 2u));
    let pos = rect.xy + st * rect.zw;
    var out: VsOut;
    out.position = vec4<f32>(pos.x / viewport_px.x * 2.0 - 1.0, 1.0 - pos.y / viewport_px.y * 2.0, 0.0, 1.0);
    out.uv = UV;
    out.color = color;
    out.bounds = vec4<f32>(0.5, 0.5, 63.5, 63.5) * BOUNDS_SCALE;
    return out;
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    BODY
}
";

/// The hand-written WGSL programs: `(name, colour interpolation, uv, bounds scale, body)`.
const WGSL_RAW: [(&str, &str, &str, &str, &str); 2] = [
    ("baseline", "@interpolate(flat)", "st", "1.0 / 64.0", "return textureSample(tex, samp, in.uv, 0) * in.color;"),
    // layerbatch's tier-1 fragment work before the vertex stage divided by the layer size:
    // texel coordinates, the size asked and divided by per pixel, an interpolated tint.
    (
        "previous_tier1",
        "",
        "st * 64.0",
        "1.0",
        "let ddx = dpdx(in.uv); let ddy = dpdy(in.uv); let p = clamp(in.uv, in.bounds.xy, in.bounds.zw); \
         let inv = 1.0 / vec2<f32>(textureDimensions(tex, 0)); \
         return textureSampleGrad(tex, samp, p * inv, 0, ddx * inv, ddy * inv) * in.color;",
    ),
];

/// A wgpu device (Vulkan: lavapipe here) with an offscreen RGBA8 target.
pub struct WgpuRig {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    view: wgpu::TextureView,
    /// The target's size.
    pub size: [u32; 2],
}

impl WgpuRig {
    /// The device and a `size` target.
    pub fn new(size: [u32; 2]) -> Result<Self, String> {
        let instance = crate::gpu::headless_instance(wgpu::Backends::VULKAN);
        let (_, device, queue) = crate::gpu::device(&instance, None)?;
        let view = crate::gpu::target(&device, size, FORMAT).create_view(&Default::default());
        Ok(Self { device, queue, view, size })
    }

    /// Pixels shaded per frame.
    pub fn pixels(&self) -> u64 {
        u64::from(K) * u64::from(self.size[0]) * u64::from(self.size[1])
    }
}

const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// A hand-written WGSL sprite pipeline and its objects.
pub struct WgpuRaw {
    pipeline: wgpu::RenderPipeline,
    group: wgpu::BindGroup,
    instances: wgpu::Buffer,
}

impl WgpuRaw {
    fn new(rig: &WgpuRig, (_, interpolation, uv, bounds, body): (&str, &str, &str, &str, &str)) -> Self {
        use wgpu::util::DeviceExt as _;
        let device = &rig.device;
        let source = WGSL
            .replace("COLOR_INTERPOLATION", interpolation)
            .replace("BOUNDS_SCALE", bounds)
            .replace("UV", uv)
            .replace("BODY", body);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("fill"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let texture = device.create_texture_with_data(
            &rig.queue,
            &wgpu::TextureDescriptor {
                label: Some("fill"),
                size: wgpu::Extent3d { width: 64, height: 64, depth_or_array_layers: 2 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: FORMAT,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            &[texels(64), texels(64)].concat(),
        );
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let [w, h] = rig.size.map(|v| v as f32);
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("fill viewport"),
            contents: bytemuck::cast_slice(&[w, h, 0.0, 0.0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let data: Vec<f32> = (0..K).flat_map(|_| [0.0, 0.0, w, h, 0.5, 0.5, 0.5, 0.5]).collect();
        let instances = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("fill instances"),
            contents: bytemuck::cast_slice(&data),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("fill"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: 32,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4],
                })],
            },
            primitive: wgpu::PrimitiveState { topology: wgpu::PrimitiveTopology::TriangleStrip, ..Default::default() },
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: FORMAT,
                    blend: Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("fill"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: uniform.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&view) },
                wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::Sampler(&sampler) },
            ],
        });
        Self { pipeline, group, instances }
    }
}

/// One wgpu case, ready to draw frames.
#[allow(clippy::large_enum_variant)]
pub enum WgpuCase {
    /// A hand-written pipeline.
    Raw(WgpuRaw),
    /// layerbatch-wgpu.
    Layerbatch {
        /// The batcher.
        batcher: Batcher,
        /// The renderer.
        renderer: layerbatch_wgpu::Renderer,
        /// The textures the quads alternate between.
        ids: Vec<TextureId>,
    },
}

impl WgpuCase {
    /// The case `name` of [`CASES`] on `rig`, one frame drawn.
    pub fn new(rig: &WgpuRig, name: &str) -> Option<Self> {
        let mut case = if let Some(&raw) = WGSL_RAW.iter().find(|r| r.0 == name) {
            WgpuCase::Raw(WgpuRaw::new(rig, raw))
        } else {
            let (config, sides): (Config, &[u32]) = match name {
                "tier1" => (Config::default(), &[64]),
                "tier4" => (Config::default().with_max_packed_size_px(0), &[16, 32, 64, 128]),
                _ => return None,
            };
            let mut batcher = Batcher::new(layerbatch_wgpu::device_limits(&rig.device), config).expect("budget");
            let options = layerbatch_wgpu::RendererOptions::default();
            let renderer =
                layerbatch_wgpu::Renderer::new(&rig.device, FORMAT, batcher.budget(), &options).expect("renderer");
            let ids = sides
                .iter()
                .map(|&s| batcher.register(&TextureDesc::new(s, s), &texels(s)).expect("register"))
                .collect();
            WgpuCase::Layerbatch { batcher, renderer, ids }
        };
        case.frame(rig);
        Some(case)
    }

    /// The largest slot tier of the last frame (0 for a hand-written pipeline).
    pub fn max_tier(&self) -> u64 {
        match self {
            WgpuCase::Raw(_) => 0,
            WgpuCase::Layerbatch { renderer, .. } => renderer.stats().core_frame.max_slot_tier,
        }
    }

    /// Clears, draws `K` full-target quads, submits and waits for the device.
    pub fn frame(&mut self, rig: &WgpuRig) {
        let mut encoder = rig.device.create_command_encoder(&Default::default());
        let prepared = match self {
            WgpuCase::Raw(_) => None,
            WgpuCase::Layerbatch { batcher, renderer, ids } => {
                renderer.begin_frame();
                batcher.begin_frame();
                for i in 0..K as usize {
                    let q = Quad::rect(ids[i % ids.len()], [0.0, 0.0], [rig.size[0] as f32, rig.size[1] as f32]);
                    batcher.push(&q.with_color([128, 128, 128, 128])).expect("push");
                }
                Some(renderer.prepare(&rig.device, &rig.queue, batcher.finish(), rig.size).expect("prepare"))
            }
        };
        {
            let mut pass = crate::gpu::clear_pass(&mut encoder, &rig.view, [0.0, 0.0, 0.0, 1.0]);
            match (&*self, prepared) {
                (WgpuCase::Raw(raw), _) => {
                    pass.set_pipeline(&raw.pipeline);
                    pass.set_bind_group(0, &raw.group, &[]);
                    pass.set_vertex_buffer(0, raw.instances.slice(..));
                    pass.draw(0..4, 0..K);
                }
                (WgpuCase::Layerbatch { renderer, .. }, Some(p)) => renderer.render_prepared(&mut pass, p),
                (WgpuCase::Layerbatch { .. }, None) => {}
            }
        }
        rig.queue.submit([encoder.finish()]);
        rig.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    }
}
