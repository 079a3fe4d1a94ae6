//! `text`: random strings (Latin, combining marks, Arabic, Hebrew, Devanagari, CJK, emoji,
//! joiners, controls, newlines) at random sizes, laid out by cosmic-text with the font
//! `fc-match` finds, drawn with `GlyphCache::draw_buffer` at positions that may be NaN,
//! infinite or huge, into batchers with small budgets and glyph caches with small caps;
//! then the plan through the validator and the mock device. Skipped without a font.

use super::check_plan;
use crate::rng::{Reader, Rng};
use crate::runner::{Outcome, Target};
use layerbatch_core::text::cosmic_text::{fontdb, Attrs, Buffer, FontSystem, Metrics, Shaping, Wrap};
use layerbatch_core::text::{GlyphCache, GlyphCacheOptions};
use layerbatch_core::validate::PlanValidator;
use layerbatch_core::{Batcher, Config, Limits, MockDevice};

pub struct TextTarget {
    fonts: FontSystem,
}

impl TextTarget {
    /// With the font `fc-match sans` names, or why not.
    pub fn new() -> Result<Self, String> {
        let out = std::process::Command::new("fc-match")
            .args(["-f", "%{file}", "sans"])
            .output()
            .map_err(|e| format!("no fc-match ({e}), so no font to lay text out with"))?;
        let file = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || file.is_empty() || !std::path::Path::new(&file).exists() {
            return Err("fc-match found no font".to_string());
        }
        let mut db = fontdb::Database::new();
        db.load_font_file(&file).map_err(|e| format!("{file}: {e}"))?;
        if db.is_empty() {
            return Err(format!("{file} holds no font"));
        }
        Ok(Self { fonts: FontSystem::new_with_locale_and_db("en-US".into(), db) })
    }
}

/// Where characters come from: start and length of a range of code points.
const RANGES: [(u32, u32); 14] = [
    (0x20, 0x5F),     // ASCII
    (0x20, 0x5F),     // ASCII again: most text
    (0xC0, 0x40),     // Latin-1 letters
    (0x300, 0x70),    // combining marks
    (0x5D0, 0x1B),    // Hebrew
    (0x627, 0x24),    // Arabic
    (0x915, 0x25),    // Devanagari
    (0x4E00, 0x100),  // CJK (not in the font: .notdef)
    (0x1F600, 0x50),  // emoji
    (0x200B, 0x10),   // zero-width joiners, marks, RTL/LTR marks
    (0x0, 0x20),      // controls (newlines, tabs)
    (0xFFF0, 0x10),   // specials, U+FFFD, non-characters
    (0xE000, 0x10),   // private use
    (0x10FFF0, 0x10), // the last plane's end
];

/// Bidi paragraph separators other than newlines (U+001C..U+001E): cosmic-text 0.19's
/// `ShapeLine::build` asserts that every bidi paragraph of a line has the line's direction,
/// and panics on "\u{5D0}\u{1C}a" inside `Buffer::shape_until_scroll`, before layerbatch
/// sees the text (a finding outside layerbatch, reported; the test below shows it). They are
/// left out so the target reaches layerbatch.
const PARAGRAPH_SEPARATORS: [char; 3] = ['\u{1C}', '\u{1D}', '\u{1E}'];

fn text(r: &mut Reader<'_>) -> String {
    let n = r.below(24);
    (0..n)
        .filter_map(|_| {
            let (start, len) = RANGES[r.below(RANGES.len())];
            char::from_u32(start + u32::from(r.u8()) % len)
        })
        .filter(|c| !PARAGRAPH_SEPARATORS.contains(c))
        .collect()
}

