//! A mock device: executes frame plans the way a backend would, records every call, and
//! checks the plan is executable. Policy tests need no GPU.

use std::collections::HashMap;
use std::ops::Range;

use crate::execute::{Executor, HostFill, LayerCopy, LevelUpload, PlanRunner, RectCopy};
use crate::plan::{
    ArrayDesc, ArrayId, CellWrite, FramePlan, GridDraw, HostAccess, Instance, MotionWrite, PlanError, ResidentId,
    ResidentWrite, Viewport,
};
use crate::validate::PlanValidator;
use crate::walk::{DrawStep, DrawSteps};
use crate::{Budget, DeviceCounters, Motion, TextureId, MOTION_ROW_TEXELS};

/// What an instance drawn sampled: the texture whose level-0 pixels its `(slot, layer)` names
/// and their hash ([`MockDevice::hash`]), or `None`.
pub type Sampled = Option<(TextureId, u64)>;

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
    /// Copy `layers` whole layers of `from` into `to` on the GPU (growth and shrinking).
    CopyLayers {
        /// Source array.
        from: ArrayId,
        /// Destination array.
        to: ArrayId,
        /// Layers copied.
        layers: u32,
    },
    /// Destroy an array.
    DestroyArray {
        /// Array.
        array: ArrayId,
    },
    /// Write a mip level of a layer from the CPU.
    WriteLevel {
        /// Array.
        array: ArrayId,
        /// Layer.
        layer: u32,
        /// Level.
        level: u32,
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
    /// Bring a host texture's contents into its array: a view made, or a copy.
    HostContents {
        /// The host texture.
        texture: TextureId,
        /// Its array.
        array: ArrayId,
        /// View or copy.
        access: HostAccess,
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
    /// Create a resident layer's buffer.
    CreateResident {
        /// The resident.
        resident: ResidentId,
        /// Instances it holds.
        instances: u32,
    },
    /// Write instances of a resident layer.
    WriteResident {
        /// The resident.
        resident: ResidentId,
        /// Instances written.
        instances: Range<u32>,
    },
    /// Create a moving layer's motion texture.
    CreateMotion {
        /// The resident.
        resident: ResidentId,
        /// Its size in texels.
        size_texels: [u32; 2],
    },
    /// Write a rectangle of a moving layer's motion texture.
    WriteMotion {
        /// The resident.
        resident: ResidentId,
        /// `[x, y, width, height]`, texels.
        rect: [u32; 4],
    },
    /// Destroy a resident layer's buffer (and its motion texture).
    DestroyResident {
        /// The resident.
        resident: ResidentId,
    },
    /// Write a row of the ramp.
    WriteRamp {
        /// The row.
        row: u32,
        /// A hash of its texels ([`MockDevice::hash`]).
        hash: u64,
    },
    /// Draw instances of a resident layer with the program of `tier` slots.
    DrawResident {
        /// The resident.
        resident: ResidentId,
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
        // In blocks (texels, for RGBA8): compressed rectangles are whole blocks.
        let f = self.desc.format;
        let ([bw, bh], bpb) = (f.block_size_px(), f.block_bytes() as usize);
        let inside = |o: &Written| {
            o.texture == texture
                && o.rect != rect
                && rect[0] >= o.rect[0]
                && rect[1] >= o.rect[1]
                && rect[0] + rect[2] <= o.rect[0] + o.rect[2]
                && rect[1] + rect[3] <= o.rect[1] + o.rect[3]
        };
        if let Some(o) = list.iter_mut().find(|o| inside(o)) {
            let row = (rect[2] / bw) as usize * bpb;
            for r in 0..(rect[3] / bh) as usize {
                let y = ((rect[1] - o.rect[1]) / bh) as usize + r;
                let at = (y * (o.rect[2] / bw) as usize + ((rect[0] - o.rect[0]) / bw) as usize) * bpb;
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
/// # use layerbatch_core::{Batcher, Config, Limits, MockDevice};
/// # use layerbatch_core::mock::Call;
/// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
/// let mut device = MockDevice::new(batcher.budget());
/// batcher.begin_frame();
/// device.execute(batcher.finish()).unwrap();
/// assert!(device.calls().is_empty());
/// ```
#[derive(Debug)]
pub struct MockDevice {
    runner: PlanRunner,
    store: MockStore,
    frame: DeviceCounters,
    total: DeviceCounters,
    /// Per instance of the last frame: what it sampled (texture written to its layer).
    sampled: Vec<Option<(TextureId, u64)>>,
    /// The budget draws quads indexed ([`Budget::indexed_quads`]).
    indexed_quads: bool,
    /// Where plans are drawn: see [`MockDevice::set_viewport`].
    viewport: Viewport,
    /// The draw walk of the last plan.
    steps: DrawSteps,
    /// Per resident layer the last frame drew: what each instance sampled.
    resident_sampled: HashMap<ResidentId, Vec<Option<(TextureId, u64)>>>,
    /// Per tile grid layer the last frame drew: each tile drawn, as (cell, what it sampled).
    grid_drawn: HashMap<ResidentId, Vec<(u32, Sampled)>>,
}

/// The mock's arrays and call log: its [`Executor`].
#[derive(Debug, Default)]
struct MockStore {
    arrays: HashMap<ArrayId, MockArray>,
    calls: Vec<Call>,
    /// The instances written into each resident layer, by index.
    residents: HashMap<ResidentId, HashMap<u32, Instance>>,
    /// Each moving layer's motion texture, texel by texel (`None`: never written).
    motions: HashMap<ResidentId, Vec<Option<Motion>>>,
    /// Each tile grid layer's cells (`None`: never written).
    cells: HashMap<ResidentId, Vec<Option<u32>>>,
    /// The host's textures ([`MockDevice::set_host_texture`]): size and level-0 pixels.
    host: HashMap<TextureId, ([u32; 2], Vec<u8>)>,
    /// Bytes of arrays destroyed during the current plan: a real device frees them only once
    /// the commands using them finish.
    retired_bytes: u64,
    peak_bytes: u64,
}

impl MockStore {
    fn live_bytes(&self) -> u64 {
        self.arrays.values().map(|a| a.desc.bytes()).sum()
    }
    fn note_peak(&mut self) {
        self.peak_bytes = self.peak_bytes.max(self.live_bytes() + self.retired_bytes);
    }
    fn array_mut(&mut self, array: ArrayId) -> Result<&mut MockArray, PlanError> {
        self.arrays.get_mut(&array).ok_or(PlanError::UnknownArray { at: 0, array })
    }
}

impl Executor for MockStore {
    type Error = PlanError;
    fn drop_arrays(&mut self) {
        self.arrays.clear();
        self.residents.clear();
        self.motions.clear();
        self.cells.clear();
    }
    fn create_resident(&mut self, resident: ResidentId, instances: u32, _indexed: bool) -> Result<(), PlanError> {
        // Sparse: what a plan wrote, so a large buffer costs the mock nothing until written.
        self.residents.insert(resident, HashMap::new());
        self.calls.push(Call::CreateResident { resident, instances });
        Ok(())
    }
    fn write_resident(&mut self, write: &ResidentWrite<'_>) -> Result<(), PlanError> {
        let held = self.residents.get_mut(&write.resident);
        let held = held.ok_or(PlanError::UnknownResident { at: 0, resident: write.resident })?;
        held.extend(write.instances.iter().enumerate().map(|(k, i)| (write.first + k as u32, *i)));
        let end = write.first + write.instances.len() as u32;
        self.calls.push(Call::WriteResident { resident: write.resident, instances: write.first..end });
        Ok(())
    }
    fn destroy_resident(&mut self, resident: ResidentId) {
        self.residents.remove(&resident);
        self.motions.remove(&resident);
        self.cells.remove(&resident);
        self.calls.push(Call::DestroyResident { resident });
    }
    fn create_motion(&mut self, resident: ResidentId, size_texels: [u32; 2]) -> Result<(), PlanError> {
        let texels = size_texels[0] as usize * size_texels[1] as usize;
        self.motions.insert(resident, vec![None; texels]);
        self.calls.push(Call::CreateMotion { resident, size_texels });
        Ok(())
    }
    /// Copies with [`MotionWrite::copy_checked`], as a device of a budget with
    /// `staged_motion_writes` does (elsewhere core checked them: it finds none).
    fn write_motion(&mut self, write: &MotionWrite<'_>) -> Result<u64, PlanError> {
        let held = self.motions.get_mut(&write.resident);
        let held = held.ok_or(PlanError::UnknownResident { at: 0, resident: write.resident })?;
        let [x, y, w, h] = write.rect.map(|v| v as usize);
        let row = MOTION_ROW_TEXELS as usize;
        let mut k = 0;
        let rejected = write.copy_checked(|bytes| {
            for m in bytes.chunks_exact(Motion::BYTES as usize).map(bytemuck::pod_read_unaligned::<Motion>) {
                if let Some(t) = held.get_mut((y + k / w) * row + x + k % w).filter(|_| k < w * h) {
                    *t = Some(m);
                }
                k += 1;
            }
        });
        self.calls.push(Call::WriteMotion { resident: write.resident, rect: write.rect });
        Ok(rejected)
    }
    fn create_cells(&mut self, resident: ResidentId, cells: u32) -> Result<(), PlanError> {
        self.cells.insert(resident, vec![None; cells as usize]);
        Ok(())
    }
    fn write_cells(&mut self, write: &CellWrite<'_>) -> Result<(), PlanError> {
        let held = self.cells.get_mut(&write.resident);
        let held = held.ok_or(PlanError::UnknownResident { at: 0, resident: write.resident })?;
        for (k, &id) in write.cells.iter().enumerate() {
            if let Some(c) = held.get_mut(write.first as usize + k) {
                *c = Some(id);
            }
        }
        Ok(())
    }
    fn write_ramp(&mut self, row: u32, texels: &[u8]) -> Result<(), PlanError> {
        self.calls.push(Call::WriteRamp { row, hash: MockDevice::hash(texels) });
        Ok(())
    }
    fn host_contents(&mut self, fill: &HostFill) -> Result<(), PlanError> {
        let (texture, array) = (fill.texture, fill.array);
        let missing = |reason| PlanError::HostTexture { texture, array, reason };
        let (size, pixels) =
            self.host.get(&texture).ok_or(missing("the executor holds no texture of the host's for it"))?;
        if *size != fill.size_px {
            return Err(missing("the host's texture is not the array's size"));
        }
        let pixels = pixels.clone();
        let [w, h] = fill.size_px;
        self.array_mut(array)?.write(0, [0, 0, w, h], texture, &pixels);
        self.calls.push(Call::HostContents { texture, array, access: fill.access });
        Ok(())
    }
    fn create_array(&mut self, array: ArrayId, desc: &ArrayDesc) -> Result<(), PlanError> {
        self.arrays.insert(array, MockArray::new(*desc));
        self.calls.push(Call::CreateArray { array, layers: desc.layers });
        self.note_peak();
        Ok(())
    }
    fn copy_layers(&mut self, copy: &LayerCopy) -> Result<(), PlanError> {
        let layers = copy.layers as usize;
        let content = self.array_mut(copy.from)?.content[..layers].to_vec();
        self.array_mut(copy.to)?.content[..layers].clone_from_slice(&content);
        self.calls.push(Call::CopyLayers { from: copy.from, to: copy.to, layers: copy.layers });
        Ok(())
    }
    fn copy_rect(&mut self, copy: &RectCopy) -> Result<(), PlanError> {
        let (from_xy, to_xy, size) = (copy.from_xy, copy.to_xy, copy.size);
        let src = [from_xy[0], from_xy[1], size[0], size[1]];
        let inside = |r: [u32; 4]| {
            r[0] >= src[0] && r[1] >= src[1] && r[0] + r[2] <= src[0] + src[2] && r[1] + r[3] <= src[1] + src[3]
        };
        let moved: Vec<Written> = self.array_mut(copy.from)?.content[copy.from_layer as usize]
            .iter()
            .filter(|w| inside(w.rect))
            .map(|w| Written {
                rect: [w.rect[0] - src[0] + to_xy[0], w.rect[1] - src[1] + to_xy[1], w.rect[2], w.rect[3]],
                ..w.clone()
            })
            .collect();
        let dst = [to_xy[0], to_xy[1], size[0], size[1]];
        let layer = &mut self.array_mut(copy.to)?.content[copy.to_layer as usize];
        layer.retain(|o| !overlaps(o.rect, dst));
        layer.extend(moved);
        self.calls.push(Call::CopyRect {
            from: copy.from,
            from_layer: copy.from_layer,
            to: copy.to,
            to_layer: copy.to_layer,
        });
        Ok(())
    }
    fn destroy_array(&mut self, array: ArrayId) {
        if let Some(old) = self.arrays.remove(&array) {
            self.retired_bytes += old.desc.bytes();
        }
        self.calls.push(Call::DestroyArray { array });
    }
    fn write_level(&mut self, write: &LevelUpload<'_>) -> Result<(), PlanError> {
        let l = &write.level;
        // The mock keeps level 0's pixels, the ones instances sample at their rectangle.
        if l.level == 0 {
            let rect = [l.x_px, l.y_px, l.width_px, l.height_px];
            self.array_mut(write.array)?.write(write.layer, rect, write.texture, write.bytes);
        }
        self.calls.push(Call::WriteLevel {
            array: write.array,
            layer: write.layer,
            level: l.level,
            bytes: write.bytes.len(),
        });
        Ok(())
    }
}

impl MockDevice {
    /// A device sized for `budget`. It "compiles" [`Budget::programs_per_tier`] programs per
    /// tier, as a backend would.
    pub fn new(budget: &Budget) -> Self {
        let programs = budget.tiers.len() as u64 * u64::from(budget.programs_per_tier());
        let compiles = DeviceCounters { pipeline_compiles: programs, ..DeviceCounters::default() };
        Self {
            runner: PlanRunner::new(budget),
            store: MockStore::default(),
            frame: DeviceCounters::default(),
            total: compiles,
            sampled: Vec::new(),
            indexed_quads: budget.indexed_quads,
            viewport: Viewport::full(Self::DEFAULT_TARGET_PX),
            steps: DrawSteps::default(),
            resident_sampled: HashMap::new(),
            grid_drawn: HashMap::new(),
        }
    }

    /// The target size the mock draws into until [`MockDevice::set_viewport`]: the largest a
    /// viewport holds, so that only a clip that leaves nothing at all skips a segment.
    pub const DEFAULT_TARGET_PX: [u32; 2] = [i32::MAX as u32, i32::MAX as u32];

    /// Draws the plans that follow into `viewport` (a plan with a render target draws into
    /// its texture): clips that leave nothing of it skip their segments, as on a device.
    /// Default: a target of [`MockDevice::DEFAULT_TARGET_PX`].
    pub fn set_viewport(&mut self, viewport: impl Into<Viewport>) {
        self.viewport = viewport.into();
    }

    /// The draw steps of the last plan executed ([`DrawSteps::walk`]): what every backend
    /// does to draw it.
    pub fn draw_steps(&self) -> &[DrawStep] {
        self.steps.steps()
    }

    /// Every call made so far, in order.
    pub fn calls(&self) -> &[Call] {
        &self.store.calls
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
        self.store.arrays.len()
    }
    /// The host hands the device its texture `texture` (a [`crate::Usage::Host`] texture's id),
    /// `size_px` big, or drew new pixels into it: `pixels`, level 0, tight RGBA rows. Arrays
    /// that view it ([`HostAccess::View`]) show them at once; copies
    /// ([`HostAccess::Copy`]) at their next [`crate::plan::ArrayOp::HostContents`].
    pub fn set_host_texture(&mut self, texture: TextureId, size_px: [u32; 2], pixels: &[u8]) {
        let [w, h] = size_px;
        for a in self.store.arrays.values_mut() {
            let viewing = a.desc.host == Some(HostAccess::View)
                && [a.desc.width_px, a.desc.height_px] == size_px
                && a.content[0].iter().any(|o| o.texture == texture);
            if viewing {
                a.content[0].clear();
                a.write(0, [0, 0, w, h], texture, pixels);
            }
        }
        self.store.host.insert(texture, (size_px, pixels.to_vec()));
    }

    /// The host takes its texture `texture` back (destroys it): arrays that view it show
    /// nothing known from now on, and a plan that fills an array from it fails with
    /// [`PlanError::HostTexture`].
    pub fn remove_host_texture(&mut self, texture: TextureId) {
        self.store.host.remove(&texture);
        for a in self.store.arrays.values_mut().filter(|a| a.desc.host == Some(HostAccess::View)) {
            a.content[0].retain(|o| o.texture != texture);
        }
    }

    /// Bytes of the arrays the device holds.
    pub fn allocated_bytes(&self) -> u64 {
        self.store.live_bytes()
    }
    /// Bytes of one live array.
    pub fn array_bytes(&self, array: ArrayId) -> Option<u64> {
        self.store.arrays.get(&array).map(|a| a.desc.bytes())
    }
    /// For each instance of the last frame: the texture whose pixels its `(slot, layer)`
    /// sampled, and a hash of those level-0 pixels ([`MockDevice::hash`]).
    pub fn sampled(&self) -> &[Option<(TextureId, u64)>] {
        &self.sampled
    }

    /// For each instance of a resident layer the last frame drew: the texture whose pixels its
    /// `(slot, layer)` sampled and their hash, as [`MockDevice::sampled`] (`None` for an
    /// instance not drawn). Empty for a resident the last frame did not draw.
    pub fn resident_sampled(&self, resident: ResidentId) -> &[Option<(TextureId, u64)>] {
        self.resident_sampled.get(&resident).map_or(&[], Vec::as_slice)
    }

    /// For each tile a tile grid layer's draws of the last frame drew (the GPU's culling
    /// done as a device would, [`GridDraw::shows`]): its cell, and what it sampled, as
    /// [`MockDevice::sampled`]. Empty for a layer the last frame did not draw by its grid.
    pub fn grid_drawn(&self, resident: ResidentId) -> &[(u32, Sampled)] {
        self.grid_drawn.get(&resident).map_or(&[], Vec::as_slice)
    }

    /// The motion a moving layer's sprite `sprite` has on the device: `None` before a plan
    /// wrote it, or for a layer the device does not hold as moving.
    pub fn motion(&self, resident: ResidentId, sprite: u32) -> Option<Motion> {
        self.store.motions.get(&resident)?.get(sprite as usize).copied().flatten()
    }

    /// Resident layer buffers the device holds.
    pub fn resident_count(&self) -> usize {
        self.store.residents.len()
    }

    /// The content hash the mock records for level-0 pixels (FNV-1a).
    pub fn hash(pixels: &[u8]) -> u64 {
        pixels.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
    }

    /// Executes a plan: checks it with the [`PlanValidator`] every backend uses, then applies
    /// the ops in order and follows core's draw walk ([`DrawSteps::walk`]): records each bind
    /// and draw, and what each instance drawn sampled (a segment clipped away samples nothing).
    ///
    /// # Errors
    /// [`PlanError`] when the plan could not run on a real device; then nothing was applied.
    pub fn execute(&mut self, plan: &FramePlan) -> Result<(), PlanError> {
        self.runner.check(plan)?;
        let mut c = DeviceCounters::one_frame();
        self.store.retired_bytes = 0;
        self.store.note_peak();
        self.runner.apply_ops(plan, &mut self.store, &mut c)?;
        let vp = plan.viewport(self.viewport);
        self.steps.walk(plan, &vp, self.indexed_quads, &mut c);
        let arrays = &self.store.arrays;
        self.resident_sampled.clear();
        self.grid_drawn.clear();
        self.sampled.clear();
        self.sampled.resize(plan.instances.len(), None);
        for step in self.steps.steps() {
            let (segment, first, count) = match *step {
                DrawStep::Bind { bind: b, .. } => {
                    self.store.calls.push(Call::BindSlot { slot: b.slot, array: b.array });
                    continue;
                }
                DrawStep::Draw { segment, first, count, .. } => (segment, first, count),
                _ => continue,
            };
            let seg = &plan.segments[segment as usize];
            let table = plan.slots(seg);
            if let (Some(resident), Some(grid)) = (seg.resident, seg.grid) {
                let drawn = grid_tiles(&self.store, resident, grid, &vp, plan.state(seg).transform);
                let drawn = drawn.map(|(cell, inst)| (cell, sample(arrays, table, &inst)));
                self.grid_drawn.entry(resident).or_default().extend(drawn);
                self.store.calls.push(Call::DrawResident { resident, tier: seg.tier, instances: first..first + count });
                continue;
            }
            if let Some(resident) = seg.resident {
                let held = &self.store.residents[&resident];
                let sampled = self.resident_sampled.entry(resident).or_default();
                sampled.resize(sampled.len().max((first + count) as usize), None);
                for i in first..first + count {
                    sampled[i as usize] = held.get(&i).and_then(|inst| sample(arrays, table, inst));
                }
                self.store.calls.push(Call::DrawResident { resident, tier: seg.tier, instances: first..first + count });
                continue;
            }
            for i in first..first + count {
                self.sampled[i as usize] = sample(arrays, table, &plan.instances[i as usize]);
            }
            self.store.calls.push(Call::Draw { tier: seg.tier, instances: first..first + count });
        }
        // A target with mip levels: every executor regenerates its levels above 0 from the
        // level 0 just drawn.
        self.runner.count_target_mips(plan, &mut c);
        self.frame = c;
        self.total.accumulate(&c);
        Ok(())
    }

    /// The most array bytes the device held at once, counting arrays destroyed or grown from
    /// within a plan until that plan ends (a real device frees them only when the commands
    /// using them finish).
    pub fn peak_bytes(&self) -> u64 {
        self.store.peak_bytes
    }

    /// The plan validator this device checks plans with.
    pub fn validator(&self) -> &PlanValidator {
        self.runner.validator()
    }
}

/// The tiles a grid draw of `resident` draws in `vp` under `transform`: each cell of
/// `grid.cells` whose id names a quad the layer holds, that quad moved to the cell, where it
/// shows ([`GridDraw::shows`]), in cell order.
fn grid_tiles<'a>(
    store: &'a MockStore,
    resident: ResidentId,
    grid: GridDraw,
    vp: &Viewport,
    transform: [f32; 6],
) -> impl Iterator<Item = (u32, Instance)> + 'a {
    let size = vp.visible_px().map_or([1, 1], |[_, _, w, h]| [w, h]);
    let viewport_px = size.map(|v| v.max(1) as f32);
    let transform = vp.transform(transform);
    let (cells, held) = (store.cells.get(&resident), store.residents.get(&resident));
    let [x0, y0, x1, y1] = grid.cells;
    (y0..y1).flat_map(move |y| (x0..x1).map(move |x| (x, y))).filter_map(move |(x, y)| {
        let cell = y * grid.width + x;
        let id = (*cells?.get(cell as usize)?)?;
        let quad = held?.get(&id.checked_sub(1)?)?;
        let tile = grid.tile_at(quad, [x, y]);
        GridDraw::shows(&tile, transform, viewport_px).then_some((cell, tile))
    })
}

/// The texture whose level-0 pixels `inst` samples through `table`, with their hash: the
/// written rectangle its texture rectangle names, in whole blocks (a compressed texture of
/// 29x17 texels is written as 32x20).
fn sample(
    arrays: &HashMap<ArrayId, MockArray>,
    table: &[Option<ArrayId>],
    inst: &Instance,
) -> Option<(TextureId, u64)> {
    let array = (*table.get(inst.slot() as usize)?)?;
    let held = arrays.get(&array)?;
    let [x0, y0, x1, y1] = inst.tex_rect.map(u32::from);
    let f = held.desc.format;
    let size = f.round_up_px([x1.saturating_sub(x0), y1.saturating_sub(y0)]);
    let rect = [x0, y0, size[0], size[1]];
    held.content.get(inst.layer() as usize)?.iter().find(|w| w.rect == rect).map(|w| (w.texture, w.hash))
}
