//! Executing a plan's resource ops: once, here, for every device.
//!
//! A backend implements [`Executor`], one method per device command (femtovg's renderer
//! trait is the model), and owns a [`PlanRunner`]. The runner checks each plan with the
//! [`PlanValidator`], walks its ops in order, calls the executor for each, and counts what
//! was done in [`DeviceCounters`]. So a device counter of resource work is one field in
//! [`DeviceCounters`] and one line in [`PlanRunner::apply_ops`], and the mock, GL and wgpu
//! count it alike by construction.
//!
//! ```
//! use layerbatch_core::execute::{Executor, HostFill, LayerCopy, LevelUpload, PlanRunner, RectCopy};
//! use layerbatch_core::{Batcher, Config, DeviceCounters, Limits, PlanError};
//! use layerbatch_core::plan::{ArrayDesc, ArrayId};
//! use layerbatch_core::ResidentId;
//! use layerbatch_core::plan::{CellWrite, MotionWrite, ResidentWrite};
//! use layerbatch_core::{TextureDesc, Quad};
//!
//! /// A device that executes nothing: counts come from the runner alone.
//! #[derive(Default)]
//! struct Void;
//! impl Executor for Void {
//!     type Error = PlanError;
//!     fn drop_arrays(&mut self) {}
//!     fn create_array(&mut self, _: ArrayId, _: &ArrayDesc) -> Result<(), PlanError> { Ok(()) }
//!     fn copy_layers(&mut self, _: &LayerCopy) -> Result<(), PlanError> { Ok(()) }
//!     fn copy_rect(&mut self, _: &RectCopy) -> Result<(), PlanError> { Ok(()) }
//!     fn destroy_array(&mut self, _: ArrayId) {}
//!     fn host_contents(&mut self, _: &HostFill) -> Result<(), PlanError> { Ok(()) }
//!     fn write_level(&mut self, _: &LevelUpload<'_>) -> Result<(), PlanError> { Ok(()) }
//!     fn create_resident(&mut self, _: ResidentId, _: u32, _: bool) -> Result<(), PlanError> { Ok(()) }
//!     fn write_resident(&mut self, _: &ResidentWrite<'_>) -> Result<(), PlanError> { Ok(()) }
//!     fn destroy_resident(&mut self, _: ResidentId) {}
//!     fn create_motion(&mut self, _: ResidentId, _: [u32; 2]) -> Result<(), PlanError> { Ok(()) }
//!     fn write_motion(&mut self, _: &MotionWrite<'_>) -> Result<u64, PlanError> { Ok(0) }
//!     fn create_cells(&mut self, _: ResidentId, _: u32) -> Result<(), PlanError> { Ok(()) }
//!     fn write_cells(&mut self, _: &CellWrite<'_>) -> Result<(), PlanError> { Ok(()) }
//!     fn write_ramp(&mut self, _: u32, _: &[u8]) -> Result<(), PlanError> { Ok(()) }
//! }
//!
//! let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
//! let mut runner = PlanRunner::new(batcher.budget());
//! let red = batcher.textures().register(&TextureDesc::new(16, 16), &[255, 0, 0, 255].repeat(16 * 16))?;
//! batcher.begin_frame();
//! batcher.push(&Quad::rect(red, [0.0, 0.0], [16.0, 16.0]))?;
//! let plan = batcher.finish();
//! runner.check(plan)?;
//! let mut counters = DeviceCounters::one_frame();
//! runner.apply_ops(plan, &mut Void, &mut counters)?;
//! assert_eq!(counters.arrays_created, 1);
//! assert_eq!(counters.texture_bytes_written, 16 * 16 * 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;

use crate::plan::Instance;
use crate::plan::{
    ArrayDesc, ArrayId, ArrayOp, CellWrite, FramePlan, HostAccess, LevelWrite, MotionWrite, PlanError, ResidentId,
    ResidentOp, ResidentWrite, ResourceOp,
};
use crate::texture::{mip_size, Format};
use crate::validate::PlanValidator;
pub use crate::walk::{DrawStep, DrawSteps};
use crate::{motion_rects, motion_texture_size, Motion};
use crate::{Budget, DeviceCounters, TextureId};

