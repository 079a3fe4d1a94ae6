//! The cliff scene: the same quads over 1..=64 distinct textures, planned by three strategies.
//! Shared by `examples/cliff.rs` (the plot) and `benches/cliff.rs` (the timings).

use layerbatch_core::{Batcher, Config, Counters, Limits, Quad, TextureDesc, TextureId, VictimChoice};

/// How a batcher deals with many textures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// One texture per draw: break the batch on every texture change (Bevy, macroquad, notan).
    BreakOnChange,
    /// A 16-slot ladder, one texture per slot, wiped when full (PixiJS, melonJS).
    Ladder16,
    /// layerbatch: texture arrays, the ladder only as a fallback.
    Arrays,
}

impl Strategy {
    /// All three, in plot order.
    pub const ALL: [Strategy; 3] = [Strategy::BreakOnChange, Strategy::Ladder16, Strategy::Arrays];

    /// Short name, for bench ids and the legend.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::BreakOnChange => "break_on_change",
            Strategy::Ladder16 => "ladder16_arrays_off",
            Strategy::Arrays => "arrays_on",
        }
    }

    /// The batcher configuration that models the strategy.
    pub fn config(self) -> Config {
        match self {
            Strategy::BreakOnChange => Config::default().with_max_slots(1).with_arrays_enabled(false),
            Strategy::Ladder16 => {
                Config::default().with_max_slots(16).with_arrays_enabled(false).with_victim(VictimChoice::WipeAll)
            }
            Strategy::Arrays => Config::default().with_max_slots(16),
        }
    }
}

/// `quads` quads interleaved round-robin over `textures` distinct 32x32 textures.
#[derive(Debug)]
pub struct CliffScene {
    batcher: Batcher,
    quads: Vec<Quad>,
}

impl CliffScene {
    /// Registers the textures and builds the quads.
    pub fn new(strategy: Strategy, textures: usize, quads: usize) -> Self {
        let mut batcher = Batcher::new(Limits::guaranteed_minimum(), strategy.config()).expect("valid config");
        let desc = TextureDesc::new(32, 32);
        let ids: Vec<TextureId> = (0..textures)
            .map(|i| batcher.textures().register(&desc, &[i as u8; 32 * 32 * 4]).expect("fits the default budget"))
            .collect();
        let quads = (0..quads)
            .map(|i| Quad::rect(ids[i % textures], [(i % 100) as f32 * 8.0, (i / 100) as f32 * 8.0], [32.0, 32.0]))
            .collect();
        let mut scene = Self { batcher, quads };
        scene.frame(); // the uploads happen in the first frame; steady state after
        scene
    }

    /// Plans one frame and returns its counters.
    pub fn frame(&mut self) -> Counters {
        self.batcher.begin_frame();
        for q in &self.quads {
            self.batcher.push(q).expect("live texture");
        }
        self.batcher.finish().counters
    }
}
