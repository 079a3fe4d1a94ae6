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
//! let red = batcher.register(&TextureDesc::new(16, 16), &[255, 0, 0, 255].repeat(16 * 16))?;
//! let blue = batcher.register(&TextureDesc::new(16, 16), &[0, 0, 255, 255].repeat(16 * 16))?;
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
#![deny(missing_docs)]

mod alloc;
mod batcher;
mod counters;
mod error;
#[cfg(feature = "image")]
mod image;
mod ladder;
mod limits;
mod mock;
mod pages;
pub mod plan;
mod quad;
mod texture;

pub use alloc::{Admission, Allocator, ClassKey, Moved, Placement};
pub use batcher::Batcher;
pub use counters::{Counters, DeviceCounters, Stats};
pub use error::{ConfigError, QuadError, RejectedQuad, TextureError};
#[cfg(feature = "image")]
pub use image::{premultiplied, ImageError};
pub use limits::{Budget, Config, Limits, VictimChoice, MAX_SLOTS_PER_DRAW};
pub use mock::{Call, MockDevice};
pub use plan::{
    ArrayDesc, ArrayId, ArrayOp, BlendFactor, BlendMode, Clip, DrawState, FlushCause, FramePlan, Instance, LevelWrite,
    PlanError, PlanValidator, ResourceOp, Segment, SlotBind,
};
pub use quad::{premultiply, Quad};
pub use texture::{max_mip_levels, mip_chain_bytes, mip_size, Filter, Format, TextureDesc, TextureId, Usage, Wrap};

#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod tests;