/// What a device does for a plan's resource ops. The [`PlanRunner`] calls these in the
/// plan's order, after the [`PlanValidator`] accepted the plan, so every array named exists
/// (or, for [`Executor::create_array`], does not) and every rectangle lies inside its layer.
///
/// A growth or shrink ([`ArrayOp::Grow`], [`ArrayOp::Shrink`]) arrives as
/// `create_array(to)`, `copy_layers(from -> to)` (when it copies any layer), then
/// `destroy_array(from)`.
///
/// An executor that fails ([`Err`]) leaves the device in a state the runner does not know:
/// its owner then calls [`PlanRunner::fail`], which drops every array and expects a rebuild
/// plan.
pub trait Executor {
    /// What a failed command returns. [`PlanError`] converts into it, for the runner's own
    /// refusals.
    type Error: From<PlanError>;
    /// Drops every array and resident layer buffer the device holds (a rebuild plan, or after
    /// an error).
    fn drop_arrays(&mut self);
    /// Creates `array` as `desc` says, storage for every layer and level, contents undefined.
    ///
    /// # Errors
    /// When the device cannot make it.
    fn create_array(&mut self, array: ArrayId, desc: &ArrayDesc) -> Result<(), Self::Error>;
    /// Copies whole layers on the GPU, every level: see [`LayerCopy`].
    ///
    /// # Errors
    /// When the device reports the copy failed.
    fn copy_layers(&mut self, copy: &LayerCopy) -> Result<(), Self::Error>;
    /// Copies a rectangle of level 0 between layers on the GPU: see [`RectCopy`].
    ///
    /// # Errors
    /// When the device reports the copy failed.
    fn copy_rect(&mut self, copy: &RectCopy) -> Result<(), Self::Error>;
    /// Destroys `array` (a device frees it once the commands using it are done).
    fn destroy_array(&mut self, array: ArrayId);
    /// Brings a host texture's contents into its array: see [`HostFill`]. For an array of
    /// [`HostAccess::View`], [`Executor::create_array`] made nothing, and this makes the array
    /// a view of the host's texture; for [`HostAccess::Copy`] it copies on the GPU.
    ///
    /// # Errors
    /// When the executor holds no texture of the host's for `fill.texture`, or one of another
    /// size or format, or the device reports the copy failed.
    fn host_contents(&mut self, fill: &HostFill) -> Result<(), Self::Error>;
    /// Writes one mip level of a texture into a layer, from the CPU.
    ///
    /// # Errors
    /// When the device reports the write failed.
    fn write_level(&mut self, write: &LevelUpload<'_>) -> Result<(), Self::Error>;
    /// Creates resident layer `resident`'s vertex buffer: room for `instances` instances of
    /// [`Instance::quad_bytes`]`(indexed)` bytes, contents undefined ([`ResidentOp::Create`]).
    ///
    /// # Errors
    /// When the device cannot make it.
    fn create_resident(&mut self, resident: ResidentId, instances: u32, indexed: bool) -> Result<(), Self::Error>;
    /// Writes instances into a resident layer's buffer, from the CPU: see [`ResidentWrite`].
    ///
    /// # Errors
    /// When the device reports the write failed.
    fn write_resident(&mut self, write: &ResidentWrite<'_>) -> Result<(), Self::Error>;
    /// Destroys resident layer `resident`'s buffer, and its motion texture if it has one (a
    /// device frees them once the commands using them are done).
    fn destroy_resident(&mut self, resident: ResidentId);
    /// Creates moving layer `resident`'s motion texture (after its buffer): RGBA32F,
    /// `size_texels` big ([`crate::motion_texture_size`]), contents undefined, read by the
    /// layer's draws with `textureLoad` / `texelFetch` (no sampler, no filtering).
    ///
    /// # Errors
    /// When the device cannot make it.
    fn create_motion(&mut self, resident: ResidentId, size_texels: [u32; 2]) -> Result<(), Self::Error>;
    /// Writes a rectangle of a moving layer's motion texture, from the CPU: see [`MotionWrite`].
    /// An executor of a budget with [`Budget::staged_motion_writes`] copies the motions with
    /// [`MotionWrite::copy_checked`] and returns its count (counted in
    /// [`DeviceCounters::motions_rejected`]); any other takes them as they are (core checked
    /// them) and returns 0.
    ///
    /// # Errors
    /// When the device reports the write failed.
    fn write_motion(&mut self, write: &MotionWrite<'_>) -> Result<u64, Self::Error>;
    /// Creates tile grid layer `resident`'s cell buffer (after its buffer): `cells` `u32`s,
    /// contents undefined, read by the compute pass of its grid draws
    /// ([`crate::plan::GridDraw`]). Only for a budget whose
    /// [`Budget::max_cell_bytes`](crate::Budget::max_cell_bytes) is above 0: the validator
    /// refuses a plan with one otherwise, so a device without GPU culling never gets it.
    ///
    /// # Errors
    /// When the device cannot make it.
    fn create_cells(&mut self, resident: ResidentId, cells: u32) -> Result<(), Self::Error>;
    /// Writes cells into a tile grid layer's cell buffer, from the CPU: see [`CellWrite`].
    ///
    /// # Errors
    /// When the device reports the write failed.
    fn write_cells(&mut self, write: &CellWrite<'_>) -> Result<(), Self::Error>;
    /// Writes row `row` of the ramp texture ([`crate::Budget::ramp`]; made by the backend with
    /// its programs): [`crate::RAMP_WIDTH_PX`] straight RGBA8 texels.
    ///
    /// # Errors
    /// When the device reports the write failed.
    fn write_ramp(&mut self, row: u32, texels: &[u8]) -> Result<(), Self::Error>;
}

/// Layers `0..layers` of `from` copied into the same layers of `to`, every level
/// `0..mip_levels`: level `l` as `mip_size(size_px, l)` at the origin. `to`'s layers may be
/// larger (an atlas page grown in size): texel coordinates stay valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerCopy {
    /// Source array.
    pub from: ArrayId,
    /// Destination array.
    pub to: ArrayId,
    /// Layers copied, from layer 0.
    pub layers: u32,
    /// Level 0 size copied: `from`'s width and height.
    pub size_px: [u32; 2],
    /// Levels copied: the fewer of the two arrays'.
    pub mip_levels: u32,
    /// Format of both arrays.
    pub format: Format,
}

impl LayerCopy {
    /// The regions copied, one per level: `(level, [width, height])`.
    pub fn levels(&self) -> impl Iterator<Item = (u32, [u32; 2])> + Clone + '_ {
        (0..self.mip_levels).map(|l| {
            let (w, h) = mip_size(self.size_px[0], self.size_px[1], l);
            (l, [w, h])
        })
    }
    /// Bytes the copy moves: every level of every layer copied.
    pub fn bytes(&self) -> u64 {
        let per_layer: u64 = self.levels().map(|(_, [w, h])| rect_bytes([w, h], self.format)).sum();
        per_layer.saturating_mul(u64::from(self.layers))
    }
}

/// A host texture's contents brought into its array ([`ArrayOp::HostContents`]): the array
/// made a view of the host's texture ([`HostAccess::View`]), or the texture's level 0 copied
/// into layer 0 of the array on the GPU ([`HostAccess::Copy`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostFill {
    /// The host texture: the id the host handed its texture to the executor under.
    pub texture: TextureId,
    /// Its array.
    pub array: ArrayId,
    /// View or copy.
    pub access: HostAccess,
    /// The texture's size (the array's layer size).
    pub size_px: [u32; 2],
    /// The array's format.
    pub format: Format,
}

impl HostFill {
    /// Bytes a copy moves (0 for a view).
    pub fn bytes(&self) -> u64 {
        match self.access {
            HostAccess::View => 0,
            HostAccess::Copy => rect_bytes(self.size_px, self.format),
        }
    }
}

/// A rectangle of level 0 copied from a layer of `from` to a layer of `to` (compaction and
/// canonical layouts of atlas pages). Within one array the layers differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RectCopy {
    /// Source array.
    pub from: ArrayId,
    /// Source layer.
    pub from_layer: u32,
    /// Source top-left corner, texels.
    pub from_xy: [u32; 2],
    /// Destination array.
    pub to: ArrayId,
    /// Destination layer.
    pub to_layer: u32,
    /// Destination top-left corner, texels.
    pub to_xy: [u32; 2],
    /// Width and height, texels.
    pub size: [u32; 2],
    /// Format of both arrays.
    pub format: Format,
}

