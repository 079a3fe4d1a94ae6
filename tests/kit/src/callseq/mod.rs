//! The call-sequence model (DESIGN 30): random sequences of the batcher's public calls, misuse
//! included, with a reference model (`model.rs`) kept beside it. After every plan it checks
//! that (a) nothing panicked, (b) the plan passes the validator and runs on the mock device,
//! (c) every quad drawn, pushed or resident, samples exactly its own texture's pixels, and
//! (d) every call that returned `Ok` is in the plan or was reported: an update's pixels are
//! what the next draw samples, a resident update is what its layer draws, a normal map
//! flags its texture's quads, a light reaches the plan.
//!
//! The same model drives the fuzz target `calls` (choices from the input's bytes) and the
//! device runs of the test binary (choices from a seeded generator; each plan drawn on a real
//! device too and, where [`Setup::pixel_exact`], its pixels compared with [`World::picture`]).

mod grids;
mod host;
mod model;
mod motions;
mod ops;
mod residents;

use layerbatch_core::{Batcher, Config, Effect, FormatFamilies, FormatFamily, Limits, MockDevice, QuadVertices};

use model::Model;

/// Where the choices come from: input bytes (fuzzing) or a seeded generator.
pub trait Choices {
    /// A number below `n` (0 for `n` of 0).
    fn below(&mut self, n: u64) -> u64;
    /// True `percent` times in 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A xorshift generator: the same sequence for the same seed on every machine.
#[derive(Clone, Debug)]
pub struct SeqRng(pub u64);

impl Choices for SeqRng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        if n == 0 {
            0
        } else {
            self.0 % n
        }
    }
}

/// A batcher configuration the model runs.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Its name in findings.
    pub name: &'static str,
    /// The device's limits.
    pub limits: Limits,
    /// The batcher's configuration.
    pub config: Config,
    /// Only calls whose pixels the model knows exactly: solid textures drawn nearest on grid
    /// cells that never overlap, no effects, lights, blends, transforms or clips.
    pub pixel_exact: bool,
    /// Compressed (BC1) textures are registered.
    pub compressed: bool,
}

/// Effects the `looks` setup declares (the built-ins: flash, greyscale, dissolve, outline,
/// palette).
const EFFECTS: &[Effect] = &Effect::BUILT_IN;

impl Setup {
    /// The four configurations of the fuzz target and the mock runs: a desktop device (that
    /// culls tile grids on the GPU and stages motion writes); a
    /// small one (4 slots, 128 px pages, a 3 MiB budget: budget pressure, ladder evictions,
    /// many page layers); effects, lights and CPU copies; indexed quads with BC textures and a
    /// small instance buffer.
    pub fn all() -> [Setup; 4] {
        let desktop = Limits::desktop();
        [
            Setup {
                name: "desktop",
                // Tile grids culled on the GPU, motion writes staged, host textures viewed (as
                // layerbatch-wgpu's).
                limits: desktop
                    .with_max_storage_binding_bytes(1 << 20)
                    .with_staged_motion_writes(true)
                    .with_host_texture_views(true),
                config: Config::default(),
                pixel_exact: false,
                compressed: false,
            },
            Setup {
                name: "small",
                limits: Limits::guaranteed_minimum(),
                config: Config::default()
                    .with_max_slots(4)
                    .with_page_size_px(128)
                    .with_max_packed_size_px(64)
                    .with_budget_bytes(3 << 20)
                    .with_max_layers_per_array(8),
                pixel_exact: false,
                compressed: false,
            },
            Setup {
                name: "looks",
                limits: desktop,
                config: Config::default().with_effects(EFFECTS).with_lights(4).with_keep_pixels(true),
                pixel_exact: false,
                compressed: false,
            },
            Setup {
                name: "indexed",
                limits: desktop.with_format_families(FormatFamilies::RGBA8.with(FormatFamily::Bc)),
                config: Config::default().with_quad_vertices(QuadVertices::Indexed).with_instance_capacity(64),
                pixel_exact: false,
                compressed: true,
            },
        ]
    }

    /// The configurations of a device run on a device of `limits`: a plain one and a small one
    /// (4 slots, 128 px pages: page layers, compaction and ladder binds), pixel-exact, with BC
    /// textures where the device has them. Its families are narrowed to RGBA8 and BC: BC1
    /// and BC7 decode bit-exactly by their specs (ASTC's 8-bit results differ by 1 between
    /// decoders), so Basis files transcode to BC7 there.
    pub fn for_device(limits: Limits) -> [Setup; 2] {
        let compressed = limits.format_families.contains(FormatFamily::Bc);
        let families = if compressed { FormatFamilies::RGBA8.with(FormatFamily::Bc) } else { FormatFamilies::RGBA8 };
        let limits = limits.with_format_families(families);
        [
            Setup { name: "device", limits, config: Config::default(), pixel_exact: true, compressed },
            Setup {
                name: "device-small",
                limits,
                config: Config::default()
                    .with_max_slots(4)
                    .with_page_size_px(128)
                    .with_max_packed_size_px(64)
                    .with_budget_bytes(3 << 20),
                pixel_exact: true,
                compressed,
            },
        ]
    }
}

