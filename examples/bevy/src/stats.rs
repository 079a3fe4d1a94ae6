//! What layerbatch did in the last frame Bevy rendered, readable from the main world.

use std::sync::{Arc, Mutex};

use bevy::prelude::Resource;
use layerbatch_core::Counters;

/// The figures of one rendered frame. Plain data; `#[non_exhaustive]`, every field starts at
/// 0 (`Default`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct LayerbatchFrameStats {
    /// Layerbatch sprites drawn, over every view (a sprite seen by two cameras counts twice).
    pub sprites: u64,
    /// Visible sprites not drawn: their image is not held (not loaded yet, or refused: see
    /// the warning logged once per image).
    pub sprites_skipped: u64,
    /// Bevy `Sprite`s drawn by Bevy's renderer in drop-in mode ([`crate::SpriteMode::All`]):
    /// those layerbatch does not draw as Bevy does (see there). 0 otherwise.
    pub sprites_left_to_bevy: u64,
    /// layerbatch plans prepared: one per run of consecutive layerbatch items of a view in
    /// the `Transparent2d` phase (a Bevy item between two layerbatch sprites in z splits a run).
    pub plans: u64,
    /// The times the `Transparent2d` phases call a draw function this frame, Bevy's items and
    /// layerbatch's runs together: one per batch, as Bevy renders them. For Bevy's sprites and
    /// 2D meshes each is one draw call.
    pub phase_draws: u64,
    /// Draw calls layerbatch issued into Bevy's passes this frame.
    pub device_draw_calls: u64,
    /// Kinds of pass layerbatch draws into (target format, HDR or not, MSAA sample count):
    /// one renderer holds the pipelines of each kind a camera has shown it.
    pub pass_kinds: u64,
    /// Render pipelines layerbatch made this frame: a frame with a camera of a new kind makes
    /// that kind's, later frames none.
    pub pipeline_compiles: u64,
    /// The sum of layerbatch's counters over this frame's plans (`draw_calls` planned,
    /// `max_slot_tier`, `layer_uploads`, `bytes_uploaded`, `arrays_created`, ...).
    pub counters: Counters,
    /// layerbatch's counters since the app started.
    pub total: Counters,
    /// Bevy images held as layerbatch textures now.
    pub textures_live: u64,
    /// Bevy images layerbatch does not hold now (format, shape, render target, budget).
    pub textures_refused: u64,
    /// Images registered since the app started (added, or modified into another size or format).
    pub textures_registered: u64,
    /// Images whose pixels were replaced in place since the app started (modified).
    pub textures_updated: u64,
    /// Textures freed since the app started (the image's last handle went, or it changed size).
    pub textures_freed: u64,
    /// Bytes of layerbatch's arrays held against its budget.
    pub bytes_allocated: u64,
}

/// The main world's view of [`LayerbatchFrameStats`]: the render world publishes each frame's
/// figures at its end. A cheap handle (`Clone` shares it).
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_layerbatch::LayerbatchStats;
///
/// fn report(stats: Res<LayerbatchStats>) {
///     let frame = stats.frame();
///     info!("{} sprites in {} draw calls", frame.sprites, frame.device_draw_calls);
/// }
/// # let _ = report;
/// ```
#[derive(Resource, Clone, Debug, Default)]
pub struct LayerbatchStats(Arc<Mutex<LayerbatchFrameStats>>);

impl LayerbatchStats {
    /// The last frame the render world finished (with pipelined rendering, the one before the
    /// frame the main world is updating).
    pub fn frame(&self) -> LayerbatchFrameStats {
        // A poisoned lock still holds whole figures (they are written in one assignment).
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn publish(&self, frame: LayerbatchFrameStats) {
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = frame;
    }
}
