//! Drawing laid-out text: each glyph one quad from the glyph cache, pushed in order.

use cosmic_text::{Buffer, CacheKey, FontSystem, LayoutGlyph, LayoutRun, PhysicalGlyph};

use super::cache::{Glyph, GlyphCache, Kind};
use super::TextError;
use crate::{premultiply, Batcher, Quad, TintEncoding};

/// What one draw call of text did. Glyphs not drawn are counted by why; none of them is an
/// error.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct TextDrawn {
    /// Glyph quads pushed.
    pub quads: u32,
    /// Glyphs with an empty image (spaces): nothing to draw.
    pub blank: u32,
    /// Glyphs with no image: their font is not in the [`FontSystem`], or it has neither an
    /// outline nor a bitmap for the glyph. Nothing drawn.
    pub unrendered: u32,
    /// Glyphs that are the font's `.notdef` (glyph 0): no font had the character. They are
    /// drawn as the font draws `.notdef` (often an empty box) and counted in `quads` too.
    pub notdef: u32,
    /// Glyphs whose image the batcher refused as a texture (larger than the device's
    /// maximum texture size, or the byte budget spent). Not drawn; the rest of the text is.
    pub refused: u32,
    /// The first refusal, naming the glyph and its size ([`TextError::Glyph`]).
    pub refusal: Option<TextError>,
}

impl TextDrawn {
    fn add(&mut self, other: TextDrawn) {
        self.quads += other.quads;
        self.blank += other.blank;
        self.unrendered += other.unrendered;
        self.notdef += other.notdef;
        self.refused += other.refused;
        if self.refusal.is_none() {
            self.refusal = other.refusal;
        }
    }
}

impl GlyphCache {
    /// Draws a laid-out buffer with its top-left corner at `pos_px`: one quad per glyph,
    /// pushed in layout order, so whatever is pushed before and after lands below and above
    /// it (glyph quads are ordinary quads: same draw, same state, same transform).
    ///
    /// `color` is the premultiplied RGBA8 text colour, like [`Quad::color`]; a glyph with a
    /// colour of its own ([`cosmic_text::Attrs::color`]) uses that instead (straight alpha,
    /// premultiplied here). Mask glyphs are tinted with the colour, colour glyphs (emoji)
    /// with its alpha only.
    ///
    /// Each glyph goes where cosmic-text's [`LayoutGlyph::physical`] puts it: the pen at
    /// `pos_px + (glyph x, line baseline)`, snapped to whole pixels with the fraction kept
    /// in the cache key's sub-pixel bin, and swash's image placed from the pen (`left`
    /// right, `top` up). Shape the buffer first ([`Buffer::shape_until_scroll`]); the runs
    /// it lays out (within its scroll and height) are drawn.
    ///
    /// Empty text draws nothing and is `Ok`. Glyphs that cannot be drawn (no font, a glyph
    /// too large for the device) are counted in [`TextDrawn`], and the rest is drawn.
    ///
    /// # Errors
    /// [`TextError::Position`] for a `pos_px` that is not finite or beyond
    /// [`Quad::MAX_POSITION`] (nothing drawn); [`TextError::Quad`] when the batcher refuses a
    /// quad (no open frame, or a glyph beyond [`Quad::MAX_POSITION`]): glyphs before it stay
    /// drawn, none after it.
    pub fn draw_buffer(
        &mut self,
        batcher: &mut Batcher,
        fonts: &mut FontSystem,
        buffer: &Buffer,
        pos_px: [f32; 2],
        color: [u8; 4],
    ) -> Result<TextDrawn, TextError> {
        check_position(pos_px)?;
        let mut drawn = TextDrawn::default();
        for run in buffer.layout_runs() {
            drawn.add(self.draw_run(batcher, fonts, &run, pos_px, color)?);
        }
        Ok(drawn)
    }

    /// Draws one laid-out line of a buffer, as [`GlyphCache::draw_buffer`] draws each of
    /// its runs (`pos_px` is the buffer's top-left corner).
    ///
    /// # Errors
    /// As [`GlyphCache::draw_buffer`].
    pub fn draw_run(
        &mut self,
        batcher: &mut Batcher,
        fonts: &mut FontSystem,
        run: &LayoutRun<'_>,
        pos_px: [f32; 2],
        color: [u8; 4],
    ) -> Result<TextDrawn, TextError> {
        check_position(pos_px)?;
        self.begin(batcher);
        // Text colours are premultiplied linear, whatever the drawing state's tint encoding.
        let encoding = batcher.state().tint_encoding();
        batcher.state().set_tint_encoding(TintEncoding::Linear);
        let mut drawn = TextDrawn::default();
        let pushed = run.glyphs.iter().try_for_each(|glyph| {
            check_glyph(glyph, pos_px, run.line_y)?;
            let physical = glyph.physical((pos_px[0], pos_px[1] + run.line_y), 1.0);
            let color = glyph_color(glyph, color);
            if let Some(quad) = self.quad_counted(batcher, fonts, &physical, color, &mut drawn) {
                batcher.push(&quad)?;
                drawn.quads += 1;
            }
            Ok::<(), TextError>(())
        });
        batcher.state().set_tint_encoding(encoding);
        pushed.map(|()| drawn)
    }

