//! Bevy `Image` assets kept in step with layerbatch textures: registered when a
//! `LayerbatchSprite` first uses one, replaced when modified, freed when no sprite uses it any
//! more or its last handle goes. Images no layerbatch sprite uses (UI, fonts, 3D textures,
//! what Bevy's own sprites draw) never enter layerbatch or its byte budget.

use std::collections::{HashMap, HashSet};

use bevy::asset::AssetId;
use bevy::image::{Image, ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor};
use bevy::math::UVec2;
use bevy::render::render_resource::TextureSampleType;
use bevy::render::render_resource::{AstcBlock, AstcChannel, TextureDimension, TextureFormat, TextureUsages};
use layerbatch_core::{Alpha, Batcher, Filter, Format, Sampler, TextureDesc, TextureError, TextureId, Usage, Wrap};

/// A Bevy image held by layerbatch: its pixels, or (a render target) Bevy's own texture as a
/// layerbatch host texture.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held {
    pub texture: TextureId,
    pub size_px: UVec2,
    desc: TextureDesc,
    /// The last frame a sprite used it.
    used_frame: u64,
}

/// Why an image is not held: what a sprite showing it is skipped for.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ImageRefused {
    /// A format layerbatch does not store: not RGBA8, BC1/3/4/5/7, ETC2/EAC or ASTC 4x4.
    #[error(
        "image {id}: format {format:?} is not one layerbatch stores (RGBA8, BC1/3/4/5/7, ETC2/EAC, ASTC 4x4; linear or sRGB)"
    )]
    Format {
        /// The image.
        id: AssetId<Image>,
        /// Its format.
        format: TextureFormat,
    },
    /// Not one 2D layer.
    #[error("image {id}: {dimension:?} with {layers} layers is not a 2D image of one layer")]
    Shape {
        /// The image.
        id: AssetId<Image>,
        /// Its dimension.
        dimension: TextureDimension,
        /// Its layers.
        layers: u32,
    },
    /// A render target layerbatch cannot sample: multisampled, without `TEXTURE_BINDING`, or
    /// of a format that is not a filterable colour.
    #[error(
        "image {id}: a render target layerbatch cannot sample (multisampled, not TEXTURE_BINDING, or not a filterable colour format)"
    )]
    RenderTarget {
        /// The image.
        id: AssetId<Image>,
    },

    /// No pixels on the CPU (made on the GPU only).
    #[error("image {id}: no pixel data to copy")]
    NoData {
        /// The image.
        id: AssetId<Image>,
    },
    /// layerbatch refused it (larger than the device allows, or over the byte budget).
    #[error("image {id} ({width_px}x{height_px}): {source}")]
    Texture {
        /// The image.
        id: AssetId<Image>,
        /// Its width.
        width_px: u32,
        /// Its height.
        height_px: u32,
        /// layerbatch's reason.
        source: TextureError,
    },
}

/// The images layerbatch holds, by Bevy asset id, and what the sync did.
#[derive(Debug, Default)]
pub(crate) struct ImageTable {
    held: HashMap<AssetId<Image>, Held>,
    /// Images used and refused, with the last frame a sprite used them.
    refused: HashMap<AssetId<Image>, (ImageRefused, u64)>,
    warned: HashSet<AssetId<Image>>,
    /// Images whose sampler layerbatch cannot apply whole, warned once.
    sampler_warned: HashSet<AssetId<Image>>,
    /// Advanced by [`ImageTable::begin_frame`].
    frame: u64,
    pub registered: u64,
    pub updated: u64,
    pub freed: u64,
    /// Host textures (render targets) freed since the last plan: the renderer lets go of Bevy's
    /// texture of each before the next one.
    pub freed_hosts: Vec<TextureId>,
}

impl ImageTable {
    /// A new frame of uses: images no sprite uses in it go at [`ImageTable::release_unused`].
    pub fn begin_frame(&mut self) {
        self.frame += 1;
    }

