//! # layerbatch-core
//!
//! The core of layerbatch, a 2D sprite batcher that draws any number of textures in one draw
//! call. Textures live in layers of texture arrays bucketed by size class, so every quad carries
//! a `(slot, layer)` pair and one draw covers every texture of every bound array. A bounded slot
//! ladder with single-slot eviction is the fallback for textures that cannot share an array.
//!
//! Core decides everything (placement, slots, segments, evictions, uploads, growths) and hands a
//! backend a [`FramePlan`] of plain data; `layerbatch-gl` and `layerbatch-wgpu` only execute it.
//! The main type is [`Batcher`]; [`MockDevice`] executes plans without a GPU.
//!
//! ```
//! use layerbatch_core::{Batcher, Config, Limits, Quad, TextureDesc};
//!
//! let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
//! let red = batcher.textures().register(&TextureDesc::new(16, 16), &[255, 0, 0, 255].repeat(16 * 16))?;
//! let blue = batcher.textures().register(&TextureDesc::new(16, 16), &[0, 0, 255, 255].repeat(16 * 16))?;
//!
//! batcher.begin_frame();
//! for i in 0..1000 {
//!     let tex = if i % 2 == 0 { red } else { blue };
//!     batcher.push(&Quad::rect(tex, [i as f32, 0.0], [16.0, 16.0]))?;
//! }
//! let plan = batcher.finish();
//! // Interleaved textures, one draw call, no flushes for slots.
//! assert_eq!(plan.segments.len(), 1);
//! assert_eq!(plan.counters.flushes_slots_exhausted, 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Transforms from math libraries
//!
//! [`DrawingState::set_transform`] takes an [`Affine2`] or a `[f32; 6]`. With the `mint` feature
//! (off by default; core stays light) it also takes a `mint::ColumnMatrix2x3<f32>` or a
//! `mint::ColumnMatrix3<f32>`, the interchange types of glam, nalgebra, cgmath and others.
//!
//! glam users enable `mint` on glam as well as here. glam's `Mat3` converts to
//! `mint::ColumnMatrix3`; its `Affine2` has no mint conversion of its own, so it goes through
//! `Mat3`:
//!
//! ```text
//! # Cargo.toml
//! layerbatch-core = { version = "0.1", features = ["mint"] }
//! glam = { version = "0.30", features = ["mint"] }
//!
//! let camera = glam::Affine2::from_scale_angle_translation(zoom, angle, pan);
//! batcher.state().set_transform(mint::ColumnMatrix3::from(glam::Mat3::from(camera)));
//! ```
//!
//! ## Where things are
//!
//! The crate root is the host's API: the [`Batcher`], textures, quads, limits and
//! configuration, counters, errors, and the [`FramePlan`] a host hands its backend. What a
//! backend or a tool needs lives in modules: [`plan`] (a plan's ops, instances, segments,
//! draw state and the [`validate::PlanValidator`]), [`execute`] (the [`execute::Executor`] trait a
//! backend implements, the runner, the draw walk), [`alloc`] (the texture allocator, usable
//! alone), [`mock`] (the [`MockDevice`]'s recorded calls), [`shader`] (the one WGSL source of
//! every program).
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod affine;
pub mod alloc;
mod batcher;
mod budget;
mod counters;
#[cfg(feature = "decode")]
mod decode;
mod effect;
mod error;
pub mod execute;
#[cfg(feature = "ktx2")]
mod files;
mod format;
#[cfg(feature = "image")]
mod image;
mod ladder;
mod light;
mod limits;
mod mesh;
pub mod mock;
mod motion;
mod nine_slice;
mod pages;
pub mod plan;
mod program;
mod quad;
mod resident;
pub mod shader;
#[cfg(feature = "shapes")]
pub mod shapes;
mod sort;
#[cfg(feature = "text")]
pub mod text;
mod texture;
pub mod tilegrid;
pub mod tilemap;
pub mod validate;
mod walk;
mod writes;

#[cfg(feature = "basis")]
pub use crate::files::ktx2::read_basis;
#[cfg(feature = "ktx2")]
pub use crate::files::ktx2::{format_from_vk, read_ktx2, BasisMode, BasisTarget, FileLimits, FileTexture};
pub use affine::Affine2;
pub use batcher::{Batcher, DrawingState, FormatMemory, PartRecorder, TextureStore};
pub use budget::Budget;
pub use counters::{Counters, DeviceCounters, Stats};
#[cfg(feature = "decode")]
pub use decode::{decode_rgba8, DecodeError};
pub use effect::{Effect, EffectId, RampError, MAX_EFFECTS, RAMP_ROWS, RAMP_WIDTH_PX};
pub use error::{ConfigError, MeshError, QuadError, RejectedQuad, TextureError};
#[cfg(feature = "dds")]
pub use files::read_dds;
#[cfg(feature = "ktx2")]
pub use files::{read_astc, read_file, FileError, FileKind};
pub use format::{AstcBlock, Format, FormatFamilies, FormatFamily};
#[cfg(feature = "image")]
pub use image::{premultiplied, ImageError};
pub use light::{LightError, PointLight, MAX_LIGHTS};
pub use limits::{Config, Limits, QuadVertices, VictimChoice, MAX_SLOTS_PER_DRAW};
pub use mesh::{Mesh, Vertex};
pub use mock::MockDevice;
pub use motion::{copy_checked, first_non_finite, motion_rects, motion_texture_size, Motion, MOTION_ROW_TEXELS};
pub use nine_slice::{NineSlice, NineSliceError, SliceFill};
pub use plan::{BlendMode, Clip, FramePlan, PlanError, PlanTarget, ResidentId, Viewport};
pub use program::ProgramKey;
pub use quad::{premultiply, srgb_tint, Quad, TintEncoding};
pub use resident::{ResidentError, ResidentStyle};
pub use sort::SortKey;
pub use texture::{
    max_mip_levels, mip_chain_bytes, mip_size, Alpha, Filter, Sampler, TextureDesc, TextureId, Usage, Wrap,
};

#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod test_rng;
#[cfg(test)]
mod tests;
