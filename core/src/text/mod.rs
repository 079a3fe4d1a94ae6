//! Text: cosmic-text shapes and lays out (bidi, font fallback, CJK, emoji), swash rasterises,
//! and every glyph is a small static texture in the batcher's atlas pages, drawn as an
//! ordinary quad. Text shares the draw, the slot and the tier of the sprites around it, in
//! painter's order.
//!
//! - [`GlyphCache`] rasterises each glyph once (keyed by cosmic-text's [`CacheKey`](cosmic_text::CacheKey): font,
//!   glyph, size, quarter-pixel sub-pixel bin and flags) and keeps it under a byte cap with
//!   least-recently-used eviction of glyphs not drawn in the current frame
//!   ([`GlyphCacheOptions`], [`GlyphCacheStats`]).
//! - Mask glyphs are stored as premultiplied white with alpha = coverage (`[c, c, c, c]`), so
//!   the quad's tint is the text colour; colour glyphs (emoji) are their own premultiplied
//!   RGBA, tinted with the text colour's alpha. No extra slot, tier or format.
//! - [`GlyphCache::draw_buffer`] draws a laid-out [`Buffer`](cosmic_text::Buffer) at a
//!   position with a colour; [`GlyphCache::draw_run`] one line; [`GlyphCache::glyph_quad`]
//!   one glyph's quad, for hosts that interleave their own quads.
//!
//! ## What is drawn when it cannot all be drawn
//!
//! No glyph the cache cannot draw stops the rest of the text, and none of these is an error;
//! [`TextDrawn`] counts each:
//!
//! - empty text, spaces and other empty images: nothing pushed (`blank`);
//! - a glyph whose font the [`FontSystem`](cosmic_text::FontSystem) drawing it lacks, or with
//!   neither outline nor bitmap: nothing pushed (`unrendered`). (A font system with no fonts
//!   at all cannot lay text out: cosmic-text's shaping panics on it, so hosts load at least
//!   one font);
//! - a character no font has: the font's `.notdef` glyph is drawn (`notdef`);
//! - a glyph larger than an atlas page: drawn, from a size-class array of its own, like any
//!   large texture;
//! - a glyph larger than the device's maximum texture size, or one the byte budget has no
//!   room for: not drawn (`refused`), the first reported as [`TextError::Glyph`] in
//!   [`TextDrawn::refusal`], naming the glyph, its font, size and image size.
//!
//! Errors are for what the host must fix: a position that is not finite or beyond
//! [`Quad::MAX_POSITION`](crate::Quad::MAX_POSITION) ([`TextError::Position`]), or drawing
//! with no frame open ([`TextError::Quad`]).
//!
//! [`cosmic_text`] is re-exported: use this one, so the buffer, the font system and the
//! cache agree on the version.
//!
//! ```
//! use layerbatch_core::text::cosmic_text::{fontdb, Attrs, Buffer, FontSystem, Metrics, Shaping};
//! use layerbatch_core::text::GlyphCache;
//! use layerbatch_core::{Batcher, Config, Limits, MockDevice, Quad, TextureDesc};
//!
//! // Fonts: from files, so the result does not depend on the system's fonts.
//! let mut db = fontdb::Database::new();
//! # let dejavu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"; // scripts/install-fonts.sh
//! # if !std::path::Path::new(dejavu).exists() { return Ok(()) }
//! db.load_font_file("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")?;
//! let mut fonts = FontSystem::new_with_locale_and_db("en-US".into(), db);
//! let mut buffer = Buffer::new(&mut fonts, Metrics::new(24.0, 30.0));
//! buffer.set_text("Score: 1200", &Attrs::new(), Shaping::Advanced, None);
//! buffer.shape_until_scroll(&mut fonts, false);
//!
//! let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
//! let sprite = batcher.textures().register(&TextureDesc::new(32, 32), &[255; 32 * 32 * 4])?;
//! let mut cache = GlyphCache::default();
//! let mut device = MockDevice::new(batcher.budget());
//!
//! batcher.begin_frame();
//! batcher.push(&Quad::rect(sprite, [0.0, 0.0], [32.0, 32.0]))?;
//! let drawn = cache.draw_buffer(&mut batcher, &mut fonts, &buffer, [40.0, 4.0], [255, 255, 0, 255])?;
//! assert_eq!(drawn.quads, 10); // "Score:1200": the space has no image
//! let plan = batcher.finish();
//! assert_eq!(plan.segments.len(), 1); // sprite and text: one draw
//! device.execute(plan)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cache;
mod draw;
mod error;
mod raster;
#[cfg(test)]
mod tests;

pub use cache::{GlyphCache, GlyphCacheOptions, GlyphCacheStats};
pub use cosmic_text;
pub use draw::{glyph_color, TextDrawn};
pub use error::TextError;
