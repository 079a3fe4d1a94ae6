//! Basis Universal textures through Bevy's asset server, on every target (feature `basis`).
//!
//! Bevy's own Basis support (its `basis-universal` feature) wraps Binomial's C++ transcoder
//! and builds for native targets only (bevyengine/bevy#17657). [`BasisLoader`] reads a Basis
//! KTX2 file (ETC1S or UASTC) with layerbatch-core's pure-Rust transcoder, which builds for
//! wasm32 too, into the best compressed format the render device has (ASTC 4x4, BC7, ETC2,
//! else RGBA8: [`layerbatch_core::read_basis`]), every authored level: an ordinary Bevy `Image`
//! that Bevy's renderer and layerbatch both draw.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_layerbatch::LayerbatchPlugin;
//!
//! fn setup(mut commands: Commands, assets: Res<AssetServer>) {
//!     commands.spawn(Camera2d);
//!     // `.basis.ktx2`: Bevy picks the loader by the longest extension it knows.
//!     commands.spawn(Sprite::from_image(assets.load("hero.basis.ktx2")));
//! }
//! # let _ = setup;
//! ```

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext, RenderAssetUsages};
use bevy::image::{CompressedImageFormats, Image};
use bevy::reflect::TypePath;
use bevy::render::render_resource::{
    AstcBlock, AstcChannel, Extent3d, TextureDimension, TextureFormat, TextureViewDescriptor, TextureViewDimension,
};
use layerbatch_core::{FileError, FileLimits, Format, FormatFamilies, FormatFamily, TextureDesc, read_basis};

/// The file name extension [`BasisLoader`] is registered for (Basis files are KTX2 files;
/// Bevy's own KTX2 loader keeps plain `.ktx2`).
pub const BASIS_EXTENSION: &str = "basis.ktx2";

/// Loads Basis Universal KTX2 files (`*.basis.ktx2`) as Bevy `Image`s, transcoded in Rust for
/// the render device's compressed formats. [`crate::LayerbatchPlugin`] registers it with the
/// `basis` feature, once the render device is known.
#[derive(TypePath, Clone, Copy, Debug)]
pub struct BasisLoader {
    families: FormatFamilies,
}

impl BasisLoader {
    /// Transcoding for a device with Bevy's `formats` (RGBA8 is always there).
    pub fn new(formats: CompressedImageFormats) -> Self {
        let mut families = FormatFamilies::RGBA8;
        for (bevy, family) in [
            (CompressedImageFormats::ASTC_LDR, FormatFamily::Astc),
            (CompressedImageFormats::BC, FormatFamily::Bc),
            (CompressedImageFormats::ETC2, FormatFamily::Etc2),
        ] {
            if formats.contains(bevy) {
                families = families.with(family);
            }
        }
        Self { families }
    }
}

/// Why a Basis file did not load. Each names what it was computed from.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BasisLoadError {
    /// The file could not be read.
    #[error("reading the Basis file: {0}")]
    Io(#[from] std::io::Error),
    /// layerbatch-core refused it (not Basis, too large, a transcoder error: see there).
    #[error("the Basis file: {0}")]
    File(#[from] FileError),
    /// The transcoded format has no Bevy (wgpu) format here (not expected: every target the
    /// transcoder picks has one).
    #[error("the Basis file transcodes to {0:?}, which has no Bevy format")]
    Format(Format),
}

impl AssetLoader for BasisLoader {
    type Asset = Image;
    type Settings = ();
    type Error = BasisLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        _load_context: &mut LoadContext<'_>,
    ) -> Result<Image, BasisLoadError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        let file = read_basis(&bytes, &TextureDesc::new(1, 1), FileLimits::default(), self.families)?;
        let desc = file.desc;
        let format = bevy_format(desc.format).ok_or(BasisLoadError::Format(desc.format))?;
        let layers = file.layers.len() as u32;
        let mut image = Image::new_uninit(
            Extent3d { width: desc.width_px, height: desc.height_px, depth_or_array_layers: layers },
            TextureDimension::D2,
            format,
            RenderAssetUsages::default(),
        );
        image.texture_descriptor.mip_level_count = desc.mip_levels;
        // Layer-major (each layer's levels back to back), as Bevy's KTX2 loader lays out data.
        image.data = Some(file.layers.concat());
        if layers > 1 {
            image.texture_view_descriptor =
                Some(TextureViewDescriptor { dimension: Some(TextureViewDimension::D2Array), ..Default::default() });
        }
        Ok(image)
    }

    fn extensions(&self) -> &[&str] {
        &[BASIS_EXTENSION]
    }
}

/// Bevy's (wgpu's) format for a format the Basis transcoder gives.
fn bevy_format(format: Format) -> Option<TextureFormat> {
    use TextureFormat as T;
    Some(match format {
        Format::Rgba8Unorm => T::Rgba8Unorm,
        Format::Rgba8UnormSrgb => T::Rgba8UnormSrgb,
        Format::Bc7RgbaUnorm => T::Bc7RgbaUnorm,
        Format::Bc7RgbaUnormSrgb => T::Bc7RgbaUnormSrgb,
        Format::Bc1RgbaUnorm => T::Bc1RgbaUnorm,
        Format::Bc1RgbaUnormSrgb => T::Bc1RgbaUnormSrgb,
        Format::Bc3RgbaUnorm => T::Bc3RgbaUnorm,
        Format::Bc3RgbaUnormSrgb => T::Bc3RgbaUnormSrgb,
        Format::Etc2Rgb8Unorm => T::Etc2Rgb8Unorm,
        Format::Etc2Rgb8UnormSrgb => T::Etc2Rgb8UnormSrgb,
        Format::Etc2Rgba8Unorm => T::Etc2Rgba8Unorm,
        Format::Etc2Rgba8UnormSrgb => T::Etc2Rgba8UnormSrgb,
        Format::Astc { block, srgb } if block.size_px() == [4, 4] => {
            T::Astc { block: AstcBlock::B4x4, channel: if srgb { AstcChannel::UnormSrgb } else { AstcChannel::Unorm } }
        }
        _ => return None,
    })
}
