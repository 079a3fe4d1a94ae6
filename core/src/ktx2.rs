//! KTX2 ingestion (the `ktx2` feature): a file's levels and layers, checked, as core textures.
//!
//! The container is read by the `ktx2` crate (Bevy's reader); zstd supercompression is undone
//! with ruzstd (pure Rust). Every level the file holds is kept: for a compressed format those
//! are the texture's authored mips.

use crate::{Batcher, Format, TextureDesc, TextureError, TextureId};

/// Why a KTX2 file was refused. Nothing is registered then.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Ktx2Error {
    /// The container does not parse: bad magic, sections or level index past the end of the
    /// file (a truncated file), a malformed data format descriptor.
    #[error("not a readable KTX2 file ({len} bytes): {message}")]
    Container {
        /// Bytes given.
        len: usize,
        /// The reader's message.
        message: String,
    },
    /// A format core does not store (`vk_format` is the file's `vkFormat`; 0 is "undefined",
    /// as in Basis Universal files, which need transcoding first).
    #[error("KTX2 vkFormat {vk_format} is not one layerbatch stores (RGBA8, BC1/3/4/5/7, ETC2/EAC, ASTC 4x4)")]
    Format {
        /// The file's `vkFormat`.
        vk_format: u32,
    },
    /// A cube map, 3D texture or supercompression other than zstd.
    #[error("KTX2 {what} is not supported (2D textures and 2D arrays, uncompressed or zstd)")]
    Unsupported {
        /// What the file is.
        what: String,
    },
    /// The header declares more bytes than the reader may allocate (for
    /// [`Batcher::register_ktx2`], the budget).
    #[error(
        "KTX2 {width_px}x{height_px}, {layers} layer(s), {levels} level(s) take {total_bytes} bytes: more than the \
         {max_bytes} allowed"
    )]
    TooLarge {
        /// Width.
        width_px: u32,
        /// Height.
        height_px: u32,
        /// Layers.
        layers: u32,
        /// Levels.
        levels: u32,
        /// Bytes the texture would take.
        total_bytes: u64,
        /// The most allowed.
        max_bytes: u64,
    },
    /// A level's data is not the size its format and dimensions give (after zstd, if used).
    #[error(
        "KTX2 level {level} ({width_px}x{height_px}, {layers} layer(s) of {format}) holds {actual_bytes} bytes; it \
         needs {expected_bytes}"
    )]
    LevelSize {
        /// The level.
        level: u32,
        /// Its width.
        width_px: u32,
        /// Its height.
        height_px: u32,
        /// Layers of the file.
        layers: u32,
        /// The format.
        format: Format,
        /// Bytes found (or declared uncompressed).
        actual_bytes: u64,
        /// Bytes the level needs.
        expected_bytes: u64,
    },
    /// zstd could not decompress a level.
    #[error("KTX2 level {level}: zstd: {message}")]
    Zstd {
        /// The level.
        level: u32,
        /// The decoder's message.
        message: String,
    },
    /// A layer was refused by the batcher (its size, format family or the budget); the layers
    /// registered before it were freed again.
    #[error("KTX2 layer {layer}: {source}")]
    Texture {
        /// The layer.
        layer: u32,
        /// Why.
        source: TextureError,
    },
}

/// A KTX2 file read into core's terms: the description of each layer and each layer's bytes,
/// every level of it, level 0 first, as [`Batcher::register`] takes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ktx2Texture {
    /// Size, format and levels (filter, wrap and usage as the caller gave them).
    pub desc: TextureDesc,
    /// Each array layer's levels, back to back (one entry for a plain 2D file).
    pub layers: Vec<Vec<u8>>,
}

/// Core's format for a Vulkan format number, as KTX2 files name them. BC1's RGB and RGBA
/// variants are one format here, as in wgpu and Bevy.
pub fn format_from_vk(vk_format: u32) -> Option<Format> {
    Some(match vk_format {
        37 => Format::Rgba8Unorm,
        43 => Format::Rgba8UnormSrgb,
        131 | 133 => Format::Bc1RgbaUnorm,
        132 | 134 => Format::Bc1RgbaUnormSrgb,
        137 => Format::Bc3RgbaUnorm,
        138 => Format::Bc3RgbaUnormSrgb,
        139 => Format::Bc4RUnorm,
        141 => Format::Bc5RgUnorm,
        145 => Format::Bc7RgbaUnorm,
        146 => Format::Bc7RgbaUnormSrgb,
        147 => Format::Etc2Rgb8Unorm,
        148 => Format::Etc2Rgb8UnormSrgb,
        149 => Format::Etc2Rgb8A1Unorm,
        150 => Format::Etc2Rgb8A1UnormSrgb,
        151 => Format::Etc2Rgba8Unorm,
        152 => Format::Etc2Rgba8UnormSrgb,
        153 => Format::EacR11Unorm,
        155 => Format::EacRg11Unorm,
        157 => Format::Astc4x4RgbaUnorm,
        158 => Format::Astc4x4RgbaUnormSrgb,
        _ => return None,
    })
}

