//! Why a plan cannot be executed: the validator's one error type.

use super::{ArrayId, ResidentId};
#[cfg(doc)]
use super::{FramePlan, Instance};

/// Why a plan cannot be executed. Returned by [`PlanValidator::check`](crate::validate::PlanValidator::check), and so by every
/// executor ([`crate::MockDevice`], `layerbatch-gl`, `layerbatch-wgpu`) for the same plan.
///
/// Nothing was applied to the device when a plan is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The plan is not the next one: a plan was skipped (`got > expected`) or this one was
    /// already executed (`got < expected`). A repeat can simply be dropped; after a gap, call
    /// [`crate::Batcher::restore`] and re-upload the textures it lists.
    #[error(
        "plan {got} is out of order: expected plan {expected} (every plan must be executed once, in order; \
         after a skipped plan call Batcher::restore)"
    )]
    Sequence {
        /// The plan number the executor expected.
        expected: u64,
        /// The plan number it got.
        got: u64,
    },
    /// The executor holds nothing the plan could build on (it is new, or it dropped
    /// everything after an error or a lost device), and the plan is neither a batcher's first
    /// nor a rebuild plan. Call [`crate::Batcher::restore`]: its next plan rebuilds the
    /// device.
    #[error(
        "plan {got} builds on plans this device never executed (it is new, or dropped its arrays after an \
         error): call Batcher::restore so the next plan rebuilds it"
    )]
    NeedsRebuild {
        /// The plan number it got.
        got: u64,
    },
    /// The plan was made by another batcher than the plans this executor ran
    /// ([`FramePlan::batcher`]): its arrays and slots name that batcher's textures. A rebuild
    /// plan is accepted from any batcher (it re-creates everything it draws).
    #[error("plan {sequence} is batcher {got}'s; this executor runs batcher {expected}'s plans")]
    ForeignPlan {
        /// The batcher whose plans this executor ran.
        expected: u32,
        /// The plan's batcher.
        got: u32,
        /// The plan's number.
        sequence: u64,
    },
    /// `instance_capacity` differs from the budget's.
    #[error("the plan's instance capacity is {got}; the budget's is {expected}")]
    InstanceCapacity {
        /// The budget's.
        expected: u32,
        /// The plan's.
        got: u32,
    },
    /// An op creates an array that already exists.
    #[error("op {op}: array {array:?} already exists")]
    ArrayExists {
        /// Index of the op in [`FramePlan::ops`].
        op: usize,
        /// The array.
        array: ArrayId,
    },
    /// An op, bind or slot table names an array the device does not hold.
    #[error("array {array:?} does not exist on the device (op or segment {at})")]
    UnknownArray {
        /// Index of the op, or of the segment, that names it.
        at: usize,
        /// The array.
        array: ArrayId,
    },
    /// An array description the budget cannot hold (zero size, too many mips or layers, above
    /// the device's texture size, or a layer count the device would misread).
    #[error("op {op}: array {array:?} cannot be created: {reason}")]
    BadArray {
        /// Index of the op.
        op: usize,
        /// The array.
        array: ArrayId,
        /// Why.
        reason: &'static str,
    },
    /// A growth whose new array does not match the old one, or copies more layers than either
    /// has.
    #[error("op {op}: growth of {from:?} into {to:?}: {reason}")]
    BadGrow {
        /// Index of the op.
        op: usize,
        /// Old array.
        from: ArrayId,
        /// New array.
        to: ArrayId,
        /// Why.
        reason: &'static str,
    },
    /// A rectangle copy that does not fit its array.
    #[error("op {op}: rectangle copy in array {array:?}: {reason}")]
    BadCopy {
        /// Index of the op.
        op: usize,
        /// The array.
        array: ArrayId,
        /// Why.
        reason: &'static str,
    },
    /// A host texture's contents ([`crate::plan::ArrayOp::HostContents`]) for an array that is
    /// not a host texture's, or a host texture's view the plan makes without its contents.
    #[error("op {op}: host texture contents of array {array:?}: {reason}")]
    BadHost {
        /// Index of the op (the plan's op count for a view left without contents).
        op: usize,
        /// The array.
        array: ArrayId,
        /// Why.
        reason: &'static str,
    },
    /// The executor holds no texture of the host's for a host texture a plan fills
    /// ([`crate::plan::ArrayOp::HostContents`]), or one that does not match it: the host
    /// hands its texture to the backend before the plan that registers it runs, and keeps it
    /// there until the texture is freed.
    #[error("host texture {texture:?} for array {array:?}: {reason}")]
    HostTexture {
        /// The host texture.
        texture: crate::TextureId,
        /// Its array.
        array: ArrayId,
        /// Why.
        reason: &'static str,
    },
    /// A layer write outside its array: layer out of range, rectangle past the layer's edge,
    /// an empty rectangle, or a level count other than the array's.
    #[error("op {op}: write to layer {layer} of array {array:?} does not fit: {reason}")]
    WriteOutOfBounds {
        /// Index of the op.
        op: usize,
        /// The array.
        array: ArrayId,
        /// The layer.
        layer: u32,
        /// Why.
        reason: &'static str,
    },
    /// A write's byte range is outside [`FramePlan::upload_bytes`] or not the size of its
    /// levels.
    #[error("op {op}: write bytes {start}..{end} of {available}; {expected} needed")]
    UploadBytes {
        /// Index of the op.
        op: usize,
        /// Range start.
        start: usize,
        /// Range end.
        end: usize,
        /// Bytes the plan holds.
        available: usize,
        /// Bytes the write needs.
        expected: u64,
    },
    /// Segments that do not tile the instances in order, or one that crosses an
    /// instance-buffer boundary.
    #[error("segment {segment}: instances {start}..{end} break the tiling of {count} instances")]
    SegmentRange {
        /// Index of the segment.
        segment: usize,
        /// Range start.
        start: u32,
        /// Range end.
        end: u32,
        /// Instances in the plan.
        count: usize,
    },
    /// The triangle instances ([`Instance::FLAG_TRIANGLE`]) and [`FramePlan::triangles`] or
    /// [`FramePlan::block_triangles`] disagree, or a plan with triangles is not
    /// [`FramePlan::indexed`].
    #[error("{flagged} triangle instances, {corners} corner triples: {reason}")]
    Triangles {
        /// Instances flagged as triangles.
        flagged: usize,
        /// Entries of [`FramePlan::triangles`].
        corners: usize,
        /// What disagrees.
        reason: &'static str,
    },
    /// A segment asks for a tier the budget has no program for.
    #[error("segment {segment}: tier {tier} is not a budget tier")]
    UnknownTier {
        /// Index of the segment.
        segment: usize,
        /// The tier.
        tier: u32,
    },
    /// A segment's slot table or bind range is outside the plan's, or not `tier` long.
    #[error("segment {segment}: slot table or bind range out of bounds")]
    SlotTable {
        /// Index of the segment.
        segment: usize,
    },
    /// A segment names a draw state the plan does not have, or a state with a non-finite
    /// transform.
    #[error("segment {segment}: draw state {state} is missing or has a non-finite transform")]
    BadState {
        /// Index of the segment.
        segment: usize,
        /// The state index.
        state: u32,
    },
    /// The plan's [`super::FramePlan::target`] is not a render-target layer the device holds
    /// (unknown array, not a render-target array, a layer or size past the array's), or a
    /// segment samples the array it draws into.
    #[error("the plan's target (array {array:?}, layer {layer}) is unusable: {reason}")]
    BadTarget {
        /// The target's array.
        array: ArrayId,
        /// The target's layer.
        layer: u32,
        /// Why.
        reason: &'static str,
    },
    /// A bind to a slot at or above the segment's tier.
    #[error("segment {segment}: bind to slot {slot}, outside its tier")]
    SlotOutOfRange {
        /// Index of the segment.
        segment: usize,
        /// The slot.
        slot: u32,
    },
    /// After the segment's binds, a slot holds another array than its slot table says.
    #[error("segment {segment}: slot {slot} holds {held:?}, the slot table says {table:?}")]
    TableMismatch {
        /// Index of the segment.
        segment: usize,
        /// The slot.
        slot: u32,
        /// What the binds left there.
        held: Option<ArrayId>,
        /// What the table says.
        table: Option<ArrayId>,
    },
    /// An instance samples a slot its segment does not hold (at or above the tier, or empty).
    #[error("instance {instance} samples slot {slot}, which its segment does not hold")]
    InstanceSlot {
        /// Index of the instance.
        instance: u32,
        /// The slot.
        slot: u32,
    },
    /// An instance samples a layer its array does not have.
    #[error("instance {instance} samples layer {layer} of an array of {layers}")]
    InstanceLayer {
        /// Index of the instance.
        instance: u32,
        /// The layer.
        layer: u32,
        /// Layers of the array in its slot.
        layers: u32,
    },
    /// An instance names an effect its budget does not declare (or sets bits of
    /// [`crate::plan::Instance::effect`] other than the id).
    #[error("instance {instance} draws with effect {effect}: the budget declares {declared} effects")]
    InstanceEffect {
        /// Index of the instance.
        instance: u32,
        /// Its `effect` field.
        effect: u32,
        /// Effects the budget declares.
        declared: u32,
    },
    /// The plan's lights: too many, or one (or the ambient colour) out of range.
    #[error("plan with {lights} lights (the budget's most: {max_lights}): light {light:?} is bad: {reason}")]
    Lights {
        /// Lights in the plan.
        lights: usize,
        /// [`crate::Budget::max_lights`].
        max_lights: u32,
        /// The bad light's index, if one is.
        light: Option<usize>,
        /// What is wrong.
        reason: &'static str,
    },
    /// A segment drawn with the plain program holds an instance with an effect (`instance`),
    /// or one is marked for the effect program without declared effects or in a resident
    /// layer (`instance` `None`): [`crate::plan::Segment::effects`].
    #[error("segment {segment}: {}", match instance { Some(i) => format!("instance {i} draws with an effect and the segment is not marked `effects`"), None => "marked `effects` without declared effects, or drawing a resident layer".to_string() })]
    SegmentEffects {
        /// Index of the segment.
        segment: usize,
        /// The instance with an effect, if that is what is wrong.
        instance: Option<u32>,
    },
    /// A ramp write the device cannot apply ([`FramePlan::ramp_writes`](crate::FramePlan::ramp_writes)).
    #[error("ramp write {write} (row {row}, bytes {start}..{end}): {reason}")]
    Ramp {
        /// Index in `ramp_writes`.
        write: usize,
        /// The row.
        row: u8,
        /// Range start.
        start: usize,
        /// Range end.
        end: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// An op or segment names a resident layer the device does not hold (or, for a create,
    /// already holds).
    #[error("op or segment {at}: resident layer {resident:?} is {reason}")]
    BadResident {
        /// The op's index in `ops`, or the segment's in `segments`.
        at: usize,
        /// The resident layer.
        resident: ResidentId,
        /// What is wrong.
        reason: &'static str,
    },
    /// An op writes or destroys a resident layer the device does not hold.
    #[error("op {at}: the device holds no resident layer {resident:?}")]
    UnknownResident {
        /// The op's index in `ops`.
        at: usize,
        /// The resident layer.
        resident: ResidentId,
    },
    /// A resident write or draw names instances outside the resident layer (or a write's
    /// outside [`FramePlan::resident_instances`]).
    #[error(
        "op or segment {at}: instances {start}..{end} of resident layer {resident:?} are outside its {len} \
         (or the plan's {available} resident instances)"
    )]
    ResidentRange {
        /// The op's index in `ops`, or the segment's in `segments`.
        at: usize,
        /// The resident layer.
        resident: ResidentId,
        /// First instance.
        start: u32,
        /// One past the last.
        end: u32,
        /// Instances the resident holds.
        len: u32,
        /// Instances in [`FramePlan::resident_instances`].
        available: usize,
    },
    /// A cell write names cells outside its tile grid layer, none, or ids outside
    /// [`FramePlan::cells`].
    #[error(
        "op {at}: cells {start}..{end} of tile grid layer {resident:?} are outside its {len} \
         (or the plan's {available} cells)"
    )]
    CellRange {
        /// The op's index in `ops`.
        at: usize,
        /// The tile grid layer.
        resident: ResidentId,
        /// First cell.
        start: u32,
        /// One past the last.
        end: u32,
        /// Cells the layer holds.
        len: u32,
        /// Ids in [`FramePlan::cells`].
        available: usize,
    },
    /// A grid draw ([`crate::plan::GridDraw`]) of a segment that draws no tile grid layer, or
    /// cells outside its grid, a width that does not divide its cells, or a tile size that
    /// is not a positive number.
    #[error("segment {segment}: grid draw {grid:?} of a layer of {cells} cells: {reason}")]
    BadGrid {
        /// Index of the segment.
        segment: usize,
        /// The grid draw.
        grid: crate::plan::GridDraw,
        /// Cells the layer holds (0: none, or no layer).
        cells: u32,
        /// What is wrong.
        reason: &'static str,
    },
    /// A move op names sprites outside its moving layer, none, or motions outside
    /// [`FramePlan::motions`].
    #[error(
        "op {at}: motions of sprites {start}..{end} of moving layer {resident:?} are outside its {len} \
         (or the plan's {available} motions)"
    )]
    MotionRange {
        /// The op's index in `ops`.
        at: usize,
        /// The moving layer.
        resident: ResidentId,
        /// First sprite.
        start: u32,
        /// One past the last.
        end: u32,
        /// Sprites the layer holds.
        len: u32,
        /// Motions in [`FramePlan::motions`].
        available: usize,
    },
    /// A resident instance written names a slot past the budget's, a layer past the most an
    /// array can have, or is a triangle (residents hold quads); or a segment drawing the
    /// resident leaves a slot its instances sample empty, or names an array with fewer
    /// layers than they sample.
    #[error("op or segment {at}: resident layer {resident:?} {reason} (slot {slot})")]
    ResidentInstance {
        /// The op's index in `ops`, or the segment's in `segments`.
        at: usize,
        /// The resident layer.
        resident: ResidentId,
        /// The slot.
        slot: u32,
        /// What is wrong.
        reason: &'static str,
    },
}
