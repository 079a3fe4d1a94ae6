//! A mock device: executes frame plans the way a backend would, records every call, and
//! checks the plan is executable. Policy tests need no GPU.

use std::collections::HashMap;
use std::ops::Range;

use crate::plan::{FramePlan, ResourceOp};
use crate::{ArrayDesc, ArrayId, ArrayOp, Budget, DeviceCounters, TextureId};

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

/// What the mock found wrong with a plan: a real backend would have drawn garbage or crashed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MockError {
    /// An op or bind names an array that does not exist on the device.
    #[error("array {0:?} does not exist on the device")]
    NoSuchArray(ArrayId),
    /// An op creates an array that already exists.
    #[error("array {0:?} created twice")]
    Exists(ArrayId),
    /// A write or sample outside the array's layers.
    #[error("layer {layer} out of range for array {array:?} of {layers} layers")]
    LayerOutOfRange {
        /// Array.
        array: ArrayId,
        /// Layer.
        layer: u32,
        /// Layers it has.
        layers: u32,
    },
    /// A write's bytes do not match its size.
    #[error("write of {actual} bytes where {expected} are needed")]
    WriteSize {
        /// Bytes given.
        actual: usize,
        /// Bytes needed.
        expected: usize,
    },
    /// A bind to a slot beyond the budget, or a tier that is not a budget tier.
    #[error("slot {0} or tier outside the budget")]
    SlotOutOfRange(u32),
    /// An instance samples a slot that holds nothing, or one at or above its segment's tier.
    #[error("instance {instance} samples slot {slot}, which its segment does not hold")]
    BadSlot {
        /// Instance index.
        instance: u32,
        /// Slot.
        slot: u32,
    },
    /// The plan's slot table disagrees with what the binds left bound.
    #[error("segment {0}: slot table disagrees with the bound arrays")]
    TableMismatch(usize),
    /// A segment crosses an instance-buffer boundary or the segments do not tile the instances.
    #[error("segment {0} has a bad instance range")]
    BadRange(usize),
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
    slots: u32,
    tiers: Vec<u32>,
    arrays: HashMap<ArrayId, MockArray>,
    bound: Vec<Option<ArrayId>>,
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
            slots: budget.slots,
            tiers: budget.tiers.clone(),
            arrays: HashMap::new(),
            bound: vec![None; budget.slots as usize],
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

    /// Executes a plan: ops in order, then each segment's binds and draw.
    ///
    /// # Errors
    /// [`MockError`] when the plan could not run on a real device. The device may be
    /// partially updated then.
    pub fn execute(&mut self, plan: &FramePlan) -> Result<(), MockError> {
        let mut c = DeviceCounters { frames: 1, ..DeviceCounters::default() };
        for op in &plan.ops {
            match op {
                ResourceOp::Array(ArrayOp::Create { array, desc }) => {
                    self.create(*array, *desc)?;
                    c.arrays_created += 1;
                    self.calls.push(Call::CreateArray { array: *array, layers: desc.layers });
                }
                ResourceOp::Array(ArrayOp::Grow { from, to, desc, copy_layers }) => {
                    let old = self.arrays.remove(from).ok_or(MockError::NoSuchArray(*from))?;
                    if *copy_layers > old.desc.layers || *copy_layers > desc.layers {
                        return Err(MockError::LayerOutOfRange {
                            array: *from,
                            layer: *copy_layers,
                            layers: old.desc.layers,
                        });
                    }
                    self.create(*to, *desc)?;
                    let new = self.arrays.get_mut(to).expect("just created");
                    new.content[..*copy_layers as usize].copy_from_slice(&old.content[..*copy_layers as usize]);
                    c.arrays_created += 1;
                    c.arrays_destroyed += 1;
                    c.layers_copied += *copy_layers as u64;
                    self.unbind(*from);
                    self.calls.push(Call::GrowArray { from: *from, to: *to, layers: *copy_layers });
                }
                ResourceOp::Array(ArrayOp::Destroy { array }) => {
                    self.arrays.remove(array).ok_or(MockError::NoSuchArray(*array))?;
                    c.arrays_destroyed += 1;
                    self.unbind(*array);
                    self.calls.push(Call::DestroyArray { array: *array });
                }
                ResourceOp::WriteLayer {
                    texture,
                    array,
                    layer,
                    x_px,
                    y_px,
                    width_px,
                    height_px,
                    mip_levels,
                    bytes,
                } => {
                    let a = self.arrays.get_mut(array).ok_or(MockError::NoSuchArray(*array))?;
                    if *layer >= a.desc.layers {
                        return Err(MockError::LayerOutOfRange { array: *array, layer: *layer, layers: a.desc.layers });
                    }
                    if x_px + width_px > a.desc.width_px
                        || y_px + height_px > a.desc.height_px
                        || *mip_levels != a.desc.mip_levels
                    {
                        return Err(MockError::WriteSize {
                            actual: bytes.len(),
                            expected: a.desc.layer_bytes() as usize,
                        });
                    }
                    let expected = crate::texture::mip_chain_bytes(*width_px, *height_px, *mip_levels) as usize;
                    if bytes.len() != expected {
                        return Err(MockError::WriteSize { actual: bytes.len(), expected });
                    }
                    let level0 = &plan.upload_bytes[bytes.start..bytes.start + (*width_px * *height_px * 4) as usize];
                    a.content[*layer as usize] = Some((*texture, Self::hash(level0)));
                    c.texture_bytes_written += bytes.len() as u64;
                    self.calls.push(Call::WriteLayer { array: *array, layer: *layer, bytes: bytes.len() });
                }
            }
        }
        self.sampled.clear();
        self.sampled.resize(plan.instances.len(), None);
        let cap = plan.instance_capacity.max(1);
        let mut expected_start = 0;
        for (si, seg) in plan.segments.iter().enumerate() {
            let r = &seg.instances;
            if r.start != expected_start || r.end <= r.start || r.start / cap != (r.end - 1) / cap {
                return Err(MockError::BadRange(si));
            }
            expected_start = r.end;
            if !self.tiers.contains(&seg.tier) {
                return Err(MockError::SlotOutOfRange(seg.tier));
            }
            for b in plan.binds(seg) {
                if b.slot >= self.slots {
                    return Err(MockError::SlotOutOfRange(b.slot));
                }
                if !self.arrays.contains_key(&b.array) {
                    return Err(MockError::NoSuchArray(b.array));
                }
                self.bound[b.slot as usize] = Some(b.array);
                c.texture_binds += 1;
                self.calls.push(Call::BindSlot { slot: b.slot, array: b.array });
            }
            let table = plan.slots(seg);
            for (s, entry) in table.iter().enumerate() {
                if entry.is_some() && *entry != self.bound[s] {
                    return Err(MockError::TableMismatch(si));
                }
            }
            for i in r.clone() {
                let inst = &plan.instances[i as usize];
                let slot = inst.slot();
                let array = match table.get(slot as usize) {
                    Some(Some(a)) => *a,
                    _ => return Err(MockError::BadSlot { instance: i, slot }),
                };
                let a = self.arrays.get(&array).ok_or(MockError::NoSuchArray(array))?;
                if inst.layer() >= a.desc.layers {
                    return Err(MockError::LayerOutOfRange { array, layer: inst.layer(), layers: a.desc.layers });
                }
                self.sampled[i as usize] = a.content[inst.layer() as usize];
            }
            c.draw_calls += 1;
            self.calls.push(Call::Draw { tier: seg.tier, instances: r.clone() });
        }
        if expected_start as usize != plan.instances.len() {
            return Err(MockError::BadRange(plan.segments.len()));
        }
        c.instance_bytes_written = std::mem::size_of_val(plan.instances.as_slice()) as u64;
        self.frame = c;
        self.total.accumulate(&c);
        Ok(())
    }

    fn create(&mut self, array: ArrayId, desc: ArrayDesc) -> Result<(), MockError> {
        if self.arrays.contains_key(&array) {
            return Err(MockError::Exists(array));
        }
        self.arrays.insert(array, MockArray { desc, content: vec![None; desc.layers as usize] });
        Ok(())
    }

    fn unbind(&mut self, array: ArrayId) {
        for b in &mut self.bound {
            if *b == Some(array) {
                *b = None;
            }
        }
    }
}
