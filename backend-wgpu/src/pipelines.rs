//! The render pipelines: for each [`PassKind`], one per slot tier, program, vertex kind and
//! blend mode. The shader modules (one per tier, and with declared effects a second one with
//! them: [`Budget::programs_per_tier`]) are compiled in `Renderer::new` with the pipelines of
//! its pass kind; another kind's pipelines are made from those modules with its first plan
//! (a render target's with its first array of that format). Also the slot bind group layouts
//! and the vertex layout of an [`Instance`], generated from core's [`Instance::ATTRIBUTES`].

use std::collections::HashMap;

use layerbatch_core::plan::{AttributeFormat, BlendFactor, Instance};
use layerbatch_core::{BlendMode, Budget, FramePlan, ProgramKey};

use crate::scope::{scoped, Late, What};
use crate::shader as wgsl;
use crate::{Error, PassKind};
use layerbatch_core::shader;

/// Blend modes, one pipeline each per tier and vertex kind ([`Pipelines::index`]).
const BLENDS: usize = BlendMode::ALL.len();

/// The pass kind of [`Renderer::new`](crate::Renderer::new), beyond its target format:
/// match the host's render pass. Passes of other kinds take a [`PassKind`] each
/// ([`Renderer::create_prepared_for`](crate::Renderer::create_prepared_for)).
///
/// `#[non_exhaustive]`: start from `RendererOptions::default()` and use the `with_*` methods.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RendererOptions {
    /// Multisampling of the host's pass. Default: 1 sample.
    pub multisample: wgpu::MultisampleState,
    /// The depth-stencil attachment of the host's pass, if any. layerbatch draws in painter's
    /// order and needs no depth test: [`PassKind::untested_depth`] is the state to give.
    /// Default: none.
    pub depth_stencil: Option<wgpu::DepthStencilState>,
}

impl RendererOptions {
    /// Sets `multisample`.
    #[must_use]
    pub fn with_multisample(mut self, multisample: wgpu::MultisampleState) -> Self {
        self.multisample = multisample;
        self
    }
    /// Sets `depth_stencil`.
    #[must_use]
    pub fn with_depth_stencil(mut self, depth_stencil: Option<wgpu::DepthStencilState>) -> Self {
        self.depth_stencil = depth_stencil;
        self
    }

    /// The pass kind of these options drawing into `format`.
    pub fn pass_kind(&self, format: wgpu::TextureFormat) -> PassKind {
        PassKind::new(format).with_multisample(self.multisample).with_depth_stencil(self.depth_stencil.clone())
    }
}

/// wgpu's vertex format of an attribute.
const fn vertex_format(format: AttributeFormat) -> wgpu::VertexFormat {
    match format {
        AttributeFormat::Float32x2 => wgpu::VertexFormat::Float32x2,
        AttributeFormat::Float32x4 => wgpu::VertexFormat::Float32x4,
        AttributeFormat::Unorm8x4 => wgpu::VertexFormat::Unorm8x4,
        AttributeFormat::Uint32 => wgpu::VertexFormat::Uint32,
        AttributeFormat::Uint16x4 => wgpu::VertexFormat::Uint16x4,
    }
}

/// The instance attributes: core's [`Instance::ATTRIBUTES`], row for row.
pub(crate) const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; Instance::ATTRIBUTES.len()] = {
    let mut list = [wgpu::VertexAttribute { format: wgpu::VertexFormat::Uint32, offset: 0, shader_location: 0 };
        Instance::ATTRIBUTES.len()];
    let mut i = 0;
    while i < list.len() {
        let a = Instance::ATTRIBUTES[i];
        list[i] = wgpu::VertexAttribute {
            format: vertex_format(a.format),
            offset: a.offset as u64,
            shader_location: a.location,
        };
        i += 1;
    }
    list
};

