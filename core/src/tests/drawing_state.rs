//! One drawing state, saved and restored as a 2D canvas's: effects, lit, sort keys and clips
//! around nested saves in one frame, the instances' looks checked one by one.

use crate::plan::*;
use crate::*;

fn batcher() -> (Batcher, TextureId) {
    let config = Config::default().with_effects(&Effect::BUILT_IN).with_lights(4);
    let mut b = Batcher::new(Limits::desktop(), config).unwrap();
    let tex = b.textures().register(&TextureDesc::new(4, 4), &[255; 64]).unwrap();
    (b, tex)
}

/// A quad told apart by its tint's red.
fn quad(tex: TextureId, id: u8) -> Quad {
    Quad::rect(tex, [f32::from(id) * 8.0, 0.0], [4.0, 4.0]).with_color([id, 0, 0, 255])
}

#[test]
fn save_and_restore_bring_back_effect_lit_and_sort_key_in_one_draw() {
    let (mut b, tex) = batcher();
    b.begin_frame();
    b.push(&quad(tex, 1)).unwrap();
    b.state().save();
    let id = b.budget().effect_at(1).unwrap();
    b.state().set_effect(id, [0.5, 0.0, 0.0, 0.0]);
    b.state().set_lit(true);
    b.state().set_sort_key(SortKey::z(5));
    b.push(&quad(tex, 2)).unwrap();
    b.state().save();
    let id = b.budget().effect_at(2).unwrap();
    b.state().set_effect(id, [1.0, 0.0, 0.0, 0.0]);
    b.state().set_lit(false);
    b.state().set_sort_key(SortKey::z(-1));
    b.push(&quad(tex, 3)).unwrap();
    assert!(b.state().restore());
    assert_eq!(
        (b.state().effect().0, b.state().lit(), b.state().sort_key()),
        (b.budget().effect_at(1).unwrap(), true, SortKey::z(5))
    );
    b.push(&quad(tex, 4)).unwrap();
    assert!(b.state().restore());
    assert_eq!(
        (b.state().effect().0, b.state().lit(), b.state().sort_key()),
        (EffectId::NONE, false, SortKey::default())
    );
    b.push(&quad(tex, 5)).unwrap();
    assert!(!b.state().restore(), "nothing saved any more");
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1, "effects, lit and sort keys ride on each quad: one draw");
    // Sorted by key, stable: 3 (z -1), then 1 and 5 (z 0), then 2 and 4 (z 5).
    let order: Vec<u8> = plan.instances.iter().map(|i| i.color[0]).collect();
    assert_eq!(order, [3, 1, 5, 2, 4]);
    let look = |id: u8| {
        let i = plan.instances.iter().find(|i| i.color[0] == id).unwrap();
        (i.effect & Instance::EFFECT_MASK, i.effect & Instance::EFFECT_LIT != 0, i.effect_params[0])
    };
    assert_eq!(look(1), (0, false, 0));
    assert_eq!(look(2), (1, true, 128));
    assert_eq!(look(3), (2, false, 255));
    assert_eq!(look(4), look(2));
    assert_eq!(look(5), look(1));
}

#[test]
fn a_restored_clip_and_blend_draw_with_the_first_state_again() {
    let (mut b, tex) = batcher();
    b.begin_frame();
    b.state().set_transform([2.0, 0.0, 0.0, 2.0, 0.0, 0.0]);
    b.push(&quad(tex, 1)).unwrap();
    let first = b.state().draw_state();
    b.state().save();
    b.state().set_clip(Some([0, 0, 16, 16]));
    b.state().set_blend(BlendMode::Multiply);
    b.push(&quad(tex, 2)).unwrap();
    assert!(b.state().restore());
    assert_eq!(b.state().draw_state(), first);
    b.push(&quad(tex, 3)).unwrap();
    let plan = b.finish();
    // A clip and a blend mode are the segment's: a draw each side of the change.
    assert_eq!(plan.segments.len(), 3);
    let (s0, s1, s2) = (&plan.segments[0], &plan.segments[1], &plan.segments[2]);
    assert_eq!(s0.state, s2.state, "the restored state is the same state, not a copy");
    assert_eq!(plan.state(s1).clip_px, Some([0, 0, 16, 16]));
    assert_eq!(plan.state(s2), first);
}

#[test]
fn begin_frame_empties_the_saved_states_and_resets_the_state() {
    let (mut b, tex) = batcher();
    b.begin_frame();
    b.state().set_blend(BlendMode::Multiply);
    b.state().save();
    b.state().set_lit(true);
    b.push(&quad(tex, 1)).unwrap();
    b.finish();
    b.begin_frame();
    assert!(!b.state().restore(), "a frame's saves end with it");
    assert_eq!(
        (b.state().draw_state(), b.state().lit(), b.state().sort_key()),
        (DrawState::default(), false, SortKey::default())
    );
}

#[test]
fn the_tint_encoding_rides_on_quads_and_triangles_is_saved_and_resets_each_frame() {
    let (mut b, tex) = batcher();
    let srgb = |i: &Instance| i.flags() & Instance::FLAG_SRGB_TINT != 0;
    b.begin_frame();
    assert_eq!(b.state().tint_encoding(), TintEncoding::Linear);
    b.push(&quad(tex, 1)).unwrap();
    b.state().save();
    b.state().set_tint_encoding(TintEncoding::Srgb);
    b.push(&quad(tex, 2)).unwrap();
    let v = |x: f32| Vertex::new([x, 0.0], [0.0, 0.0], [17, 24, 39, 255]);
    b.push_triangles(tex, &[v(0.0), v(4.0), v(8.0)], &[0, 1, 2]).unwrap();
    // An effect set meanwhile keeps the encoding.
    let flash = b.budget().effect_at(1).unwrap();
    b.state().set_effect(flash, [0.5, 0.0, 0.0, 0.0]);
    b.push(&quad(tex, 3)).unwrap();
    assert!(b.state().restore());
    assert_eq!(b.state().tint_encoding(), TintEncoding::Linear);
    b.push(&quad(tex, 4)).unwrap();
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1, "the encoding breaks no draw");
    let flags: Vec<bool> = plan.instances.iter().map(srgb).collect();
    assert_eq!(flags, [false, true, true, true, false]);
    // The triangle's colour is carried as given: the shader decodes it.
    assert_eq!(plan.instances[2].color, [17, 24, 39, 255]);
    b.begin_frame();
    assert_eq!(b.state().tint_encoding(), TintEncoding::Linear, "a frame starts linear");
    b.state().set_tint_encoding(TintEncoding::Srgb);
    b.push(&quad(tex, 5)).unwrap();
    assert!(b.finish().instances.iter().all(srgb));
}

#[test]
fn srgb_tints_are_premultiplied_in_linear_light_then_encoded() {
    assert_eq!(srgb_tint([0.0, 0.0, 0.0, 0.0]), [0; 4]);
    assert_eq!(srgb_tint([1.0; 4]), [255; 4]);
    // sRGB 17/255 keeps its byte (linear it rounds to 1/255).
    assert_eq!(srgb_tint([17.0 / 255.0, 0.5, 1.0, 1.0]), [17, 128, 255, 255]);
    // Out of range is clamped.
    assert_eq!(srgb_tint([2.0, -1.0, 0.5, 2.0]), [255, 0, 128, 255]);
}
