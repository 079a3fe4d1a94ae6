//! The texture arrays, and the [`Executor`] of plans' resource ops on them.
//!
//! Core's [`PlanRunner`](layerbatch_core::execute::PlanRunner) checks each plan, walks its
//! ops in order and counts them; [`ArrayOps`] does each on the device: arrays are textures
//! with a `D2Array` view, created and dropped; GPU copies (growth, shrinking, rectangle copies)
//! are `copy_texture_to_texture` commands in the renderer's own encoder; layer writes are
//! queue writes or staged ones ([`crate::staging`]). Every wgpu call runs inside error scopes,
//! and a failure is an [`Error::Device`] naming the op.

use std::collections::HashMap;

use layerbatch_core::execute::{Executor, HostFill, LayerCopy, LevelUpload, RectCopy};
use layerbatch_core::plan::{ArrayDesc, ArrayId, CellWrite, HostAccess, Instance, MotionWrite, ResidentWrite};
use layerbatch_core::{Format, FramePlan, ResidentId};

use crate::bind_groups::BindGroups;
use crate::host::HostTextures;
use crate::motions::Motions;
use crate::pipelines::Pipelines;
use crate::scope::{checked, Late};
use crate::staging::Staging;
use crate::Error;
use crate::PassKind;

/// A live array: its texture, the view the slots bind, and the plan's description of it.
#[derive(Debug)]
pub(crate) struct Array {
    pub(crate) texture: wgpu::Texture,
    pub(crate) view: wgpu::TextureView,
    pub(crate) desc: ArrayDesc,
}

/// The arrays the renderer holds, by id, its resident layers' vertex buffers and its moving
/// layers' motion textures.
#[derive(Debug)]
pub(crate) struct Arrays {
    arrays: HashMap<ArrayId, Array>,
    residents: HashMap<ResidentId, wgpu::Buffer>,
    /// Tile grid layers' cell buffers.
    cells: HashMap<ResidentId, wgpu::Buffer>,
    /// Resident buffers are also storage (the grid culling pass reads tile grid layers').
    storage_residents: bool,
    pub(crate) motions: Motions,
    /// The host's textures and the arrays viewing them.
    pub(crate) host: HostTextures,
}

impl Arrays {
    /// None yet; moving layers' textures go into `motions`.
    pub(crate) fn new(motions: Motions, storage_residents: bool) -> Self {
        Self {
            arrays: HashMap::new(),
            residents: HashMap::new(),
            cells: HashMap::new(),
            storage_residents,
            motions,
            host: HostTextures::default(),
        }
    }

    /// A tile grid layer's cell buffer.
    pub(crate) fn cells(&self, id: ResidentId) -> Option<&wgpu::Buffer> {
        self.cells.get(&id)
    }

    /// A live array.
    pub(crate) fn get(&self, id: ArrayId) -> Option<&Array> {
        self.arrays.get(&id)
    }

    /// Arrays alive.
    pub(crate) fn len(&self) -> usize {
        self.arrays.len()
    }

    /// A resident layer's vertex buffer.
    pub(crate) fn resident(&self, id: ResidentId) -> Option<&wgpu::Buffer> {
        self.residents.get(&id)
    }

    /// A host texture's array, now a view of it.
    pub(crate) fn insert_view(&mut self, id: ArrayId, array: Array) {
        self.arrays.insert(id, array);
    }

    /// A view's host texture was replaced by another of its size.
    pub(crate) fn replace_view(&mut self, id: ArrayId, texture: wgpu::Texture, view: wgpu::TextureView) {
        if let Some(a) = self.arrays.get_mut(&id) {
            (a.texture, a.view) = (texture, view);
        }
    }

    /// A view's host texture was taken back.
    pub(crate) fn drop_view(&mut self, id: ArrayId) {
        self.arrays.remove(&id);
    }

    /// The error for an array the renderer does not hold (see [`HostTextures::missing`]).
    pub(crate) fn missing(&self, id: ArrayId) -> Error {
        self.host.missing(id)
    }

    /// Drops every array and resident buffer, and with them every cached bind group and slot
    /// binding. The host's textures stay: they are the host's.
    pub(crate) fn drop_all(&mut self, groups: &mut BindGroups) {
        self.host.drop_arrays();
        self.arrays.clear();
        self.residents.clear();
        self.cells.clear();
        self.motions.drop_all();
        groups.forget_all();
    }

