//! A windowed run, for the check headless tests cannot make: layerbatch and Bevy sprites
//! interleaved in z in a real window, screenshotted, then the window resized and screenshotted
//! again. `cargo run --release --features window --example window` (X11; under Xvfb:
//! `xvfb-run -s "-screen 0 1024x768x24" ...`) writes `window-640x360.png` and
//! `window-800x450.png` and exits. In each, from left to right, each group is
//! layerbatch, Bevy, layerbatch up the z axis (red, checker, blue) and Bevy, layerbatch,
//! Bevy; after the resize the scene stays centred at the same size.

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::window::WindowResolution;
use bevy_layerbatch::headless::solid_image;
use bevy_layerbatch::{LayerbatchPlugin, LayerbatchSprite, LayerbatchStats};

fn main() {
    let window = Window { resolution: WindowResolution::new(640, 360).with_scale_factor_override(1.0), ..default() };
    App::new()
        .add_plugins((
            DefaultPlugins.set(WindowPlugin { primary_window: Some(window), ..default() }),
            LayerbatchPlugin::default(),
        ))
        .add_systems(Startup, setup)
        .add_systems(Update, script)
        .run();
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    commands.spawn(Camera2d);
    let red = images.add(solid_image(8, 8, [220, 40, 40, 255]));
    let blue = images.add(solid_image(8, 8, [40, 80, 230, 255]));
    let mut checker = solid_image(4, 4, [250, 250, 250, 255]);
    for (i, px) in checker.data.as_mut().unwrap().chunks_exact_mut(4).enumerate() {
        if (i % 4 < 2) != (i / 4 < 2) {
            px.copy_from_slice(&[240, 180, 20, 255]);
        }
    }
    let checker = images.add(checker);
    let size = Some(Vec2::splat(96.0));
    for (group, x) in [(0, -160.0), (1, 80.0)] {
        for (i, image) in [&red, &checker, &blue].into_iter().enumerate() {
            let at = Transform::from_xyz(x + 40.0 * i as f32, 30.0 - 30.0 * i as f32, i as f32);
            // Group 0: layerbatch, Bevy, layerbatch; group 1: the other way round.
            if (i % 2 == 0) == (group == 0) {
                commands
                    .spawn((LayerbatchSprite { custom_size: size, ..LayerbatchSprite::from_image(image.clone()) }, at));
            } else {
                commands.spawn((Sprite { custom_size: size, ..Sprite::from_image(image.clone()) }, at));
            }
        }
    }
}

/// Frame 30: a screenshot; 31: resize; 60: a screenshot; 70: exit.
fn script(
    mut commands: Commands,
    mut frame: Local<u32>,
    mut window: Single<&mut Window>,
    stats: Res<LayerbatchStats>,
    mut exit: MessageWriter<AppExit>,
) {
    *frame += 1;
    let shot = |commands: &mut Commands, window: &Window| {
        let path = format!("window-{}x{}.png", window.physical_width(), window.physical_height());
        commands.spawn(Screenshot::primary_window()).observe(save_to_disk(path));
    };
    match *frame {
        30 | 60 => {
            shot(&mut commands, &window);
            let s = stats.frame();
            println!(
                "frame {}: {} layerbatch sprites in {} plans, {} draw calls",
                *frame, s.sprites, s.plans, s.device_draw_calls
            );
        }
        31 => window.resolution.set(800.0, 450.0),
        70 => {
            exit.write(AppExit::Success);
        }
        _ => {}
    }
}