impl RectCopy {
    /// Bytes the copy moves.
    pub fn bytes(&self) -> u64 {
        rect_bytes(self.size, self.format)
    }
}

fn rect_bytes([w, h]: [u32; 2], format: Format) -> u64 {
    format.image_bytes(w, h)
}

/// One mip level of a [`ResourceOp::WriteLayer`]: where it goes and its bytes (tight rows of
/// `level.row_bytes`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelUpload<'a> {
    /// The texture written (for tracing).
    pub texture: TextureId,
    /// The array.
    pub array: ArrayId,
    /// The layer.
    pub layer: u32,
    /// The array's format.
    pub format: Format,
    /// The level, its rectangle in the level and its byte range in the plan.
    pub level: LevelWrite,
    /// Levels the whole write has: this is its last when `level.level + 1 == mip_levels` (an
    /// executor that checks for errors per write checks then).
    pub mip_levels: u32,
    /// The level's bytes: `level.row_bytes * level.rows`.
    pub bytes: &'a [u8],
}

/// Runs plans' resource ops on an [`Executor`], the same way for every device: check, apply
/// in order, count. Every executor (the [`crate::MockDevice`], `layerbatch-gl`,
/// `layerbatch-wgpu`) owns one in place of a bare [`PlanValidator`].
#[derive(Clone, Debug)]
pub struct PlanRunner {
    validator: PlanValidator,
    /// The arrays the device holds while ops run (the validator's state is the plan's end).
    held: HashMap<ArrayId, ArrayDesc>,
    /// The resident layer buffers it holds: instances and whether they are indexed.
    /// Each resident layer held: its instances, whether they are indexed, and whether it moves.
    residents: HashMap<ResidentId, (u32, bool, bool, u32)>,
    /// A staged motion write found a motion that is not finite: logged once.
    warned_motions: bool,
}

