//! layerbatch-gl's integration tests on headless GL contexts.
//!
//! One test binary for the crate (each file a module): every module links the same graph once.

#[macro_use]
mod common;
mod pixels;
mod resources;
mod shaders;
mod state;
mod texels;
