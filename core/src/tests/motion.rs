//! Moving layers through the mock device: 16 bytes a moving sprite a frame, the static half
//! written only when it changes, motions on the device where the host put them, bad input
//! refused with nothing changed, and the motion texture's rectangles.

use super::register_n;
use crate::mock::Call;
use crate::plan::*;
use crate::test_rng::Rng;
use crate::*;

fn sprites(b: &mut Batcher, n: usize) -> (Vec<Quad>, ResidentId) {
    let ids = register_n(b, &[(16, 16), (24, 40), (300, 200)], 12);
    let quads: Vec<Quad> = (0..n).map(|i| Quad::rect(ids[i % ids.len()], [-8.0, -8.0], [16.0, 16.0])).collect();
    let layer = b.textures().create_moving(&quads).unwrap();
    (quads, layer)
}

fn draw(b: &mut Batcher, dev: &mut MockDevice, layer: ResidentId) -> DeviceCounters {
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    dev.execute(b.finish()).unwrap();
    dev.frame_counters()
}

fn at(i: usize, frame: usize) -> Motion {
    Motion::new([i as f32 * 1.5, frame as f32], frame as f32 * 0.1, 1.0 + i as f32 / 1000.0)
}

#[test]
fn a_moving_sprite_costs_16_bytes_a_frame_and_the_static_half_nothing() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let n = 5000;
    let (_, layer) = sprites(&mut b, n);
    for frame in 0..4 {
        let motions: Vec<Motion> = (0..n).map(|i| at(i, frame)).collect();
        b.textures().move_sprites(layer, 0, &motions).unwrap();
        let c = draw(&mut b, &mut dev, layer);
        assert_eq!(c.motion_bytes_written, n as u64 * 16, "frame {frame}");
        assert_eq!(c.resident_bytes_written, if frame == 0 { n as u64 * 64 } else { 0 });
        assert_eq!(b.plan().counters.motions_written, n as u64);
        assert_eq!(c.draw_calls, 1);
        assert!((0..n).all(|i| dev.motion(layer, i as u32) == Some(motions[i])));
    }
    // A frame that moves nothing uploads nothing.
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!((c.motion_bytes_written, c.resident_bytes_written), (0, 0));
    // A few moved: only their range.
    b.textures().move_sprites(layer, 100, &[Motion::at([1.0, 2.0]); 3]).unwrap();
    b.textures().move_sprites(layer, 110, &[Motion::at([3.0, 4.0]); 2]).unwrap();
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!(c.motion_bytes_written, 12 * 16);
    assert_eq!(dev.motion(layer, 111), Some(Motion::at([3.0, 4.0])));
    let writes = dev.calls().iter().filter(|c| matches!(c, Call::WriteMotion { .. })).count();
    assert!(writes > 0);
}

