//! [`PassKind`]: what a render pass is, as far as a render pipeline cares (colour format,
//! multisampling, depth-stencil attachment). The renderer makes its pipelines per kind, on
//! first use, the way glyphon caches its pipelines per (format, multisample, depth-stencil).

/// What a host's render pass is, as far as the pipelines drawing into it care: the colour
/// attachment's format, its multisampling and its depth-stencil attachment.
///
/// A [`Renderer`](crate::Renderer) draws into passes of any number of kinds: a
/// [`PreparedPlan`](crate::PreparedPlan) is prepared for one kind
/// ([`Renderer::create_prepared_for`](crate::Renderer::create_prepared_for)), and the
/// pipelines of a kind are made by the first `prepare` of a plan for it (every tier, program,
/// vertex kind and blend mode: [`Renderer::pipelines_per_kind`](crate::Renderer::pipelines_per_kind)),
/// counted in that frame's `pipeline_compiles`, and kept. A frame that draws only kinds already
/// made compiles nothing. The kind given to [`Renderer::new`](crate::Renderer::new) is made
/// there, so a host with one kind of pass never compiles after creation. Render targets
/// ([`Usage::RenderTarget`](layerbatch_core::Usage::RenderTarget)) are kinds too: their
/// format, one sample, no depth.
///
/// `#[non_exhaustive]`: start from [`PassKind::new`] and use the `with_*` methods.
///
/// ```
/// use layerbatch_wgpu::PassKind;
///
/// // Bevy's 2D main pass of an HDR camera with 4x MSAA: a depth attachment layerbatch does not test.
/// let hdr = PassKind::new(wgpu::TextureFormat::Rgba16Float)
///     .with_multisample(wgpu::MultisampleState { count: 4, ..Default::default() })
///     .with_depth_stencil(Some(PassKind::untested_depth(wgpu::TextureFormat::Depth32Float)));
/// assert_eq!(hdr.multisample.count, 4);
/// assert_ne!(hdr, PassKind::new(wgpu::TextureFormat::Rgba16Float));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct PassKind {
    /// The colour attachment's format.
    pub format: wgpu::TextureFormat,
    /// Multisampling of the pass. Default: 1 sample.
    pub multisample: wgpu::MultisampleState,
    /// The depth-stencil attachment of the pass, if any. layerbatch draws in painter's order
    /// and needs no depth test: [`PassKind::untested_depth`] is the state to give. Default:
    /// none.
    pub depth_stencil: Option<wgpu::DepthStencilState>,
}

impl PassKind {
    /// A pass into `format`, one sample, no depth-stencil attachment.
    pub fn new(format: wgpu::TextureFormat) -> Self {
        Self { format, multisample: wgpu::MultisampleState::default(), depth_stencil: None }
    }

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

    /// The depth-stencil state layerbatch draws with into a pass with a depth attachment of
    /// `format`: always passes, writes nothing, no stencil (sprites keep painter's order).
    pub fn untested_depth(format: wgpu::TextureFormat) -> wgpu::DepthStencilState {
        wgpu::DepthStencilState {
            format,
            depth_write_enabled: Some(false),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }
    }
}
