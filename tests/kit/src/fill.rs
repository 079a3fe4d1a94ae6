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
//! - `tier4`: layerbatch-gl's tier-4 program (four class arrays, quads alternating);
//! - `tier1_fx4`, `tier1_fx8`: `tier1` with 4 and 8 effects declared ([`EFFECTS`]), the quads
//!   drawing without one (what declaring effects costs every pixel);
//! - `tier1_fx8_first`, `tier1_fx8_last`: `tier1_fx8` with the quads drawing the first
//!   effect (flash) and the last one of the chain of `if`s;
//! - `tier1_fx3_first`: the quads drawing flash with [`ONE_LINERS`] declared (what the
//!   outline's and palette's bodies add to every effect quad).

use std::sync::Arc;

use glutin::api::egl::{context::PossiblyCurrentContext, display::Display};
use layerbatch_core::{Batcher, Config, Effect, EffectId, Quad, TextureDesc, TextureId};
use layerbatch_gl::glow;
use layerbatch_gl::{Renderer, Target};

use crate::egl::{self, raw_sprite::Raw};

/// The cases, in the order they are measured (on GL and on wgpu).
pub const CASES: [&str; 9] = [
    "baseline",
    "previous_tier1",
    "tier1",
    "tier4",
    "tier1_fx4",
    "tier1_fx8",
    "tier1_fx8_first",
    "tier1_fx8_last",
    "tier1_fx3_first",
];

/// The effects of the `_fx` cases: the 5 built-ins (the palette binds the ramp) and three of
/// a line each.
pub const EFFECTS: [Effect; 8] = [
    Effect::FLASH,
    Effect::GREYSCALE,
    Effect::DISSOLVE,
    Effect::OUTLINE,
    Effect::PALETTE,
    crate::looks::INVERT,
    crate::looks::FADE,
    Effect::new("pulse", "return color * clamp(0.75 + 0.25 * sin(time_s * 6.0), 0.0, 1.0);"),
];

/// Three one-line effects of [`EFFECTS`] (flash, invert, fade): an effect program without
/// the outline's and the palette's texture reads.
pub const ONE_LINERS: [Effect; 3] = [EFFECTS[0], EFFECTS[5], EFFECTS[6]];

/// The config, textures and effect id of a layerbatch case.
fn layerbatch_case(name: &str) -> Option<(Config, &'static [u32], u8)> {
    let fx = |n: usize| Config::default().with_effects(&EFFECTS[..n]);
    Some(match name {
        "tier1" => (Config::default(), &[64], 0),
        "tier4" => (Config::default().with_max_packed_size_px(0), &[16, 32, 64, 128], 0),
        "tier1_fx4" => (fx(4), &[64], 0),
        "tier1_fx8" => (fx(8), &[64], 0),
        "tier1_fx8_first" => (fx(8), &[64], 1),
        "tier1_fx8_last" => (fx(8), &[64], 8),
        "tier1_fx3_first" => (Config::default().with_effects(&ONE_LINERS), &[64], 1),
        _ => return None,
    })
}

/// Full-target quads per frame.
pub const K: u32 = 8;

/// A `side` x `side` RGBA8 gradient, premultiplied (opaque).
pub fn texels(side: u32) -> Vec<u8> {
    (0..side * side).flat_map(|i| [(i % side * 4) as u8, (i / side * 4) as u8, 128, 255]).collect()
}

/// A GL 3.3 core context (EGL, no window) with an offscreen RGBA8 target.
#[derive(Debug)]
pub struct GlRig {
    // Field order: `gl` goes before the context and display.
    /// The context's functions.
    pub gl: Arc<glow::Context>,
    target: egl::Framebuffer,
    /// The target's size.
    pub size: [u32; 2],
    _context: PossiblyCurrentContext,
    _display: Display,
}

impl GlRig {
    /// The context and a `size` target.
    ///
    /// # Errors
    /// When there is no GL 3.3 core context to be had.
    pub fn new(size: [u32; 2]) -> Result<Self, String> {
        let egl::Egl { gl, context, display } = egl::surfaceless(false)?;
        let target = egl::Framebuffer::new(&gl, size)?;
        target.bind(&gl);
        Ok(Self { gl: Arc::new(gl), target, size, _context: context, _display: display })
    }

    /// Pixels shaded per frame.
    pub fn pixels(&self) -> u64 {
        u64::from(K) * u64::from(self.size[0]) * u64::from(self.size[1])
    }
}

/// One case, ready to draw frames.
// One value per measurement: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
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
        /// The effect the quads draw with.
        effect: u8,
    },
}