    /// A view of `layer` of render-target array `array` (level 0), if the renderer holds it.
    pub(crate) fn target_view(&self, array: ArrayId, layer: u32) -> Option<wgpu::TextureView> {
        let a = self.arrays.get(&array).filter(|a| a.desc.render_target && layer < a.desc.layers)?;
        Some(a.texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("layerbatch render target"),
            dimension: Some(wgpu::TextureViewDimension::D2),
            base_array_layer: layer,
            array_layer_count: Some(1),
            base_mip_level: 0,
            mip_level_count: Some(1),
            ..Default::default()
        }))
    }
}

/// Executes one plan's resource ops on the device, for the runner: made by `prepare` for the
/// plan, then [`ArrayOps::finish`]ed into the renderer's own encoder, if anything was recorded.
pub(crate) struct ArrayOps<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    late: &'a Late,
    pub(crate) arrays: &'a mut Arrays,
    /// Dropped arrays leave the cache and the slots at once.
    groups: &'a mut BindGroups,
    /// A render-target array's format needs its pipelines.
    pipelines: &'a mut Pipelines,
    writes: Staging<'a>,
    /// Render-target pipelines made (for `pipeline_compiles`).
    pipeline_compiles: u64,
    /// The renderer's own encoder: GPU copies, staged writes, then render-target draws.
    own: Option<wgpu::CommandEncoder>,
    /// The ramp texture, if the budget has one.
    ramp: Option<&'a wgpu::Texture>,
}

impl<'a> ArrayOps<'a> {
    /// The executor of `plan`'s ops; staging buffers of at most `max_buffer_size` bytes;
    /// compressed writes staged only with the budget's `compressed_copies`.
    pub(crate) fn new(
        (device, queue, late): (&'a wgpu::Device, &'a wgpu::Queue, &'a Late),
        plan: &'a FramePlan,
        (max_buffer_size, compressed_copies): (u64, bool),
        arrays: &'a mut Arrays,
        groups: &'a mut BindGroups,
        pipelines: &'a mut Pipelines,
        ramp: Option<&'a wgpu::Texture>,
    ) -> Self {
        Self {
            device,
            queue,
            late,
            arrays,
            groups,
            pipelines,
            writes: Staging::new(plan, max_buffer_size, compressed_copies),
            pipeline_compiles: 0,
            own: None,
            ramp,
        }
    }

    /// Render-target pipelines made so far (for `pipeline_compiles`: they are kept, even
    /// when a later op fails).
    pub(crate) fn pipeline_compiles(&self) -> u64 {
        self.pipeline_compiles
    }

    /// The device.
    pub(crate) fn device(&self) -> &'a wgpu::Device {
        self.device
    }

    /// Where late errors go.
    pub(crate) fn late(&self) -> &'a Late {
        self.late
    }

    /// The renderer's own encoder, if made.
    pub(crate) fn own(&mut self) -> &mut Option<wgpu::CommandEncoder> {
        &mut self.own
    }

    /// Before a GPU copy: the writes staged so far are recorded first, in order.
    pub(crate) fn before_gpu_copy(&mut self) -> Result<(), Error> {
        self.writes.before_copy(self.device, self.late, &mut self.own)
    }

    /// After the ops: records the writes still staged, and returns the renderer's encoder
    /// (`None` when nothing was recorded).
    pub(crate) fn finish(mut self) -> Result<Option<wgpu::CommandEncoder>, Error> {
        self.writes.flush(self.device, self.late, &mut self.own)?;
        Ok(self.own)
    }
}

/// A live array, or the error of a renderer out of step with the runner.
fn live(arrays: &Arrays, id: ArrayId) -> Result<&Array, Error> {
    arrays.get(id).ok_or_else(|| out_of_step(id))
}