#[test]
fn bad_motions_are_refused_and_change_nothing() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let (quads, layer) = sprites(&mut b, 10);
    let still = b.textures().create_resident(&quads).unwrap();
    let before = b.textures().motions(layer).unwrap().to_vec();
    let mut bad = vec![Motion::at([1.0, 1.0]); 4];
    bad[2].rotation_scale[0] = f32::INFINITY;
    assert!(matches!(b.textures().move_sprites(layer, 0, &bad), Err(ResidentError::BadMotion { index: 2, .. })));
    bad[2] = Motion::at([f32::NAN, 0.0]);
    assert!(matches!(b.textures().move_sprites(layer, 0, &bad), Err(ResidentError::BadMotion { index: 2, .. })));
    let ok = [Motion::default(); 4];
    assert!(matches!(
        b.textures().move_sprites(layer, 7, &ok),
        Err(ResidentError::OutOfRange { first: 7, count: 4, len: 10 })
    ));
    assert!(matches!(b.textures().move_sprites(layer, u32::MAX, &ok), Err(ResidentError::OutOfRange { .. })));
    assert_eq!(b.textures().move_sprites(still, 0, &ok), Err(ResidentError::NotMoving(still)));
    assert_eq!(b.textures().motions(layer).unwrap(), &before[..]);
    let c = draw(&mut b, &mut dev, layer);
    // The layer's creation writes every motion, at rest; nothing refused reached the device.
    assert_eq!(c.motion_bytes_written, 10 * 16);
    assert!((0..10).all(|i| dev.motion(layer, i) == Some(Motion::default())));
    b.textures().destroy_resident(layer).unwrap();
    assert_eq!(b.textures().move_sprites(layer, 0, &ok), Err(ResidentError::Stale(layer)));
    // Past what the device's largest texture holds: an error naming the limit.
    let small = Limits::guaranteed_minimum().with_max_texture_size_px(4);
    let mut b = Batcher::new(small, Config::default().with_budget_bytes(1 << 30)).unwrap();
    let ids = register_n(&mut b, &[(4, 4)], 1);
    let many = vec![Quad::rect(ids[0], [0.0, 0.0], [4.0, 4.0]); 4097];
    assert_eq!(
        b.textures().create_moving(&many),
        Err(ResidentError::TooManySprites { sprites: 4097, max_sprites: 4096, max_texture_size_px: 4 })
    );
    assert!(b.textures().create_moving(&many[..4096]).is_ok());
}

#[test]
fn motions_outlive_replace_restore_and_a_lost_device() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let (quads, layer) = sprites(&mut b, 1500);
    let motions: Vec<Motion> = (0..1500).map(|i| at(i, 3)).collect();
    b.textures().move_sprites(layer, 0, &motions).unwrap();
    draw(&mut b, &mut dev, layer);
    // Replaced by fewer quads: the first motions stay, written whole with the new buffer.
    b.textures().replace_resident(layer, &quads[..1200]).unwrap();
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!(c.motion_bytes_written, 1200 * 16);
    assert!((0..1200).all(|i| dev.motion(layer, i as u32) == Some(motions[i])));
    // More quads: the new ones at rest.
    b.textures().replace_resident(layer, &quads).unwrap();
    draw(&mut b, &mut dev, layer);
    assert_eq!(dev.motion(layer, 1499), Some(Motion::default()));
    assert_eq!(dev.motion(layer, 5), Some(motions[5]));
    // A lost device: a new one gets every motion again.
    b.restore();
    let mut dev = MockDevice::new(b.budget());
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!(c.motion_bytes_written, 1500 * 16);
    assert_eq!(dev.motion(layer, 5), Some(motions[5]));
    let held = dev.counters().resident_bytes_held;
    assert_eq!(held, 1500 * 64 + 1024 * 2 * 16, "the buffer and a motion texture of two rows");
    assert_eq!(b.textures().resident_bytes(), held);
}

#[test]
fn motions_of_a_layer_a_plan_of_this_host_frame_drew_wait_for_the_next() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let (_, layer) = sprites(&mut b, 8);
    b.end_frame();
    draw(&mut b, &mut dev, layer);
    // Two plans in one host frame (two cameras): the second must not move what the first drew.
    b.textures().move_sprites(layer, 0, &[Motion::at([5.0, 5.0]); 8]).unwrap();
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!(c.motion_bytes_written, 0);
    assert_eq!(dev.motion(layer, 0), Some(Motion::default()));
    b.end_frame();
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!(c.motion_bytes_written, 8 * 16);
    assert_eq!(dev.motion(layer, 7), Some(Motion::at([5.0, 5.0])));
}

#[test]
fn motion_rects_cover_every_range_exactly_once() {
    let mut rng = Rng(0x6d6f_7665);
    for _ in 0..2000 {
        let first = rng.below(5000) as u32;
        let count = rng.below(5000) as u32;
        let mut covered = Vec::new();
        let mut next = 0;
        for (rect, range) in motion_rects(first, count) {
            let [x, y, w, h] = rect;
            assert!(w >= 1 && h >= 1 && x + w <= MOTION_ROW_TEXELS, "{rect:?}");
            assert!(h == 1 || (x == 0 && w == MOTION_ROW_TEXELS), "{rect:?}");
            assert_eq!((range.start, range.end - range.start), (next, w * h));
            next = range.end;
            for row in y..y + h {
                covered.extend((x..x + w).map(|c| row * MOTION_ROW_TEXELS + c));
            }
        }
        assert_eq!(covered, (first..first + count).collect::<Vec<u32>>());
        assert!(motion_rects(first, count).count() <= 3);
    }
}

