//! Lights through core and the mock device: the cap and its priority, the normal-map
//! siblings and their writes, and every bad input refused with its terms.

use super::register_n;
use crate::mock::Call;
use crate::plan::*;
use crate::validate::PlanValidator;
use crate::*;

fn batcher(lights: u32, keep_pixels: bool) -> (Batcher, Vec<TextureId>) {
    let config = Config { keep_pixels, ..Config::default() }.with_lights(lights);
    let mut b = Batcher::new(Limits::desktop(), config).unwrap();
    let ids = register_n(&mut b, &[(16, 16), (32, 8), (300, 200)], 6);
    (b, ids)
}

fn light(priority: i32) -> PointLight {
    PointLight::new([priority as f32, 0.0], 50.0, [1.0; 3]).with_priority(priority)
}

#[test]
fn nine_lights_with_a_cap_of_eight_drop_the_lowest_priority_and_count_it() {
    let (mut b, ids) = batcher(8, false);
    let mut dev = MockDevice::new(b.budget());
    for n in [1, 8, 9] {
        b.begin_frame();
        // Priorities 4, 7, 1, 8, 0, ... : the 0 goes when there are 9.
        for k in 0..n {
            b.add_light(light((k * 4 + 4) % 9)).unwrap();
        }
        b.state().set_lit(true);
        b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
        let plan = b.finish();
        let kept: Vec<i32> = plan.lights.iter().map(|l| l.priority).collect();
        let expected: Vec<i32> = (0..n).map(|k| (k * 4 + 4) % 9).filter(|&p| n < 9 || p != 0).collect();
        assert_eq!(kept, expected, "{n} lights: the kept ones in the order added");
        assert_eq!((plan.counters.lights, plan.counters.lights_dropped), (n.min(8) as u64, (n > 8) as u64));
        assert_eq!(plan.segments.len(), 1);
        dev.execute(plan).unwrap();
    }
    assert_eq!(b.finish().lights.len(), 0, "lights last one frame");
}

#[test]
fn lit_and_unlit_quads_share_a_draw_and_lit_survives_effect_changes() {
    const EFFECTS: [Effect; 5] = Effect::BUILT_IN;
    let config = Config::default().with_lights(4).with_effects(&EFFECTS);
    let mut b = Batcher::new(Limits::desktop(), config).unwrap();
    let ids = register_n(&mut b, &[(16, 16)], 2);
    b.textures().register_normal_map(ids[0], &[128, 128, 255, 255].repeat(16 * 16)).unwrap();
    b.begin_frame();
    b.state().set_lit(true);
    let id = b.budget().effect_at(2).unwrap();
    b.state().set_effect(id, [1.0; 4]);
    assert!(b.state().lit() && b.state().effect().0.index() == 2);
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    b.push(&Quad::rect(ids[1], [0.0, 0.0], [8.0, 8.0])).unwrap();
    b.state().set_lit(false);
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1);
    let i = &plan.instances;
    assert_eq!([i[0].effect, i[1].effect, i[2].effect], [Instance::EFFECT_LIT | 2, Instance::EFFECT_LIT | 2, 2]);
    let normal = |k: usize| i[k].flags() & Instance::FLAG_NORMAL_MAP != 0;
    assert_eq!([normal(0), normal(1), normal(2)], [true, false, true]);
    assert_eq!(plan.ambient, [1.0; 3], "unlit-looking until the lights go down");
}

