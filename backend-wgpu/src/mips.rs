//! Mip levels of render targets: after a plan drew into a target whose array has mip levels,
//! levels `1..` of the target layer are regenerated from the level 0 just drawn, as core's
//! `PlanTarget` says every executor does (`glGenerateMipmap`'s box filter).
//!
//! One small render pipeline per format (a fullscreen triangle loading the texels of level
//! `n - 1` under each texel of level `n` and averaging them by the area they cover, writing
//! level `n`), all made in `Renderer::new`: nothing is compiled mid-frame. On an even side a
//! texel of level `n` covers two of level `n - 1`, equally; on an odd side `2m + 1` it covers
//! three, by the weights of a box `(2m + 1) / m` texels wide (NVIDIA's non-power-of-two
//! mipmapping): one bilinear sample per texel would read only two of the three and drop the
//! rest (a 3 px side would keep only its middle texel). Level `n` is drawn in a render
//! pass of its own into a view of that level and layer, recorded into the renderer's encoder
//! right after the plan's draws. sRGB targets average in linear light: sampling an sRGB view
//! decodes before filtering, writing one encodes.
//!
//! The sampled view has one level and every layer, and the layer is picked in the shader: wgpu's
//! GL backend samples a view as its whole texture (only the level range is honoured, by
//! `GL_TEXTURE_BASE_LEVEL` / `MAX_LEVEL`), so a view of one layer would sample layer 0 there.

use layerbatch_core::Format;
use wgpu::util::DeviceExt as _;

use crate::scope::{checked, Late};
use crate::Error;

/// The downsampling shader: level `n - 1` of layer `source.x` to level `n`.
const SHADER: &str = r"
@group(0) @binding(0) var<uniform> source: vec4<u32>;
@group(0) @binding(1) var level: texture_2d_array<f32>;

// A triangle covering the viewport.
@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 0.0, 1.0);
}

// The weights of texels 2i, 2i + 1 and 2i + 2 of a side `src` texels long under texel i of
// the side below it: a box filter over the texels it covers.
fn weights(src: u32, i: u32) -> vec3<f32> {
    if src == 1u {
        return vec3<f32>(1.0, 0.0, 0.0);
    }
    if src % 2u == 0u {
        return vec3<f32>(0.5, 0.5, 0.0);
    }
    let n = f32(src / 2u);
    let k = f32(i);
    return vec3<f32>(n - k, n, k + 1.0) / (2.0 * n + 1.0);
}

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let src = textureDimensions(level, 0);
    let at = vec2<u32>(position.xy);
    let wx = weights(src.x, at.x);
    let wy = weights(src.y, at.y);
    var sum = vec4<f32>(0.0);
    for (var y = 0u; y < 3u; y++) {
        for (var x = 0u; x < 3u; x++) {
            let w = wx[x] * wy[y];
            if w > 0.0 {
                let texel = min(2u * at + vec2<u32>(x, y), src - 1u);
                sum += w * textureLoad(level, texel, source.x, 0);
            }
        }
    }
    return sum;
}
";

/// Bytes of the `source` uniform (a `vec4<u32>`: the layer, then padding).
const SOURCE_BYTES: u64 = 16;

/// The mip regeneration pipelines, one per format, and what they bind.
#[derive(Debug)]
pub(crate) struct Mips {
    layout: wgpu::BindGroupLayout,
    /// Indexed by [`format_index`].
    pipelines: Vec<wgpu::RenderPipeline>,
}

/// Every format a render target may have, in [`format_index`] order.
const FORMATS: [Format; 2] = [Format::Rgba8Unorm, Format::Rgba8UnormSrgb];

/// Render targets are RGBA8 (core refuses a compressed one): any other format maps to the
/// linear pipeline, never used.
const fn format_index(format: Format) -> usize {
    match format {
        Format::Rgba8UnormSrgb => 1,
        _ => 0,
    }
}

