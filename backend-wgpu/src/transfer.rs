//! Copies the renderer records into its own command encoder: layer writes staged after a GPU
//! copy, and the layer copies of array growth and shrinking.

use std::ops::Range;

use layerbatch_core::{mip_size, FramePlan, LevelWrite};

use crate::scope::{checked, Late};
use crate::Error;

/// Records the copy of layers `0..copy_layers`, levels `0..levels`, of `old` (`old_size` at
/// level 0) into `new`, each to the same place (the old width x height at the origin), **one
/// layer per copy**.
///
/// One `copy_texture_to_texture` of several layers would be as correct, but wgpu-core (30.0.2)
/// collects the source's pending barriers for a copy into an `ArrayVec` of 2 and panics with
/// `ArrayVec: capacity exceeded` when the copied layers are in more than two states in the
/// encoder: e.g. after staged writes (`copy_buffer_to_texture`) into 3 non-adjacent layers of
/// the source. A copy of one layer and one level has one subresource on each side, so at most
/// one barrier each, whatever the plan wrote before it. wgpu issues a region per layer either
/// way (Vulkan's `vkCmdCopyImage`, GL's copies), so this costs only the commands' recording.
pub(crate) fn copy_layers(
    encoder: &mut wgpu::CommandEncoder,
    old: &wgpu::Texture,
    old_size: [u32; 2],
    new: &wgpu::Texture,
    levels: u32,
    copy_layers: u32,
) {
    for level in 0..levels {
        let (w, h) = mip_size(old_size[0], old_size[1], level);
        for layer in 0..copy_layers {
            encoder.copy_texture_to_texture(
                copy_info(old, level, [0, 0, layer]),
                copy_info(new, level, [0, 0, layer]),
                wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
            );
        }
    }
}

/// Layer writes staged for `copy_buffer_to_texture`, packed into buffers of at most `limit`
/// bytes (the device's `max_buffer_size`), rows padded to wgpu's copy alignment.
pub(crate) struct Staging {
    limit: u64,
    pieces: Vec<Piece>,
    /// Bytes of the buffer being filled.
    bytes: u64,
    /// The renderer's late errors (WebGPU).
    late: Late,
}

impl Staging {
    /// Nothing staged yet; buffers of at most `limit` bytes.
    pub(crate) fn new(limit: u64, late: Late) -> Self {
        Self { limit, pieces: Vec::new(), bytes: 0, late }
    }
}

/// Rows of one level of one layer write, at `offset` in the staging buffer being filled.
struct Piece {
    texture: wgpu::Texture,
    level: u32,
    origin: [u32; 3],
    width_px: u32,
    rows: u32,
    row_bytes: u32,
    padded_row: u32,
    /// Offset of the first row in the plan's upload bytes.
    src: usize,
    offset: u64,
}

impl Staging {
    /// Adds one level of a write; a level larger than the room left is split by rows, across
    /// buffers.
    pub(crate) fn push(
        &mut self,
        device: &wgpu::Device,
        own: &mut Option<wgpu::CommandEncoder>,
        plan: &FramePlan,
        texture: &wgpu::Texture,
        layer: u32,
        level: LevelWrite,
    ) -> Result<(), Error> {
        let padded_row = level.row_bytes.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let padded = u64::from(padded_row);
        if padded > self.limit {
            return Err(Error::Device {
                op: format!("staging a {} px wide write", level.width_px),
                message: format!(
                    "one row takes {padded} bytes, more than the device's max_buffer_size of {}",
                    self.limit
                ),
            });
        }
        let mut row = 0;
        while row < level.height_px {
            let room = (self.limit - self.bytes) / padded;
            if room == 0 {
                self.flush(device, own, plan)?;
                continue;
            }
            let rows = room.min(u64::from(level.height_px - row)) as u32;
            self.pieces.push(Piece {
                texture: texture.clone(),
                level: level.level,
                origin: [level.x_px, level.y_px + row, layer],
                width_px: level.width_px,
                rows,
                row_bytes: level.row_bytes,
                padded_row,
                src: level.bytes.start + row as usize * level.row_bytes as usize,
                offset: self.bytes,
            });
            self.bytes += u64::from(rows) * padded;
            row += rows;
        }
        Ok(())
    }

    /// Creates the buffer of the pieces so far and records their copies into the renderer's
    /// own encoder.
    pub(crate) fn flush(
        &mut self,
        device: &wgpu::Device,
        own: &mut Option<wgpu::CommandEncoder>,
        plan: &FramePlan,
    ) -> Result<(), Error> {
        if self.pieces.is_empty() {
            return Ok(());
        }
        let size = self.bytes;
        let buffer = checked(
            device,
            &self.late,
            || format!("creating a staging buffer of {size} bytes"),
            || {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("layerbatch staged writes"),
                    size,
                    usage: wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: true,
                })
            },
        )?;
        {
            let mut view = buffer.get_mapped_range_mut(..).map_err(|e| Error::Device {
                op: format!("mapping a staging buffer of {size} bytes"),
                message: e.to_string(),
            })?;
            for p in &self.pieces {
                let row = p.row_bytes as usize;
                for r in 0..p.rows as usize {
                    let src = p.src + r * row;
                    let dst = p.offset as usize + r * p.padded_row as usize;
                    view.slice(dst..dst + row).copy_from_slice(upload(plan, &(src..src + row))?);
                }
            }
        }
        buffer.unmap();
        let encoder = own_encoder(device, own);
        for p in self.pieces.drain(..) {
            encoder.copy_buffer_to_texture(
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: p.offset,
                        bytes_per_row: Some(p.padded_row),
                        rows_per_image: Some(p.rows),
                    },
                },
                copy_info(&p.texture, p.level, p.origin),
                wgpu::Extent3d { width: p.width_px, height: p.rows, depth_or_array_layers: 1 },
            );
        }
        self.bytes = 0;
        Ok(())
    }
}

/// The plan's upload bytes in `range` (validated; an error rather than a panic if not).
pub(crate) fn upload<'p>(plan: &'p FramePlan, range: &Range<usize>) -> Result<&'p [u8], Error> {
    plan.upload_bytes.get(range.clone()).ok_or_else(|| Error::Device {
        op: "reading a layer write's bytes".to_string(),
        message: format!(
            "bytes {range:?} are outside the plan's {} (renderer and validator out of step)",
            plan.upload_bytes.len()
        ),
    })
}

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
