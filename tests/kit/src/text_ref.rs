//! Glyphs rasterised by swash (through cosmic-text) and composited on the CPU: what a text
//! draw must show. Written from swash's images and placement directly, not from core's glyph
//! cache, so a wrong texel, tint or position in core shows as a wrong pixel.
//!
//! Each glyph goes where cosmic-text's `LayoutGlyph::physical` puts the pen (the buffer at
//! `pos_px`, the line's baseline), and swash's image `left` right of and `top` above it. Mask
//! coverage `c` with a premultiplied text colour `t` gives `t * c / 255`; a colour image
//! (emoji) is premultiplied and scaled by the text's alpha. Each lands "over" what is below.

use cosmic_text::{Buffer, CacheKey, FontSystem, SwashCache, SwashContent};
use layerbatch_core::premultiply;

use crate::blend::over;

/// A glyph's worst pixel: how far off, where, wanted and got.
type Worst = (u8, i32, i32, [u8; 4], [u8; 4]);

/// A glyph of the reference: where its image landed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefGlyph {
    /// The glyph's cache key (font, glyph, size, sub-pixel bin).
    pub key: CacheKey,
    /// `[x, y, width, height]` of its image, pixels, top-left origin (may reach past the
    /// image's edges).
    pub rect_px: [i32; 4],
    /// A colour glyph (emoji).
    pub color: bool,
}

/// An RGBA8 premultiplied image with text composited onto it.
#[derive(Clone, Debug, PartialEq)]
pub struct TextReference {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// `width * height` premultiplied RGBA8 pixels, rows top to bottom.
    pub pixels: Vec<u8>,
    /// The glyphs drawn, in order (blank glyphs and glyphs without an image left out).
    pub glyphs: Vec<RefGlyph>,
}

impl TextReference {
    /// A `width` x `height` image of `background` (premultiplied).
    pub fn new(width: u32, height: u32, background: [u8; 4]) -> Self {
        Self { width, height, pixels: background.repeat(width as usize * height as usize), glyphs: Vec::new() }
    }