impl Executor for ArrayOps<'_> {
    type Error = Error;

    fn drop_arrays(&mut self) {
        self.arrays.drop_all(self.groups);
    }

    fn create_array(&mut self, id: ArrayId, desc: &ArrayDesc) -> Result<(), Error> {
        if desc.host == Some(HostAccess::View) {
            // The host's texture, viewed when the plan fills it: nothing to make.
            self.arrays.host.create_view(id, desc);
            return Ok(());
        }
        let (device, late) = (self.device, self.late);
        let format = wgpu_format(desc.format);
        let mut usage =
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::COPY_SRC;
        if desc.render_target {
            usage |= wgpu::TextureUsages::RENDER_ATTACHMENT;
            self.pipeline_compiles += self.pipelines.ensure(device, late, &PassKind::new(format))?;
        }
        let what = || {
            format!(
                "creating array {id:?} ({}x{} px, {} layers, {} levels, {} bytes)",
                desc.width_px,
                desc.height_px,
                desc.layers,
                desc.mip_levels,
                desc.bytes()
            )
        };
        // The texture on its own first: a view of a texture that failed would report only
        // that the texture is invalid, hiding why.
        let texture = checked(device, late, what, || {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some("layerbatch array"),
                size: wgpu::Extent3d {
                    width: desc.width_px,
                    height: desc.height_px,
                    depth_or_array_layers: desc.layers,
                },
                mip_level_count: desc.mip_levels,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        })?;
        let view = checked(
            device,
            late,
            || format!("creating the view of array {id:?}"),
            || {
                texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("layerbatch array"),
                    dimension: Some(wgpu::TextureViewDimension::D2Array),
                    ..Default::default()
                })
            },
        )?;
        self.arrays.arrays.insert(id, Array { texture, view, desc: *desc });
        Ok(())
    }

    /// **One layer and one level per copy.** One `copy_texture_to_texture` of several layers
    /// would be as correct, but wgpu-core (30.0.2) collects the source's pending barriers for
    /// a copy into an `ArrayVec` of 2 and panics with `ArrayVec: capacity exceeded` when the
    /// copied layers are in more than two states in the encoder: e.g. after staged writes
    /// (`copy_buffer_to_texture`) into 3 non-adjacent layers of the source. A copy of one
    /// layer and one level has one subresource on each side, so at most one barrier each,
    /// whatever the plan wrote before it. wgpu issues a region per layer either way (Vulkan's
    /// `vkCmdCopyImage`, GL's copies), so this costs only the commands' recording.
    fn copy_layers(&mut self, copy: &LayerCopy) -> Result<(), Error> {
        let (device, late) = (self.device, self.late);
        self.writes.before_copy(device, late, &mut self.own)?;
        let old = &live(self.arrays, copy.from)?.texture;
        let new = &live(self.arrays, copy.to)?.texture;
        let encoder = own_encoder(device, &mut self.own);
        checked(
            device,
            late,
            || format!("copying {} layers of array {:?} into {:?}", copy.layers, copy.from, copy.to),
            || {
                // Compressed: whole blocks (wgpu copies a level's physical size).
                let f = copy.format;
                for (level, [w, h]) in copy.levels() {
                    let [w, h] = f.round_up_px([w, h]);
                    for layer in 0..copy.layers {
                        encoder.copy_texture_to_texture(
                            copy_info(old, level, [0, 0, layer]),
                            copy_info(new, level, [0, 0, layer]),
                            wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
                        );
                    }
                }
            },
        )
    }

    fn copy_rect(&mut self, copy: &RectCopy) -> Result<(), Error> {
        let (device, late) = (self.device, self.late);
        self.writes.before_copy(device, late, &mut self.own)?;
        let src = &live(self.arrays, copy.from)?.texture;
        let dst = &live(self.arrays, copy.to)?.texture;
        let encoder = own_encoder(device, &mut self.own);
        checked(
            device,
            late,
            || {
                format!(
                    "copying a rectangle from layer {} of {:?} to layer {} of {:?}",
                    copy.from_layer, copy.from, copy.to_layer, copy.to
                )
            },
            || {
                encoder.copy_texture_to_texture(
                    copy_info(src, 0, [copy.from_xy[0], copy.from_xy[1], copy.from_layer]),
                    copy_info(dst, 0, [copy.to_xy[0], copy.to_xy[1], copy.to_layer]),
                    wgpu::Extent3d { width: copy.size[0], height: copy.size[1], depth_or_array_layers: 1 },
                );
            },
        )
    }

    fn create_resident(&mut self, resident: ResidentId, instances: u32, indexed: bool) -> Result<(), Error> {
        let size = u64::from(instances) * u64::from(Instance::quad_bytes(indexed));
        let mut usage = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST;
        if self.arrays.storage_residents {
            usage |= wgpu::BufferUsages::STORAGE;
        }
        let buffer = checked(
            self.device,
            self.late,
            || format!("creating resident layer {resident:?} ({instances} instances, {size} bytes)"),
            || {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("layerbatch resident layer"),
                    size,
                    usage,
                    mapped_at_creation: false,
                })
            },
        )?;
        self.arrays.residents.insert(resident, buffer);
        Ok(())
    }

    /// A queue write, straight into the queue's staging memory: it lands at the next submit,
    /// before that submit's passes (core holds back an update of a layer a pass of the host's
    /// frame already drew until the frame ends: [`layerbatch_core::Batcher::end_frame`]).
    fn write_resident(&mut self, write: &ResidentWrite<'_>) -> Result<(), Error> {
        let resident = write.resident;
        let what = || format!("writing resident layer {resident:?} from instance {}", write.first);
        let buffer = self.arrays.residents.get(&resident).ok_or_else(|| Error::Device {
            op: what(),
            message: "the renderer holds no buffer for it (out of step with core's runner)".to_string(),
        })?;
        let Some(size) = wgpu::BufferSize::new(write.bytes() as u64) else { return Ok(()) };
        let written = checked(self.device, self.late, what, || {
            let Some(mut view) = self.queue.write_buffer_with(buffer, write.offset_bytes(), size) else { return false };
            write.write_with(|at, piece| view.slice(at..at + piece.len()).copy_from_slice(piece));
            true
        })?;
        if !written {
            return Err(Error::Device { op: what(), message: "the queue gave no staging memory for it".to_string() });
        }
        Ok(())
    }

    fn destroy_resident(&mut self, resident: ResidentId) {
        // wgpu keeps the buffer until the commands using it are done.
        self.arrays.residents.remove(&resident);
        self.arrays.cells.remove(&resident);
        self.arrays.motions.destroy(resident);
    }

    fn create_cells(&mut self, resident: ResidentId, cells: u32) -> Result<(), Error> {
        let size = u64::from(cells) * 4;
        let buffer = checked(
            self.device,
            self.late,
            || format!("creating the cells of tile grid layer {resident:?} ({cells} cells)"),
            || {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("layerbatch tile grid cells"),
                    size,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            },
        )?;
        self.arrays.cells.insert(resident, buffer);
        Ok(())
    }

    /// A queue write, as a resident layer's.
    fn write_cells(&mut self, write: &CellWrite<'_>) -> Result<(), Error> {
        let resident = write.resident;
        let what = || format!("writing the cells of tile grid layer {resident:?} from cell {}", write.first);
        let buffer = self.arrays.cells.get(&resident).ok_or_else(|| Error::Device {
            op: what(),
            message: "the renderer holds no cell buffer for it (out of step with core's runner)".to_string(),
        })?;
        let offset = u64::from(write.first) * 4;
        checked(self.device, self.late, what, || {
            self.queue.write_buffer(buffer, offset, bytemuck::cast_slice(write.cells))
        })
    }

    fn create_motion(&mut self, resident: ResidentId, size_texels: [u32; 2]) -> Result<(), Error> {
        self.arrays.motions.create((self.device, self.late), resident, size_texels)
    }

    fn write_motion(&mut self, write: &MotionWrite<'_>) -> Result<u64, Error> {
        let encoder = own_encoder(self.device, &mut self.own);
        self.arrays.motions.write(encoder, write)
    }

    fn destroy_array(&mut self, array: ArrayId) {
        // wgpu frees the texture once the commands recorded with it are done (a view only
        // drops the renderer's reference to the host's texture).
        self.arrays.arrays.remove(&array);
        self.arrays.host.destroy(array);
        self.groups.release(array);
    }

    fn host_contents(&mut self, fill: &HostFill) -> Result<(), Error> {
        self.fill_host(fill)
    }

    fn write_level(&mut self, write: &LevelUpload<'_>) -> Result<(), Error> {
        let texture = &live(self.arrays, write.array)?.texture;
        self.writes.write(self.device, self.queue, self.late, &mut self.own, texture, write)
    }

    /// `Queue::write_texture` of the row: it lands before the next submission's commands.
    fn write_ramp(&mut self, row: u32, texels: &[u8]) -> Result<(), Error> {
        let texture = self.ramp.ok_or_else(|| Error::Device {
            op: format!("writing ramp row {row}"),
            message: "the renderer has no ramp (its budget has none)".to_string(),
        })?;
        let dst = wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d { x: 0, y: row, z: 0 },
            aspect: wgpu::TextureAspect::All,
        };
        let layout = wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(4 * layerbatch_core::RAMP_WIDTH_PX),
            rows_per_image: Some(1),
        };
        let size = wgpu::Extent3d { width: layerbatch_core::RAMP_WIDTH_PX, height: 1, depth_or_array_layers: 1 };
        checked(
            self.device,
            self.late,
            || format!("writing ramp row {row}"),
            || self.queue.write_texture(dst, texels, layout, size),
        )
    }
}

