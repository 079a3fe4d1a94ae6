//! The texture half of the batcher's API: registering, updating, resizing and freeing
//! textures, which queue resource ops for the next plan.

use super::registry::Entry;
use super::Batcher;
use crate::alloc::Placement;
use crate::plan::ResourceOp;
#[cfg(feature = "decode")]
use crate::texture::mip_chain_bytes;
use crate::texture::{max_mip_levels, push_mip_chain, Usage};
use crate::{FormatFamilies, TextureDesc, TextureError, TextureId, Wrap};

impl Batcher {
    pub(crate) fn register(&mut self, desc: &TextureDesc, pixels: &[u8]) -> Result<TextureId, TextureError> {
        #[cfg(feature = "decode")]
        let decoded = self.decode_if_unsupported(desc, pixels)?;
        #[cfg(feature = "decode")]
        let (desc, pixels) = match &decoded {
            // Checked as the compressed texture it was; its pixels are every level, decoded.
            Some((d, p)) => (d, p.as_slice()),
            None => {
                self.validate(desc, pixels)?;
                (desc, pixels)
            }
        };
        #[cfg(not(feature = "decode"))]
        self.validate(desc, pixels)?;
        // The registry index the texture will get: rectangles that move later name it.
        let index = self.registry.next_index();
        let admission = self.alloc.admit_for(desc, index)?;
        self.apply_admission(&admission);
        let placement = admission.placement;
        let entry = Entry { generation: 0, live: true, desc: *desc, placement, pixels: Vec::new(), normals: None };
        debug_assert_eq!(index, self.registry.next_index());
        let id = self.registry.insert(entry);
        self.registry.refresh_hot(id.index, &self.alloc, &self.ladder);
        self.drain_alloc_ops();
        if !pixels.is_empty() {
            self.queue_write(id, pixels);
        }
        self.note_host_array(id);
        Ok(id)
    }

    pub(crate) fn update(&mut self, id: TextureId, pixels: &[u8]) -> Result<(), TextureError> {
        let desc = self.registry.entry(id)?.desc;
        refuse_host_pixels(id, &desc, pixels)?;
        check_len(&desc, pixels)?;
        self.queue_write(id, pixels);
        Ok(())
    }

    pub(crate) fn update_region(
        &mut self,
        id: TextureId,
        rect_px: [u32; 4],
        pixels: &[u8],
    ) -> Result<(), TextureError> {
        let e = self.registry.entry(id)?;
        let desc = e.desc;
        refuse_host_pixels(id, &desc, pixels)?;
        let [x, y, w, h] = rect_px;
        let inside = u64::from(x) + u64::from(w) <= u64::from(desc.width_px)
            && u64::from(y) + u64::from(h) <= u64::from(desc.height_px);
        if w == 0 || h == 0 || !inside || desc.mip_levels != 1 {
            return Err(TextureError::Region {
                rect_px,
                width_px: desc.width_px,
                height_px: desc.height_px,
                mip_levels: desc.mip_levels,
            });
        }
        let f = desc.format;
        let [bw, bh] = f.block_size_px();
        let whole = |at: u32, len: u32, edge: u32, b: u32| at % b == 0 && (len % b == 0 || at + len == edge);
        if !whole(x, w, desc.width_px, bw) || !whole(y, h, desc.height_px, bh) {
            return Err(TextureError::BlockAlign {
                rect_px,
                width_px: desc.width_px,
                height_px: desc.height_px,
                format: f,
                block_px: [bw, bh],
            });
        }
        let region = TextureDesc { width_px: w, height_px: h, ..desc };
        check_len(&region, pixels)?;
        let e = &mut self.registry.entries[id.index as usize];
        if !e.pixels.is_empty() {
            // Keep the CPU copy whole: patch the rectangle's rows (of blocks).
            let row = f.row_bytes(w) as usize;
            let texture_row = f.row_bytes(desc.width_px) as usize;
            let skip = f.row_bytes(x) as usize;
            for r in 0..f.block_rows(h) as usize {
                let at = (y / bh) as usize * texture_row + r * texture_row + skip;
                e.pixels[at..at + row].copy_from_slice(&pixels[r * row..(r + 1) * row]);
            }
        }
        let start = self.upload_bytes.len();
        self.upload_bytes.extend_from_slice(pixels);
        self.writes.note(id, self.ops.len());
        let [px, py, ..] = e.placement.rect_px;
        self.ops.push(ResourceOp::WriteLayer {
            texture: id,
            array: e.placement.array,
            layer: e.placement.layer,
            x_px: px + x,
            y_px: py + y,
            width_px: w,
            height_px: h,
            mip_levels: 1,
            bytes: start..self.upload_bytes.len(),
            normal_map: false,
        });
        Ok(())
    }