impl PlanRunner {
    /// A runner for a fresh device executing plans of `budget`'s batcher.
    pub fn new(budget: &Budget) -> Self {
        Self {
            validator: PlanValidator::new(budget),
            held: HashMap::new(),
            residents: HashMap::new(),
            warned_motions: false,
        }
    }

    /// Checks `plan` with the [`PlanValidator`] before anything touches the device.
    ///
    /// # Errors
    /// The validator's [`PlanError`]; then nothing changed, and the plan must not be applied.
    pub fn check(&mut self, plan: &FramePlan) -> Result<(), PlanError> {
        self.validator.check(plan)
    }

    /// The validator: what the device holds after the last accepted plan.
    pub fn validator(&self) -> &PlanValidator {
        &self.validator
    }

    /// Arrays the device holds now.
    pub fn array_count(&self) -> usize {
        self.held.len()
    }

    /// The description of an array the device holds now.
    pub fn array(&self, id: ArrayId) -> Option<&ArrayDesc> {
        self.held.get(&id)
    }

    /// Applies the ops of a plan [`PlanRunner::check`] accepted, in order, through `exec`,
    /// and counts them into `counters`: a rebuild plan first drops every array; then each
    /// array created (growth and shrinking included), destroyed (likewise), each layer or
    /// rectangle copied on the GPU and the bytes it moved, and the bytes written from the CPU.
    /// After a plan into a render target with mip levels, the levels the executor regenerates
    /// are counted too ([`PlanRunner::count_target_mips`]).
    ///
    /// # Errors
    /// The executor's first error (later ops are not applied; call [`PlanRunner::fail`]), or
    /// [`PlanError::UnknownArray`] for an op naming an array the device does not hold (a plan
    /// that was not checked).
    pub fn apply_ops<E: Executor>(
        &mut self,
        plan: &FramePlan,
        exec: &mut E,
        counters: &mut DeviceCounters,
    ) -> Result<(), E::Error> {
        if plan.rebuild {
            counters.arrays_destroyed += self.held.len() as u64;
            counters.residents_destroyed += self.residents.len() as u64;
            self.held.clear();
            self.residents.clear();
            exec.drop_arrays();
        }
        for (at, op) in plan.ops.iter().enumerate() {
            let desc_of = |held: &HashMap<ArrayId, ArrayDesc>, array: ArrayId| {
                held.get(&array).copied().ok_or(PlanError::UnknownArray { at, array })
            };
            match op {
                ResourceOp::Array(ArrayOp::Create { array, desc }) => {
                    exec.create_array(*array, desc)?;
                    if desc.normal_map {
                        exec.create_array(array.normal_map(), &desc.normal_map_sibling())?;
                    }
                    self.held.insert(*array, *desc);
                    counters.arrays_created += 1;
                }
                ResourceOp::Array(
                    ArrayOp::Grow { from, to, desc, copy_layers } | ArrayOp::Shrink { from, to, desc, copy_layers },
                ) => {
                    let old = desc_of(&self.held, *from)?;
                    exec.create_array(*to, desc)?;
                    // The validator keeps `normal_map` equal across a growth or shrink.
                    if desc.normal_map {
                        exec.create_array(to.normal_map(), &desc.normal_map_sibling())?;
                    }
                    self.held.insert(*to, *desc);
                    counters.arrays_created += 1;
                    if *copy_layers > 0 {
                        let copy = LayerCopy {
                            from: *from,
                            to: *to,
                            layers: *copy_layers,
                            size_px: [old.width_px, old.height_px],
                            mip_levels: old.mip_levels.min(desc.mip_levels),
                            format: old.format,
                        };
                        exec.copy_layers(&copy)?;
                        counters.layers_copied += u64::from(*copy_layers);
                        counters.gpu_copy_bytes += copy.bytes();
                        if old.normal_map {
                            let normals = LayerCopy {
                                from: from.normal_map(),
                                to: to.normal_map(),
                                format: Format::Rgba8Unorm,
                                ..copy
                            };
                            exec.copy_layers(&normals)?;
                            counters.gpu_copy_bytes += normals.bytes();
                        }
                    }
                    exec.destroy_array(*from);
                    if old.normal_map {
                        exec.destroy_array(from.normal_map());
                    }
                    self.held.remove(from);
                    counters.arrays_destroyed += 1;
                }
                ResourceOp::Array(ArrayOp::CopyRect { from, from_layer, from_xy, to, to_layer, to_xy, size }) => {
                    let src = desc_of(&self.held, *from)?;
                    let format = src.format;
                    let normal_maps = src.normal_map && desc_of(&self.held, *to)?.normal_map;
                    let copy = RectCopy {
                        from: *from,
                        from_layer: *from_layer,
                        from_xy: *from_xy,
                        to: *to,
                        to_layer: *to_layer,
                        to_xy: *to_xy,
                        size: *size,
                        format,
                    };
                    exec.copy_rect(&copy)?;
                    // One layer's rectangle: counted as a layer copied.
                    counters.layers_copied += 1;
                    counters.gpu_copy_bytes += copy.bytes();
                    if normal_maps {
                        let normals = RectCopy {
                            from: from.normal_map(),
                            to: to.normal_map(),
                            format: Format::Rgba8Unorm,
                            ..copy
                        };
                        exec.copy_rect(&normals)?;
                        counters.gpu_copy_bytes += normals.bytes();
                    }
                }
                ResourceOp::Array(ArrayOp::HostContents { texture, array }) => {
                    let desc = desc_of(&self.held, *array)?;
                    // The validator let only host textures' arrays through.
                    let access = desc.host.ok_or(PlanError::UnknownArray { at, array: *array })?;
                    let fill = HostFill {
                        texture: *texture,
                        array: *array,
                        access,
                        size_px: [desc.width_px, desc.height_px],
                        format: desc.format,
                    };
                    exec.host_contents(&fill)?;
                    match access {
                        HostAccess::View => counters.host_views += 1,
                        HostAccess::Copy => counters.host_copies += 1,
                    }
                    counters.host_copy_bytes += fill.bytes();
                }
                ResourceOp::Array(ArrayOp::Destroy { array }) => {
                    if desc_of(&self.held, *array)?.normal_map {
                        exec.destroy_array(array.normal_map());
                    }
                    exec.destroy_array(*array);
                    self.held.remove(array);
                    counters.arrays_destroyed += 1;
                }
                ResourceOp::WriteLayer { texture, array, layer, bytes, mip_levels, normal_map, .. } => {
                    let format = desc_of(&self.held, *array)?.format;
                    // A normal map goes to the sibling, RGBA8 whatever the array's format.
                    let (array, format) =
                        if *normal_map { (&array.normal_map(), Format::Rgba8Unorm) } else { (array, format) };
                    for level in op.levels(format) {
                        let data = plan.upload_bytes.get(level.bytes.clone()).ok_or(PlanError::UploadBytes {
                            op: at,
                            start: bytes.start,
                            end: bytes.end,
                            available: plan.upload_bytes.len(),
                            expected: bytes.len() as u64,
                        })?;
                        exec.write_level(&LevelUpload {
                            texture: *texture,
                            array: *array,
                            layer: *layer,
                            format,
                            level,
                            mip_levels: *mip_levels,
                            bytes: data,
                        })?;
                    }
                    counters.texture_bytes_written += bytes.len() as u64;
                }
                ResourceOp::Resident(op) => self.apply_resident(at, plan, op, exec, counters)?,
            }
        }
        for w in &plan.ramp_writes {
            // The validator checked the range.
            exec.write_ramp(u32::from(w.row), &plan.upload_bytes[w.bytes.clone()])?;
            counters.texture_bytes_written += w.bytes.len() as u64;
        }
        counters.bytes_held = self.held_bytes();
        counters.resident_bytes_held = self.resident_bytes();
        Ok(())
    }

