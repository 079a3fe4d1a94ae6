//! Errors of the GL backend.

use layerbatch_core::{Budget, ConfigError, PlanError, MAX_SLOTS_PER_DRAW};

/// The step of building a program that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Compiling the vertex shader.
    Vertex,
    /// Compiling the fragment shader.
    Fragment,
    /// Linking the program.
    Link,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stage::Vertex => "vertex shader compile",
            Stage::Fragment => "fragment shader compile",
            Stage::Link => "program link",
        })
    }
}

/// What went wrong creating a [`crate::Renderer`] or painting a plan.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A shader did not compile or a program did not link. Nothing is ever drawn with it.
    #[error("layerbatch-gl: {stage} failed (tier {tier:?}): {info_log}")]
    Shader {
        /// Which step failed.
        stage: Stage,
        /// The slot tier of the program, `None` for [`crate::compile_program_for_test`].
        tier: Option<u32>,
        /// The driver's info log (never empty: a driver that gives none is reported as such).
        info_log: String,
    },
    /// A declared effect ([`layerbatch_core::Config::effects`]) did not compile or link: found
    /// by building a program with that effect alone after a tier program failed. Nothing is
    /// ever drawn with it.
    #[error("layerbatch-gl: effect {effect:?}: {stage} failed: {info_log}")]
    Effect {
        /// The effect's name.
        effect: &'static str,
        /// Which step failed.
        stage: Stage,
        /// The driver's info log.
        info_log: String,
    },
    /// The driver refused to create a GL object.
    #[error("layerbatch-gl: could not create a {object}: {message}")]
    CreateObject {
        /// The kind of object.
        object: &'static str,
        /// The driver's message.
        message: String,
    },
    /// The budget asks for more slots than the context has texture units: it was derived
    /// from another device's limits.
    #[error("layerbatch-gl: the budget has {slots} slots but the context has {units} texture units")]
    SlotsAboveDevice {
        /// The budget's slots.
        slots: u32,
        /// `MAX_TEXTURE_IMAGE_UNITS`.
        units: u32,
    },
    /// The budget says the device copies compressed texels
    /// ([`Limits::compressed_copies`](layerbatch_core::Limits::compressed_copies), from
    /// [`Renderer::query_limits`](crate::Renderer::query_limits)) but this renderer copies none
    /// (`Capabilities::copy_image` off, or `glCopyImageSubData` missing): its plans would grow
    /// compressed arrays by copies it cannot make. Derive the budget from limits
    /// `.with_compressed_copies(false)`.
    #[error(
        "layerbatch-gl: the budget plans copies of compressed texels ({families}) but this renderer has no \
         glCopyImageSubData (copy_image off): make the budget with Limits::with_compressed_copies(false)"
    )]
    CompressedCopiesAboveDevice {
        /// The budget's format families.
        families: layerbatch_core::FormatFamilies,
    },
    /// The budget was edited after `Budget::new` (its fields are public) into one no executor
    /// can honour: core's [`Budget::check`](layerbatch_core::Budget::check) refused it
    /// ([`layerbatch_core::ConfigError::EditedBudget`]). Checked before any GL call.
    #[error(
        "layerbatch-gl: unusable budget: {slots} slots with tiers {tiers:?}; the slots must be 1..={max_slots} \
         and the tiers 1, 2, 4, .. below the slots, then the slots, as `Budget::new` makes them"
    )]
    EditedBudget {
        /// The budget's `slots`.
        slots: u32,
        /// The budget's `tiers`.
        tiers: Vec<u32>,
        /// The most slots any budget may have ([`layerbatch_core::MAX_SLOTS_PER_DRAW`]).
        max_slots: u32,
    },
    /// The plan was refused by the [`PlanValidator`](layerbatch_core::PlanValidator), the same
    /// check every executor runs: nothing was done on the device, and the renderer is as it
    /// was. [`PlanError::Sequence`] after a skipped plan: call
    /// [`layerbatch_core::Batcher::restore`].
    #[error("layerbatch-gl: plan refused: {0}")]
    Plan(#[from] PlanError),
    /// GL reported an error (`glGetError`) after a resource op or, in debug builds, a draw,
    /// e.g. `GL_OUT_OF_MEMORY` or `GL_INVALID_VALUE` for an array the driver cannot create.
    /// The renderer then dropped every array it held: call
    /// [`layerbatch_core::Batcher::restore`] and re-upload the textures it lists.
    #[error("layerbatch-gl: {op} failed: GL error {code:#06x} ({})", gl_error_name(*code))]
    Gl {
        /// The op that failed, e.g. `create array 3 (20000x1, 2 layers)`.
        op: String,
        /// The `glGetError` code.
        code: u32,
    },
    /// A framebuffer used for a layer copy, or for drawing into a render target, is
    /// incomplete.
    #[error("layerbatch-gl: framebuffer incomplete (status {0:#x})")]
    IncompleteFramebuffer(u32),
}

impl Error {
    /// [`Error::EditedBudget`] for `budget`, which core's `Budget::check` refused with `e`.
    pub(crate) fn edited_budget(budget: &Budget, e: &ConfigError) -> Self {
        log::debug!("layerbatch-gl: Budget::check refused the budget: {e}");
        Error::EditedBudget { slots: budget.slots, tiers: budget.tiers.clone(), max_slots: MAX_SLOTS_PER_DRAW }
    }
}

/// `Err(Error::Gl)` naming the op if GL reports an error now on `gl` (current on the calling
/// thread). `op` is only called then.
#[allow(unsafe_code)]
pub(crate) fn check_gl(gl: &glow::Context, op: impl FnOnce() -> String) -> Result<(), Error> {
    use glow::HasContext as _;
    // SAFETY: a plain error query on the current context.
    let code = unsafe { gl.get_error() };
    if code == glow::NO_ERROR {
        Ok(())
    } else {
        Err(Error::Gl { op: op(), code })
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
