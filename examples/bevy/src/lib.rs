//! # layerbatch in Bevy 0.20
//!
//! [`LayerbatchPlugin`] draws [`LayerbatchSprite`]s with layerbatch inside Bevy's own 2D
//! render phase (`Transparent2d`), with Bevy's `RenderDevice` and `RenderQueue`, into each 2D
//! camera's target, under its view and projection. Textures come from Bevy `Image` assets and
//! stay in step with them: an image is held as a layerbatch texture when a layerbatch sprite
//! first uses it, replaced when it is modified, and freed when no layerbatch sprite uses it
//! any more or its last handle goes. With [`SpriteMode::All`] (drop-in) Bevy's own `Sprite`s
//! are drawn by layerbatch too, with no change to the game.
//!
//! Each sprite is one `Transparent2d` item sorted by its z among Bevy's sprites, meshes and
//! text, so a Bevy sprite between two layerbatch sprites in z is drawn between them. Each run
//! of consecutive layerbatch items of a view is one layerbatch plan, usually one draw call
//! whatever the number of images (see the crate README for what Bevy does instead).
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_layerbatch::{LayerbatchPlugin, LayerbatchSprite};
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, LayerbatchPlugin::default()))
//!     .add_systems(Startup, |mut commands: Commands, assets: Res<AssetServer>| {
//!         commands.spawn(Camera2d);
//!         commands.spawn((LayerbatchSprite::from_image(assets.load("bird.png")), Transform::from_xyz(0.0, 0.0, 1.0)));
//!     })
//!     .run();
//! ```
//!
//! ## What it changes and needs in Bevy's pass
//!
//! - One renderer holds the textures; its pipelines are made per kind of pass (a view's target
//!   format, HDR or not, and MSAA sample count, with Bevy's 2D depth format, no depth test and
//!   no depth writes), the first frame a camera of that kind comes: every 2D camera draws its
//!   sprites, in camera `order`. A kind the device refuses is warned about once.
//! - [`LayerbatchSprite`] is a visibility class: Bevy's visibility culls it per camera (frustum
//!   and `RenderLayers`), and Bevy's `Anchor` component places it.
//! - layerbatch sprites are ordered by z against Bevy's `Transparent2d` items (alpha-blended
//!   sprites, meshes and text); items of Bevy's opaque and alpha-mask 2D phases are drawn
//!   before them whatever their z.
//! - The draw sets its pipeline, bind groups, vertex and index buffers through the pass Bevy
//!   gives it, and tells Bevy its tracked state is gone (`TrackedRenderPass::wgpu_pass`), so
//!   Bevy's next item sets its own again.

mod adopt;
#[cfg(feature = "basis")]
pub mod basis;
pub mod headless;
mod images;
mod prepare;
mod render;
mod sprite;
mod stats;
mod targets;

use bevy::app::{App, Plugin, PostUpdate};
use bevy::asset::AssetEventSystems;
use bevy::camera::visibility::VisibilitySystems;
use bevy::core_pipeline::core_2d::Transparent2d;
use bevy::ecs::schedule::common_conditions::resource_exists;
use bevy::ecs::schedule::{IntoScheduleConfigs, SystemSet};
use bevy::render::render_asset::AssetExtractionSystems;
use bevy::render::render_phase::DrawFunctions;
use bevy::render::sync_world::SyncToRenderWorld;
use bevy::render::{ExtractSchedule, Render, RenderApp, RenderStartup, RenderSystems};

pub use images::ImageRefused;
pub use layerbatch_core::{Config, Counters};
pub use sprite::LayerbatchSprite;
pub use stats::{LayerbatchFrameStats, LayerbatchStats};

/// The plugin's systems, to order a game's own against (as Bevy's `SpriteSystems`). Each runs
/// only when the render world holds layerbatch's resources (the device gave a batcher).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayerbatchSystems {
    /// `PostUpdate`, after `AssetEventSystems`, before `VisibilitySystems::CalculateBounds`, in drop-in mode
    /// ([`SpriteMode::All`]): Bevy's `Sprite`s adopted, kept in step or given back.
    Adopt,
    /// `PostUpdate`, in `VisibilitySystems::CalculateBounds`: each sprite's `Aabb`.
    CalculateBounds,
    /// `ExtractSchedule`, after Bevy's image extraction: images synced, sprites extracted.
    Extract,
    /// `Render`, in `RenderSystems::Queue`: sprites queued into the views that see them.
    Queue,
    /// `Render`, in `RenderSystems::PrepareResourcesBatchPhases` (after Bevy batches the phase):
    /// one plan per run, prepared.
    Prepare,
}

/// Which of Bevy's own sprites layerbatch draws ([`LayerbatchPlugin::sprites`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpriteMode {
    /// Only [`LayerbatchSprite`]s; Bevy draws its `Sprite`s (the default).
    #[default]
    LayerbatchSprites,
    /// Drop-in: Bevy's own `Sprite`s too, every one layerbatch draws as Bevy does, with no
    /// change to the game (each gets a [`LayerbatchSprite`] twin kept in step with it, and
    /// Bevy's sprite renderer skips it). A `Sprite` layerbatch does not draw as Bevy does
    /// (see [`LayerbatchSprite::image_mode`]: tiled, scaled, sliced with tiles),
    /// with an alpha mode other than `Blend`, with an image in a format layerbatch does not
    /// hold, or showing the render target of a camera that sees it stays Bevy's: counted in
    /// [`LayerbatchFrameStats::sprites_left_to_bevy`] and warned about once.
    ///
    /// ```no_run
    /// use bevy::prelude::*;
    /// use bevy_layerbatch::{LayerbatchPlugin, SpriteMode};
    ///
    /// App::new()
    ///     .add_plugins((DefaultPlugins, LayerbatchPlugin { sprites: SpriteMode::All, ..default() }))
    ///     .run();
    /// ```
    All,
}

