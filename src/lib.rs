//! # layerbatch
//!
//! A 2D sprite batcher for Rust engines that draws any number of textures in one draw call.
//! This facade re-exports [`layerbatch_core`] (the [`Batcher`], its frame plans and counters) and,
//! behind the `gl` and `wgpu` features, the two backends as `layerbatch::gl` and `layerbatch::wgpu`.
//!
//! ```
//! use layerbatch::{Batcher, Config, Limits, Quad, TextureDesc};
//!
//! let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
//! let tex = batcher.textures().register(&TextureDesc::new(8, 8), &[255; 8 * 8 * 4])?;
//! batcher.begin_frame();
//! batcher.push(&Quad::rect(tex, [0.0, 0.0], [8.0, 8.0]))?;
//! assert_eq!(batcher.finish().segments.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use layerbatch_core::*;

/// The OpenGL / GLES 3 backend (feature `gl`).
#[cfg(feature = "gl")]
pub use layerbatch_gl as gl;

/// The wgpu backend (feature `wgpu`).
#[cfg(feature = "wgpu")]
pub use layerbatch_wgpu as wgpu;

// The Rust blocks of the README and of the docs/ pages that have them are compiled (and the
// runnable ones run) as doc-tests, so a snippet cannot name an API the code no longer has.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide.md")]
pub struct GuideDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/plans-and-budgets.md")]
pub struct PlansAndBudgetsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/egui.md")]
pub struct EguiDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/shapes-and-text.md")]
pub struct ShapesAndTextDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/resident-layers.md")]
pub struct ResidentLayersDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/moving-sprites.md")]
pub struct MovingSpritesDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/sorting.md")]
pub struct SortingDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/threads.md")]
pub struct ThreadsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/effects.md")]
pub struct EffectsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/lights.md")]
pub struct LightsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/formats.md")]
pub struct FormatsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/host-textures.md")]
pub struct HostTexturesDoctests;
