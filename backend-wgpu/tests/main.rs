//! layerbatch-wgpu's integration tests on headless wgpu adapters.
//!
//! One test binary for the crate (each file a module): every module links the same graph once.

#[macro_use]
mod common;
mod atlas;
mod contract;
mod copies_and_ids;
mod draw_state;
mod host_encoder;
mod interleaving;
mod layer_counts;
mod pass_kinds;
mod render_targets;
mod scenes;
mod several_plans;
mod shader;
