//! Loading textures through the [`image`](https://docs.rs/image) crate (feature `image`).
//!
//! The `image` crate's RGBA is straight alpha; [`TextureStore::register`](crate::TextureStore::register) takes premultiplied
//! pixels. These helpers premultiply on the way in, so a PNG with soft edges blends right.

use crate::{premultiply, TextureError};

/// Errors of [`TextureStore::register_encoded`](crate::TextureStore::register_encoded).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// The bytes are not an image the enabled `image` decoders read (PNG with this crate's
    /// feature; enable more formats on the `image` crate itself).
    #[error("decoding the image: {0}")]
    Decode(#[from] ::image::ImageError),
    /// The decoded image was refused as a texture (too large for the budget, say).
    #[error(transparent)]
    Texture(#[from] TextureError),
}

/// The pixels of a straight-alpha image, premultiplied, rows top first: what
/// [`TextureStore::register`](crate::TextureStore::register) and [`TextureStore::update`](crate::TextureStore::update) take.
///
/// ```
/// let img = image::RgbaImage::from_raw(1, 1, vec![255, 128, 0, 128]).unwrap();
/// assert_eq!(layerbatch_core::premultiplied(&img), [128, 64, 0, 128]);
/// ```
pub fn premultiplied(image: &::image::RgbaImage) -> Vec<u8> {
    let mut out = Vec::with_capacity(image.as_raw().len());
    for px in image.as_raw().chunks_exact(4) {
        out.extend_from_slice(&premultiply([px[0], px[1], px[2], px[3]]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::ResourceOp;
    use crate::{Batcher, Config, Limits, MockDevice, TextureDesc};

    fn png(img: &::image::RgbaImage) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, ::image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    /// The level-0 bytes the plan uploads for the texture.
    fn uploaded(b: &mut Batcher) -> Vec<u8> {
        b.begin_frame();
        let plan = b.finish();
        let Some(ResourceOp::WriteLayer { bytes, width_px, height_px, .. }) =
            plan.ops.iter().find(|op| matches!(op, ResourceOp::WriteLayer { .. }))
        else {
            panic!("no layer write in {:?}", plan.ops);
        };
        let len = (width_px * height_px * 4) as usize;
        plan.upload_bytes[bytes.start..bytes.start + len].to_vec()
    }

    #[test]
    fn images_and_pngs_are_premultiplied_on_the_way_in() {
        let straight = [[255, 0, 0, 128], [10, 200, 30, 255], [255, 255, 255, 0], [90, 60, 30, 64]];
        let raw: Vec<u8> = straight.iter().flatten().copied().collect();
        let img = ::image::RgbaImage::from_raw(2, 2, raw).unwrap();
        let want: Vec<u8> = straight.iter().flat_map(|&p| premultiply(p)).collect();
        assert_eq!(premultiplied(&img), want);
        assert_eq!(&want[..4], &[128, 0, 0, 128]);
        for encoded in [false, true] {
            let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
            let mut dev = MockDevice::new(b.budget());
            let id = match encoded {
                false => b.textures().register_image(&img, TextureDesc::new(0, 0)).unwrap(),
                true => b.textures().register_encoded(&png(&img), TextureDesc::new(0, 0)).unwrap(),
            };
            let desc = b.desc(id).unwrap();
            assert_eq!((desc.width_px, desc.height_px), (2, 2));
            assert_eq!(uploaded(&mut b), want, "encoded {encoded}");
            dev.execute(b.plan()).unwrap();
        }
    }

    #[test]
    fn bad_bytes_and_oversized_images_are_errors_not_panics() {
        let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
        for bytes in [&b""[..], b"not a png", &png(&::image::RgbaImage::new(4, 4))[..20]] {
            match b.textures().register_encoded(bytes, TextureDesc::new(0, 0)) {
                Err(ImageError::Decode(_)) => {}
                other => panic!("{bytes:?}: {other:?}"),
            }
        }
        let max = Limits::guaranteed_minimum().max_texture_size_px;
        let wide = ::image::RgbaImage::new(max + 1, 1);
        match b.textures().register_encoded(&png(&wide), TextureDesc::new(0, 0)) {
            Err(ImageError::Texture(TextureError::TooLarge { .. })) => {}
            other => panic!("{other:?}"),
        }
        let empty = ::image::RgbaImage::new(0, 0);
        assert!(matches!(
            b.textures().register_image(&empty, TextureDesc::new(0, 0)),
            Err(TextureError::ZeroSize { .. })
        ));
        // Nothing was registered: the next frame uploads nothing.
        b.begin_frame();
        assert!(b.finish().ops.is_empty());
    }
}
