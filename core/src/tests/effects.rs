//! Effects through core and the mock device: what instances carry, what is refused, and that
//! a hand-made plan naming an undeclared effect is refused by every executor's validator.

use super::register_n;
use crate::mock::Call;
use crate::plan::*;
use crate::walk::DrawStep;
use crate::*;

const EFFECTS: [Effect; 5] = Effect::BUILT_IN;

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
    let id = b.budget().effect_at(3).unwrap();
    b.state().set_effect(id, [0.5, 0.25, 1.0, 0.0]);
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    b.push_all(&[Quad::rect(ids[1], [0.0, 0.0], [8.0, 8.0]); 3]).unwrap();
    let mut mesh = Mesh::default();
    for p in [[0.0, 0.0], [9.0, 0.0], [0.0, 9.0]] {
        mesh.push_vertex(Vertex::new(p, [0.0, 0.0], [255; 4]));
    }
    mesh.push_triangle(0, 1, 2);
    b.push_mesh(ids[2], &mesh).unwrap();
    b.push_nine_slice(&NineSlice::new(ids[3], [0.0, 0.0, 40.0, 40.0], [4.0; 4])).unwrap();
    b.state().set_effect(EffectId::NONE, [0.0; 4]);
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.time_s, 2.5);
    let n = plan.instances.len();
    assert_eq!(n, 1 + 3 + 1 + 9 + 1);
    for i in plan.instances.range(0..n - 1) {
        assert_eq!((i.effect, i.effect_params), (3, [128, 64, 255, 0]), "{i:?}");
    }
    assert_eq!((plan.instances[n - 1].effect, plan.instances[n - 1].effect_params), (0, [0; 4]));
    b.begin_frame();
    assert_eq!(b.state().effect(), (EffectId::NONE, [0; 4]));
}

#[test]
fn effects_never_end_a_draw() {
    let (mut b, ids) = batcher();
    b.begin_frame();
    for k in 0..400u32 {
        let id = b.budget().effect_at(usize::from((k % 4) as u8)).unwrap_or(EffectId::NONE);
        b.state().set_effect(id, [(k % 7) as f32 / 7.0; 4]);
        b.push(&Quad::rect(ids[k as usize % 4], [k as f32, 0.0], [8.0, 8.0])).unwrap();
    }
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1);
    let mut dev = MockDevice::new(b.budget());
    dev.execute(b.plan()).unwrap();
    assert_eq!(dev.frame_counters().draw_calls, 1);
}

#[test]
fn ids_are_made_by_the_budget_and_parameters_clamped() {
    let (mut b, _) = batcher();
    b.begin_frame();
    // Ids: the budget makes them from its declared effects, and only those.
    let budget = b.budget().clone();
    assert_eq!(budget.effect_id(&Effect::OUTLINE), budget.effect_at(4));
    assert_eq!((budget.effect_at(0), budget.effect_at(6), budget.effect_at(256)), (None, None, None));
    let greyscale = budget.effect_id(&Effect::GREYSCALE).unwrap();
    assert_eq!(greyscale.index(), 2);
    // Parameters are clamped to 0..=1, NaN to 0.
    b.state().set_effect(greyscale, [0.0, f32::NAN, 1.5, -0.01]);
    assert_eq!(b.state().effect(), (greyscale, [0, 0, 255, 0]));
    // An id of a budget with more effects: this batcher draws no effect (said once at warn!).
    let mut plain = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    plain.begin_frame();
    plain.state().set_effect(greyscale, [0.5; 4]);
    assert_eq!(plain.state().effect().0, EffectId::NONE);
    let id = plain.textures().white().unwrap();
    plain.push(&Quad::rect(id, [0.0, 0.0], [1.0, 1.0])).unwrap();
    assert_eq!(plain.finish().instances[0].effect, 0);
    let mut dev = MockDevice::new(plain.budget());
    dev.execute(plain.plan()).unwrap();
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
    plan.instances[0].effect = 6;
    let mut dev = MockDevice::new(b.budget());
    assert_eq!(dev.execute(&plan), Err(PlanError::InstanceEffect { instance: 0, effect: 6, declared: 5 }));
    plan.instances[0].effect = 3 | Instance::EFFECT_LIT; // a bit this budget (no lights) lacks
    assert!(matches!(dev.execute(&plan), Err(PlanError::InstanceEffect { .. })));
    plan.instances[0].effect = 3;
    plan.segments[0].effects = true; // its segment takes the effect program
    dev.execute(&plan).unwrap();
}

