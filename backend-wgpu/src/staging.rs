//! Layer writes, in the plan's order around its GPU copies.
//!
//! `Queue::write_texture` runs at the next submit, *before* every command buffer of that
//! submit, and GPU copies are commands of the renderer's own encoder. So a write that follows
//! a GPU copy in the plan (a texture admitted into the grown array, or into the rectangle a
//! compaction freed) would be overwritten by, or read by, the copy if it were a queue write.
//! Writes before the plan's first GPU copy are queue writes; every write after it is staged in
//! buffers no larger than the device's `max_buffer_size` (a level larger than that is split by
//! rows) and recorded into the same encoder with `copy_buffer_to_texture`, in op order around
//! the copies.
//!
//! A write into a compressed array is never staged on a budget without `compressed_copies`
//! (wgpu's GL backend): no GPU copy reads or writes a compressed array then, so a queue write
//! cannot land in a copy's way. It must not be staged there: wgpu-hal 30's GL
//! `copy_buffer_to_texture` hands `glCompressedTexSubImage3D` an image size of the padded row
//! stride times the rows (GL ignores `UNPACK_ROW_LENGTH` for compressed data), which GL refuses
//! unless a row is exactly 256 bytes, and the write was lost without an error (found by the
//! call-sequence model: a BC1 texture admitted after a page compaction in the same plan drew
//! black on wgpu GL only).

use layerbatch_core::execute::LevelUpload;
use layerbatch_core::FramePlan;

use crate::arrays::{copy_info, own_encoder};
use crate::scope::{checked, Late};
use crate::Error;

/// One plan's layer writes: queue writes until its first GPU copy, staged after it.
pub(crate) struct Staging<'a> {
    /// The plan: staged rows are read from its upload bytes when their buffer is filled.
    plan: &'a FramePlan,
    /// The largest staging buffer: the device's `max_buffer_size`.
    limit: u64,
    pieces: Vec<Piece>,
    /// Bytes of the buffer being filled.
    bytes: u64,
    /// A GPU copy has been recorded: writes from now on are staged.
    after_copy: bool,
    /// The budget's `compressed_copies`: without them compressed writes are queue writes.
    compressed_copies: bool,
}

/// Rows of one level of one layer write, at `offset` in the staging buffer being filled.
struct Piece {
    texture: wgpu::Texture,
    level: u32,
    origin: [u32; 3],
    width_px: u32,
    /// Rows of blocks (of texels, uncompressed).
    rows: u32,
    /// Texels a row of blocks is tall.
    block_px: u32,
    row_bytes: u32,
    padded_row: u32,
    /// Offset of the first row in the plan's upload bytes.
    src: usize,
    offset: u64,
}

impl<'a> Staging<'a> {
    /// Nothing written yet; staging buffers of at most `limit` bytes.
    pub(crate) fn new(plan: &'a FramePlan, limit: u64, compressed_copies: bool) -> Self {
        Self { plan, limit, pieces: Vec::new(), bytes: 0, after_copy: false, compressed_copies }
    }

    /// A GPU copy is about to be recorded into `own`: the writes staged so far (to its source,
    /// say) are recorded before it, and every later write after it.
    pub(crate) fn before_copy(
        &mut self,
        device: &wgpu::Device,
        late: &Late,
        own: &mut Option<wgpu::CommandEncoder>,
    ) -> Result<(), Error> {
        self.flush(device, late, own)?;
        self.after_copy = true;
        Ok(())
    }

    /// Writes one level into `texture`: a queue write before the plan's first GPU copy, staged
    /// after it (compressed writes: queue writes where no copy can touch them).
    pub(crate) fn write(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        late: &Late,
        own: &mut Option<wgpu::CommandEncoder>,
        texture: &wgpu::Texture,
        write: &LevelUpload<'_>,
    ) -> Result<(), Error> {
        let level = &write.level;
        let copies_touch = self.compressed_copies || !write.format.is_compressed();
        if self.after_copy && copies_touch {
            return self.push(device, late, own, texture, write);
        }
        let dst = copy_info(texture, level.level, [level.x_px, level.y_px, write.layer]);
        let size = wgpu::Extent3d { width: level.width_px, height: level.height_px, depth_or_array_layers: 1 };
        let layout = wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(level.row_bytes),
            rows_per_image: Some(level.rows),
        };
        checked(
            device,
            late,
            || format!("writing level {} of layer {} of array {:?}", level.level, write.layer, write.array),
            || queue.write_texture(dst, write.bytes, layout, size),
        )
    }

    /// Stages one level of a write; a level larger than the room left is split by rows,
    /// across buffers.
    fn push(
        &mut self,
        device: &wgpu::Device,
        late: &Late,
        own: &mut Option<wgpu::CommandEncoder>,
        texture: &wgpu::Texture,
        write: &LevelUpload<'_>,
    ) -> Result<(), Error> {
        let level = &write.level;
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
        // Rows of blocks: each is the block's height in texels.
        let block_px = write.format.block_size_px()[1];
        let mut row = 0;
        while row < level.rows {
            let room = (self.limit - self.bytes) / padded;
            if room == 0 {
                self.flush(device, late, own)?;
                continue;
            }
            let rows = room.min(u64::from(level.rows - row)) as u32;
            self.pieces.push(Piece {
                texture: texture.clone(),
                level: level.level,
                origin: [level.x_px, level.y_px + row * block_px, write.layer],
                width_px: level.width_px,
                rows,
                block_px,
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

    /// Creates the buffer of the pieces staged so far and records their copies into `own`.
    pub(crate) fn flush(
        &mut self,
        device: &wgpu::Device,
        late: &Late,
        own: &mut Option<wgpu::CommandEncoder>,
    ) -> Result<(), Error> {
        if self.pieces.is_empty() {
            return Ok(());
        }
        let size = self.bytes;
        let buffer = checked(
            device,
            late,
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
                    view.slice(dst..dst + row).copy_from_slice(self.upload(src..src + row)?);
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
                wgpu::Extent3d { width: p.width_px, height: p.rows * p.block_px, depth_or_array_layers: 1 },
            );
        }
        self.bytes = 0;
        Ok(())
    }

    /// The plan's upload bytes in `range` (checked by the runner; an error rather than a panic
    /// if not).
    fn upload(&self, range: std::ops::Range<usize>) -> Result<&'a [u8], Error> {
        let plan = self.plan;
        plan.upload_bytes.get(range.clone()).ok_or_else(|| Error::Device {
            op: "reading a layer write's bytes".to_string(),
            message: format!(
                "bytes {range:?} are outside the plan's {} (renderer and validator out of step)",
                plan.upload_bytes.len()
            ),
        })
    }
}
