//! The targets, one module each.

mod decode;
mod ktx2;
mod mesh;
mod nine_slice;
mod plan;
mod shapes;
mod text;

use crate::runner::Target;
use layerbatch_core::plan::PlanValidator;
use layerbatch_core::{Batcher, FramePlan, MockDevice};

/// Every target, in the order a run takes them.
pub const NAMES: [&str; 7] = ["ktx2", "decode", "shapes", "mesh", "nine_slice", "plan", "text"];

/// The target called `name`, or why it cannot run here.
pub fn make(name: &str) -> Result<Box<dyn Target>, String> {
    Ok(match name {
        "ktx2" => Box::new(ktx2::Ktx2::new()),
        "decode" => Box::new(decode::Decode),
        "shapes" => Box::new(shapes::ShapesTarget::new()),
        "mesh" => Box::new(mesh::MeshTarget),
        "nine_slice" => Box::new(nine_slice::NineSliceTarget),
        "plan" => Box::new(plan::PlanFuzz::new()?),
        "text" => Box::new(text::TextTarget::new()?),
        _ => return Err(format!("no target {name}")),
    })
}

/// Finishes the batcher's frame and checks the plan: every plan a batcher makes must pass the
/// validator and run on the mock device. A failure is a finding's message.
pub(crate) fn check_plan(
    batcher: &mut Batcher,
    validator: &mut PlanValidator,
    device: &mut MockDevice,
) -> Result<(), String> {
    let plan: &FramePlan = batcher.finish();
    validator
        .check(plan)
        .map_err(|e| format!("the batcher's own plan {} is refused by the validator: {e}", plan.sequence))?;
    device
        .execute(plan)
        .map_err(|e| format!("the batcher's own plan {} is refused by the mock device: {e}", plan.sequence))
}