    /// The layerbatch texture of `id` for a sprite that uses it this frame: the held one, or
    /// one registered now from `pixels()` (the image as Bevy extracted it this frame, or as
    /// the main world holds it). Else why there is none: `None` while the image has no pixels
    /// to give (loading; or a render-world-only image extracted before any sprite used it,
    /// whose pixels have left the CPU).
    pub fn use_image<'i>(
        &mut self,
        batcher: &mut Batcher,
        id: AssetId<Image>,
        pixels: impl FnOnce() -> Option<&'i Image>,
        default: &ImageSamplerDescriptor,
    ) -> Result<Held, Option<&ImageRefused>> {
        let frame = self.frame;
        if let Some(held) = self.held.get_mut(&id) {
            held.used_frame = frame;
            return Ok(*held);
        }
        if !self.refused.contains_key(&id) {
            let Some(image) = pixels() else { return Err(None) };
            self.put(batcher, id, image, default);
        }
        if let Some(held) = self.held.get_mut(&id) {
            held.used_frame = frame;
            return Ok(*held);
        }
        match self.refused.get_mut(&id) {
            Some((why, used)) => {
                *used = frame;
                Err(Some(why))
            }
            None => Err(None),
        }
    }

    /// Frees the textures of images no sprite used since [`ImageTable::begin_frame`], and
    /// forgets the refusals of images no sprite uses (a later use tries again).
    pub fn release_unused(&mut self, batcher: &mut Batcher) {
        let frame = self.frame;
        // Every frame: in place, without collecting the unused ids first.
        let (freed, freed_hosts) = (&mut self.freed, &mut self.freed_hosts);
        self.held.retain(|_, held| {
            let used = held.used_frame == frame;
            // Only a stale id fails, and ours are live.
            if !used && batcher.textures().free(held.texture).is_ok() {
                *freed += 1;
                if held.desc.usage == Usage::Host {
                    freed_hosts.push(held.texture);
                }
            }
            used
        });
        self.refused.retain(|_, (_, used)| *used == frame);
    }

    /// Bevy extracted `image` again (modified): a held image takes its new pixels; a refused
    /// one is tried again at its next use (its new format or size may be one layerbatch holds).
    pub fn modified(
        &mut self,
        batcher: &mut Batcher,
        id: AssetId<Image>,
        image: &Image,
        default: &ImageSamplerDescriptor,
    ) {
        if self.held.contains_key(&id) {
            self.put(batcher, id, image, default);
        } else if self.refused.remove(&id).is_some() {
            self.warned.remove(&id);
        }
    }

    pub fn live(&self) -> usize {
        self.held.len()
    }

    pub fn refused(&self) -> usize {
        self.refused.len()
    }

    /// The render targets held, as host textures: Bevy's texture of each is handed to the
    /// renderer before each plan.
    pub fn hosts(&self) -> impl Iterator<Item = (AssetId<Image>, TextureId)> + '_ {
        self.held.iter().filter(|(_, h)| h.desc.usage == Usage::Host).map(|(id, h)| (*id, h.texture))
    }

    /// Logs why `id` is not drawn, once per image.
    pub fn warn_once(&mut self, id: AssetId<Image>) {
        if let Some((why, _)) = self.refused.get(&id)
            && self.warned.insert(id)
        {
            log::warn!("layerbatch: sprites of {why} are not drawn");
        }
    }

    /// Bevy dropped the last handle of `id`: its texture goes.
    pub fn remove(&mut self, batcher: &mut Batcher, id: AssetId<Image>) {
        self.refused.remove(&id);
        self.warned.remove(&id);
        if let Some(held) = self.held.remove(&id) {
            // Only a stale id fails, and ours are live.
            if batcher.textures().free(held.texture).is_ok() {
                self.freed += 1;
                if held.desc.usage == Usage::Host {
                    self.freed_hosts.push(held.texture);
                }
            }
        }
    }

    /// Holds `image`'s pixels as `id`'s texture: in place when only they changed (Bevy
    /// extracted a modified image that is held), else registered anew. A refusal is kept, with
    /// the frame, for [`ImageTable::use_image`] to report.
    pub fn put(&mut self, batcher: &mut Batcher, id: AssetId<Image>, image: &Image, default: &ImageSamplerDescriptor) {
        self.refused.remove(&id);
        self.warned.remove(&id);
        let frame = self.frame;
        match texture_of(id, image, default) {
            Ok((desc, pixels, unapplied)) => {
                if !unapplied.is_empty() && self.sampler_warned.insert(id) {
                    log::warn!(
                        "layerbatch: image {id}: its sampler's {} cannot be applied: layerbatch samples it with {:?}",
                        unapplied.join(", "),
                        desc.sampler
                    );
                }
                if let Some(held) = self.held.get(&id).copied() {
                    // A render target of the same description: Bevy's texture is handed over
                    // before each plan, nothing to update.
                    if held.desc == desc && desc.usage == Usage::Host {
                        return;
                    }
                    if held.desc == desc && batcher.textures().update(held.texture, &pixels).is_ok() {
                        self.updated += 1;
                        return;
                    }
                    self.remove(batcher, id);
                }
                match batcher.textures().register(&desc, &pixels) {
                    Ok(texture) => {
                        let size_px = UVec2::new(desc.width_px, desc.height_px);
                        self.held.insert(id, Held { texture, size_px, desc, used_frame: frame });
                        self.registered += 1;
                    }
                    Err(source) => {
                        let (width_px, height_px) = (desc.width_px, desc.height_px);
                        self.refused.insert(id, (ImageRefused::Texture { id, width_px, height_px, source }, frame));
                    }
                }
            }
            Err(why) => {
                self.remove(batcher, id);
                self.refused.insert(id, (why, frame));
            }
        }
    }

    /// Forgets every texture (after the device lost them): the next use of one of these
    /// images registers it again, from the main world's pixels.
    pub fn forget(&mut self, lost: &[TextureId]) {
        self.held.retain(|_, held| !lost.contains(&held.texture));
    }
}

