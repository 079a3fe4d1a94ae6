//! Errors of the GL backend.

use layerbatch_core::{ConfigError, PlanError};

/// The step of building a program that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Compiling the vertex shader.
    Vertex,
    /// Compiling the fragment shader.
    Fragment,
    /// Linking the program.
    Link,
    /// Translating core's WGSL to GLSL with naga (a declared effect's body that does not
    /// parse or validate, or a program naga cannot write as GLSL).
    Translate,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stage::Vertex => "vertex shader compile",
            Stage::Fragment => "fragment shader compile",
            Stage::Link => "program link",
            Stage::Translate => "WGSL to GLSL translation (naga)",
        })
    }
}

/// What went wrong creating a [`crate::Renderer`] or painting a plan.
///
/// The same failures have the same variants, with the same fields, as `layerbatch_wgpu::Error`:
/// [`Error::EditedBudget`], [`Error::BudgetAboveDevice`], [`Error::BudgetNotForDevice`],
/// [`Error::Shader`] and [`Error::Effect`] (here with the GL [`Stage`] too), [`Error::Plan`]
/// and [`Error::Device`] (after which both want [`layerbatch_core::Batcher::restore`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The budget was edited after `Budget::new` (its fields are public) into one no renderer
    /// can run: core's [`Budget::check`](layerbatch_core::Budget::check) refused it
    /// ([`ConfigError::EditedBudget`] names the slots and tiers). Checked before any GL call.
    #[error("layerbatch-gl: the budget cannot be run: {0}")]
    EditedBudget(ConfigError),
    /// The budget needs more of a limit than the context has: it was derived from another
    /// device's limits (build the batcher from [`crate::Renderer::query_limits`]).
    #[error("layerbatch-gl: the context cannot run this budget: {what} needs {needed}, the context allows {allowed}")]
    BudgetAboveDevice {
        /// The limit, e.g. `"texture units"`.
        what: &'static str,
        /// What the budget needs.
        needed: u32,
        /// What the context allows.
        allowed: u32,
    },
    /// The budget was made for another kind of device. Here: it says the device copies
    /// compressed texels ([`Limits::compressed_copies`](layerbatch_core::Limits::compressed_copies),
    /// from [`Renderer::query_limits`](crate::Renderer::query_limits)) but this renderer copies
    /// none (`Capabilities::copy_image` off, or `glCopyImageSubData` missing), so its plans
    /// would grow compressed arrays by copies it cannot make: derive the budget from limits
    /// `.with_compressed_copies(false)`.
    #[error("layerbatch-gl: the budget does not fit this context: {reason}")]
    BudgetNotForDevice {
        /// What does not fit.
        reason: String,
    },
    /// A shader did not compile or a program did not link. Nothing is ever drawn with it.
    #[error("layerbatch-gl: {stage} failed (tier {tier:?}): {message}")]
    Shader {
        /// The slot tier of the program, `None` for [`crate::compile_program_for_test`].
        tier: Option<u32>,
        /// Which step failed.
        stage: Stage,
        /// The driver's info log (never empty: a driver that gives none is reported as such).
        message: String,
    },
    /// A declared effect ([`layerbatch_core::Config::effects`]) did not compile or link: found
    /// by building a program with that effect alone after a tier program failed. Nothing is
    /// ever drawn with it.
    #[error("layerbatch-gl: effect {effect:?}: {stage} failed: {message}")]
    Effect {
        /// The effect's name.
        effect: &'static str,
        /// Which step failed.
        stage: Stage,
        /// The driver's info log.
        message: String,
    },
    /// The plan was refused by the [`PlanValidator`](layerbatch_core::validate::PlanValidator), the
    /// same check every executor runs: nothing was done on the device, and the renderer is as
    /// it was. [`PlanError::Sequence`] after a skipped plan: call
    /// [`layerbatch_core::Batcher::restore`].
    #[error("layerbatch-gl: plan refused: {0}")]
    Plan(#[from] PlanError),
    /// The driver refused an op: GL reported an error (`glGetError`: `GL_OUT_OF_MEMORY`, or
    /// `GL_INVALID_VALUE` for an array the driver cannot create) after a resource op or, in
    /// debug builds, a draw; an object was not created; a framebuffer for a layer copy or a
    /// render target was incomplete. The renderer then dropped every array it held: call
    /// [`layerbatch_core::Batcher::restore`] and re-upload the textures it lists.
    #[error("layerbatch-gl: {op} failed: {message}")]
    Device {
        /// The op that failed, e.g. `create array 3 (20000x1, 2 layers)`.
        op: String,
        /// What GL said, e.g. `GL error 0x0505 (GL_OUT_OF_MEMORY)`.
        message: String,
    },
}

impl Error {
    /// [`Error::Device`] for a `glGetError` `code` after `op`.
    pub(crate) fn gl(op: String, code: u32) -> Self {
        Error::Device { op, message: format!("GL error {code:#06x} ({})", gl_error_name(code)) }
    }
    /// [`Error::Device`] for a GL object the driver did not create.
    pub(crate) fn create_object(object: &str, message: String) -> Self {
        Error::Device { op: format!("creating a {object}"), message }
    }
    /// [`Error::Device`] for an incomplete framebuffer (`status` from `glCheckFramebufferStatus`).
    pub(crate) fn incomplete_framebuffer(status: u32) -> Self {
        Error::Device {
            op: "completing a framebuffer".to_string(),
            message: format!("framebuffer incomplete (status {status:#x})"),
        }
    }
}

/// `Err(Error::Device)` naming the op if GL reports an error now on `gl` (current on the calling
/// thread). `op` is only called then.
#[allow(unsafe_code)]
pub(crate) fn check_gl(gl: &glow::Context, op: impl FnOnce() -> String) -> Result<(), Error> {
    use glow::HasContext as _;
    // SAFETY: a plain error query on the current context.
    let code = unsafe { gl.get_error() };
    if code == glow::NO_ERROR {
        Ok(())
    } else {
        Err(Error::gl(op(), code))
    }
}

/// The name of a `glGetError` code, for messages.
pub(crate) fn gl_error_name(code: u32) -> &'static str {
    match code {
        glow::INVALID_ENUM => "GL_INVALID_ENUM",
        glow::INVALID_VALUE => "GL_INVALID_VALUE",
        glow::INVALID_OPERATION => "GL_INVALID_OPERATION",
        glow::STACK_OVERFLOW => "GL_STACK_OVERFLOW",
        glow::STACK_UNDERFLOW => "GL_STACK_UNDERFLOW",
        glow::OUT_OF_MEMORY => "GL_OUT_OF_MEMORY",
        glow::INVALID_FRAMEBUFFER_OPERATION => "GL_INVALID_FRAMEBUFFER_OPERATION",
        glow::CONTEXT_LOST => "GL_CONTEXT_LOST",
        _ => "unknown",
    }
}