/// Reads a KTX2 file: checks the container, the format, that it is a 2D texture or 2D array,
/// and every level's size; undoes zstd. `like` gives filter, wrap and usage (its size,
/// format and levels are the file's). A file with `levelCount` 0 ("generate mips") reads
/// as one level.
///
/// # Errors
/// [`Ktx2Error`], naming what was wrong. Nothing is allocated for the texture before its
/// header's dimensions, layers and levels are found to take at most `max_bytes`
/// ([`Ktx2Error::TooLarge`]: a file of a few bytes may declare terabytes), and a zstd level is
/// decompressed only once its declared size matches its dimensions.
pub fn read_ktx2(bytes: &[u8], like: &TextureDesc, max_bytes: u64) -> Result<Ktx2Texture, Ktx2Error> {
    let reader =
        ktx2::Reader::new(bytes).map_err(|e| Ktx2Error::Container { len: bytes.len(), message: e.to_string() })?;
    let h = reader.header();
    let vk_format = h.format.map_or(0, |f| f.value());
    let format = format_from_vk(vk_format).ok_or(Ktx2Error::Format { vk_format })?;
    let unsupported = |what: String| Err(Ktx2Error::Unsupported { what });
    if h.face_count != 1 {
        return unsupported(format!("a cube map ({} faces)", h.face_count));
    }
    if h.pixel_depth > 1 {
        return unsupported(format!("a 3D texture ({} deep)", h.pixel_depth));
    }
    if h.pixel_height == 0 {
        return unsupported("a 1D texture".to_string());
    }
    let zstd = match h.supercompression_scheme {
        None => false,
        Some(ktx2::SupercompressionScheme::Zstandard) => true,
        Some(other) => return unsupported(format!("supercompression {other:?}")),
    };
    let (w, h_px, layers) = (h.pixel_width, h.pixel_height, h.layer_count.max(1));
    let levels = h.level_count.max(1);
    let total_bytes = crate::mip_chain_bytes(w, h_px, levels.min(32), format).saturating_mul(u64::from(layers));
    if total_bytes > max_bytes {
        return Err(Ktx2Error::TooLarge { width_px: w, height_px: h_px, layers, levels, total_bytes, max_bytes });
    }
    let mut per_layer: Vec<Vec<u8>> = vec![Vec::new(); layers as usize];
    for (level, data) in reader.levels().enumerate() {
        let level = level as u32;
        let (lw, lh) = crate::mip_size(w, h_px, level);
        let image = format.image_bytes(lw, lh);
        let expected_bytes = image.saturating_mul(u64::from(layers));
        let size_error = |actual_bytes: u64| Ktx2Error::LevelSize {
            level,
            width_px: lw,
            height_px: lh,
            layers,
            format,
            actual_bytes,
            expected_bytes,
        };
        let decompressed;
        let data = if zstd {
            if data.uncompressed_byte_length != expected_bytes {
                return Err(size_error(data.uncompressed_byte_length));
            }
            let len = usize::try_from(expected_bytes).map_err(|_| size_error(data.uncompressed_byte_length))?;
            let mut out = vec![0u8; len];
            let written = ruzstd::decoding::FrameDecoder::new()
                .decode_all(data.data, &mut out)
                .map_err(|e| Ktx2Error::Zstd { level, message: e.to_string() })?;
            if written as u64 != expected_bytes {
                return Err(size_error(written as u64));
            }
            decompressed = out;
            &decompressed[..]
        } else {
            data.data
        };
        if data.len() as u64 != expected_bytes {
            return Err(size_error(data.len() as u64));
        }
        for (layer, chunk) in per_layer.iter_mut().zip(data.chunks_exact(image as usize)) {
            layer.extend_from_slice(chunk);
        }
    }
    let desc = TextureDesc { width_px: w, height_px: h_px, format, mip_levels: levels, ..*like };
    Ok(Ktx2Texture { desc, layers: per_layer })
}

impl Batcher {
    /// Registers every layer of a KTX2 file as a texture ([`read_ktx2`] with the budget as its
    /// limit; `like` gives filter, wrap and usage): one id for a 2D file, one per layer for an array file. An RGBA8 file
    /// keeps only its level 0 (core makes the mips of RGBA8 textures); a compressed one keeps
    /// every level. Colours are expected premultiplied (KTX2's `KHR_DF_FLAG_ALPHA_PREMULTIPLIED`).
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Ktx2Error, Limits, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let err = batcher.register_ktx2(b"not a ktx2 file", &TextureDesc::new(1, 1)).unwrap_err();
    /// assert!(matches!(err, Ktx2Error::Container { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Ktx2Error`]; when a layer is refused ([`Ktx2Error::Texture`]) the layers registered
    /// before it are freed: nothing stays admitted.
    pub fn register_ktx2(&mut self, bytes: &[u8], like: &TextureDesc) -> Result<Vec<TextureId>, Ktx2Error> {
        let file = read_ktx2(bytes, like, self.budget().budget_bytes)?;
        let d = file.desc;
        let max = self.budget().max_texture_size_px;
        if d.width_px > max || d.height_px > max {
            let source = TextureError::TooLarge { width_px: d.width_px, height_px: d.height_px, max_px: max };
            return Err(Ktx2Error::Texture { layer: 0, source });
        }
        let mut ids = Vec::with_capacity(file.layers.len());
        for (layer, data) in file.layers.iter().enumerate() {
            let data = if d.format.is_compressed() { &data[..] } else { &data[..d.byte_len()] };
            match self.register(&d, data) {
                Ok(id) => ids.push(id),
                Err(source) => {
                    for id in ids {
                        // Just registered: a free cannot fail.
                        let _ = self.free(id);
                    }
                    return Err(Ktx2Error::Texture { layer: layer as u32, source });
                }
            }
        }
        Ok(ids)
    }
}
