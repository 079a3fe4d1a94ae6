//! Images registered through the `image` crate: premultiplied here.

use crate::{premultiplied, Batcher, ImageError, TextureDesc, TextureError, TextureId};

impl Batcher {
    /// Registers a straight-alpha image (premultiplied here). The size is the image's; `desc`
    /// gives the rest (format, filter, wrap, mip levels, usage): pass
    /// `TextureDesc::new(0, 0)` for the defaults.
    ///
    /// # Errors
    /// As [`Batcher::register`].
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Limits, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let img = image::RgbaImage::from_pixel(16, 8, image::Rgba([255, 0, 0, 128]));
    /// let id = batcher.register_image(&img, TextureDesc::new(0, 0))?;
    /// assert_eq!((batcher.desc(id)?.width_px, batcher.desc(id)?.height_px), (16, 8));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn register_image(&mut self, image: &::image::RgbaImage, desc: TextureDesc) -> Result<TextureId, TextureError> {
        let desc = TextureDesc { width_px: image.width(), height_px: image.height(), ..desc };
        self.register(&desc, &premultiplied(image))
    }

    /// Decodes an encoded image (PNG bytes, e.g. from `include_bytes!`) and registers it
    /// like [`Batcher::register_image`].
    ///
    /// # Errors
    /// [`ImageError::Decode`] for bytes that do not decode (nothing is registered), or
    /// [`ImageError::Texture`] as [`Batcher::register`].
    pub fn register_encoded(&mut self, bytes: &[u8], desc: TextureDesc) -> Result<TextureId, ImageError> {
        let image = ::image::load_from_memory(bytes)?.to_rgba8();
        Ok(self.register_image(&image, desc)?)
    }
}