/// The sprite pipelines and what they are built from.
#[derive(Debug)]
pub(crate) struct Pipelines {
    /// The slot tiers, ascending.
    tiers: Vec<u32>,
    /// Each pass kind's pipelines, by [`Pipelines::index`].
    passes: HashMap<PassKind, Vec<wgpu::RenderPipeline>>,
    /// The kind made at creation ([`crate::Renderer::create_prepared`]'s).
    first: PassKind,
    /// Each program's (tier and variant's) shader module and pipeline layout, by
    /// [`Pipelines::program`].
    tier_modules: Vec<(wgpu::ShaderModule, wgpu::PipelineLayout)>,
    /// Programs per tier: [`Budget::programs_per_tier`] (a plain one, and with declared
    /// effects one with them).
    variants: usize,
    /// Each tier's slot bind group layout (group [`layerbatch_core::shader::GROUP_SLOTS`]).
    slot_layouts: Vec<wgpu::BindGroupLayout>,
    /// The vertex kinds each tier and blend mode has a pipeline for, `true` for indexed (a
    /// triangle list of four vertex records a primitive), `false` for instanced (a 4-vertex
    /// strip per instance): the budget's kind, and with instanced quads the indexed kind too,
    /// for plans with triangles (`FramePlan::indexed`).
    kinds: Vec<bool>,
}

