//! Glyphs rasterised by swash (through cosmic-text) and composited on the CPU.
