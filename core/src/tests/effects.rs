//! Effects through core and the mock device: what instances carry, what is refused, and that
//! a hand-made plan naming an undeclared effect is refused by every executor's validator.

use super::register_n;
use crate::*;

const EFFECTS: [Effect; 4] = Effect::BUILT_IN;

fn batcher() -> (Batcher, Vec<TextureId>) {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_effects(&EFFECTS)).unwrap();
    let ids = register_n(&mut b, &[(16, 16), (32, 32)], 4);
    (b, ids)
}

#[test]
fn every_kind_of_item_carries_the_effect_in_force_and_a_frame_starts_without() {
    let (mut b, ids) = batcher();
    b.set_time_s(2.5);
    b.begin_frame();
    b.set_effect(EffectId(3), [0.5, 0.25, 1.0, 0.0]).unwrap();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    b.push_all(&[Quad::rect(ids[1], [0.0, 0.0], [8.0, 8.0]); 3]).unwrap();
    let mut mesh = Mesh::default();
    for p in [[0.0, 0.0], [9.0, 0.0], [0.0, 9.0]] {
        mesh.push_vertex(Vertex::new(p, [0.0, 0.0], [255; 4]));
    }
    mesh.push_triangle(0, 1, 2);
    b.push_mesh(ids[2], &mesh).unwrap();
    b.push_nine_slice(&NineSlice::new(ids[3], [0.0, 0.0, 40.0, 40.0], [4.0; 4])).unwrap();
    b.set_effect(EffectId::NONE, [0.0; 4]).unwrap();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.time_s, 2.5);
    let n = plan.instances.len();
    assert_eq!(n, 1 + 3 + 1 + 9 + 1);
    for i in &plan.instances[..n - 1] {
        assert_eq!((i.effect, i.effect_params), (3, [128, 64, 255, 0]), "{i:?}");
    }
    assert_eq!((plan.instances[n - 1].effect, plan.instances[n - 1].effect_params), (0, [0; 4]));
    b.begin_frame();
    assert_eq!(b.effect(), (EffectId::NONE, [0; 4]));
}

#[test]
fn effects_never_end_a_draw() {
    let (mut b, ids) = batcher();
    b.begin_frame();
    for k in 0..400u32 {
        b.set_effect(EffectId((k % 4) as u8), [(k % 7) as f32 / 7.0; 4]).unwrap();
        b.push(&Quad::rect(ids[k as usize % 4], [k as f32, 0.0], [8.0, 8.0])).unwrap();
    }
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1);
    let mut dev = MockDevice::new(b.budget());
    dev.execute(b.plan()).unwrap();
    assert_eq!(dev.frame_counters().draw_calls, 1);
}

#[test]
fn bad_effects_are_refused_and_change_nothing() {
    let (mut b, _) = batcher();
    b.begin_frame();
    b.set_effect(EffectId(2), [0.5; 4]).unwrap();
    let before = b.effect();
    assert_eq!(b.set_effect(EffectId(5), [0.0; 4]), Err(EffectError::Undeclared { effect: EffectId(5), declared: 4 }));
    assert_eq!(
        b.set_effect(EffectId(1), [0.0, f32::NAN, 0.0, 0.0]).unwrap_err().to_string(),
        "effect parameter 1 is NaN: parameters are 0.0..=1.0"
    );
    assert_eq!(b.set_effect(EffectId(1), [0.0, 0.0, 1.5, 0.0]), Err(EffectError::Parameter { index: 2, value: 1.5 }));
    assert!(b.set_effect(EffectId(1), [-0.01, 0.0, 0.0, 0.0]).is_err());
    assert_eq!(b.effect(), before);
    // A batcher without effects refuses every id but none.
    let mut plain = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    assert!(plain.set_effect(EffectId(1), [0.0; 4]).is_err());
    assert!(plain.set_effect(EffectId::NONE, [0.0; 4]).is_ok());
    // Too many effects: a config error naming the numbers.
    static MANY: [Effect; 33] = [Effect::FLASH; 33];
    let e = Batcher::new(Limits::desktop(), Config::default().with_effects(&MANY)).unwrap_err();
    assert_eq!(e, ConfigError::TooManyEffects { effects: 33, max: MAX_EFFECTS });
    // Time: non-finite is 0.
    b.set_time_s(f32::INFINITY);
    assert_eq!(b.finish().time_s, 0.0);
}

#[test]
fn a_plan_naming_an_undeclared_effect_is_refused() {
    let (mut b, ids) = batcher();
    b.begin_frame();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let mut plan = b.finish().clone();
    plan.instances[0].effect = 5;
    let mut dev = MockDevice::new(b.budget());
    assert_eq!(dev.execute(&plan), Err(PlanError::InstanceEffect { instance: 0, effect: 5, declared: 4 }));
    plan.instances[0].effect = 3 | 1 << 8; // a bit past the id
    assert!(matches!(dev.execute(&plan), Err(PlanError::InstanceEffect { .. })));
    plan.instances[0].effect = 3;
    dev.execute(&plan).unwrap();
}

#[test]
fn resident_layers_draw_without_effects() {
    let (mut b, ids) = batcher();
    b.begin_frame();
    b.set_effect(EffectId(1), [1.0; 4]).unwrap();
    let layer = b.create_resident(&[Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])]).unwrap();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    let plan = b.finish();
    assert!(plan.resident_instances.iter().all(|i| i.effect == 0 && i.effect_params == [0; 4]));
}