    /// Applies one resident op (checked by the validator) and counts it.
    fn apply_resident<E: Executor>(
        &mut self,
        at: usize,
        plan: &FramePlan,
        op: &ResidentOp,
        exec: &mut E,
        counters: &mut DeviceCounters,
    ) -> Result<(), E::Error> {
        match *op {
            ResidentOp::Create { resident, instances, indexed, moving, cells } => {
                exec.create_resident(resident, instances, indexed)?;
                self.residents.insert(resident, (instances, indexed, moving, cells));
                if moving {
                    exec.create_motion(resident, motion_texture_size(instances))?;
                }
                if cells > 0 {
                    exec.create_cells(resident, cells)?;
                }
                counters.residents_created += 1;
            }
            ResidentOp::Move { resident, first, .. } => {
                let motions = plan.move_motions(op);
                for (rect, range) in motion_rects(first, motions.len() as u32) {
                    let motions = &motions[range.start as usize..range.end as usize];
                    let rejected = exec.write_motion(&MotionWrite { resident, rect, motions })?;
                    counters.motions_rejected += rejected;
                    if rejected > 0 && !std::mem::replace(&mut self.warned_motions, true) {
                        log::warn!(
                            "{rejected} motions written in place (motions_mut) were not finite: drawn as \
                             nothing (DeviceCounters::motions_rejected)"
                        );
                    }
                }
                counters.motion_bytes_written += motions.len() as u64 * u64::from(Motion::BYTES);
            }
            ResidentOp::WriteCells { resident, first, .. } => {
                let cells = plan.write_cells_ids(op);
                exec.write_cells(&CellWrite { resident, first, cells })?;
                counters.cell_bytes_written += cells.len() as u64 * 4;
            }
            ResidentOp::Write { resident, first, .. } => {
                let &(_, indexed, ..) =
                    self.residents.get(&resident).ok_or(PlanError::UnknownResident { at, resident })?;
                let write = ResidentWrite { resident, first, instances: plan.resident_write_instances(op), indexed };
                exec.write_resident(&write)?;
                counters.resident_bytes_written += write.bytes() as u64;
            }
            ResidentOp::Destroy { resident } => {
                self.residents.remove(&resident).ok_or(PlanError::UnknownResident { at, resident })?;
                exec.destroy_resident(resident);
                counters.residents_destroyed += 1;
            }
        }
        Ok(())
    }