/// Adds layerbatch to a Bevy app with a render app (Bevy's `RenderPlugin` and
/// `Core2dPlugin`, i.e. the `bevy_render` and `bevy_core_pipeline` features). Without a
/// render app it only adds [`LayerbatchStats`], which then stays at zero.
#[derive(Clone, Copy, Debug, Default)]
pub struct LayerbatchPlugin {
    /// layerbatch's configuration (byte budget, slots, ...). Default: `Config::default()`.
    pub config: Config,
    /// Which sprites layerbatch draws: its own only, or Bevy's `Sprite`s too (drop-in).
    /// Default: [`SpriteMode::LayerbatchSprites`].
    pub sprites: SpriteMode,
}

impl Plugin for LayerbatchPlugin {
    fn build(&self, app: &mut App) {
        let stats = LayerbatchStats::default();
        // Loads of `*.basis.ktx2` asked for before `finish` wait for the loader made there.
        #[cfg(feature = "basis")]
        bevy::asset::AssetApp::preregister_asset_loader::<basis::BasisLoader>(app, &[basis::BASIS_EXTENSION]);
        app.insert_resource(stats.clone())
            // As Bevy's sprites: a render-world twin, so views can list the visible sprites.
            .register_required_components::<LayerbatchSprite, SyncToRenderWorld>()
            .configure_sets(PostUpdate, LayerbatchSystems::CalculateBounds.in_set(VisibilitySystems::CalculateBounds))
            .add_systems(PostUpdate, sprite::calculate_bounds.in_set(LayerbatchSystems::CalculateBounds));
        if self.sprites == SpriteMode::All {
            app.init_resource::<adopt::DropIn>().add_systems(
                PostUpdate,
                adopt::adopt_sprites
                    .in_set(LayerbatchSystems::Adopt)
                    // After Bevy gives a new `Sprite` its mesh (before the asset events).
                    .after(AssetEventSystems)
                    .before(VisibilitySystems::CalculateBounds),
            );
        }
        let Some(render_app) = app.get_sub_app_mut(RenderApp) else { return };
        let ready = resource_exists::<render::LayerbatchTextures>;
        render_app
            .insert_resource(stats)
            .add_systems(RenderStartup, render::init(self.config))
            .configure_sets(ExtractSchedule, LayerbatchSystems::Extract.after(AssetExtractionSystems).run_if(ready))
            // Queued before Bevy's sprite queue (which queues `Text2d` too), as Bevy's own
            // sprites are: where a sprite and a text share a z, the text is drawn over it, as
            // Bevy draws them (the phase's sort keeps the queue's order for equal keys).
            .configure_sets(
                Render,
                LayerbatchSystems::Queue
                    .in_set(RenderSystems::Queue)
                    .before(bevy::sprite_render::queue_sprites)
                    .run_if(ready),
            )
            // After Bevy's batching of the phase (in `PrepareResources`), which would give an
            // adopted sprite's item a batch of its own (its entity also has Bevy's sprite mesh)
            // and undo the runs made here.
            .configure_sets(
                Render,
                LayerbatchSystems::Prepare.in_set(RenderSystems::PrepareResourcesBatchPhases).run_if(ready),
            )
            .add_systems(
                ExtractSchedule,
                (render::sync_images, render::extract_sprites).chain().in_set(LayerbatchSystems::Extract),
            )
            .add_systems(
                Render,
                (
                    render::queue_sprites.in_set(LayerbatchSystems::Queue),
                    prepare::prepare_runs.in_set(LayerbatchSystems::Prepare),
                    render::count_phase_draws
                        .after(RenderSystems::PrepareBindGroups)
                        .before(RenderSystems::Render)
                        .run_if(ready),
                    render::publish_stats.in_set(RenderSystems::Cleanup).run_if(ready),
                ),
            );
    }

    fn finish(&self, app: &mut App) {
        // Once the render device is known (Bevy's render plugin finishes first): the loader
        // transcodes for its formats.
        #[cfg(feature = "basis")]
        {
            use bevy::asset::AssetApp;
            use bevy::image::{CompressedImageFormatSupport, CompressedImageFormats};
            let formats = app
                .world()
                .get_resource::<CompressedImageFormatSupport>()
                .map_or(CompressedImageFormats::NONE, |s| s.0);
            app.register_asset_loader(basis::BasisLoader::new(formats));
        }
        let Some(render_app) = app.get_sub_app_mut(RenderApp) else { return };
        if let Some(draw_functions) = render_app.world().get_resource::<DrawFunctions<Transparent2d>>() {
            draw_functions.write().add(render::DrawLayerbatch);
        } else {
            log::error!("layerbatch: no Transparent2d phase (Bevy's Core2dPlugin): layerbatch sprites are not drawn");
        }
    }
}
