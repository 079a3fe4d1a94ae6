//! Text in the looks scene ([`crate::looks`]): two labels set in DejaVu Sans, y-sorted among
//! the sprites, one lit, one flashed by an effect, drawn by core's glyph cache in the scene's
//! one draw; and their reference: swash's glyphs composited on the CPU ([`TextReference`]),
//! then lit and flashed per pixel as the shaders do ([`crate::looks::reference_with_text`]).
//!
//! The labels are composited on their own before the lighting and the effect: the lighting
//! scales colour and the flash mixes linearly in premultiplied colour, so lighting or flashing
//! the composited label is lighting or flashing each glyph (the colours stay below 1: nothing
//! clamps), up to one rounding more where two glyphs' edges overlap.

use cosmic_text::{Attrs, Buffer, Family, FontSystem, Metrics, Shaping};
use layerbatch_core::text::GlyphCache;
use layerbatch_core::{Batcher, EffectId, SortKey};

use crate::looks::{TextLayer, SIZE};
use crate::text_ref::TextReference;

/// One label: its text, top-left corner, size, premultiplied colour, lit, effect and its
/// parameters, and its sort key's y.
struct Label {
    text: &'static str,
    pos_px: [f32; 2],
    size_px: f32,
    color: [u8; 4],
    lit: bool,
    effect: u8,
    params: [f32; 4],
    sort_y: f32,
}

/// The labels: a lit one in the middle rows, and one flashed (effect 1) near the bottom, each
/// with a key between the sprites' (their bottoms are 18 + 14k).
const LABELS: [Label; 2] = [
    Label {
        text: "Lit dungeon",
        pos_px: [30.0, 50.0],
        size_px: 18.0,
        color: [90, 100, 110, 255],
        lit: true,
        effect: 0,
        params: [0.0; 4],
        sort_y: 67.5,
    },
    Label {
        text: "Hit! x3",
        pos_px: [104.0, 92.0],
        size_px: 16.0,
        color: [150, 40, 40, 230],
        lit: false,
        effect: 1,
        params: [1.0, 1.0, 0.6, 0.5],
        sort_y: 109.5,
    },
];

/// The scene's text: its fonts, laid-out labels and the glyph cache that draws them.
#[allow(missing_debug_implementations)] // cosmic-text's font system
pub struct LooksText {
    fonts: FontSystem,
    cache: GlyphCache,
    buffers: Vec<Buffer>,
}

impl LooksText {
    /// The labels laid out in `fonts` (which must have DejaVu Sans:
    /// [`crate::fonts::Font::Latin`]).
    pub fn new(mut fonts: FontSystem) -> Self {
        let buffers = LABELS
            .iter()
            .map(|l| {
                let mut buffer = Buffer::new(&mut fonts, Metrics::new(l.size_px, (l.size_px * 1.25).ceil()));
                buffer.set_text(l.text, &Attrs::new().family(Family::Name("DejaVu Sans")), Shaping::Advanced, None);
                buffer.shape_until_scroll(&mut fonts, false);
                buffer
            })
            .collect();
        Self { fonts, cache: GlyphCache::default(), buffers }
    }

    /// Draws the labels into the open frame (after [`crate::looks::record`]), each under its
    /// sort key, lit or not, with its effect; returns the glyph quads pushed.
    ///
    /// # Errors
    /// The batcher's or the glyph cache's refusal, as text.
    pub fn record(&mut self, b: &mut Batcher) -> Result<u32, String> {
        let mut quads = 0;
        for (l, buffer) in LABELS.iter().zip(&self.buffers) {
            b.state().set_sort_key(SortKey::zy(0, l.sort_y));
            b.state().set_lit(l.lit);
            let id = b.budget().effect_at(usize::from(l.effect)).unwrap_or(EffectId::NONE);
            b.state().set_effect(id, l.params);
            let drawn =
                self.cache.draw_buffer(b, &mut self.fonts, buffer, l.pos_px, l.color).map_err(|e| e.to_string())?;
            if drawn.refused + drawn.unrendered + drawn.notdef > 0 {
                return Err(format!("label {:?}: glyphs not drawn: {drawn:?}", l.text));
            }
            quads += drawn.quads;
        }
        Ok(quads)
    }

    /// The labels as the reference composites them: each over transparent black, with its
    /// key, lighting and effect.
    pub fn layers(&mut self) -> Vec<TextLayer> {
        LABELS
            .iter()
            .zip(&self.buffers)
            .map(|(l, buffer)| {
                let mut r = TextReference::new(SIZE[0], SIZE[1], [0; 4]);
                r.draw_buffer(&mut self.fonts, buffer, l.pos_px, l.color);
                TextLayer { sort_y: l.sort_y, pixels: r.pixels, lit: l.lit, effect: l.effect, params: l.params }
            })
            .collect()
    }
}