impl GlCase {
    /// The case `name` of [`CASES`] on `rig`, its textures uploaded and its programs
    /// compiled (one frame drawn).
    pub fn new(rig: &GlRig, name: &str) -> Option<Self> {
        let mut case = if let Some(raw) = Raw::new(&rig.gl, rig.size, name) {
            GlCase::Raw(raw)
        } else {
            let (config, sides, effect) = layerbatch_case(name)?;
            let mut batcher = Batcher::new(Renderer::query_limits(&rig.gl), config).expect("budget");
            let renderer = Renderer::new(rig.gl.clone(), batcher.budget()).expect("renderer");
            let ids = sides
                .iter()
                .map(|&s| batcher.textures().register(&TextureDesc::new(s, s), &texels(s)).expect("register"))
                .collect();
            GlCase::Layerbatch { batcher, renderer, ids, effect }
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
        rig.target.clear(&rig.gl, [0.0, 0.0, 0.0, 1.0]);
        match self {
            GlCase::Raw(raw) => raw.draw(&rig.gl),
            GlCase::Layerbatch { batcher, renderer, ids, effect } => {
                batcher.begin_frame();
                let id = batcher.budget().effect_at(usize::from(*effect)).unwrap_or(EffectId::NONE);
                batcher.state().set_effect(id, [0.5; 4]);
                for i in 0..K as usize {
                    let q = Quad::rect(ids[i % ids.len()], [0.0, 0.0], [rig.size[0] as f32, rig.size[1] as f32]);
                    batcher.push(&q.with_color([128, 128, 128, 128])).expect("push");
                }
                renderer.paint(batcher.finish(), &Target::framebuffer(rig.target.fbo, rig.size)).expect("paint");
            }
        }
        egl::finish(&rig.gl);
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
#[derive(Debug)]
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
#[derive(Debug)]
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
#[derive(Debug)]
pub enum WgpuCase {
    /// A hand-written pipeline.
    Raw(WgpuRaw),
    /// layerbatch-wgpu.
    Layerbatch {
        /// The batcher.
        batcher: Batcher,
        /// The renderer.
        renderer: layerbatch_wgpu::Renderer,
        /// What the frame's plan needs between `prepare` and `render`.
        prepared: layerbatch_wgpu::PreparedPlan,
        /// The textures the quads alternate between.
        ids: Vec<TextureId>,
        /// The effect the quads draw with.
        effect: u8,
    },
}

impl WgpuCase {
    /// The case `name` of [`CASES`] on `rig`, one frame drawn.
    pub fn new(rig: &WgpuRig, name: &str) -> Option<Self> {
        let mut case = if let Some(&raw) = WGSL_RAW.iter().find(|r| r.0 == name) {
            WgpuCase::Raw(WgpuRaw::new(rig, raw))
        } else {
            let (config, sides, effect) = layerbatch_case(name)?;
            let mut batcher = Batcher::new(layerbatch_wgpu::device_limits(&rig.device), config).expect("budget");
            let options = layerbatch_wgpu::RendererOptions::default();
            let renderer =
                layerbatch_wgpu::Renderer::new(&rig.device, FORMAT, batcher.budget(), &options).expect("renderer");
            let ids = sides
                .iter()
                .map(|&s| batcher.textures().register(&TextureDesc::new(s, s), &texels(s)).expect("register"))
                .collect();
            let prepared = renderer.create_prepared();
            WgpuCase::Layerbatch { batcher, renderer, prepared, ids, effect }
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
        if let WgpuCase::Layerbatch { batcher, renderer, prepared, ids, effect } = self {
            batcher.begin_frame();
            let id = batcher.budget().effect_at(usize::from(*effect)).unwrap_or(EffectId::NONE);
            batcher.state().set_effect(id, [0.5; 4]);
            for i in 0..K as usize {
                let q = Quad::rect(ids[i % ids.len()], [0.0, 0.0], [rig.size[0] as f32, rig.size[1] as f32]);
                batcher.push(&q.with_color([128, 128, 128, 128])).expect("push");
            }
            renderer.prepare(&rig.device, &rig.queue, prepared, batcher.finish(), rig.size).expect("prepare");
        }
        {
            let mut pass = crate::gpu::clear_pass(&mut encoder, &rig.view, [0.0, 0.0, 0.0, 1.0]);
            match &*self {
                WgpuCase::Raw(raw) => {
                    pass.set_pipeline(&raw.pipeline);
                    pass.set_bind_group(0, &raw.group, &[]);
                    pass.set_vertex_buffer(0, raw.instances.slice(..));
                    pass.draw(0..4, 0..K);
                }
                WgpuCase::Layerbatch { renderer, prepared, .. } => {
                    renderer.render(prepared, &mut pass).expect("render")
                }
            }
        }
        rig.queue.submit([encoder.finish()]);
        rig.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    }
}
