//! A mock device: executes frame plans the way a backend would, records every call, and
//! checks the plan is executable. Policy tests need no GPU.

use std::collections::HashMap;
use std::ops::Range;

use crate::plan::{ArrayDesc, ArrayId, ArrayOp, FramePlan, PlanError, PlanValidator, ResourceOp};
use crate::{Budget, DeviceCounters, TextureId};

/// One thing a backend would do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// Create an array.
    CreateArray {
        /// Array.
        array: ArrayId,
        /// Layers.
        layers: u32,
    },
    /// Create `to`, copy `layers` layers of `from` into it on the GPU, destroy `from`.
    GrowArray {
        /// Old array.
        from: ArrayId,
        /// New array.
        to: ArrayId,
        /// Layers copied.
        layers: u32,
    },
    /// Destroy an array.
    DestroyArray {
        /// Array.
        array: ArrayId,
    },
    /// Write a layer from the CPU.
    WriteLayer {
        /// Array.
        array: ArrayId,
        /// Layer.
        layer: u32,
        /// Bytes written.
        bytes: usize,
    },
    /// Bind an array to a slot.
    BindSlot {
        /// Slot.
        slot: u32,
        /// Array.
        array: ArrayId,
    },
    /// Draw instances with the program of `tier` slots.
    Draw {
        /// Tier.
        tier: u32,
        /// Instance range.
        instances: Range<u32>,
    },
}

#[derive(Clone, Debug)]
struct MockArray {
    desc: ArrayDesc,
    /// Per layer: the texture last written there and a hash of its level-0 bytes.
    content: Vec<Option<(TextureId, u64)>>,
}

/// The mock device.
///
/// ```
/// # use layerbatch_core::{Batcher, Config, Limits, MockDevice, Call};
/// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
/// let mut device = MockDevice::new(batcher.budget());
/// batcher.begin_frame();
/// device.execute(batcher.finish()).unwrap();
/// assert!(device.calls().is_empty());
/// ```
#[derive(Debug)]
pub struct MockDevice {
    validator: PlanValidator,
    arrays: HashMap<ArrayId, MockArray>,
    peak_bytes: u64,
    calls: Vec<Call>,
    frame: DeviceCounters,
    total: DeviceCounters,
    /// Per instance of the last frame: what it sampled (texture written to its layer).
    sampled: Vec<Option<(TextureId, u64)>>,
}

impl MockDevice {
    /// A device sized for `budget`. It "compiles" one program per tier, as a backend would.
    pub fn new(budget: &Budget) -> Self {
        let compiles = DeviceCounters { pipeline_compiles: budget.tiers.len() as u64, ..DeviceCounters::default() };
        Self {
            validator: PlanValidator::new(budget),
            arrays: HashMap::new(),
            peak_bytes: 0,
            calls: Vec::new(),
            frame: DeviceCounters::default(),
            total: compiles,
            sampled: Vec::new(),
        }
    }

    /// Every call made so far, in order.
    pub fn calls(&self) -> &[Call] {
        &self.calls
    }
    /// Counters of the last frame executed.
    pub fn frame_counters(&self) -> DeviceCounters {
        self.frame
    }
    /// Counters since creation.
    pub fn counters(&self) -> DeviceCounters {
        self.total
    }
    /// Arrays alive on the device.
    pub fn array_count(&self) -> usize {
        self.arrays.len()
    }
    /// Bytes of the arrays alive on the device.
    pub fn allocated_bytes(&self) -> u64 {
        self.arrays.values().map(|a| a.desc.bytes()).sum()
    }
    /// Bytes of one live array.
    pub fn array_bytes(&self, array: ArrayId) -> Option<u64> {
        self.arrays.get(&array).map(|a| a.desc.bytes())
    }
    /// For each instance of the last frame: the texture whose pixels its `(slot, layer)`
    /// sampled, and a hash of those level-0 pixels ([`MockDevice::hash`]).
    pub fn sampled(&self) -> &[Option<(TextureId, u64)>] {
        &self.sampled
    }

    /// The content hash the mock records for level-0 pixels (FNV-1a).
    pub fn hash(pixels: &[u8]) -> u64 {
        pixels.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
    }