    pub(crate) fn resize(
        &mut self,
        id: TextureId,
        width_px: u32,
        height_px: u32,
        pixels: &[u8],
    ) -> Result<(), TextureError> {
        let old = self.registry.entry(id)?.clone();
        if !matches!(old.desc.usage, Usage::Dynamic | Usage::Host) {
            return Err(TextureError::NotDynamic(id));
        }
        if old.desc.usage == Usage::Host && !pixels.is_empty() {
            return Err(TextureError::HostPixels { texture: Some(id), pixel_bytes: pixels.len() });
        }
        if old.desc.usage == Usage::Host && self.recorder.open {
            // Quads pushed before would keep the old array, which only the host's old texture
            // can fill, and the backend holds one texture per host texture.
            return Err(TextureError::HostResizeInFrame(id));
        }
        let desc = TextureDesc { width_px, height_px, ..old.desc };
        self.validate(&desc, pixels)?;
        let admission = self.alloc.admit_for(&desc, id.index)?;
        self.apply_admission(&admission);
        self.release(old.placement, None);
        // Its normal map no longer fits: dropped, not left flagged over an unwritten layer.
        self.drop_normal_map(id);
        let e = &mut self.registry.entries[id.index as usize];
        e.desc = desc;
        e.placement = admission.placement;
        self.registry.refresh_hot(id.index, &self.alloc, &self.ladder);
        self.drain_alloc_ops();
        if !pixels.is_empty() {
            self.queue_write(id, pixels);
        }
        self.note_host_array(id);
        Ok(())
    }

    pub(crate) fn free(&mut self, id: TextureId) -> Result<(), TextureError> {
        let placement = self.registry.entry(id)?.placement;
        self.check_not_resident(id)?;
        if !self.recorder.open {
            // No quad of an open frame draws it: its pending writes are dead.
            self.writes.supersede(id, None, &mut self.ops, &mut self.upload_bytes);
        }
        self.cpu_copy_bytes -= self.registry.remove(id);
        self.release(placement, Some(id));
        Ok(())
    }

    pub(crate) fn white(&mut self) -> Result<TextureId, TextureError> {
        match self.white {
            Some(id) if self.contains(id) => Ok(id),
            _ => {
                let id = self.register(&TextureDesc::new(1, 1), &[255; 4])?;
                self.white = Some(id);
                Ok(id)
            }
        }
    }

    /// Whether `id` names a live texture.
    pub fn contains(&self, id: TextureId) -> bool {
        self.registry.entry(id).is_ok()
    }

    /// Where a live texture is stored.
    ///
    /// # Errors
    /// [`TextureError::Stale`].
    pub fn placement(&self, id: TextureId) -> Result<Placement, TextureError> {
        Ok(self.registry.entry(id)?.placement)
    }

    /// The description of a live texture.
    ///
    /// # Errors
    /// [`TextureError::Stale`].
    pub fn desc(&self, id: TextureId) -> Result<TextureDesc, TextureError> {
        Ok(self.registry.entry(id)?.desc)
    }

