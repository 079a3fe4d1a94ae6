//! The examples the root tests run, as modules of the kit: `tests/hello.rs` draws the hello
//! examples' sprites on headless devices, `tests/tour.rs` the tour examples' offscreen paths, `tests/egui_wgpu.rs` and `tests/egui_glow.rs` drive the egui
//! examples' callbacks. Each example stays one file a reader opens in `examples/`; this is the
//! one place that includes files by path, because a test cannot depend on an example target.
//! Their `main` functions are not called here.
#![allow(dead_code, missing_docs, missing_debug_implementations)]

// `examples/hello_gl.rs`.
#[path = "../../../examples/hello_gl.rs"]
pub mod hello_gl;

// `examples/hello_wgpu.rs`.
#[path = "../../../examples/hello_wgpu.rs"]
pub mod hello_wgpu;

// `examples/tour_gl.rs`.
#[path = "../../../examples/tour_gl.rs"]
pub mod tour_gl;

// `examples/tour_wgpu.rs`.
#[path = "../../../examples/tour_wgpu.rs"]
pub mod tour_wgpu;

// `examples/egui_wgpu.rs`.
#[path = "../../../examples/egui_wgpu.rs"]
pub mod egui_wgpu;

// `examples/egui_glow.rs` (egui_glow is on glow 0.17: feature `egui-glow`).
#[cfg(feature = "egui-glow")]
#[path = "../../../examples/egui_glow.rs"]
pub mod egui_glow;