#[test]
fn normal_maps_live_in_siblings_that_follow_their_arrays() {
    let (mut b, ids) = batcher(8, false);
    let mut dev = MockDevice::new(b.budget());
    let flat = |w: u32, h: u32| [128, 128, 255, 255].repeat((w * h) as usize);
    b.textures().register_normal_map(ids[0], &flat(16, 16)).unwrap();
    b.textures().register_normal_map(ids[2], &flat(300, 200)).unwrap();
    b.begin_frame();
    let plan = b.finish();
    let arrays: Vec<_> = plan.created_arrays().collect();
    assert!(!arrays.is_empty() && arrays.iter().all(|(_, d)| d.normal_map), "{arrays:?}");
    let normal_writes: Vec<_> = plan
        .ops
        .iter()
        .filter_map(|op| match op {
            ResourceOp::WriteLayer { texture, normal_map: true, bytes, .. } => Some((*texture, bytes.len())),
            _ => None,
        })
        .collect();
    assert_eq!(normal_writes, [(ids[0], 16 * 16 * 4), (ids[2], 300 * 200 * 4)]);
    dev.execute(plan).unwrap();
    // Every array was created with its sibling, and the normal maps went to the siblings.
    let created = |a: ArrayId| dev.calls().iter().any(|c| matches!(c, Call::CreateArray { array, .. } if *array == a));
    for (a, _) in &arrays {
        assert!(created(*a) && created(a.normal_map()), "{a:?}");
    }
    let into_sibling = dev
        .calls()
        .iter()
        .filter(|c| matches!(c, Call::WriteLevel { array, .. } if array.0 & ArrayId::NORMAL_MAP_BIT != 0))
        .count();
    assert_eq!(into_sibling, 2);
    // Bytes: each array counts its sibling (RGBA8, same size).
    for (_, d) in &arrays {
        assert_eq!(d.bytes(), 2 * ArrayDesc { normal_map: false, ..*d }.bytes());
    }
    // Growth of a page array carries the sibling along.
    let more = register_n(&mut b, &[(64, 64)], 40);
    b.textures().register_normal_map(more[39], &flat(64, 64)).unwrap();
    b.begin_frame();
    dev.execute(b.finish()).unwrap();
    let copies_into_siblings = dev
        .calls()
        .iter()
        .filter(|c| matches!(c, Call::CopyLayers { to, .. } if to.0 & ArrayId::NORMAL_MAP_BIT != 0))
        .count();
    let copies = dev.calls().iter().filter(|c| matches!(c, Call::CopyLayers { .. })).count();
    assert_eq!(copies, 2 * copies_into_siblings, "every growth copied its sibling too");
}

#[test]
fn bad_lights_and_normal_maps_are_refused_with_their_terms_and_change_nothing() {
    let (mut b, ids) = batcher(8, false);
    b.begin_frame();
    let bad = |l: PointLight| l;
    assert_eq!(
        b.add_light(bad(PointLight::new([0.0; 2], -5.0, [1.0; 3]))),
        Err(LightError::Radius { radius_px: -5.0 })
    );
    assert!(matches!(b.add_light(PointLight::new([f32::NAN, 0.0], 5.0, [1.0; 3])), Err(LightError::Position { .. })));
    assert_eq!(
        b.add_light(PointLight::new([0.0; 2], 5.0, [1.0, -1.0, 0.0])),
        Err(LightError::Color { color: [1.0, -1.0, 0.0] })
    );
    assert!(matches!(
        b.add_light(PointLight::new([0.0; 2], 5.0, [1.0; 3]).with_falloff(f32::INFINITY)),
        Err(LightError::Falloff { .. })
    ));
    assert_eq!(b.set_ambient([f32::NAN, 0.0, 0.0]).map_err(|_| ()), Err(()));
    let err = b.textures().register_normal_map(ids[0], &[0; 15 * 16 * 4]).unwrap_err();
    assert_eq!(
        err,
        TextureError::NormalMapSize {
            texture: ids[0],
            width_px: 16,
            height_px: 16,
            normal_bytes: 15 * 16 * 4,
            expected_bytes: 16 * 16 * 4
        }
    );
    assert!(err.to_string().contains("16x16"), "{err}");
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert!(plan.lights.is_empty() && plan.ambient == [1.0; 3], "nothing bad got in");
    assert_eq!(plan.instances[0].flags() & Instance::FLAG_NORMAL_MAP, 0, "no normal map was taken");
    // A stale id; a batcher without lights.
    b.textures().free(ids[1]).unwrap();
    assert_eq!(b.textures().register_normal_map(ids[1], &[0; 32 * 8 * 4]), Err(TextureError::Stale(ids[1])));
    let mut unlit = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    // Without lights nothing is lit: set_lit(true) leaves quads as they are.
    unlit.state().set_lit(true);
    assert!(!unlit.state().lit());
    let unlit_tex = unlit.textures().register(&TextureDesc::new(2, 2), &[255; 16]).unwrap();
    assert_eq!(
        unlit.textures().register_normal_map(unlit_tex, &[128, 128, 255, 255].repeat(4)),
        Err(TextureError::NormalMapWithoutLights { texture: unlit_tex })
    );
    assert_eq!(unlit.add_light(light(0)), Err(LightError::Off));
    assert!(matches!(
        Budget::new(&Limits::desktop(), &Config::default().with_lights(17)),
        Err(ConfigError::TooManyLights { lights: 17, max: 16 })
    ));
}