/// The renderer does not hold an array the validator says exists: a bug, reported instead of
/// a panic.
pub(crate) fn out_of_step(array: ArrayId) -> Error {
    Error::Device {
        op: format!("looking up array {array:?}"),
        message: "the renderer does not hold it (renderer and validator out of step)".to_string(),
    }
}

/// wgpu's format for core's.
pub(crate) fn wgpu_format(format: Format) -> wgpu::TextureFormat {
    use wgpu::{AstcChannel, TextureFormat as T};
    match format {
        Format::Rgba8Unorm => T::Rgba8Unorm,
        Format::Rgba8UnormSrgb => T::Rgba8UnormSrgb,
        Format::Bc1RgbaUnorm => T::Bc1RgbaUnorm,
        Format::Bc1RgbaUnormSrgb => T::Bc1RgbaUnormSrgb,
        Format::Bc2RgbaUnorm => T::Bc2RgbaUnorm,
        Format::Bc2RgbaUnormSrgb => T::Bc2RgbaUnormSrgb,
        Format::Bc3RgbaUnorm => T::Bc3RgbaUnorm,
        Format::Bc3RgbaUnormSrgb => T::Bc3RgbaUnormSrgb,
        Format::Bc4RUnorm => T::Bc4RUnorm,
        Format::Bc5RgUnorm => T::Bc5RgUnorm,
        Format::Bc7RgbaUnorm => T::Bc7RgbaUnorm,
        Format::Bc7RgbaUnormSrgb => T::Bc7RgbaUnormSrgb,
        Format::Etc2Rgb8Unorm => T::Etc2Rgb8Unorm,
        Format::Etc2Rgb8UnormSrgb => T::Etc2Rgb8UnormSrgb,
        Format::Etc2Rgb8A1Unorm => T::Etc2Rgb8A1Unorm,
        Format::Etc2Rgb8A1UnormSrgb => T::Etc2Rgb8A1UnormSrgb,
        Format::Etc2Rgba8Unorm => T::Etc2Rgba8Unorm,
        Format::Etc2Rgba8UnormSrgb => T::Etc2Rgba8UnormSrgb,
        Format::EacR11Unorm => T::EacR11Unorm,
        Format::EacRg11Unorm => T::EacRg11Unorm,
        Format::Astc { block, srgb } => T::Astc {
            block: wgpu_astc_block(block),
            channel: if srgb { AstcChannel::UnormSrgb } else { AstcChannel::Unorm },
        },
        // `Format` is non-exhaustive: a format added to core without a wgpu mapping is one
        // the device is never said to have (`limits`), so no plan names it.
        _ => T::Rgba8Unorm,
    }
}