#[test]
fn a_resident_layer_is_drawn_with_the_look_in_force_and_its_quads_are_not_rewritten() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_effects(&EFFECTS).with_lights(2)).unwrap();
    let ids = register_n(&mut b, &[(16, 16), (32, 32)], 4);
    let mut dev = MockDevice::new(b.budget());
    let layer = b.textures().create_resident(&[Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])]).unwrap();
    b.begin_frame();
    let id = b.budget().effect_at(2).unwrap();
    b.state().set_effect(id, [1.0, 0.2, 0.0, 1.0]);
    b.state().set_lit(true);
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    b.state().set_effect(EffectId::NONE, [0.0; 4]);
    b.state().set_lit(false);
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    let plan = b.finish().clone();
    // The quads on the device carry no look: the draw's state does.
    assert!(plan.resident_instances.iter().all(|i| i.effect == 0 && i.effect_params == [0; 4]));
    let residents: Vec<_> = plan.segments.iter().filter(|s| s.resident.is_some()).collect();
    assert_eq!(residents.len(), 2);
    let (lit, plain) = (plan.state(residents[0]), plan.state(residents[1]));
    assert_eq!((lit.look, lit.look_params), (2 | Instance::EFFECT_LIT, [255, 51, 0, 255]));
    assert_eq!((plain.look, plain.look_params), (0, [0; 4]));
    assert_eq!((residents[0].effects, residents[1].effects), (true, false));
    dev.execute(&plan).unwrap();
    // Drawn again with another look, nothing is written.
    b.begin_frame();
    let first = b.budget().effect_at(1).unwrap();
    b.state().set_effect(first, [0.5; 4]);
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    let again = b.finish().clone();
    assert!(again.resident_instances.is_empty() && again.ops.is_empty());
    dev.execute(&again).unwrap();

    // A look's effect needs the effect program; a look the budget cannot draw is a bad state.
    let mut hand = again.clone();
    hand.sequence += 1;
    hand.segments[0].effects = false;
    let e = dev.execute(&hand).unwrap_err();
    assert!(matches!(e, PlanError::SegmentEffects { segment: 0, instance: None }), "{e:?}");
    let mut hand = again.clone();
    hand.sequence += 1;
    hand.states[hand.segments[0].state as usize].look = 6;
    let e = dev.execute(&hand).unwrap_err();
    assert!(matches!(e, PlanError::BadState { segment: 0, .. }), "{e:?}");
}

