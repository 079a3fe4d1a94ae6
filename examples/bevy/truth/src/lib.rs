//! The harness that runs Bevy 0.20.1's own examples headless, unchanged but for the plugin
//! line, and captures what they draw.
//!
//! `build.rs` copies each example from Bevy's source into a module that imports
//! [`DefaultPlugins`] from here, shadowing the prelude's: Bevy's default plugins without a
//! window system, every camera that renders into the primary window redirected into one image
//! of the window's size, read back at the frames asked for, with time stepped by a fixed
//! 1/60 s so both renderers see the same game. The child process is configured by the
//! environment (see [`Config`]); `tests/examples.rs` runs it under both renderers and compares.

mod capture;
mod script;
pub mod stand_in;

use bevy::app::PluginGroupBuilder;
use bevy::prelude::PluginGroup;
use bevy::render::RenderPlugin;
use bevy::render::pipelined_rendering::PipelinedRenderingPlugin;

pub use capture::{Capture, Config, FrameRecord, read_records};

/// Bevy's `DefaultPlugins` as the examples name them, headless: no winit (no display here),
/// no pipelined rendering (a frame is rendered when `App::update` returns, so it can be read
/// back), pipelines compiled when first asked for (every run draws the same frames), plus
/// [`Capture`]. An example's own `.set(...)` on it (a window size, nearest sampling) applies.
pub struct DefaultPlugins;

impl PluginGroup for DefaultPlugins {
    fn build(self) -> PluginGroupBuilder {
        bevy::DefaultPlugins
            .build()
            .disable::<bevy::winit::WinitPlugin>()
            .disable::<PipelinedRenderingPlugin>()
            .set(RenderPlugin { synchronous_pipeline_compilation: true, ..Default::default() })
            .add(Capture::from_env())
    }
}
