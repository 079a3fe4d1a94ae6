//! Errors of the GL backend.

use layerbatch_core::ArrayId;

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
    /// Plans must be painted one by one, in the order the batcher finished them, each exactly
    /// once: their resource ops build on each other.
    #[error("layerbatch-gl: got the plan of frame {got}, expected frame {expected}: paint every plan once, in order")]
    FrameOrder {
        /// The frame number the renderer expected (`FramePlan::totals.frames`).
        expected: u64,
        /// The frame number of the plan given.
        got: u64,
    },
    /// The plan names an array the renderer does not hold.
    #[error("layerbatch-gl: the plan uses array {0:?}, which does not exist on the device")]
    UnknownArray(ArrayId),
    /// The plan creates an array that already exists.
    #[error("layerbatch-gl: the plan creates array {0:?}, which already exists")]
    ArrayExists(ArrayId),
    /// A layer write that does not fit its array.
    #[error("layerbatch-gl: write of layer {layer} ({width_px}x{height_px}, {mip_levels} levels, {bytes} bytes) does not fit array {array:?}")]
    BadWrite {
        /// The array.
        array: ArrayId,
        /// The layer.
        layer: u32,
        /// Width of level 0.
        width_px: u32,
        /// Height of level 0.
        height_px: u32,
        /// Levels.
        mip_levels: u32,
        /// Bytes given.
        bytes: usize,
    },
    /// A segment asks for a tier no program was built for.
    #[error("layerbatch-gl: a segment asks for tier {0}, which has no program")]
    UnknownTier(u32),
    /// A framebuffer used for a layer copy is incomplete.
    #[error("layerbatch-gl: copy framebuffer incomplete (status {0:#x})")]
    IncompleteFramebuffer(u32),
}
