//! swash's glyph images turned into the texels of a glyph texture: premultiplied RGBA8 whose
//! tint is the text colour.

use cosmic_text::{CacheKey, FontSystem, SwashCache, SwashContent, SwashImage};

/// A rasterised glyph, ready to register: where its image sits relative to the glyph's pen
/// position, and its texels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GlyphPixels {
    /// Pixels from the pen position to the image's left edge (swash's `placement.left`).
    pub(crate) left: i32,
    /// Pixels from the baseline up to the image's top edge (swash's `placement.top`, y up).
    pub(crate) top: i32,
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// A colour glyph (emoji): texels are the glyph's own colours, tinted by the text's alpha
    /// only. Otherwise texels are white coverage, tinted by the text colour.
    pub(crate) color: bool,
    /// `width * height` premultiplied RGBA8 texels, rows top to bottom.
    pub(crate) rgba: Vec<u8>,
}

/// Rasterises `key` with swash (cosmic-text's renderer: colour outlines, then colour bitmaps,
/// then outlines). `None` when the font is gone from `fonts` or has no image for the glyph.
pub(crate) fn rasterise(swash: &mut SwashCache, fonts: &mut FontSystem, key: CacheKey) -> Option<GlyphPixels> {
    swash.get_image_uncached(fonts, key).map(|image| texels(&image))
}

/// The texels of a swash image.
///
/// - [`SwashContent::Mask`]: coverage `c` becomes `[c, c, c, c]`, premultiplied white, so a
///   quad tinted with the (premultiplied) text colour shows exactly `colour * c`.
/// - [`SwashContent::Color`]: swash's straight RGBA (PNG bitmaps, blended colour layers)
///   premultiplied; the quad is tinted `[a, a, a, a]` with the text colour's alpha.
/// - [`SwashContent::SubpixelMask`]: per-channel coverage averaged into one coverage, drawn as
///   a mask (cosmic-text asks swash for plain alpha masks, so this only guards the format).
pub(crate) fn texels(image: &SwashImage) -> GlyphPixels {
    let p = image.placement;
    let n = p.width as usize * p.height as usize;
    let (color, rgba) = match image.content {
        SwashContent::Mask => (false, image.data.iter().take(n).flat_map(|&c| [c; 4]).collect()),
        SwashContent::Color => (true, image.data.chunks_exact(4).take(n).flat_map(premultiply).collect()),
        SwashContent::SubpixelMask => (
            false,
            image
                .data
                .chunks_exact(4)
                .take(n)
                .flat_map(|px| {
                    let c = ((u32::from(px[0]) + u32::from(px[1]) + u32::from(px[2]) + 1) / 3) as u8;
                    [c; 4]
                })
                .collect(),
        ),
    };
    let mut rgba: Vec<u8> = rgba;
    // A short image (never seen from swash) is padded transparent rather than mis-sized.
    rgba.resize(n * 4, 0);
    GlyphPixels { left: p.left, top: p.top, width: p.width, height: p.height, color, rgba }
}

fn premultiply(px: &[u8]) -> [u8; 4] {
    crate::premultiply([px[0], px[1], px[2], px[3]])
}
