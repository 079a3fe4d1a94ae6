//! A game's first frame without a window: one layerbatch sprite drawn into an image by a 2D
//! camera, read back. The README's headless snippet (a test checks that they are the same).
use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy_layerbatch::headless::{self, read_image, solid_image, target_image};
use bevy_layerbatch::{LayerbatchPlugin, LayerbatchSprite, LayerbatchStats};

fn main() {
    let mut app = App::new();
    // Bevy's default plugins without a window, rendering when `update` returns.
    app.add_plugins((headless::default_plugins(false), LayerbatchPlugin::default()));
    headless::start(&mut app);
    let world = app.world_mut();
    let mut images = world.resource_mut::<Assets<Image>>();
    let frame = images.add(target_image(320, 180));
    let red = images.add(solid_image(16, 16, [220, 40, 40, 255]));
    world.spawn((Camera2d, RenderTarget::Image(frame.clone().into())));
    world.spawn((LayerbatchSprite::from_image(red).with_custom_size(Vec2::splat(64.0)), Transform::default()));
    for _ in 0..3 {
        app.update();
    }
    let (size, pixels) = read_image(&mut app, &frame).expect("the camera's image is on the GPU");
    let centre = ((size.y / 2 * size.x + size.x / 2) * 4) as usize;
    let stats = app.world().resource::<LayerbatchStats>().frame();
    println!(
        "{} sprite, {} draw call, centre pixel {:?}",
        stats.sprites,
        stats.device_draw_calls,
        &pixels[centre..][..4]
    );
}
