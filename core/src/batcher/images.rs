//! Images registered through the `image` crate: premultiplied here.

use crate::{premultiplied, Batcher, ImageError, TextureDesc, TextureError, TextureId};

impl Batcher {
    pub(crate) fn register_image(
        &mut self,
        image: &::image::RgbaImage,
        desc: TextureDesc,
    ) -> Result<TextureId, TextureError> {
        let desc = TextureDesc { width_px: image.width(), height_px: image.height(), ..desc };
        self.register(&desc, &premultiplied(image))
    }

    pub(crate) fn register_encoded(&mut self, bytes: &[u8], desc: TextureDesc) -> Result<TextureId, ImageError> {
        let image = ::image::load_from_memory(bytes)?.to_rgba8();
        Ok(self.register_image(&image, desc)?)
    }
}