    /// Executes a plan: checks it with the [`PlanValidator`] every backend uses, then applies
    /// the ops in order and walks each segment's binds and draw, recording what each instance
    /// sampled.
    ///
    /// # Errors
    /// [`PlanError`] when the plan could not run on a real device; then nothing was applied.
    pub fn execute(&mut self, plan: &FramePlan) -> Result<(), PlanError> {
        self.validator.check(plan)?;
        let mut c = DeviceCounters { frames: 1, ..DeviceCounters::default() };
        if plan.rebuild {
            c.arrays_destroyed += self.arrays.len() as u64;
            self.arrays.clear();
        }
        // A real device frees a destroyed (or grown-from) array only once the commands using
        // it finish: count it until the plan ends.
        let mut retired_bytes = 0u64;
        let mut live_bytes = self.allocated_bytes();
        for op in &plan.ops {
            match op {
                ResourceOp::Array(ArrayOp::Create { array, desc }) => {
                    self.arrays.insert(*array, MockArray { desc: *desc, content: vec![None; desc.layers as usize] });
                    live_bytes += desc.bytes();
                    c.arrays_created += 1;
                    self.calls.push(Call::CreateArray { array: *array, layers: desc.layers });
                }
                ResourceOp::Array(ArrayOp::Grow { from, to, desc, copy_layers }) => {
                    let old = self.arrays.remove(from).expect("validated");
                    let mut content = vec![None; desc.layers as usize];
                    content[..*copy_layers as usize].copy_from_slice(&old.content[..*copy_layers as usize]);
                    self.arrays.insert(*to, MockArray { desc: *desc, content });
                    live_bytes += desc.bytes();
                    live_bytes -= old.desc.bytes();
                    retired_bytes += old.desc.bytes();
                    c.arrays_created += 1;
                    c.arrays_destroyed += 1;
                    c.layers_copied += u64::from(*copy_layers);
                    self.calls.push(Call::GrowArray { from: *from, to: *to, layers: *copy_layers });
                }
                ResourceOp::Array(ArrayOp::Destroy { array }) => {
                    let old = self.arrays.remove(array).expect("validated");
                    live_bytes -= old.desc.bytes();
                    retired_bytes += old.desc.bytes();
                    c.arrays_destroyed += 1;
                    self.calls.push(Call::DestroyArray { array: *array });
                }
                ResourceOp::WriteLayer { texture, array, layer, width_px, height_px, bytes, .. } => {
                    let a = self.arrays.get_mut(array).expect("validated");
                    let level0 = *width_px as usize * *height_px as usize * a.desc.format.bytes_per_pixel() as usize;
                    let level0 = &plan.upload_bytes[bytes.start..bytes.start + level0];
                    a.content[*layer as usize] = Some((*texture, Self::hash(level0)));
                    c.texture_bytes_written += bytes.len() as u64;
                    self.calls.push(Call::WriteLayer { array: *array, layer: *layer, bytes: bytes.len() });
                }
            }
            self.peak_bytes = self.peak_bytes.max(live_bytes + retired_bytes);
        }
        self.sampled.clear();
        self.sampled.resize(plan.instances.len(), None);
        for seg in &plan.segments {
            for b in plan.binds(seg) {
                c.texture_binds += 1;
                self.calls.push(Call::BindSlot { slot: b.slot, array: b.array });
            }
            let table = plan.slots(seg);
            for i in seg.instances.clone() {
                let inst = &plan.instances[i as usize];
                let array = table[inst.slot() as usize].expect("validated");
                self.sampled[i as usize] = self.arrays[&array].content[inst.layer() as usize];
            }
            c.draw_calls += 1;
            self.calls.push(Call::Draw { tier: seg.tier, instances: seg.instances.clone() });
        }
        c.instance_bytes_written = std::mem::size_of_val(plan.instances.as_slice()) as u64;
        self.frame = c;
        self.total.accumulate(&c);
        Ok(())
    }

    /// The most array bytes the device held at once, counting arrays destroyed or grown from
    /// within a plan until that plan ends (a real device frees them only when the commands
    /// using them finish).
    pub fn peak_bytes(&self) -> u64 {
        self.peak_bytes
    }

    /// The plan validator this device checks plans with.
    pub fn validator(&self) -> &PlanValidator {
        &self.validator
    }
}
