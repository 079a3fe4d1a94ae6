//! The workspace's integration tests: headless GL and wgpu devices, real files, both backends side by side.
//!
//! One test binary for the crate (each file a module): every module links the same graph once.

mod array_layers;
mod color_offset;
mod compressed_memory;
mod compressed_pixels;
mod conformance;
mod decode_conformance;
mod device_loss;
mod docs_pages;
mod draw_state;
mod effects;
mod egui_wgpu;
mod hello;
mod host_textures;
mod hud;
mod lights;
mod loading;
mod mip_levels;
mod moving;
mod pages_and_sampling;
mod parity;
mod parts;
mod plan_contract;
mod real_files;
mod render_target;
mod residents;
mod shared_errors;
mod sorting;
mod straight_alpha;
mod tilegrid;
mod tilemap;
mod tour;
mod triangles;