    /// Bytes of the resident layer buffers the device holds now.
    pub fn resident_bytes(&self) -> u64 {
        let bytes = |&(n, indexed, moving, cells): &(u32, bool, bool, u32)| {
            let [w, h] = motion_texture_size(n);
            let motion = if moving { u64::from(w) * u64::from(h) * u64::from(Motion::BYTES) } else { 0 };
            u64::from(n) * u64::from(Instance::quad_bytes(indexed)) + motion + u64::from(cells) * 4
        };
        self.residents.values().map(bytes).sum()
    }

    /// Resident layer buffers the device holds now.
    pub fn resident_count(&self) -> usize {
        self.residents.len()
    }

    /// Bytes of the arrays the device holds now (every layer and level, blocks for a
    /// compressed format): what it really allocated, beside core's budget accounting.
    pub fn held_bytes(&self) -> u64 {
        self.held.values().map(ArrayDesc::bytes).sum()
    }

    /// Counts the mip levels an executor regenerates after drawing a plan into a render
    /// target whose array has mip levels: one per level above 0.
    pub fn count_target_mips(&self, plan: &FramePlan, counters: &mut DeviceCounters) {
        if let Some(t) = plan.target {
            let levels = self.held.get(&t.array).map_or(1, |d| d.mip_levels);
            counters.mip_levels_regenerated += u64::from(levels.saturating_sub(1));
        }
    }