impl Pipelines {
    /// Every tier's modules, and the pipelines of pass kind `first`, inside error scopes
    /// ([`Error::Shader`], [`Error::Pipeline`]).
    pub(crate) fn new(
        device: &wgpu::Device,
        late: &Late,
        first: PassKind,
        budget: &Budget,
        (globals_layout, motion_layout): (&wgpu::BindGroupLayout, &wgpu::BindGroupLayout),
    ) -> Result<Self, Error> {
        wgsl::check_effects(budget.effects)?;
        let tiers = budget.tiers.len();
        let variants = budget.programs_per_tier() as usize;
        let mut slot_layouts = Vec::with_capacity(tiers);
        let mut tier_modules = Vec::with_capacity(tiers * variants);
        for &tier in &budget.tiers {
            let layout = slot_layout(device, tier, budget.max_lights > 0);
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("layerbatch"),
                bind_group_layouts: &[Some(globals_layout), Some(&layout), Some(motion_layout)],
                immediate_size: 0,
            });
            // The plain program, then (with declared effects) the one with every effect.
            for variant in 0..variants {
                let key = ProgramKey::of_budget(budget, tier, variant == 1);
                let source = wgsl::pipeline_source(&key);
                let (module, verdict) = scoped(device, || {
                    device.create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some("layerbatch"),
                        source: wgpu::ShaderSource::Wgsl(source.into()),
                    })
                });
                if let Some(e) = late.settle(verdict, || What::Shader { tier }) {
                    return Err(e);
                }
                tier_modules.push((module, pipeline_layout.clone()));
            }
            slot_layouts.push(layout);
        }
        let mut pipelines = Self {
            tiers: budget.tiers.clone(),
            passes: HashMap::new(),
            first: first.clone(),
            tier_modules,
            variants,
            slot_layouts,
            kinds: vertex_kinds(budget.indexed_quads),
        };
        pipelines.ensure(device, late, &first)?;
        Ok(pipelines)
    }

    /// The slot tiers, ascending.
    pub(crate) fn tiers(&self) -> &[u32] {
        &self.tiers
    }

    /// Pipelines of a pass kind: one per tier, program, vertex kind and blend mode.
    pub(crate) fn per_kind(&self) -> usize {
        self.tier_modules.len() * self.kinds.len() * BLENDS
    }

    /// Pass kinds whose pipelines are made.
    pub(crate) fn pass_kinds(&self) -> usize {
        self.passes.len()
    }

    /// The pass kind made at creation.
    pub(crate) fn first(&self) -> &PassKind {
        &self.first
    }

    /// Whether `plan` is drawn indexed on this renderer ([`FramePlan::drawn_indexed`]).
    pub(crate) fn drawn_indexed(&self, plan: &FramePlan) -> bool {
        plan.drawn_indexed(self.indexed_quads())
    }

    /// The budget's `indexed_quads`: resident layers are stored and drawn so.
    pub(crate) fn indexed_quads(&self) -> bool {
        self.kinds == [true]
    }

    /// The place of `tier` among the tiers, if the renderer has it.
    pub(crate) fn tier_index(&self, tier: u32) -> Option<usize> {
        self.tiers.iter().position(|&t| t == tier)
    }

    /// The program of a tier (by [`Pipelines::tier_index`]): its effect program when
    /// `effects` and the renderer has one, else its plain one.
    fn program(&self, tier_index: usize, effects: bool) -> usize {
        tier_index * self.variants + usize::from(effects && self.variants == 2)
    }

    /// Index of the pipeline of a tier's program (by [`Pipelines::tier_index`] and
    /// `effects`: [`layerbatch_core::plan::Segment::effects`]), blend mode and vertex kind
    /// (`indexed`, which the renderer always has: see `kinds`).
    pub(crate) fn index(&self, tier_index: usize, effects: bool, mode: BlendMode, indexed: bool) -> usize {
        let kind = self.kinds.iter().position(|&k| k == indexed).unwrap_or(0);
        (self.program(tier_index, effects) * self.kinds.len() + kind) * BLENDS + mode.index()
    }

    /// The pipelines of pass kind `kind`, indexed by [`Pipelines::index`] (`None` before they
    /// are made).
    pub(crate) fn for_kind(&self, kind: &PassKind) -> Option<&[wgpu::RenderPipeline]> {
        self.passes.get(kind).map(Vec::as_slice)
    }

    /// The slot bind group layout of a tier (by [`Pipelines::tier_index`]).
    pub(crate) fn slot_layout(&self, tier_index: usize) -> &wgpu::BindGroupLayout {
        &self.slot_layouts[tier_index]
    }

    /// Makes the pipelines of pass kind `kind` unless they exist, from the modules compiled at
    /// creation: every tier, program, vertex kind and blend mode. Returns how many were made
    /// (for `pipeline_compiles`); none are kept when one fails.
    pub(crate) fn ensure(&mut self, device: &wgpu::Device, late: &Late, kind: &PassKind) -> Result<u64, Error> {
        if self.passes.contains_key(kind) {
            return Ok(0);
        }
        let mut list = Vec::with_capacity(self.per_kind());
        let variants = self.variants;
        for (&tier, (module, layout)) in
            self.tiers.iter().flat_map(|t| std::iter::repeat_n(t, variants)).zip(&self.tier_modules)
        {
            for (indexed, mode) in self.kinds.iter().flat_map(|&k| BlendMode::ALL.map(|m| (k, m))) {
                let (pipeline, verdict) = scoped(device, || {
                    let what = PipelineKind { tier, mode, indexed };
                    create_pipeline(device, layout, module, kind, what)
                });
                let detail = || {
                    let vertices = if indexed { "indexed" } else { "instanced" };
                    let depth =
                        kind.depth_stencil.as_ref().map_or(String::new(), |d| format!(", {:?} depth", d.format));
                    format!(
                        "{mode:?} blending, {vertices}, into {:?}, {} samples{depth}",
                        kind.format, kind.multisample.count
                    )
                };
                if let Some(e) = late.settle(verdict, || What::Pipeline { tier, detail: detail() }) {
                    return Err(e);
                }
                list.push(pipeline);
            }
        }
        let made = list.len() as u64;
        self.passes.insert(kind.clone(), list);
        Ok(made)
    }
}

/// The vertex kinds a renderer needs pipelines for (see [`Pipelines::kinds`]).
fn vertex_kinds(indexed_quads: bool) -> Vec<bool> {
    match indexed_quads {
        true => vec![true],
        false => vec![false, true],
    }
}

