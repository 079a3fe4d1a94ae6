//! Text: cosmic-text layout, glyphs cached in the batcher's atlas pages.
