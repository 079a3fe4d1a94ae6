//! The input each example is played with, as a player would give it: keys held over counted
//! frames and a cursor over the window, so the frames compared show what the example does
//! when played (an animation started, a ship turned, a viewport moved and zoomed).

use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use crate::Config;
use crate::capture::FrameNumber;

/// (example, key, first frame held, last frame held).
const KEYS: &[(&str, KeyCode, u32, u32)] = &[
    ("sprite_animation", KeyCode::ArrowRight, 2, 2),
    ("sprite_animation", KeyCode::ArrowLeft, 30, 30),
    ("rotation", KeyCode::ArrowUp, 1, 45),
    ("rotation", KeyCode::ArrowLeft, 10, 30),
    ("2d_viewport_to_world", KeyCode::ArrowRight, 1, 10),
    ("2d_viewport_to_world", KeyCode::Comma, 5, 20),
    ("2d_viewport_to_world", KeyCode::KeyD, 10, 25),
    ("2d_viewport_to_world", KeyCode::KeyK, 15, 25),
];

/// (example, cursor position in logical pixels from the window's top left).
const CURSOR: &[(&str, Vec2)] = &[("2d_viewport_to_world", Vec2::new(700.0, 300.0))];

/// After Bevy's input systems: this frame's key presses and releases, and the cursor.
pub(crate) fn play(
    config: Res<'_, Config>,
    frame: Res<'_, FrameNumber>,
    mut keys: ResMut<'_, ButtonInput<KeyCode>>,
    mut window: Query<'_, '_, &mut Window, With<PrimaryWindow>>,
) {
    let frame = frame.0;
    if frame == 0 {
        return;
    }
    for &(example, key, first, last) in KEYS {
        if example != config.example {
            continue;
        }
        if frame == first {
            keys.press(key);
        } else if frame == last + 1 {
            keys.release(key);
        }
    }
    for &(example, at) in CURSOR {
        if example == config.example
            && let Ok(mut window) = window.single_mut()
            && window.cursor_position() != Some(at)
        {
            window.set_cursor_position(Some(at));
        }
    }
}