/// The bind group layout of a tier's slots: the slot-sizes uniform, a texture and its sampler
/// per slot, and with `lit` a normal-map texture and its sampler per slot too.
fn slot_layout(device: &wgpu::Device, tier: u32, lit: bool) -> wgpu::BindGroupLayout {
    // An array texture at `texture` seen by `stages`, and its filtering sampler at `sampler`.
    let pair = |texture, sampler, stages| {
        [
            wgpu::BindGroupLayoutEntry {
                binding: texture,
                visibility: stages,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2Array,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: sampler,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ]
    };
    let mut entries = Vec::with_capacity(4 * tier as usize + 1);
    // The layers' sizes, which the vertex stage divides by (it samples no slot).
    entries.push(wgpu::BindGroupLayoutEntry {
        binding: shader::SLOT_SIZES_BINDING,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: wgpu::BufferSize::new(shader::slot_sizes(tier, std::iter::empty()).len() as u64),
        },
        count: None,
    });
    for i in 0..tier {
        let stages = wgpu::ShaderStages::FRAGMENT;
        entries.extend(pair(shader::texture_binding(i), shader::sampler_binding(i), stages));
        if lit {
            let (texture, sampler) = (shader::normal_texture_binding(i), shader::normal_sampler_binding(i));
            entries.extend(pair(texture, sampler, wgpu::ShaderStages::FRAGMENT));
        }
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("layerbatch slots"),
        entries: &entries,
    })
}

/// What a pipeline is for, beyond its pass kind.
#[derive(Clone, Copy)]
struct PipelineKind {
    tier: u32,
    mode: BlendMode,
    /// Indexed quads (a triangle list of per-vertex instances), else instanced ones (a
    /// 4-vertex strip per instance).
    indexed: bool,
}

fn create_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    pass: &PassKind,
    kind: PipelineKind,
) -> wgpu::RenderPipeline {
    let PipelineKind { tier, mode, indexed } = kind;
    let label = format!("layerbatch tier {tier}, {mode:?}");
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(&label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: Instance::BYTES as u64,
                step_mode: if indexed { wgpu::VertexStepMode::Vertex } else { wgpu::VertexStepMode::Instance },
                attributes: &INSTANCE_ATTRIBUTES,
            })],
        },
        primitive: wgpu::PrimitiveState {
            topology: if indexed {
                wgpu::PrimitiveTopology::TriangleList
            } else {
                wgpu::PrimitiveTopology::TriangleStrip
            },
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: pass.depth_stencil.clone(),
        multisample: pass.multisample,
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: pass.format,
                // Core's factors for the mode, with an ADD equation (Over: premultiplied alpha).
                blend: Some(blend_state(mode)),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// wgpu's blend state for a mode: core's factors with an `ADD` equation.
fn blend_state(mode: BlendMode) -> wgpu::BlendState {
    let f = |factor: BlendFactor| match factor {
        BlendFactor::Zero => wgpu::BlendFactor::Zero,
        BlendFactor::One => wgpu::BlendFactor::One,
        BlendFactor::DstColor => wgpu::BlendFactor::Dst,
        BlendFactor::OneMinusSrcColor => wgpu::BlendFactor::OneMinusSrc,
        BlendFactor::OneMinusSrcAlpha => wgpu::BlendFactor::OneMinusSrcAlpha,
    };
    let [cs, cd, as_, ad] = mode.factors();
    wgpu::BlendState {
        color: wgpu::BlendComponent { src_factor: f(cs), dst_factor: f(cd), operation: wgpu::BlendOperation::Add },
        alpha: wgpu::BlendComponent { src_factor: f(as_), dst_factor: f(ad), operation: wgpu::BlendOperation::Add },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vertex_layout_is_cores_table() {
        assert_eq!(INSTANCE_ATTRIBUTES.len(), Instance::ATTRIBUTES.len());
        for (w, a) in INSTANCE_ATTRIBUTES.iter().zip(Instance::ATTRIBUTES) {
            assert_eq!((w.shader_location, w.offset), (a.location, u64::from(a.offset)), "{}", a.name);
            assert_eq!(w.format.size(), u64::from(a.format.bytes()), "{}", a.name);
        }
        // The hand-checked offsets of core's constants, for one row each end.
        assert_eq!(INSTANCE_ATTRIBUTES[0].offset, u64::from(Instance::OFFSET_ORIGIN));
        assert_eq!(INSTANCE_ATTRIBUTES[6].offset, u64::from(Instance::OFFSET_SLOT_FLAGS_LAYER));
    }
}
