//! What drawing text can fail with.

use crate::{QuadError, TextureError};

/// Drawing text.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TextError {
    /// The position given to draw at has a NaN or infinite coordinate, or one beyond
    /// [`crate::Quad::MAX_POSITION`]. Nothing was drawn.
    #[error("text position {0:?} is not finite or beyond 2^30 px (Quad::MAX_POSITION)")]
    Position([f32; 2]),
    /// A glyph's image could not become a texture: larger than the device's
    /// maximum texture size ([`TextureError::TooLarge`]), or the byte budget is spent
    /// ([`TextureError::BudgetExhausted`]). The glyph is not drawn; the rest of the text is
    /// (this error is reported in [`TextDrawn::refusal`](super::TextDrawn::refusal), not
    /// returned).
    #[error("glyph {glyph_id} of font {font_id} at {font_size_px} px ({width_px}x{height_px} px) cannot be a texture: {source}")]
    Glyph {
        /// The glyph's id in its font.
        glyph_id: u16,
        /// The font's id in the [`FontSystem`](cosmic_text::FontSystem)'s database.
        font_id: cosmic_text::fontdb::ID,
        /// The font size the glyph was rasterised at, pixels.
        font_size_px: f32,
        /// Width of the glyph's image.
        width_px: u32,
        /// Height of the glyph's image.
        height_px: u32,
        /// Why the batcher refused the texture.
        source: TextureError,
    },
    /// The batcher refused a glyph's quad: no frame is open
    /// ([`QuadError::NoFrame`]), or the text lies beyond [`crate::Quad::MAX_POSITION`]
    /// ([`QuadError::OutOfRange`]). Glyphs before it were drawn, none after it.
    #[error("glyph quad refused: {0}")]
    Quad(#[from] QuadError),
}