    /// The pixel at `(x, y)`.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2], self.pixels[i + 3]]
    }

    /// Composites every glyph of `buffer` (shaped) drawn at `pos_px` with the premultiplied
    /// `color` (a glyph's own straight colour, if set, premultiplied), in layout order.
    pub fn draw_buffer(&mut self, fonts: &mut FontSystem, buffer: &Buffer, pos_px: [f32; 2], color: [u8; 4]) {
        let mut swash = SwashCache::new();
        for run in buffer.layout_runs() {
            for glyph in run.glyphs {
                let physical = glyph.physical((pos_px[0], pos_px[1] + run.line_y), 1.0);
                let tint = glyph.color_opt.map_or(color, |c| premultiply(c.as_rgba()));
                self.draw_glyph(&mut swash, fonts, physical.cache_key, [physical.x, physical.y], tint);
            }
        }
    }

    /// Composites one glyph with its pen at `pen_px`.
    pub fn draw_glyph(
        &mut self,
        swash: &mut SwashCache,
        fonts: &mut FontSystem,
        key: CacheKey,
        pen_px: [i32; 2],
        tint: [u8; 4],
    ) {
        let Some(image) = swash.get_image_uncached(fonts, key) else { return };
        let p = image.placement;
        if p.width == 0 || p.height == 0 {
            return;
        }
        let (x0, y0) = (pen_px[0] + p.left, pen_px[1] - p.top);
        let color = image.content == SwashContent::Color;
        self.glyphs.push(RefGlyph { key, rect_px: [x0, y0, p.width as i32, p.height as i32], color });
        for gy in 0..p.height as i32 {
            for gx in 0..p.width as i32 {
                let (x, y) = (x0 + gx, y0 + gy);
                if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
                    continue;
                }
                let i = (gy * p.width as i32 + gx) as usize;
                let texel = match image.content {
                    SwashContent::Mask => [image.data[i]; 4],
                    SwashContent::Color => {
                        let d = &image.data[i * 4..i * 4 + 4];
                        premultiply([d[0], d[1], d[2], d[3]])
                    }
                    SwashContent::SubpixelMask => {
                        let d = &image.data[i * 4..i * 4 + 4];
                        [((u32::from(d[0]) + u32::from(d[1]) + u32::from(d[2]) + 1) / 3) as u8; 4]
                    }
                };
                // What the shader does: texel times tint; colour glyphs by the alpha only.
                let tint = if color { [tint[3]; 4] } else { tint };
                let src: [u8; 4] =
                    std::array::from_fn(|c| (f32::from(texel[c]) * f32::from(tint[c]) / 255.0).round() as u8);
                let at = (y as usize * self.width as usize + x as usize) * 4;
                let dst = [self.pixels[at], self.pixels[at + 1], self.pixels[at + 2], self.pixels[at + 3]];
                self.pixels[at..at + 4].copy_from_slice(&over(src, dst));
            }
        }
    }

    /// Compares `actual` (a `width` x `height` RGBA8 read-back, rows top to bottom) with the
    /// reference inside each glyph's rectangle: every channel within `tolerance`.
    ///
    /// # Errors
    /// The first glyphs that differ (up to 8), each with its worst pixel.
    pub fn compare_glyphs(&self, actual: &[u8], tolerance: u8) -> Result<(), String> {
        assert_eq!(actual.len(), self.pixels.len(), "read-back of another size");
        let mut bad = Vec::new();
        for (n, g) in self.glyphs.iter().enumerate() {
            let [x0, y0, w, h] = g.rect_px;
            let mut worst: Option<Worst> = None;
            for y in y0.max(0)..(y0 + h).min(self.height as i32) {
                for x in x0.max(0)..(x0 + w).min(self.width as i32) {
                    let at = (y as usize * self.width as usize + x as usize) * 4;
                    let (want, got) = (&self.pixels[at..at + 4], &actual[at..at + 4]);
                    let diff = want.iter().zip(got).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
                    if diff > tolerance && worst.is_none_or(|w| diff > w.0) {
                        let px = |s: &[u8]| [s[0], s[1], s[2], s[3]];
                        worst = Some((diff, x, y, px(want), px(got)));
                    }
                }
            }
            if let Some((diff, x, y, want, got)) = worst {
                bad.push(format!(
                    "glyph {n} (glyph id {}, {} px{}) at ({x}, {y}): want {want:?}, got {got:?} (off by {diff})",
                    g.key.glyph_id,
                    f32::from_bits(g.key.font_size_bits),
                    if g.color { ", colour" } else { "" }
                ));
            }
        }
        if bad.is_empty() {
            Ok(())
        } else {
            let shown = bad.len().min(8);
            Err(format!(
                "{} of {} glyphs differ beyond {tolerance}:\n{}",
                bad.len(),
                self.glyphs.len(),
                bad[..shown].join("\n")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fonts::{self, Font};
    use cosmic_text::{Attrs, Metrics, Shaping};

    #[test]
    fn composites_glyphs_where_swash_places_them_and_finds_a_wrong_pixel() {
        let Some(mut fs) = fonts::require(fonts::system(&[Font::Latin, Font::Emoji]), "text_ref") else { return };
        let mut buffer = Buffer::new(&mut fs, Metrics::new(24.0, 30.0));
        let noto = Attrs::new().family(cosmic_text::Family::Name(Font::Emoji.family()));
        buffer.set_rich_text([("Hi ", Attrs::new()), ("😀", noto)], &Attrs::new(), Shaping::Advanced, None);
        buffer.shape_until_scroll(&mut fs, false);
        let mut r = TextReference::new(96, 40, [0, 0, 0, 255]);
        r.draw_buffer(&mut fs, &buffer, [2.0, 2.0], [255, 0, 0, 255]);
        assert_eq!(r.glyphs.len(), 3, "H, i and the emoji; the space has no image");
        assert_eq!(r.glyphs.iter().map(|g| g.color).collect::<Vec<_>>(), [false, false, true]);
        // Red text on black: some pixel of H is pure red, none is green or blue.
        let [x, y, w, h] = r.glyphs[0].rect_px;
        let h_px: Vec<[u8; 4]> = (y..y + h)
            .flat_map(|y| (x..x + w).map(move |x| (x, y)))
            .map(|(x, y)| r.pixel(x as u32, y as u32))
            .collect();
        assert!(h_px.contains(&[255, 0, 0, 255]) && h_px.iter().all(|p| p[1] == 0 && p[2] == 0));
        assert_eq!(r.compare_glyphs(&r.pixels, 0), Ok(()));
        let mut off = r.pixels.clone();
        let at = ((y as usize + 1) * 96 + x as usize + 1) * 4;
        off[at + 1] = off[at + 1].wrapping_add(3);
        assert!(r.compare_glyphs(&off, 2).unwrap_err().contains("glyph 0"));
        assert_eq!(r.compare_glyphs(&off, 3), Ok(()));
    }
}