#[test]
fn ramp_rows_reach_the_plan_once_and_come_back_after_a_restore() {
    let (mut b, _) = batcher();
    assert!(b.budget().ramp(), "the palette samples the ramp");
    let mut dev = MockDevice::new(b.budget());
    let row: Vec<[u8; 4]> = (0..16).map(|k| [k * 16, 0, 255 - k * 16, 255]).collect();
    b.textures().write_ramp_row(7, &row).unwrap();
    b.textures().write_ramp_row(7, &row[..4]).unwrap(); // rewritten before a plan: sent once
    b.textures().write_ramp_row(200, &[[1, 2, 3, 4]]).unwrap();
    assert_eq!(b.textures().ramp_row(7).map(|r| r[16 * 4 - 4..16 * 4].to_vec()), Some(vec![240, 0, 15, 255]));
    b.begin_frame();
    let plan = b.finish();
    assert_eq!(plan.ramp_writes.iter().map(|w| w.row).collect::<Vec<_>>(), [7, 200]);
    assert_eq!(plan.counters.ramp_rows_written, 2);
    let w = &plan.ramp_writes[0];
    assert_eq!(&plan.upload_bytes[w.bytes.start..w.bytes.start + 8], &[0, 0, 255, 255, 16, 0, 239, 255]);
    assert_eq!(w.bytes.len(), RAMP_WIDTH_PX as usize * 4);
    let layer_bytes: u64 = plan
        .ops
        .iter()
        .map(|op| match op {
            ResourceOp::WriteLayer { bytes, .. } => bytes.len() as u64,
            _ => 0,
        })
        .sum();
    dev.execute(plan).unwrap();
    assert_eq!(dev.counters().texture_bytes_written, layer_bytes + 2 * u64::from(RAMP_WIDTH_PX) * 4);
    assert_eq!(dev.calls().iter().filter(|c| matches!(c, Call::WriteRamp { .. })).count(), 2);
    // Nothing new: nothing sent.
    b.begin_frame();
    assert!(b.finish().ramp_writes.is_empty());
    // After a device loss the rows come back with the rebuild plan.
    let _ = b.restore();
    b.begin_frame();
    let mut fresh = MockDevice::new(b.budget());
    let plan = b.finish();
    assert!(plan.rebuild);
    assert_eq!(plan.ramp_writes.iter().map(|w| w.row).collect::<Vec<_>>(), [7, 200]);
    fresh.execute(plan).unwrap();
}

#[test]
fn bad_ramp_input_is_refused_with_its_terms() {
    let (mut b, _) = batcher();
    let mut dev = MockDevice::new(b.budget());
    assert_eq!(b.textures().write_ramp_row(3, &[]), Err(RampError::Colors { row: 3, colors: 0, max: 256 }));
    let long = vec![[0u8; 4]; 257];
    assert_eq!(
        b.textures().write_ramp_row(3, &long).unwrap_err().to_string(),
        "257 colours for ramp row 3: a row takes 1..=256"
    );
    b.begin_frame();
    assert!(b.finish().ramp_writes.is_empty(), "nothing written");
    dev.execute(b.plan()).unwrap();
    // No effect samples the ramp: there is none.
    let mut plain = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    assert!(!plain.budget().ramp());
    assert_eq!(plain.textures().write_ramp_row(0, &[[0; 4]]), Err(RampError::NoRamp { effects: 0 }));
    // A hand-made plan writing a ramp the budget lacks, or a short row, is refused.
    plain.begin_frame();
    let mut plan = plain.finish().clone();
    plan.upload_bytes = vec![0; 1024];
    plan.ramp_writes.push(RampWrite { row: 1, bytes: 0..1024 });
    let mut plain_dev = MockDevice::new(plain.budget());
    assert!(matches!(plain_dev.execute(&plan), Err(PlanError::Ramp { write: 0, row: 1, .. })));
    b.begin_frame();
    let mut plan = b.finish().clone();
    plan.upload_bytes = vec![0; 1024];
    plan.ramp_writes.push(RampWrite { row: 1, bytes: 0..1000 });
    let e = dev.execute(&plan).unwrap_err();
    assert_eq!(e.to_string(), "ramp write 0 (row 1, bytes 0..1000): a row of another size than RAMP_WIDTH_PX texels");
}