    /// With the `decode` feature, a texture of a family the device lacks, or a compressed one
    /// whose authored levels cannot line up with a layer of whole blocks (mips or a repeat
    /// along an axis that is not whole blocks, e.g. nvcompress's full chain of a 37x29 image,
    /// refused as [`TextureError::PartialBlocks`] without the feature): its RGBA8 version, every
    /// level decoded (counted in `textures_decoded`; each format logged once at `warn!`).
    /// `None` for any other texture.
    #[cfg(feature = "decode")]
    fn decode_if_unsupported(
        &mut self,
        desc: &TextureDesc,
        pixels: &[u8],
    ) -> Result<Option<(TextureDesc, Vec<u8>)>, TextureError> {
        let format = desc.format;
        let supported = self.budget.format_families.contains(format.family());
        // Asked as if the device had the family: a partial texture of a family it lacks too.
        let with_family = self.budget.format_families.with(format.family());
        let partial = format.is_compressed()
            && matches!(self.validate_for(desc, pixels, with_family, true), Err(TextureError::PartialBlocks { .. }));
        if (supported && !partial) || pixels.is_empty() {
            return Ok(None);
        }
        // Every check that does not depend on the family comes before the work: the size, the
        // levels, the length, and whether the decoded texture's texels fit the budget at all
        // (a file may declare gigabytes of blocks; decoding them to be refused after is the
        // cost an attacker wants).
        let target = TextureDesc { format: decoded_format(format), ..*desc };
        self.validate_for(desc, pixels, with_family, !partial)?;
        let levels = target.mip_levels;
        self.alloc.check(mip_chain_bytes(target.width_px, target.height_px, levels, target.format), target.format)?;
        let decoded = crate::decode::decoded(desc, pixels)?;
        if partial && !self.decoded_formats.contains(&format) {
            self.decoded_formats.push(format);
            let [bw, bh] = format.block_size_px();
            log::warn!(
                "layerbatch: a {}x{} {format} texture of {} levels is not whole {bw}x{bh} blocks, so its levels cannot \
                 line up with a layer's: {format} textures like it are decoded to RGBA8 on the CPU",
                desc.width_px,
                desc.height_px,
                desc.mip_levels
            );
        } else if !partial && !self.decoded_formats.contains(&format) {
            self.decoded_formats.push(format);
            log::warn!(
                "layerbatch: the device has no {:?} formats: {format} textures are decoded to RGBA8 on the CPU ({}x \
                 the memory)",
                format.family(),
                decoded.0.byte_len() as f64 / desc.format.image_bytes(desc.width_px, desc.height_px) as f64
            );
        }
        self.decoded_pending += 1;
        Ok(Some(decoded))
    }

    fn validate(&self, desc: &TextureDesc, pixels: &[u8]) -> Result<(), TextureError> {
        self.validate_for(desc, pixels, self.budget.format_families, true)
    }

    /// [`TextureStore::register`]'s checks, with `available` as the device's families.
    /// `whole_blocks`: whether [`TextureError::PartialBlocks`] applies (not to a texture
    /// about to be decoded to RGBA8).
    fn validate_for(
        &self,
        desc: &TextureDesc,
        pixels: &[u8],
        available: FormatFamilies,
        whole_blocks: bool,
    ) -> Result<(), TextureError> {
        let (w, h) = (desc.width_px, desc.height_px);
        if w == 0 || h == 0 {
            return Err(TextureError::ZeroSize { width_px: w, height_px: h });
        }
        let format = desc.format;
        if !available.contains(format.family()) {
            return Err(TextureError::FormatUnsupported { format, family: format.family(), available });
        }
        if desc.usage == Usage::Host {
            Self::validate_host(desc, pixels)?;
        }
        if format.is_compressed() && desc.usage == Usage::RenderTarget {
            return Err(TextureError::CompressedTarget { format });
        }
        // In whole blocks: a compressed texture's layer is (a device size that is not a
        // multiple of 4 holds one block less than it says).
        let max_px = self.budget.max_texture_size_px;
        let [rw, rh] = format.round_up_px([w, h]);
        if rw > max_px || rh > max_px {
            return Err(TextureError::TooLarge { width_px: w, height_px: h, max_px });
        }
        let block_px = format.block_size_px();
        let partial = w % block_px[0] != 0 || h % block_px[1] != 0;
        // Padding shows only along an axis that wraps and is not whole blocks.
        let (wrap_u, wrap_v) = (desc.sampler.wrap_u, desc.sampler.wrap_v);
        let tiles_padding = (w % block_px[0] != 0 && wrap_u != Wrap::ClampToEdge)
            || (h % block_px[1] != 0 && wrap_v != Wrap::ClampToEdge);
        if whole_blocks && partial && (desc.mip_levels > 1 || tiles_padding) {
            let mip_levels = desc.mip_levels;
            return Err(TextureError::PartialBlocks {
                format,
                width_px: w,
                height_px: h,
                block_px,
                mip_levels,
                wrap_u,
                wrap_v,
            });
        }
        let max_levels = max_mip_levels(w, h);
        if desc.mip_levels == 0 || desc.mip_levels > max_levels {
            return Err(TextureError::MipLevels { mip_levels: desc.mip_levels, width_px: w, height_px: h, max_levels });
        }
        if pixels.is_empty() && matches!(desc.usage, Usage::RenderTarget | Usage::Host) {
            return Ok(());
        }
        check_len(desc, pixels)
    }