/// The layerbatch format of a Bevy image layerbatch can hold (whatever the budget), or why it
/// cannot: not one 2D layer, a format it has none for, or a render target it cannot sample. A
/// render target it can sample is held as a host texture (RGBA8 in name, sRGB or not: the
/// device samples Bevy's texture in its own format; a copying device copies it bytes for
/// bytes).
pub(crate) fn holdable(id: AssetId<Image>, image: &Image) -> Result<Format, ImageRefused> {
    let d = &image.texture_descriptor;
    if d.dimension != TextureDimension::D2 || d.size.depth_or_array_layers != 1 {
        return Err(ImageRefused::Shape { id, dimension: d.dimension, layers: d.size.depth_or_array_layers });
    }
    if is_render_target(image) {
        let filterable =
            matches!(d.format.sample_type(None, None), Some(TextureSampleType::Float { filterable: true }));
        let sampled = d.usage.contains(TextureUsages::TEXTURE_BINDING) && d.sample_count == 1;
        return match (filterable && sampled, d.format.is_srgb()) {
            (true, true) => Ok(Format::Rgba8UnormSrgb),
            (true, false) => Ok(Format::Rgba8Unorm),
            (false, _) => Err(ImageRefused::RenderTarget { id }),
        };
    }
    layerbatch_format(d.format).ok_or(ImageRefused::Format { id, format: d.format })
}

/// Whether Bevy draws into `image` (a camera's target).
pub(crate) fn is_render_target(image: &Image) -> bool {
    image.texture_descriptor.usage.contains(TextureUsages::RENDER_ATTACHMENT)
}

/// The layerbatch description and pixels (straight alpha, as Bevy holds them) of a Bevy image.
/// Also names the sampler settings layerbatch does not apply: it applies the filters (mag,
/// min, mipmap) and the `u` and `v` wraps, not a border colour, anisotropy, a comparison or
/// level-of-detail clamps.
fn texture_of(
    id: AssetId<Image>,
    image: &Image,
    default: &ImageSamplerDescriptor,
) -> Result<(TextureDesc, Vec<u8>, Vec<String>), ImageRefused> {
    let format = holdable(id, image)?;
    let d = &image.texture_descriptor;
    let (w, h) = (d.size.width, d.size.height);
    let sampler = match &image.sampler {
        ImageSampler::Default => default,
        ImageSampler::Descriptor(descriptor) => descriptor,
    };
    let filter = |mode: ImageFilterMode| match mode {
        ImageFilterMode::Nearest => Filter::Nearest,
        ImageFilterMode::Linear => Filter::Linear,
    };
    let wrap = |mode: ImageAddressMode| match mode {
        ImageAddressMode::Repeat => Wrap::Repeat,
        ImageAddressMode::MirrorRepeat => Wrap::MirroredRepeat,
        ImageAddressMode::ClampToEdge | ImageAddressMode::ClampToBorder => Wrap::ClampToEdge,
    };
    let layerbatch_sampler = Sampler {
        mag_filter: filter(sampler.mag_filter),
        min_filter: filter(sampler.min_filter),
        mipmap_filter: filter(sampler.mipmap_filter),
        wrap_u: wrap(sampler.address_mode_u),
        wrap_v: wrap(sampler.address_mode_v),
    };
    let mut unapplied = Vec::new();
    if [sampler.address_mode_u, sampler.address_mode_v].contains(&ImageAddressMode::ClampToBorder) {
        unapplied.push("ClampToBorder (ClampToEdge applies)".to_owned());
    }
    if sampler.anisotropy_clamp > 1 {
        unapplied.push(format!("anisotropy_clamp {}", sampler.anisotropy_clamp));
    }
    if sampler.compare.is_some() {
        unapplied.push("compare".to_owned());
    }
    if sampler.lod_min_clamp != 0.0 || sampler.lod_max_clamp < 32.0 {
        unapplied.push(format!("lod clamps {}..{}", sampler.lod_min_clamp, sampler.lod_max_clamp));
    }
    let desc = TextureDesc::new(w, h).with_format(format).with_sampler(layerbatch_sampler);
    if is_render_target(image) {
        // Bevy's texture itself, sampled straight as Bevy's sprite shader samples it.
        return Ok((desc.with_usage(Usage::Host).with_alpha(Alpha::Straight), Vec::new(), unapplied));
    }
    match format {
        // RGBA8: level 0, which comes first in Bevy's layer-major data (layerbatch makes the
        // mips), straight alpha as Bevy holds it: the shader premultiplies after sampling, so
        // a filtered texel is what Bevy's sprite shader blends (straight colours filtered,
        // then weighted by alpha), soft edges and all.
        Format::Rgba8Unorm | Format::Rgba8UnormSrgb => {
            let level0 = (w as usize) * (h as usize) * 4;
            let Some(data) = image.data.as_deref().filter(|data| data.len() >= level0) else {
                return Err(ImageRefused::NoData { id });
            };
            Ok((desc.with_alpha(Alpha::Straight), data[..level0].to_vec(), unapplied))
        }
        // Compressed (Bevy's ktx2 and dds loaders): the blocks of every level, as authored,
        // straight alpha too.
        _ => {
            let desc = desc.with_mip_levels(d.mip_level_count).with_alpha(Alpha::Straight);
            let Some(data) = image.data.as_deref().filter(|data| data.len() >= desc.byte_len()) else {
                return Err(ImageRefused::NoData { id });
            };
            Ok((desc, data[..desc.byte_len()].to_vec(), unapplied))
        }
    }
}

