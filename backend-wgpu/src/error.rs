//! The backend's errors.

use layerbatch_core::{ConfigError, PlanError};

/// What can go wrong creating a [`crate::Renderer`] or executing a plan.
///
/// Nothing here is a panic: a bad plan is refused by core's validator before the device is
/// touched ([`Error::Plan`]), and whatever wgpu refuses while a plan is applied comes back as
/// [`Error::Device`] instead of reaching the device's uncaptured-error handler.
///
/// The same failures have the same variants, with the same fields, as `layerbatch_gl::Error`:
/// [`Error::EditedBudget`], [`Error::BudgetAboveDevice`], [`Error::BudgetNotForDevice`],
/// [`Error::Shader`] and [`Error::Effect`] (GL adds the stage), [`Error::Plan`] and
/// [`Error::Device`] (after which both want [`layerbatch_core::Batcher::restore`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The budget needs more of a limit than the device has: it was derived from another
    /// device's limits (build the batcher from [`crate::device_limits`]).
    #[error("the device cannot run this budget: {what} needs {needed}, the device allows {allowed}")]
    BudgetAboveDevice {
        /// The limit.
        what: &'static str,
        /// What the budget needs.
        needed: u32,
        /// What the device allows.
        allowed: u32,
    },
    /// The budget was edited after [`layerbatch_core::Budget::new`] into one no renderer can
    /// run (its fields are public): more slots than [`layerbatch_core::MAX_SLOTS_PER_DRAW`],
    /// or tiers other than the ones `Budget::new` makes for its slots. Core's
    /// [`layerbatch_core::Budget::check`] refused it ([`ConfigError::EditedBudget`] names the
    /// slots and tiers); [`crate::Renderer::new`] creates nothing then.
    #[error("the budget cannot be run: {0}")]
    EditedBudget(ConfigError),
    /// The budget was made for another kind of device: build the batcher from
    /// [`crate::device_limits`] of this device.
    #[error(
        "the budget does not fit this device: {reason}; build the batcher from layerbatch_wgpu::device_limits(device)"
    )]
    BudgetNotForDevice {
        /// What does not fit.
        reason: String,
    },
    /// A tier's WGSL did not compile (naga's or the driver's message).
    #[error("the shader of slot tier {tier:?} did not compile: {message}")]
    Shader {
        /// The tier (always `Some` here; GL's `None` is its test-only program).
        tier: Option<u32>,
        /// The compiler's message.
        message: String,
    },
    /// A declared effect's WGSL ([`layerbatch_core::Config::effects`]) did not parse or
    /// validate: checked with naga, each effect alone in a tier-1 shader, before any module
    /// is made. Nothing is ever drawn with it.
    #[error("effect {effect:?} did not compile: {message}")]
    Effect {
        /// The effect's name.
        effect: &'static str,
        /// naga's message, with the lines of the generated source it points at.
        message: String,
    },
    /// A tier's render pipeline was not created (stage and driver log are in the message).
    #[error("the render pipeline of slot tier {tier} was not created: {message}")]
    Pipeline {
        /// The tier.
        tier: u32,
        /// wgpu's message (it names the stage and carries the driver's log).
        message: String,
    },
    /// [`crate::Renderer::set_host_texture`] with a texture the renderer cannot draw as a host
    /// texture; nothing changed.
    #[error("host texture {texture:?}: the texture given is {reason}")]
    HostTexture {
        /// The host texture's id.
        texture: layerbatch_core::TextureId,
        /// Why.
        reason: &'static str,
    },
    /// Core's [`layerbatch_core::validate::PlanValidator`] refused the plan; nothing was applied. For
    /// [`PlanError::Sequence`] after a skipped plan, call [`layerbatch_core::Batcher::restore`].
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The plan has more distinct draw states than one uniform buffer of the device holds
    /// (`max_buffer_size` / the 256-byte uniform alignment of most devices: a million at
    /// wgpu's default 256 MiB). A frame alternating
    /// a few states holds a few (the batcher keeps each distinct state once); this takes a
    /// new transform or clip per quad, by the hundred thousand. Nothing of the plan was
    /// applied: as after a skipped plan, call [`layerbatch_core::Batcher::restore`].
    #[error("the plan has {states} distinct draw states; the device holds at most {max} per plan")]
    TooManyStates {
        /// Distinct draw states in the plan.
        states: usize,
        /// The most the device holds.
        max: usize,
    },
    /// A [`crate::PreparedPlan`] made by another renderer was given to
    /// [`crate::Renderer::prepare`] or [`crate::Renderer::render`]: nothing was applied or
    /// drawn, and the prepared plan is unchanged. Each renderer's plans live in prepared plans
    /// of its own ([`crate::Renderer::create_prepared`]).
    #[error(
        "this PreparedPlan was made by renderer {made_by}, not by renderer {renderer}: use one made by \
         Renderer::create_prepared of the renderer it is given to"
    )]
    ForeignPrepared {
        /// The tag of the renderer it was given to ([`crate::Renderer::tag`]).
        renderer: u64,
        /// The tag of the renderer that made it ([`crate::PreparedPlan::renderer_tag`]).
        made_by: u64,
    },
    /// wgpu refused an operation of a plan that passed validation: out of memory, a limit the
    /// budget did not know about (e.g. a batcher built from other limits than this device's),
    /// or an internal error. Part of the plan may have been applied: the renderer then drops
    /// every array it holds and accepts only a rebuild plan next (call
    /// [`layerbatch_core::Batcher::restore`] and re-upload the textures it lists).
    #[error("wgpu refused {op}: {message}")]
    Device {
        /// What the renderer was doing.
        op: String,
        /// wgpu's message.
        message: String,
    },
}
