//! The backend's errors.

use layerbatch_core::ArrayId;

/// What can go wrong creating a [`crate::Renderer`] or executing a plan.
///
/// Plans from a [`layerbatch_core::Batcher`] fed only to this renderer never produce the plan
/// errors; they exist so that a mismatched plan is an error instead of a wgpu validation panic.
/// After a plan error the renderer may have applied part of the plan's ops.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The device's limits cannot run the budget (ask core for a budget from
    /// [`crate::device_limits`]).
    #[error("the device cannot run this budget: {what} needs {needed}, the device allows {allowed}")]
    Unsupported {
        /// The limit.
        what: &'static str,
        /// What the budget needs.
        needed: u32,
        /// What the device allows.
        allowed: u32,
    },
    /// A tier's WGSL did not compile (naga's or the driver's message).
    #[error("the shader of slot tier {tier} did not compile: {message}")]
    Shader {
        /// The tier.
        tier: u32,
        /// The compiler's message.
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
    /// The plan names an array that does not exist on the device.
    #[error("the plan names array {0:?}, which does not exist on the device")]
    NoSuchArray(ArrayId),
    /// The plan creates an array that already exists.
    #[error("the plan creates array {0:?}, which already exists")]
    ArrayExists(ArrayId),
    /// An array description the device cannot hold.
    #[error("array {array:?}: {reason}")]
    BadArray {
        /// The array.
        array: ArrayId,
        /// Why.
        reason: String,
    },
    /// A layer write that does not fit its array.
    #[error("write to layer {layer} of array {array:?}: {reason}")]
    BadWrite {
        /// The array.
        array: ArrayId,
        /// The layer.
        layer: u32,
        /// Why.
        reason: String,
    },
    /// A segment this renderer cannot draw (unknown tier, bad ranges).
    #[error("segment {segment}: {reason}")]
    BadSegment {
        /// Index of the segment in the plan.
        segment: usize,
        /// Why.
        reason: String,
    },
}