/// The pixel grid of pixel-exact runs: cells of [`CELL_PX`], resident layers in bands of the
/// top half, pushed quads in the bottom half.
pub const GRID: [u32; 2] = [32, 32];
/// A grid cell's side, pixels.
pub const CELL_PX: u32 = 8;
/// The target a pixel-exact run draws into.
pub const TARGET_PX: [u32; 2] = [GRID[0] * CELL_PX, GRID[1] * CELL_PX];
/// The colour the device's target is cleared to.
pub const CLEAR: [u8; 4] = [0, 0, 0, 255];

/// A file the host registers with `register_file` (a Basis Universal file, transcoded at
/// registration), with what the device holds of it and the colour it draws.
#[derive(Clone, Debug)]
pub struct KnownFile {
    /// The file.
    pub bytes: Vec<u8>,
    /// Level 0 as the batcher stores it on this device (sent again after a restore).
    pub blocks: Vec<u8>,
    /// Its one colour, from the spec's decode of those blocks.
    pub color: [u8; 4],
}

/// What a run counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    /// Calls made.
    pub calls: u64,
    /// Calls refused with the error the model expected (misuse, budget).
    pub refused: u64,
    /// Plans made, checked against the validator and the model.
    pub plans: u64,
    /// Resident quads checked against the model.
    pub resident_quads: u64,
    /// Restores.
    pub restores: u64,
    /// Known files registered (Basis Universal files, transcoded at registration).
    pub files: u64,
}

/// A plan the last step made.
#[derive(Debug)]
pub struct Planned {
    /// Whether it draws into the framebuffer (not a render target).
    pub to_framebuffer: bool,
}

/// The batcher, the mock device and the model.
#[derive(Debug)]
pub struct World {
    /// The batcher under test.
    pub batcher: Batcher,
    /// The mock device every plan runs on.
    pub device: MockDevice,
    setup: Setup,
    model: Model,
    tiles: Option<residents::Tiles>,
    /// The tile grid, when one was made.
    grid: Option<grids::GridState>,
    stamp: u32,
    /// Plans made since the host frame began, and whether the host ends frames.
    host: ops::HostFrame,
    /// What the run counted.
    pub tally: Tally,
    /// The picture the last plan must show, for pixel-exact runs (`None`: not known).
    picture: Option<Vec<u8>>,
    /// Set when the last step restored: a device run replaces nothing (the rebuild plan
    /// makes the executor drop what it holds), but may.
    pub restored: bool,
    /// The host's textures on the device: size and what it drew last, by host texture.
    host_textures: std::collections::BTreeMap<layerbatch_core::TextureId, ([u32; 2], Vec<u8>)>,
    /// Files the register call may pick (with the kit's `compressed` feature).
    #[cfg_attr(not(feature = "compressed"), allow(dead_code))]
    files: Vec<KnownFile>,
}

impl World {
    /// A batcher and a mock device of `setup`.
    pub fn new(setup: Setup) -> Result<Self, String> {
        let batcher = Batcher::new(setup.limits, setup.config).map_err(|e| format!("{}: {e}", setup.name))?;
        let device = MockDevice::new(batcher.budget());
        Ok(Self {
            batcher,
            device,
            setup,
            model: Model::default(),
            tiles: None,
            grid: None,
            stamp: 0,
            host: ops::HostFrame::default(),
            tally: Tally::default(),
            picture: None,
            restored: false,
            host_textures: std::collections::BTreeMap::new(),
            files: Vec::new(),
        })
    }

    /// `files` join the textures registered (through `register_file`), sometimes.
    pub fn with_files(mut self, files: Vec<KnownFile>) -> Self {
        self.files = files;
        self
    }

    /// The setup.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// One call (or a few), chosen by `c`; `Some` when it made a plan, which the mock device
    /// ran and the model checked. An `Err` is a finding.
    pub fn step(&mut self, c: &mut dyn Choices) -> Result<Option<Planned>, String> {
        self.restored = false;
        self.tally.calls += 1;
        self.call(c)
    }

    /// The picture the last plan must show (RGBA8, [`TARGET_PX`], top row first) when the run
    /// is pixel-exact and the plan drew into the framebuffer; `None` otherwise.
    pub fn picture(&self) -> Option<&[u8]> {
        self.picture.as_deref()
    }

    /// Ends the run: every live resource freed or destroyed, a last plan checked.
    pub fn finish_run(&mut self) -> Result<(), String> {
        self.wind_down()
    }
}