    pub(super) fn queue_write(&mut self, id: TextureId, pixels: &[u8]) {
        // A whole write replaces every texel of the texture: its earlier pending writes are
        // dead (a host that updates while skipping frames queues one write, not thousands).
        self.writes.supersede(id, Some(false), &mut self.ops, &mut self.upload_bytes);
        self.writes.note(id, self.ops.len());
        let keep = self.budget.keep_pixels;
        let e = &mut self.registry.entries[id.index as usize];
        if keep && e.desc.usage != Usage::RenderTarget {
            self.cpu_copy_bytes = self.cpu_copy_bytes - e.pixels.len() as u64 + pixels.len() as u64;
            e.pixels.clear();
            e.pixels.extend_from_slice(pixels);
        }
        let start = self.upload_bytes.len();
        push_mip_chain(
            &mut self.upload_bytes,
            pixels,
            e.desc.width_px,
            e.desc.height_px,
            e.desc.mip_levels,
            e.desc.format,
        );
        self.ops.push(whole_write(id, e, start..self.upload_bytes.len(), false));
    }

    pub(crate) fn register_normal_map(&mut self, id: TextureId, normals: &[u8]) -> Result<(), TextureError> {
        if self.budget.max_lights == 0 {
            return Err(TextureError::NormalMapWithoutLights { texture: id });
        }
        let e = self.registry.entry(id)?;
        let desc = e.desc;
        let has_sibling = self.alloc.array(e.placement.array).is_some_and(|a| a.normal_map);
        if !has_sibling {
            return Err(TextureError::NormalMapUnsupported {
                texture: id,
                format: desc.format,
                render_target: desc.usage == Usage::RenderTarget,
            });
        }
        let expected_bytes = desc.width_px as usize * desc.height_px as usize * 4;
        if normals.len() != expected_bytes {
            return Err(TextureError::NormalMapSize {
                texture: id,
                width_px: desc.width_px,
                height_px: desc.height_px,
                normal_bytes: normals.len(),
                expected_bytes,
            });
        }
        self.queue_normal_write(id, normals);
        self.registry.refresh_hot(id.index, &self.alloc, &self.ladder);
        Ok(())
    }
}

/// The write of every level of texture `id` (`e`) at its place: its colours, or its normal
/// map into the array's sibling.
pub(super) fn whole_write(id: TextureId, e: &Entry, bytes: std::ops::Range<usize>, normal_map: bool) -> ResourceOp {
    let [x_px, y_px, ..] = e.placement.rect_px;
    ResourceOp::WriteLayer {
        texture: id,
        array: e.placement.array,
        layer: e.placement.layer,
        x_px,
        y_px,
        width_px: e.desc.width_px,
        height_px: e.desc.height_px,
        mip_levels: e.desc.mip_levels,
        bytes,
        normal_map,
    }
}

/// A host texture takes no pixels from the CPU ([`TextureError::HostPixels`]).
fn refuse_host_pixels(id: TextureId, desc: &TextureDesc, pixels: &[u8]) -> Result<(), TextureError> {
    match desc.usage {
        Usage::Host => Err(TextureError::HostPixels { texture: Some(id), pixel_bytes: pixels.len() }),
        _ => Ok(()),
    }
}

fn check_len(desc: &TextureDesc, pixels: &[u8]) -> Result<(), TextureError> {
    if pixels.len() != desc.byte_len() {
        return Err(TextureError::PixelLength {
            actual_bytes: pixels.len(),
            expected_bytes: desc.byte_len(),
            width_px: desc.width_px,
            height_px: desc.height_px,
            format: desc.format,
        });
    }
    Ok(())
}

/// The RGBA8 format a compressed one is decoded into: sRGB stays sRGB.
#[cfg(feature = "decode")]
const fn decoded_format(format: crate::Format) -> crate::Format {
    if format.is_srgb() {
        crate::Format::Rgba8UnormSrgb
    } else {
        crate::Format::Rgba8Unorm
    }
}