#[test]
fn a_layer_moved_whole_is_lent_to_the_plan_and_taken_back_intact() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let (quads, layer) = sprites(&mut b, 3000);
    let (_, other) = sprites(&mut b, 50);
    for frame in 0..3 {
        let all: Vec<Motion> = (0..3000).map(|i| at(i, frame)).collect();
        b.textures().move_sprites(layer, 0, &all).unwrap();
        let c = draw(&mut b, &mut dev, layer);
        assert_eq!(c.motion_bytes_written, if frame == 0 { (3000 + 50) * 16 } else { 3000 * 16 });
        // Lent: the plan holds the layer's own motions; reading them is still right.
        assert_eq!(b.textures().motions(layer).unwrap(), &all[..]);
        assert_eq!(dev.motion(layer, 2999), Some(all[2999]));
        // A part moved next: taken back, changed, and only that part written.
        b.textures().move_sprites(layer, 10, &[Motion::at([1.0, 1.0])]).unwrap();
        let c = draw(&mut b, &mut dev, layer);
        assert_eq!(c.motion_bytes_written, 16);
        let mut want = all.clone();
        want[10] = Motion::at([1.0, 1.0]);
        assert_eq!(b.textures().motions(layer).unwrap(), &want[..]);
        assert!((0..3000).all(|i| dev.motion(layer, i as u32) == Some(want[i])));
        assert_eq!(b.textures().motions(other).unwrap().len(), 50);
    }
    // Lent, then replaced, restored, destroyed: nothing of it is lost or misplaced.
    let all: Vec<Motion> = (0..3000).map(|i| at(i, 9)).collect();
    b.textures().move_sprites(layer, 0, &all).unwrap();
    draw(&mut b, &mut dev, layer);
    b.textures().replace_resident(layer, &quads[..2000]).unwrap();
    assert_eq!(b.textures().motions(layer).unwrap(), &all[..2000]);
    b.textures().move_sprites(layer, 0, &all[..2000]).unwrap();
    draw(&mut b, &mut dev, layer);
    b.restore();
    let mut dev = MockDevice::new(b.budget());
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!(c.motion_bytes_written, (2000 + 50) * 16, "every moving layer, written whole");
    assert_eq!(dev.motion(layer, 1999), Some(all[1999]));
    b.textures().move_sprites(layer, 0, &all[..2000]).unwrap();
    draw(&mut b, &mut dev, layer);
    b.textures().destroy_resident(layer).unwrap();
    let (_, again) = sprites(&mut b, 2000);
    assert_eq!(again.index, layer.index, "the index is reused");
    assert!(b.textures().motions(again).unwrap().iter().all(|m| *m == Motion::default()));
    let c = draw(&mut b, &mut dev, again);
    assert_eq!(c.motion_bytes_written, 2000 * 16);
    assert_eq!(dev.motion(again, 5), Some(Motion::default()));
}

#[test]
fn motions_written_in_place_are_checked_when_planned() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let (_, layer) = sprites(&mut b, 100);
    draw(&mut b, &mut dev, layer);
    let m = b.textures().motions_mut(layer, 20..30).unwrap();
    m[0] = Motion::at([5.0, 6.0]);
    m[3] = Motion::at([f32::NAN, 1.0]);
    m[4].rotation_scale[1] = f32::INFINITY;
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!((b.plan().counters.motions_rejected, c.motion_bytes_written), (2, 10 * 16));
    assert_eq!(dev.motion(layer, 20), Some(Motion::at([5.0, 6.0])));
    let nothing = Motion { position: [0.0, 0.0], rotation_scale: [0.0, 0.0] };
    assert_eq!((dev.motion(layer, 23), dev.motion(layer, 24)), (Some(nothing), Some(nothing)));
    assert!(matches!(b.textures().motions_mut(layer, 95..101), Err(ResidentError::OutOfRange { .. })));
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = b.textures().motions_mut(layer, 9..3);
    assert!(matches!(reversed, Err(ResidentError::OutOfRange { .. })));
    assert_eq!(b.textures().motions_mut(layer, 7..7).map(|m| m.len()), Ok(0));
}