    /// The quad that draws one glyph, for a host that places glyphs itself or interleaves
    /// other quads between the glyphs of a line: `physical` from
    /// [`LayoutGlyph::physical`], `color` premultiplied linear (see [`glyph_color`] for a
    /// glyph's own colour). Push it with [`Batcher::push`] under
    /// [`TintEncoding::Linear`]. `Ok(None)` for a glyph with nothing to
    /// draw (blank, or no image).
    ///
    /// ```no_run
    /// # use layerbatch_core::{Batcher, Quad, TextureId, text::{GlyphCache, TextError, cosmic_text::{Buffer, FontSystem}}};
    /// # fn f(batcher: &mut Batcher, cache: &mut GlyphCache, fonts: &mut FontSystem, buffer: &Buffer, sprite: TextureId) -> Result<(), TextError> {
    /// for run in buffer.layout_runs() {
    ///     for (i, glyph) in run.glyphs.iter().enumerate() {
    ///         let physical = glyph.physical((10.0, 10.0 + run.line_y), 1.0);
    ///         if let Some(quad) = cache.glyph_quad(batcher, fonts, &physical, [255; 4])? {
    ///             batcher.push(&quad)?;
    ///         }
    ///         if i == 0 {
    ///             batcher.push(&Quad::rect(sprite, [10.0, 10.0], [8.0, 8.0]))?; // over glyph 0, under glyph 1
    ///         }
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`TextError::Glyph`] when the batcher refuses the glyph's texture.
    pub fn glyph_quad(
        &mut self,
        batcher: &mut Batcher,
        fonts: &mut FontSystem,
        physical: &PhysicalGlyph,
        color: [u8; 4],
    ) -> Result<Option<Quad>, TextError> {
        self.begin(batcher);
        let mut drawn = TextDrawn::default();
        let quad = self.quad_counted(batcher, fonts, physical, color, &mut drawn);
        match drawn.refusal {
            Some(e) => Err(e),
            None => Ok(quad),
        }
    }

    /// The glyph's quad, or `None` with the reason counted in `drawn`.
    fn quad_counted(
        &mut self,
        batcher: &mut Batcher,
        fonts: &mut FontSystem,
        physical: &PhysicalGlyph,
        color: [u8; 4],
        drawn: &mut TextDrawn,
    ) -> Option<Quad> {
        let key = physical.cache_key;
        if key.glyph_id == 0 {
            drawn.notdef += 1;
        }
        let glyph = match self.glyph(batcher, fonts, key) {
            Ok(glyph) => glyph,
            Err(e) => {
                refuse(drawn, e);
                return None;
            }
        };
        match &glyph.kind {
            Kind::Texture(id) => Some(glyph_quad(*id, glyph, [physical.x, physical.y], color)),
            Kind::Blank => {
                drawn.blank += 1;
                None
            }
            Kind::Unrendered => {
                drawn.unrendered += 1;
                None
            }
            Kind::TooLarge(source) => {
                let e = too_large(key, glyph, source.clone());
                refuse(drawn, e);
                None
            }
        }
    }
}

/// The premultiplied tint a glyph is drawn with: its own colour
/// ([`cosmic_text::Attrs::color`], straight alpha) if it has one, else `text_color`
/// (premultiplied).
pub fn glyph_color(glyph: &LayoutGlyph, text_color: [u8; 4]) -> [u8; 4] {
    glyph.color_opt.map_or(text_color, |c| premultiply(c.as_rgba()))
}

fn glyph_quad(texture: crate::TextureId, glyph: &Glyph, pen: [i32; 2], color: [u8; 4]) -> Quad {
    let x = pen[0].saturating_add(glyph.left);
    let y = pen[1].saturating_sub(glyph.top);
    // Colour glyphs keep their colours: only the text's opacity applies.
    let tint = if glyph.color { [color[3]; 4] } else { color };
    Quad::rect(texture, [x as f32, y as f32], [glyph.width as f32, glyph.height as f32]).with_color(tint)
}

fn too_large(key: CacheKey, glyph: &Glyph, source: crate::TextureError) -> TextError {
    TextError::Glyph {
        glyph_id: key.glyph_id,
        font_id: key.font_id,
        font_size_px: f32::from_bits(key.font_size_bits),
        width_px: glyph.width,
        height_px: glyph.height,
        source,
    }
}

fn refuse(drawn: &mut TextDrawn, e: TextError) {
    drawn.refused += 1;
    if drawn.refusal.is_none() {
        drawn.refusal = Some(e);
    }
}

fn check_position(pos_px: [f32; 2]) -> Result<(), TextError> {
    // `!(a < b)` is also true for NaN.
    if pos_px.iter().all(|v| v.abs() <= Quad::MAX_POSITION) {
        Ok(())
    } else {
        Err(TextError::Position(pos_px))
    }
}

/// Refuses a glyph whose pen lies beyond [`Quad::MAX_POSITION`] before cosmic-text's
/// [`LayoutGlyph::physical`] snaps it to an `i32` (which overflows far out).
fn check_glyph(glyph: &LayoutGlyph, pos_px: [f32; 2], line_y: f32) -> Result<(), TextError> {
    let x = pos_px[0] + glyph.x + glyph.font_size * glyph.x_offset;
    let y = pos_px[1] + line_y + glyph.y - glyph.font_size * glyph.y_offset;
    if x.abs() <= Quad::MAX_POSITION && y.abs() <= Quad::MAX_POSITION {
        Ok(())
    } else {
        Err(TextError::Quad(crate::QuadError::OutOfRange))
    }
}
