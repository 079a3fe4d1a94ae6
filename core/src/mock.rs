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
    /// Copy a rectangle between layers (of one array or two).
    CopyRect {
        /// Source array.
        from: ArrayId,
        /// Source layer.
        from_layer: u32,
        /// Destination array.
        to: ArrayId,
        /// Destination layer.
        to_layer: u32,
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
    /// Per layer: the rectangles written there (`[x, y, w, h]` texels), each with the texture
    /// written and a hash of its level-0 bytes. A write replaces what it overlaps.
    content: Vec<Vec<Written>>,
}

#[derive(Clone, Debug)]
struct Written {
    rect: [u32; 4],
    texture: TextureId,
    /// Level-0 bytes of the rectangle, so that a write of part of it patches them.
    pixels: Vec<u8>,
    hash: u64,
}

fn overlaps(a: [u32; 4], b: [u32; 4]) -> bool {
    a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]
}

impl MockArray {
    fn new(desc: ArrayDesc) -> Self {
        Self { desc, content: vec![Vec::new(); desc.layers as usize] }
    }
    /// Records a write of `pixels` (level 0, tight rows) at `rect` of `layer`: inside a
    /// rectangle the same texture wrote before (an `update_region`), it patches that one;
    /// otherwise it replaces whatever it overlaps.
    fn write(&mut self, layer: u32, rect: [u32; 4], texture: TextureId, pixels: &[u8]) {
        let list = &mut self.content[layer as usize];
        let bpp = self.desc.format.bytes_per_pixel() as usize;
        let inside = |o: &Written| {
            o.texture == texture
                && o.rect != rect
                && rect[0] >= o.rect[0]
                && rect[1] >= o.rect[1]
                && rect[0] + rect[2] <= o.rect[0] + o.rect[2]
                && rect[1] + rect[3] <= o.rect[1] + o.rect[3]
        };
        if let Some(o) = list.iter_mut().find(|o| inside(o)) {
            let row = rect[2] as usize * bpp;
            for r in 0..rect[3] as usize {
                let y = (rect[1] - o.rect[1]) as usize + r;
                let at = (y * o.rect[2] as usize + (rect[0] - o.rect[0]) as usize) * bpp;
                o.pixels[at..at + row].copy_from_slice(&pixels[r * row..(r + 1) * row]);
            }
            o.hash = MockDevice::hash(&o.pixels);
            return;
        }
        list.retain(|o| !overlaps(o.rect, rect));
        list.push(Written { rect, texture, pixels: pixels.to_vec(), hash: MockDevice::hash(pixels) });
    }
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
    /// Vertex bytes a backend writes per quad ([`Budget::quad_bytes`]).
    quad_bytes: u32,
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
            quad_bytes: budget.quad_bytes(),
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
                    self.arrays.insert(*array, MockArray::new(*desc));
                    live_bytes += desc.bytes();
                    c.arrays_created += 1;
                    self.calls.push(Call::CreateArray { array: *array, layers: desc.layers });
                }
                ResourceOp::Array(
                    ArrayOp::Grow { from, to, desc, copy_layers } | ArrayOp::Shrink { from, to, desc, copy_layers },
                ) => {
                    let old = self.arrays.remove(from).expect("validated");
                    let mut new = MockArray::new(*desc);
                    new.content[..*copy_layers as usize].clone_from_slice(&old.content[..*copy_layers as usize]);
                    self.arrays.insert(*to, new);
                    live_bytes += desc.bytes();
                    live_bytes -= old.desc.bytes();
                    retired_bytes += old.desc.bytes();
                    c.arrays_created += 1;
                    c.arrays_destroyed += 1;
                    c.layers_copied += u64::from(*copy_layers);
                    self.calls.push(Call::GrowArray { from: *from, to: *to, layers: *copy_layers });
                }
                ResourceOp::Array(ArrayOp::CopyRect { from, from_layer, from_xy, to, to_layer, to_xy, size }) => {
                    let src = [from_xy[0], from_xy[1], size[0], size[1]];
                    let inside = |r: [u32; 4]| {
                        r[0] >= src[0]
                            && r[1] >= src[1]
                            && r[0] + r[2] <= src[0] + src[2]
                            && r[1] + r[3] <= src[1] + src[3]
                    };
                    let moved: Vec<Written> = self.arrays[from].content[*from_layer as usize]
                        .iter()
                        .filter(|w| inside(w.rect))
                        .map(|w| Written {
                            rect: [w.rect[0] - src[0] + to_xy[0], w.rect[1] - src[1] + to_xy[1], w.rect[2], w.rect[3]],
                            ..w.clone()
                        })
                        .collect();
                    let dst = [to_xy[0], to_xy[1], size[0], size[1]];
                    let a = self.arrays.get_mut(to).expect("validated");
                    a.content[*to_layer as usize].retain(|o| !overlaps(o.rect, dst));
                    a.content[*to_layer as usize].extend(moved);
                    c.layers_copied += 1;
                    self.calls.push(Call::CopyRect {
                        from: *from,
                        from_layer: *from_layer,
                        to: *to,
                        to_layer: *to_layer,
                    });
                }
                ResourceOp::Array(ArrayOp::Destroy { array }) => {
                    let old = self.arrays.remove(array).expect("validated");
                    live_bytes -= old.desc.bytes();
                    retired_bytes += old.desc.bytes();
                    c.arrays_destroyed += 1;
                    self.calls.push(Call::DestroyArray { array: *array });
                }
                ResourceOp::WriteLayer { texture, array, layer, x_px, y_px, width_px, height_px, bytes, .. } => {
                    let a = self.arrays.get_mut(array).expect("validated");
                    let level0 = *width_px as usize * *height_px as usize * a.desc.format.bytes_per_pixel() as usize;
                    let level0 = &plan.upload_bytes[bytes.start..bytes.start + level0];
                    a.write(*layer, [*x_px, *y_px, *width_px, *height_px], *texture, level0);
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
                // The written rectangle the instance's texture rectangle names, exactly.
                let [x0, y0, x1, y1] = inst.tex_rect;
                let rect = [x0 as u32, y0 as u32, (x1 - x0) as u32, (y1 - y0) as u32];
                self.sampled[i as usize] = self.arrays[&array].content[inst.layer() as usize]
                    .iter()
                    .find(|w| w.rect == rect)
                    .map(|w| (w.texture, w.hash));
            }
            c.draw_calls += 1;
            self.calls.push(Call::Draw { tier: seg.tier, instances: seg.instances.clone() });
        }
        // A target with mip levels: every executor regenerates its levels above 0 from the
        // level 0 just drawn.
        if let Some(t) = plan.target {
            let levels = self.arrays.get(&t.array).map_or(1, |a| a.desc.mip_levels);
            c.mip_levels_regenerated += u64::from(levels.saturating_sub(1));
        }
        // Backends write each instance once, or once per corner (indexed quads).
        c.instance_bytes_written = plan.instances.len() as u64 * u64::from(self.quad_bytes);
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