/// wgpu's ASTC block for core's.
fn wgpu_astc_block(block: layerbatch_core::AstcBlock) -> wgpu::AstcBlock {
    use layerbatch_core::AstcBlock as A;
    use wgpu::AstcBlock as W;
    match block {
        A::B4x4 => W::B4x4,
        A::B5x4 => W::B5x4,
        A::B5x5 => W::B5x5,
        A::B6x5 => W::B6x5,
        A::B6x6 => W::B6x6,
        A::B8x5 => W::B8x5,
        A::B8x6 => W::B8x6,
        A::B8x8 => W::B8x8,
        A::B10x5 => W::B10x5,
        A::B10x6 => W::B10x6,
        A::B10x8 => W::B10x8,
        A::B10x10 => W::B10x10,
        A::B12x10 => W::B12x10,
        A::B12x12 => W::B12x12,
    }
}

/// Where a copy reads or writes: level `mip_level` of `texture`, at texel `[x, y]` of layer `z`.
pub(crate) fn copy_info(
    texture: &wgpu::Texture,
    mip_level: u32,
    [x, y, z]: [u32; 3],
) -> wgpu::TexelCopyTextureInfo<'_> {
    wgpu::TexelCopyTextureInfo {
        texture,
        mip_level,
        origin: wgpu::Origin3d { x, y, z },
        aspect: wgpu::TextureAspect::All,
    }
}

/// The command encoder of layerbatch's own work in a `prepare` (GPU copies, staged writes,
/// draws into render targets), made on first use and submitted by `prepare` itself.
pub(crate) fn own_encoder<'a>(
    device: &wgpu::Device,
    own: &'a mut Option<wgpu::CommandEncoder>,
) -> &'a mut wgpu::CommandEncoder {
    own.get_or_insert_with(|| {
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("layerbatch copies and targets") })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// wgpu's own table agrees with core's block arithmetic for every format.
    #[test]
    fn block_sizes_and_bytes_are_wgpus() {
        for format in Format::ALL {
            let w = wgpu_format(format);
            let [bw, bh] = format.block_size_px();
            assert_eq!(w.block_dimensions(), (bw, bh), "{format}");
            assert_eq!(w.block_copy_size(None), Some(format.block_bytes()), "{format}");
            assert_eq!(w.is_srgb(), format.is_srgb(), "{format}");
        }
    }
}