impl Target for TextTarget {
    fn name(&self) -> &'static str {
        "text"
    }

    fn default_iterations(&self) -> u64 {
        8_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        let n = 16 + rng.index(64);
        rng.bytes(n)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let case = Case::new(input);
        let config = Config::default().with_budget_bytes(case.budget);
        let Ok(mut batcher) = Batcher::new(Limits::guaranteed_minimum(), config) else {
            return Outcome::Finding("Batcher::new failed".to_string());
        };
        let mut cache = GlyphCache::new(GlyphCacheOptions::default().with_cap_bytes(case.cap));
        let (mut validator, mut device) = (PlanValidator::new(batcher.budget()), MockDevice::new(batcher.budget()));
        let mut buffer = Buffer::new(&mut self.fonts, Metrics::new(case.size, case.size * 1.25));
        if let Some((width, wrap)) = case.width {
            buffer.set_size(Some(width), None);
            buffer.set_wrap(wrap);
        }
        buffer.set_text(&case.text, &Attrs::new(), case.shaping, None);
        buffer.shape_until_scroll(&mut self.fonts, false);
        let mut last = Outcome::Ok;
        for &(pos, color) in &case.draws {
            batcher.begin_frame();
            match cache.draw_buffer(&mut batcher, &mut self.fonts, &buffer, pos, color) {
                Ok(drawn) => {
                    if let Some(e) = &drawn.refusal {
                        last = Outcome::err(e);
                    }
                }
                Err(e) => last = Outcome::err(&e),
            }
            if let Err(m) = check_plan(&mut batcher, &mut validator, &mut device) {
                return Outcome::Finding(m);
            }
        }
        last
    }

    fn describe(&mut self, input: &[u8]) -> String {
        format!("{:?}", Case::new(input))
    }
}

/// What one input draws.
#[derive(Debug)]
struct Case {
    size: f32,
    budget: u64,
    cap: u64,
    width: Option<(f32, Wrap)>,
    text: String,
    shaping: Shaping,
    /// Positions and colours of each frame's draw.
    draws: Vec<([f32; 2], [u8; 4])>,
}

impl Case {
    fn new(input: &[u8]) -> Self {
        const SIZES: [f32; 12] = [1.0, 4.0, 8.0, 12.0, 13.5, 16.0, 24.0, 32.0, 48.0, 96.0, 300.0, 2500.0];
        let mut r = Reader::new(input);
        let size = SIZES[r.below(SIZES.len())];
        // Budgets well under the memory ceiling: until a plan runs, a glyph's texels are held
        // by the batcher (pending upload), the plan and the mock device.
        let budget = [32u64 << 20, 1 << 20, 64 << 10][r.below(3)];
        let cap = [16u64 << 20, 64 << 10, 4 << 10, 0][r.below(4)];
        let width = if r.bool() {
            Some((f32::from(r.u8()) * 4.0 + 1.0, if r.bool() { Wrap::Word } else { Wrap::Glyph }))
        } else {
            None
        };
        let text = text(&mut r);
        let shaping = if r.bool() { Shaping::Advanced } else { Shaping::Basic };
        let draws = (0..1 + r.below(3))
            .map(|_| {
                let edgy = [r.edgy_f32(), r.edgy_f32()];
                let pos = if r.bool() { edgy } else { [f32::from(r.u8()), f32::from(r.u8())] };
                (pos, [r.u8(), r.u8(), r.u8(), r.u8()])
            })
            .collect();
        Self { size, budget, cap, width, text, shaping, draws }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cosmic-text 0.19 panics on a bidi paragraph separator between right-to-left and
    /// left-to-right text. When this test fails, cosmic-text is fixed: let the text target
    /// make them again (`PARAGRAPH_SEPARATORS`).
    #[test]
    fn cosmic_text_panics_on_a_paragraph_separator_between_directions() {
        let Ok(mut t) = TextTarget::new() else {
            eprintln!("skipped: no font");
            return;
        };
        let shaped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut buffer = Buffer::new(&mut t.fonts, Metrics::new(16.0, 20.0));
            buffer.set_text("\u{5D0}\u{1C}a", &Attrs::new(), Shaping::Advanced, None);
            buffer.shape_until_scroll(&mut t.fonts, false);
        }));
        assert!(shaped.is_err(), "cosmic-text shapes a paragraph separator between directions now");
    }
}