impl Mips {
    /// The pipelines of every format (not counted in `pipeline_compiles`, which counts the
    /// sprite pipelines), inside error scopes.
    pub(crate) fn new(
        device: &wgpu::Device,
        late: &Late,
        wgpu_format: impl Fn(Format) -> wgpu::TextureFormat,
    ) -> Result<Self, Error> {
        checked(
            device,
            late,
            || "creating the render targets' mip regeneration pipelines".to_string(),
            || {
                let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("layerbatch mips"),
                    entries: &[
                        wgpu::BindGroupLayoutEntry {
                            binding: 0,
                            visibility: wgpu::ShaderStages::FRAGMENT,
                            ty: wgpu::BindingType::Buffer {
                                ty: wgpu::BufferBindingType::Uniform,
                                has_dynamic_offset: false,
                                min_binding_size: wgpu::BufferSize::new(SOURCE_BYTES),
                            },
                            count: None,
                        },
                        wgpu::BindGroupLayoutEntry {
                            binding: 1,
                            visibility: wgpu::ShaderStages::FRAGMENT,
                            ty: wgpu::BindingType::Texture {
                                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                                view_dimension: wgpu::TextureViewDimension::D2Array,
                                multisampled: false,
                            },
                            count: None,
                        },
                    ],
                });
                let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("layerbatch mips"),
                    bind_group_layouts: &[Some(&layout)],
                    immediate_size: 0,
                });
                let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("layerbatch mips"),
                    source: wgpu::ShaderSource::Wgsl(SHADER.into()),
                });
                let pipelines = FORMATS
                    .iter()
                    .map(|&format| {
                        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                            label: Some("layerbatch mips"),
                            layout: Some(&pipeline_layout),
                            vertex: wgpu::VertexState {
                                module: &module,
                                entry_point: Some("vs_main"),
                                compilation_options: Default::default(),
                                buffers: &[],
                            },
                            primitive: wgpu::PrimitiveState::default(),
                            depth_stencil: None,
                            multisample: wgpu::MultisampleState::default(),
                            fragment: Some(wgpu::FragmentState {
                                module: &module,
                                entry_point: Some("fs_main"),
                                compilation_options: Default::default(),
                                targets: &[Some(wgpu::ColorTargetState {
                                    format: wgpu_format(format),
                                    blend: None,
                                    write_mask: wgpu::ColorWrites::ALL,
                                })],
                            }),
                            multiview_mask: None,
                            cache: None,
                        })
                    })
                    .collect();
                Self { layout, pipelines }
            },
        )
    }

    /// Records the regeneration of levels `1..` of `layer` of `texture` (of core format
    /// `format`) into `encoder`, each from the level above: one render pass per level. Returns
    /// the levels regenerated (`mip_level_count - 1`). Run it inside the caller's error scopes.
    pub(crate) fn regenerate(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
        format: Format,
        layer: u32,
    ) -> u32 {
        let levels = texture.mip_level_count();
        if levels < 2 {
            return 0;
        }
        let source = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("layerbatch mips"),
            contents: bytemuck::cast_slice(&[layer, 0, 0, 0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let pipeline = &self.pipelines[format_index(format)];
        for level in 1..levels {
            // Level `level - 1`, every layer (sampled), and level `level` of `layer` (drawn).
            let sampled = texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some("layerbatch mips: source level"),
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                base_mip_level: level - 1,
                mip_level_count: Some(1),
                ..Default::default()
            });
            let drawn = texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some("layerbatch mips: level drawn"),
                dimension: Some(wgpu::TextureViewDimension::D2),
                base_mip_level: level,
                mip_level_count: Some(1),
                base_array_layer: layer,
                array_layer_count: Some(1),
                ..Default::default()
            });
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("layerbatch mips"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: source.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&sampled) },
                ],
            });
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("layerbatch mips"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &drawn,
                    depth_slice: None,
                    resolve_target: None,
                    // Every pixel is drawn.
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.draw(0..3, 0..1);
        }
        levels - 1
    }
}
