//! layerbatch's test kit: what the workspace's tests, examples and benches share, as a crate
//! (`publish = false`) instead of files included by path.
//!
//! - [`ci`]: the skip policy of GPU tests (`CI=true`: a missing device fails; else `skipped:`).
//! - [`stats`]: the statistics of every report (min, max, mean, median, p95, p99; warm-up
//!   frames kept apart).
//! - [`blend`]: the CPU reference of every [`layerbatch_core::BlendMode`].
//! - [`scene`], [`report`]: the stress scene and its report, native and in the browser.
//! - [`cliff`]: the cliff scene (the plot and its bench).
//! - [`looks`]: the looks scene (lights, normal maps, effects, sorted) and its CPU reference.
//! - [`plans`]: hand-made frame plans for the core/backend seam.
//! - [`moving`], [`array_layers`]: the moving-layer scenes and the 1,000-texture scene on
//!   devices of 256 layers an array, with their checks, native and in the browser.
//! - [`asset_sets`]: asset sets modelled on real games, for the loading tests.
//!
//! With the `gpu` feature (native only): `egl` (surfaceless contexts: the kit's only `unsafe`
//! code), `gpu`, `headless` (one offscreen device of either backend), `conformance` (every
//! executor runs the same plans and reports the same counters) and `fill`. Behind their own
//! features: `hello` (the hello examples' scene), `window` (winit windows), `frame_bench`
//! (`bench`), `egui` (`egui-wgpu`, `egui-glow`) and `examples` (the examples, for the root
//! tests that run them).
#![deny(missing_docs)]
// The examples the root tests run (`examples`) name the kit by its crate name, and the
// facade as `layerbatch`, which re-exports core: inside the kit, both names resolve here.
#[cfg(feature = "examples")]
extern crate layerbatch_core as layerbatch;
#[cfg(feature = "examples")]
extern crate self as layerbatch_testkit;

pub mod array_layers;
pub mod asset_sets;
pub mod blend;
pub mod callseq;
pub mod ci;
pub mod cliff;
pub mod color_offset;
#[cfg(feature = "compressed")]
pub mod compressed;
pub mod grids;
pub mod host_scene;
pub mod hud;
pub mod looks;
pub mod moving;
pub mod phases;
pub mod plans;
pub mod report;
pub mod scene;
pub mod stats;

#[cfg(feature = "gpu")]
pub mod conformance;
// glutin and glow's calls are `unsafe`: the one module allowed them, every block with a
// SAFETY line.
#[cfg(feature = "gpu")]
#[allow(unsafe_code)]
pub mod egl;
#[cfg(feature = "gpu")]
pub mod fill;
#[cfg(feature = "gpu")]
pub mod gpu;
#[cfg(feature = "gpu")]
pub mod headless;
#[cfg(feature = "gpu")]
pub mod host_textures;

#[cfg(any(feature = "egui-wgpu", feature = "egui-glow"))]
pub mod egui;
#[cfg(feature = "examples")]
pub mod examples;
#[cfg(feature = "text")]
pub mod fonts;
#[cfg(feature = "bench")]
pub mod frame_bench;
#[cfg(feature = "hello")]
pub mod hello;
#[cfg(feature = "text")]
pub mod looks_text;
#[cfg(feature = "reference")]
pub mod shapes_ref;
#[cfg(feature = "text")]
pub mod text_ref;
#[cfg(feature = "window")]
pub mod window;