#[test]
fn compressed_textures_take_no_normal_map() {
    let limits = Limits::desktop().with_format_families(FormatFamilies::RGBA8.with(FormatFamily::Bc));
    let mut b = Batcher::new(limits, Config::default().with_lights(2)).unwrap();
    let bc = b.textures().register(&TextureDesc::new(8, 8).with_format(Format::Bc1RgbaUnorm), &[0; 4 * 8]).unwrap();
    assert_eq!(
        b.textures().register_normal_map(bc, &[0; 8 * 8 * 4]),
        Err(TextureError::NormalMapUnsupported { texture: bc, format: Format::Bc1RgbaUnorm, render_target: false })
    );
    b.begin_frame();
    let plan = b.finish();
    assert!(plan.created_arrays().all(|(_, d)| !d.normal_map));
}

#[test]
fn hand_made_plans_with_bad_lights_or_bits_are_refused_by_the_validator() {
    let (mut b, ids) = batcher(2, false);
    b.begin_frame();
    b.state().set_lit(true);
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let good = b.finish().clone();
    let check = |edit: &dyn Fn(&mut FramePlan)| {
        let mut p = good.clone();
        edit(&mut p);
        PlanValidator::new(b.budget()).check(&p)
    };
    assert_eq!(check(&|_| {}), Ok(()));
    assert!(matches!(
        check(&|p| p.lights = vec![light(0); 3]),
        Err(PlanError::Lights { lights: 3, max_lights: 2, .. })
    ));
    assert!(matches!(
        check(&|p| p.lights = vec![PointLight::new([0.0; 2], -1.0, [1.0; 3])]),
        Err(PlanError::Lights { light: Some(0), .. })
    ));
    assert!(matches!(check(&|p| p.ambient = [f32::NAN; 3]), Err(PlanError::Lights { light: None, .. })));
    // Every bit of the look word means something now (id, lit, colour offset): an id past
    // the declared effects is what a bad word can say, and it is refused.
    assert!(matches!(
        check(&|p| p.instances[0].effect |= Instance::EFFECT_MASK),
        Err(PlanError::InstanceEffect { .. })
    ));
    // The colour offset's bytes may hold anything.
    assert!(check(&|p| p.instances[0].effect |= u32::MAX << Instance::COLOR_OFFSET_SHIFT).is_ok());
    // The normal-map flag on an instance whose array has no sibling.
    let mut unlit = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let id = register_n(&mut unlit, &[(16, 16)], 1)[0];
    unlit.begin_frame();
    unlit.push(&Quad::rect(id, [0.0, 0.0], [8.0, 8.0])).unwrap();
    let mut p = unlit.finish().clone();
    p.instances[0].slot_flags_layer |= Instance::FLAG_NORMAL_MAP << Instance::FLAGS_SHIFT;
    assert!(matches!(PlanValidator::new(unlit.budget()).check(&p), Err(PlanError::InstanceEffect { .. })));
    p.instances[0].slot_flags_layer &= !(Instance::FLAG_NORMAL_MAP << Instance::FLAGS_SHIFT);
    p.instances[0].effect = Instance::EFFECT_LIT;
    assert!(matches!(PlanValidator::new(unlit.budget()).check(&p), Err(PlanError::InstanceEffect { .. })));
}

#[test]
fn restore_brings_normal_maps_back_from_their_copies() {
    let (mut b, ids) = batcher(8, true);
    let normals: Vec<u8> = (0..16 * 16 * 4).map(|i| (i % 251) as u8).collect();
    b.textures().register_normal_map(ids[0], &normals).unwrap();
    b.begin_frame();
    let _ = b.finish();
    assert!(b.restore().is_empty(), "everything comes back from the copies");
    b.begin_frame();
    let plan = b.finish();
    let back: Vec<&[u8]> = plan
        .ops
        .iter()
        .filter(|op| matches!(op, ResourceOp::WriteLayer { normal_map: true, .. }))
        .map(|op| plan.upload(op))
        .collect();
    assert_eq!(back, [&normals[..]]);
    b.begin_frame();
    b.state().set_lit(true);
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    assert_ne!(b.finish().instances[0].flags() & Instance::FLAG_NORMAL_MAP, 0);
}