/// layerbatch's format of a Bevy (wgpu) texture format, if it stores it.
fn layerbatch_format(format: TextureFormat) -> Option<Format> {
    use TextureFormat as T;
    Some(match format {
        T::Rgba8Unorm => Format::Rgba8Unorm,
        T::Rgba8UnormSrgb => Format::Rgba8UnormSrgb,
        T::Bc1RgbaUnorm => Format::Bc1RgbaUnorm,
        T::Bc1RgbaUnormSrgb => Format::Bc1RgbaUnormSrgb,
        T::Bc2RgbaUnorm => Format::Bc2RgbaUnorm,
        T::Bc2RgbaUnormSrgb => Format::Bc2RgbaUnormSrgb,
        T::Bc3RgbaUnorm => Format::Bc3RgbaUnorm,
        T::Bc3RgbaUnormSrgb => Format::Bc3RgbaUnormSrgb,
        T::Bc4RUnorm => Format::Bc4RUnorm,
        T::Bc5RgUnorm => Format::Bc5RgUnorm,
        T::Bc7RgbaUnorm => Format::Bc7RgbaUnorm,
        T::Bc7RgbaUnormSrgb => Format::Bc7RgbaUnormSrgb,
        T::Etc2Rgb8Unorm => Format::Etc2Rgb8Unorm,
        T::Etc2Rgb8UnormSrgb => Format::Etc2Rgb8UnormSrgb,
        T::Etc2Rgb8A1Unorm => Format::Etc2Rgb8A1Unorm,
        T::Etc2Rgb8A1UnormSrgb => Format::Etc2Rgb8A1UnormSrgb,
        T::Etc2Rgba8Unorm => Format::Etc2Rgba8Unorm,
        T::Etc2Rgba8UnormSrgb => Format::Etc2Rgba8UnormSrgb,
        T::EacR11Unorm => Format::EacR11Unorm,
        T::EacRg11Unorm => Format::EacRg11Unorm,
        T::Astc { block, channel: channel @ (AstcChannel::Unorm | AstcChannel::UnormSrgb) } => {
            // Bevy's blocks are wgpu's, in the Khronos order, as core's are.
            let [w, h] = match block {
                AstcBlock::B4x4 => [4, 4],
                AstcBlock::B5x4 => [5, 4],
                AstcBlock::B5x5 => [5, 5],
                AstcBlock::B6x5 => [6, 5],
                AstcBlock::B6x6 => [6, 6],
                AstcBlock::B8x5 => [8, 5],
                AstcBlock::B8x6 => [8, 6],
                AstcBlock::B8x8 => [8, 8],
                AstcBlock::B10x5 => [10, 5],
                AstcBlock::B10x6 => [10, 6],
                AstcBlock::B10x8 => [10, 8],
                AstcBlock::B10x10 => [10, 10],
                AstcBlock::B12x10 => [12, 10],
                AstcBlock::B12x12 => [12, 12],
            };
            let block = layerbatch_core::AstcBlock::from_size_px([w, h])?;
            Format::Astc { block, srgb: channel == AstcChannel::UnormSrgb }
        }
        _ => return None,
    })
}
