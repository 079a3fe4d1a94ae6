//! The targets, one module each.

mod basis;
mod calls;
mod decode;
mod files;
mod ktx2;
mod mesh;
mod nine_slice;
mod plan;
mod shapes;
mod text;

use crate::rng::{Reader, Rng};
use crate::runner::{Outcome, Target};
use layerbatch_core::validate::PlanValidator;
use layerbatch_core::{
    Batcher, Config, FileTexture, FormatFamilies, FormatFamily, FramePlan, Limits, MockDevice, Quad, TextureId,
};

/// Every target, in the order a run takes them.
pub const NAMES: [&str; 10] =
    ["ktx2", "files", "basis", "decode", "shapes", "mesh", "nine_slice", "plan", "calls", "text"];

/// The target called `name`, or why it cannot run here.
pub fn make(name: &str) -> Result<Box<dyn Target>, String> {
    Ok(match name {
        "ktx2" => Box::new(ktx2::Ktx2::new()),
        "files" => Box::new(files::Files::new()),
        "basis" => Box::new(basis::Basis::new()?),
        "decode" => Box::new(decode::Decode),
        "shapes" => Box::new(shapes::ShapesTarget::new()),
        "mesh" => Box::new(mesh::MeshTarget),
        "nine_slice" => Box::new(nine_slice::NineSliceTarget),
        "plan" => Box::new(plan::PlanFuzz::new()?),
        "calls" => Box::new(calls::Calls::default()),
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

/// A file target's check of one file: what the reader gave (`read`, named `reader`) and
/// what registering it (`register`, named `registrar`) does with a batcher of a `budget_bytes`
/// budget whose device has every format family when the input's last byte is odd, else RGBA8
/// and BC only (the rest decoded on the CPU). A reader's layer shorter than its description,
/// a file registered that the reader refused, or a registered layer that cannot be drawn in a
/// plan the validator and the mock device accept is a finding.
pub(crate) fn check_file<R: std::fmt::Debug, E: std::fmt::Debug>(
    input: &[u8],
    budget_bytes: u64,
    read: &Result<FileTexture, R>,
    (reader, registrar): (&str, &str),
    register: impl FnOnce(&mut Batcher) -> Result<Vec<TextureId>, E>,
) -> Outcome {
    if let Ok(t) = read {
        let chain = t.desc.byte_len();
        if t.layers.iter().any(|l| l.len() < chain) {
            return Outcome::Finding(format!("{reader} gave a layer shorter than its desc: {:?}", t.desc));
        }
    }
    let families = if input.last().is_some_and(|b| b & 1 == 1) {
        FormatFamilies::ALL
    } else {
        FormatFamilies::RGBA8.with(FormatFamily::Bc)
    };
    let limits = Limits::guaranteed_minimum().with_format_families(families);
    let mut batcher = match Batcher::new(limits, Config::default().with_budget_bytes(budget_bytes)) {
        Ok(b) => b,
        Err(e) => return Outcome::Finding(format!("Batcher::new: {e}")),
    };
    match register(&mut batcher) {
        Ok(ids) => {
            if read.is_err() {
                return Outcome::Finding(format!("{registrar} took a file {reader} refused: {read:?}"));
            }
            let mut validator = PlanValidator::new(batcher.budget());
            let mut device = MockDevice::new(batcher.budget());
            batcher.begin_frame();
            for id in &ids {
                if let Err(e) = batcher.push(&Quad::rect(*id, [0.0, 0.0], [16.0, 16.0])) {
                    return Outcome::Finding(format!("a layer {registrar} registered cannot be drawn: {e}"));
                }
            }
            match check_plan(&mut batcher, &mut validator, &mut device) {
                Ok(()) => Outcome::Ok,
                Err(m) => Outcome::Finding(m),
            }
        }
        Err(e) => Outcome::err(&e),
    }
}

/// Bytes of the input each mutation of a file target reads (past them it reads zeros).
pub(crate) const MUTATION_BYTES: usize = 12;

/// A file target's input: a seed number, then 1 to 4 mutations (half the inputs one) of
/// [`MUTATION_BYTES`] each.
pub(crate) fn file_input(rng: &mut Rng) -> Vec<u8> {
    let mut input = vec![rng.byte()];
    let mutations = [1, 1, 1, 1, 2, 2, 3, 4][rng.index(8)];
    for _ in 0..mutations {
        input.extend(rng.bytes(MUTATION_BYTES));
    }
    input
}

/// The file an input describes: byte 0 picks a seed, then each run of [`MUTATION_BYTES`] is
/// one mutation, its first byte given to `apply` with a reader of the rest.
pub(crate) fn mutated(
    seeds: &[Vec<u8>],
    input: &[u8],
    mut apply: impl FnMut(&mut Vec<u8>, u8, &mut Reader<'_>),
) -> Vec<u8> {
    let Some((&seed, mutations)) = input.split_first() else { return seeds[0].clone() };
    let mut file = seeds[usize::from(seed) % seeds.len()].clone();
    for chunk in mutations.chunks(MUTATION_BYTES) {
        let mut r = Reader::new(chunk);
        let op = r.u8();
        apply(&mut file, op, &mut r);
    }
    file
}

/// The mutations every file target makes, whatever the container.
pub(crate) enum Mutation {
    /// One bit flipped.
    BitFlip,
    /// One byte set.
    ByteSet,
    /// The file cut.
    Truncation,
    /// Up to this many bytes of one value appended.
    Extension(usize),
    /// A run of another seed's bytes over this one's.
    Splice,
}

/// Applies `mutation` to `file`, reading its parameters from `r`.
pub(crate) fn mutate(file: &mut Vec<u8>, mutation: Mutation, r: &mut Reader<'_>, seeds: &[Vec<u8>]) {
    let len = file.len();
    match mutation {
        Mutation::BitFlip => {
            let at = r.u16() as usize;
            if len > 0 {
                file[at % len] ^= 1 << (r.u8() % 8);
            }
        }
        Mutation::ByteSet => {
            let at = r.u16() as usize;
            let v = r.u8();
            if len > 0 {
                file[at % len] = v;
            }
        }
        Mutation::Truncation => {
            let at = r.u16() as usize;
            file.truncate(at % (len + 1));
        }
        Mutation::Extension(most) => {
            let n = r.below(most);
            let v = r.u8();
            file.extend(std::iter::repeat_n(v, n));
        }
        Mutation::Splice => {
            let other = &seeds[r.below(seeds.len())];
            let from = r.u16() as usize % other.len();
            let n = r.below(64).min(other.len() - from);
            let at = r.u16() as usize % (len + 1);
            let end = (at + n).min(len);
            file[at..end].copy_from_slice(&other[from..from + (end - at)]);
        }
    }
}