#[test]
fn a_ramp_takes_a_texture_unit_and_is_refused_when_none_is_left() {
    const PALETTE: [Effect; 1] = [Effect::PALETTE];
    let b = Budget::new(&Limits::desktop(), &Config::default().with_effects(&PALETTE)).unwrap();
    assert!(b.ramp());
    // Two units: one slot and the ramp. One unit: no room for both.
    let two = Limits::new(2, 256, 2048);
    let b = Budget::new(&two, &Config::default().with_effects(&PALETTE)).unwrap();
    assert_eq!((b.slots, b.ramp_unit()), (1, Some(1)));
    let e = Budget::new(&Limits::new(1, 256, 2048), &Config::default().with_effects(&PALETTE)).unwrap_err();
    assert_eq!(e, ConfigError::EffectSamplers { effect: "palette", needed: 2, lights: 0, texture_units: 1 });
    // Lit: one slot, its normal map and the ramp need 3.
    let e = Budget::new(&two, &Config::default().with_effects(&PALETTE).with_lights(2)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "effect \"palette\" samples the ramp: a program then needs 3 texture units (the ramp, one slot and its normal map) and the device has 2"
    );
    // An effect calling lb_ramp without with_ramp is declared as such.
    const MINE: Effect = Effect::new("mine", "return lb_ramp(0.0, 0.0);").with_ramp();
    const { assert!(MINE.ramp && !Effect::FLASH.ramp) };
}

#[test]
fn only_segments_with_an_effect_take_the_effect_program() {
    let (mut b, ids) = batcher();
    let mut dev = MockDevice::new(b.budget());
    assert_eq!(b.budget().programs_per_tier(), 2);
    assert_eq!(dev.counters().pipeline_compiles, 2 * b.budget().tiers.len() as u64);
    // No quad with an effect: the plain program, though effects are declared.
    b.begin_frame();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert!(!plan.segments[0].effects);
    dev.execute(plan).unwrap();
    assert!(dev.draw_steps().iter().any(|s| matches!(s, DrawStep::Program { effects: false, .. })));
    // One quad with an effect among plain ones: still one draw, with the effect program.
    b.begin_frame();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let id = b.budget().effect_at(1).unwrap();
    b.state().set_effect(id, [1.0; 4]);
    b.push(&Quad::rect(ids[1], [8.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1);
    assert!(plan.segments[0].effects);
    dev.execute(plan).unwrap();
    assert!(dev.draw_steps().iter().any(|s| matches!(s, DrawStep::Program { effects: true, .. })));
    // A hand-made plan drawing an effect with the plain program is refused, naming the quad.
    b.begin_frame();
    let id = b.budget().effect_at(2).unwrap();
    b.state().set_effect(id, [1.0; 4]);
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let mut plan = b.finish().clone();
    plan.segments[0].effects = false;
    assert_eq!(dev.execute(&plan), Err(PlanError::SegmentEffects { segment: 0, instance: Some(0) }));
    plan.segments[0].effects = true;
    dev.execute(&plan).unwrap();
    // Without declared effects there is no effect program to mark.
    let mut plain = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let tex = plain.textures().register(&TextureDesc::new(4, 4), &[255; 64]).unwrap();
    let mut plain_dev = MockDevice::new(plain.budget());
    assert_eq!(plain_dev.counters().pipeline_compiles, plain.budget().tiers.len() as u64);
    plain.begin_frame();
    plain.push(&Quad::rect(tex, [0.0, 0.0], [4.0, 4.0])).unwrap();
    let mut plan = plain.finish().clone();
    plan.segments[0].effects = true;
    let e = plain_dev.execute(&plan).unwrap_err();
    assert_eq!(e.to_string(), "segment 0: marked `effects` without declared effects, or drawing a resident layer");
}

#[test]
fn a_resident_layer_under_a_look_its_budget_cannot_draw_is_drawn_plain() {
    // A budget without effects or lights, an effect id of another budget, lit, parameters.
    let (other, _) = batcher();
    let foreign = other.budget().effect_at(3).unwrap();
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let ids = register_n(&mut b, &[(16, 16)], 2);
    let mut dev = MockDevice::new(b.budget());
    let layer = b.textures().create_resident(&[Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])]).unwrap();
    b.begin_frame();
    b.state().set_effect(foreign, [1.0; 4]);
    b.state().set_lit(true);
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    let plan = b.finish().clone();
    let seg = plan.segments.iter().find(|s| s.resident.is_some()).unwrap();
    assert_eq!((plan.state(seg).look, plan.state(seg).look_params, seg.effects), (0, [0; 4], false));
    dev.execute(&plan).unwrap();
}