/// Where the executor stages motion writes (`Limits::staged_motion_writes`, wgpu), core does
/// not read motions written in place when it plans: the executor's copy finds the bad ones,
/// counted in `DeviceCounters::motions_rejected`, and writes them as nothing. Core keeps them
/// as the host wrote them; moved again, they show.
#[test]
fn staged_motion_writes_are_checked_in_the_copy() {
    let mut b = Batcher::new(Limits::desktop().with_staged_motion_writes(true), Config::default()).unwrap();
    assert!(b.budget().staged_motion_writes);
    let mut dev = MockDevice::new(b.budget());
    let (_, layer) = sprites(&mut b, 2100);
    draw(&mut b, &mut dev, layer);
    let m = b.textures().motions_mut(layer, 1000..2100).unwrap();
    m[0] = Motion::at([5.0, 6.0]);
    m[24].position[1] = f32::NAN; // sprite 1024: the first of the second row
    m[1099].rotation_scale[0] = f32::NEG_INFINITY;
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!((b.plan().counters.motions_rejected, c.motions_rejected), (0, 2));
    assert_eq!(c.motion_bytes_written, 1100 * 16);
    assert_eq!(dev.motion(layer, 1000), Some(Motion::at([5.0, 6.0])));
    assert_eq!((dev.motion(layer, 1024), dev.motion(layer, 2099)), (Some(Motion::NOTHING), Some(Motion::NOTHING)));
    assert!(b.textures().motions(layer).unwrap()[1024].position[1].is_nan(), "core keeps what the host wrote");
    b.textures().move_sprites(layer, 1024, &[Motion::at([1.0, 2.0])]).unwrap();
    let c = draw(&mut b, &mut dev, layer);
    assert_eq!((c.motions_rejected, dev.motion(layer, 1024)), (0, Some(Motion::at([1.0, 2.0]))));
}

/// `copy_checked` against the rule applied motion by motion, over block boundaries: the same
/// bytes, the same count, every block handed on in order.
#[test]
fn copy_checked_is_the_rule_motion_by_motion() {
    let mut rng = Rng(0x636f7079);
    let bad = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -f32::NAN];
    for case in 0..300 {
        let n = rng.below(1500) as usize;
        let mut motions: Vec<Motion> = (0..n).map(|i| Motion::new([i as f32, -(i as f32)], i as f32, 0.5)).collect();
        for _ in 0..rng.below(8) {
            if n > 0 {
                let m = &mut motions[rng.below(n as u64) as usize];
                let v = bad[rng.below(4) as usize];
                match rng.below(4) {
                    0 => m.position[0] = v,
                    1 => m.position[1] = v,
                    2 => m.rotation_scale[0] = v,
                    _ => m.rotation_scale[1] = v,
                }
            }
        }
        let expected: Vec<Motion> = motions.iter().map(|m| if m.is_finite() { *m } else { Motion::NOTHING }).collect();
        let mut out = Vec::new();
        let rejected = copy_checked(&motions, |bytes| {
            assert!(bytes.len() <= 256 * 16 && !bytes.is_empty(), "case {case}: a block of {} bytes", bytes.len());
            out.extend_from_slice(bytes);
        });
        assert_eq!(rejected, motions.iter().filter(|m| !m.is_finite()).count() as u64, "case {case}");
        assert_eq!(out, bytemuck::cast_slice::<Motion, u8>(&expected), "case {case}");
    }
}