    /// After an executor error, or a lost device: drops every array through `exec` (counted
    /// as destroyed) and forgets every binding, so that only a rebuild plan (or a new
    /// batcher's first) is accepted next.
    pub fn fail<E: Executor>(&mut self, exec: &mut E, counters: &mut DeviceCounters) {
        self.forget(counters);
        exec.drop_arrays();
    }

    /// [`PlanRunner::fail`] for an executor that has already dropped its arrays (or lost them
    /// with its device): counts them as destroyed and forgets them and every binding.
    pub fn forget(&mut self, counters: &mut DeviceCounters) {
        counters.arrays_destroyed += self.held.len() as u64;
        counters.residents_destroyed += self.residents.len() as u64;
        self.held.clear();
        self.residents.clear();
        counters.bytes_held = 0;
        counters.resident_bytes_held = 0;
        self.validator.reset();
    }
}

#[cfg(test)]
mod tests {
    use crate::{Batcher, Config, Limits, MockDevice, TextureDesc};

    /// A class array grown on the device: the bytes its layers moved, counted once by the
    /// runner for every executor.
    #[test]
    fn gpu_copy_bytes_are_the_layers_a_growth_copies() {
        let config = Config { max_packed_size_px: 0, ..Config::default() };
        let mut batcher = Batcher::new(Limits::guaranteed_minimum(), config).unwrap();
        let mut device = MockDevice::new(batcher.budget());
        let desc = TextureDesc::new(64, 64);
        batcher.textures().register(&desc, &[9; 64 * 64 * 4]).unwrap();
        batcher.begin_frame();
        device.execute(batcher.finish()).unwrap();
        // One more than the array holds now: it grows, copying its layers on the GPU.
        let layers = batcher.allocator().arrays().map(|(_, d)| d.layers).sum::<u32>();
        for _ in 0..layers {
            batcher.textures().register(&desc, &[7; 64 * 64 * 4]).unwrap();
        }
        batcher.begin_frame();
        device.execute(batcher.finish()).unwrap();
        let c = device.frame_counters();
        assert!(c.layers_copied >= u64::from(layers), "{c:?}");
        assert_eq!(c.gpu_copy_bytes, c.layers_copied * 64 * 64 * 4);
    }
}
