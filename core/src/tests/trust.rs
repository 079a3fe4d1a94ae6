//! Regressions of the trust review (untrusted sizes, long sessions, several plans a frame):
//! one test per finding, named after what it protects.

use super::*;

use crate::test_rng::Rng;

fn texel_bytes(b: &Batcher, ids: &[TextureId]) -> u64 {
    ids.iter().map(|&id| b.desc(id).unwrap().byte_len() as u64).sum()
}

/// Streaming: every frame frees a few textures and registers a few, while the live set grows
/// from a handful to hundreds and shrinks back, three times. After each shrink (and a few
/// frames of the same churn) the bytes held follow the live set down: at most twice its
/// texels plus 1 MiB, with the default config.
#[test]
fn streaming_churn_gives_memory_back_after_each_shrink() {
    churn(false);
}

/// The same with host frames of two plans each ([`Batcher::end_frame`]): frees wait for the
/// frame's end, and memory still follows the live set.
#[test]
fn streaming_churn_with_host_frames_gives_memory_back() {
    churn(true);
}

fn churn(host_frames: bool) {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let mut rng = Rng(0x5eed);
    let mut live: Vec<TextureId> = Vec::new();
    let run_frame =
        move |b: &mut Batcher, dev: &mut MockDevice, live: &mut Vec<TextureId>, target: usize, rng: &mut Rng| {
            // Churn: two out, two in, then towards the target size.
            for _ in 0..2.min(live.len()) {
                let i = rng.below(live.len() as u64) as usize;
                b.textures().free(live.swap_remove(i)).unwrap();
            }
            let want = if live.len() < target { (target - live.len()).min(40) + 2 } else { 2 };
            for _ in 0..want {
                let (w, h) = (8 + rng.below(120) as u32, 8 + rng.below(120) as u32);
                let d = TextureDesc::new(w, h);
                live.push(b.textures().register(&d, &vec![200; d.byte_len()]).unwrap());
            }
            while live.len() > target.max(2) {
                let i = rng.below(live.len() as u64) as usize;
                b.textures().free(live.swap_remove(i)).unwrap();
            }
            b.begin_frame();
            for (i, &id) in live.iter().enumerate() {
                b.push(&Quad::rect(id, [i as f32, 0.0], [4.0, 4.0])).unwrap();
            }
            dev.execute(b.finish()).unwrap();
            if host_frames {
                b.begin_frame();
                dev.execute(b.finish()).unwrap();
                b.end_frame();
            }
        };
    let mut report = Vec::new();
    for cycle in 0..3 {
        for _ in 0..40 {
            run_frame(&mut b, &mut dev, &mut live, 400, &mut rng);
        }
        let grown = (live.len(), dev.allocated_bytes());
        for _ in 0..60 {
            run_frame(&mut b, &mut dev, &mut live, 4, &mut rng);
        }
        let texels = texel_bytes(&b, &live);
        let held = dev.allocated_bytes();
        assert_eq!(held, b.allocator().allocated_bytes(), "the device holds what core counts");
        report.push(format!(
            "cycle {cycle}: grew to {} textures holding {} bytes; shrank to {} textures of {texels} texel bytes, \
             holding {held}",
            grown.0,
            grown.1,
            live.len()
        ));
        assert!(held <= 2 * texels + (1 << 20), "{}", report.join("\n"));
    }
    eprintln!("{}", report.join("\n"));
}

/// A nine-slice refused for a piece past the position range records nothing: not even its
/// top-left corner, which alone was in range.
#[test]
fn refused_nine_slice_records_no_piece() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let t = b.textures().register(&TextureDesc::new(12, 12), &[255; 12 * 12 * 4]).unwrap();
    b.begin_frame();
    // x and x + w are in range; the centre piece, about 2e9 wide, is not.
    let slice = NineSlice::new(t, [-1.0e9, 0.0, 2.0e9, 64.0], [4.0, 4.0, 4.0, 4.0]);
    assert!(matches!(b.push_nine_slice(&slice), Err(NineSliceError::Texture(QuadError::OutOfRange))));
    assert_eq!(b.finish().instances.len(), 0, "nothing of the refused nine-slice is recorded");
}

/// Outside a frame a nine-slice is an error even when it has nothing to draw (no height, or
/// borders that leave no centre), as its docs say.
#[test]
fn nine_slice_outside_a_frame_is_an_error_even_when_empty() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let t = b.textures().register(&TextureDesc::new(12, 12), &[255; 12 * 12 * 4]).unwrap();
    for dest in [[0.0, 0.0, 64.0, 0.0], [0.0, 0.0, 0.0, 0.0]] {
        let slice = NineSlice::new(t, dest, [6.0, 6.0, 6.0, 6.0]);
        assert!(matches!(b.push_nine_slice(&slice), Err(NineSliceError::Texture(QuadError::NoFrame))), "{dest:?}");
    }
}

/// A page side that is not a multiple of 4 (config or device) holds one block less than it
/// says: a compressed texture at the packing limit goes to a class instead of panicking.
#[test]
fn page_size_not_whole_blocks_packs_no_texture_it_cannot_hold() {
    let limits = Limits::guaranteed_minimum().with_format_families(FormatFamilies::ALL);
    let config = Config::default().with_page_size_px(1001).with_max_packed_size_px(1001);
    let mut b = Batcher::new(limits, config).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let desc = TextureDesc::new(1001, 4).with_format(Format::Bc1RgbaUnorm);
    let id = b.textures().register(&desc, &vec![0; desc.byte_len()]).unwrap();
    let rgba = b.textures().register(&TextureDesc::new(1001, 4), &vec![9; 1001 * 16]).unwrap();
    b.begin_frame();
    b.push(&Quad::rect(id, [0.0, 0.0], [1001.0, 4.0])).unwrap();
    b.push(&Quad::rect(rgba, [0.0, 4.0], [1001.0, 4.0])).unwrap();
    dev.execute(b.finish()).unwrap();
    assert_eq!(dev.sampled()[0].map(|s| s.0), Some(id));
    assert_eq!(dev.sampled()[1].map(|s| s.0), Some(rgba));
}

/// A device whose texture size is not whole blocks: a compressed texture whose blocks reach
/// past it is refused as too large, not placed in a layer the device cannot make.
#[test]
fn compressed_texture_past_an_odd_device_size_is_too_large() {
    let mut limits = Limits::guaranteed_minimum().with_format_families(FormatFamilies::ALL);
    limits.max_texture_size_px = 1001;
    let mut b = Batcher::new(limits, Config::default()).unwrap();
    let desc = TextureDesc::new(1001, 4).with_format(Format::Bc7RgbaUnorm);
    let err = b.textures().register(&desc, &vec![0; desc.byte_len()]).unwrap_err();
    assert!(matches!(err, TextureError::TooLarge { width_px: 1001, max_px: 1001, .. }), "{err}");
    let fits = TextureDesc::new(1000, 4).with_format(Format::Bc7RgbaUnorm);
    b.textures().register(&fits, &vec![0; fits.byte_len()]).unwrap();
}

/// The mock's record of what an instance sampled covers compressed textures that are not
/// whole blocks (written as whole blocks: 29x17 as 32x20).
#[test]
fn mock_sees_what_partial_block_textures_sample() {
    let limits = Limits::guaranteed_minimum().with_format_families(FormatFamilies::ALL);
    let mut b = Batcher::new(limits, Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let mut ids = Vec::new();
    for (i, format) in [Format::Bc1RgbaUnorm, Format::Bc7RgbaUnorm, Format::Etc2Rgb8Unorm].into_iter().enumerate() {
        let desc = TextureDesc::new(29, 17).with_format(format);
        ids.push(b.textures().register(&desc, &vec![i as u8 + 1; desc.byte_len()]).unwrap());
    }
    b.begin_frame();
    for &id in &ids {
        b.push(&Quad::rect(id, [0.0, 0.0], [29.0, 17.0])).unwrap();
    }
    dev.execute(b.finish()).unwrap();
    let sampled: Vec<_> = dev.sampled().iter().map(|s| s.map(|s| s.0)).collect();
    assert_eq!(sampled, ids.iter().map(|&id| Some(id)).collect::<Vec<_>>());
}

/// A compressed texture that is not whole blocks cannot repeat or have mips: its layer is
/// whole blocks, so the sampler would tile the encoder's padding or its levels would not line
/// up with the layer's. Refused, naming the terms, or (the `decode` feature) decoded to RGBA8
/// with its levels and sampler; whole-block sizes and one clamped level are fine.
#[test]
fn partial_block_textures_cannot_repeat_or_have_mips() {
    let limits = Limits::guaranteed_minimum().with_format_families(FormatFamilies::ALL);
    let mut b = Batcher::new(limits, Config::default()).unwrap();
    let bc7 = |w, h| TextureDesc::new(w, h).with_format(Format::Bc7RgbaUnorm);
    let v_repeat = |d: TextureDesc| d.with_sampler(d.sampler.with_wrap_v(Wrap::Repeat));
    for desc in [
        bc7(30, 32).with_wrap(Wrap::Repeat),
        bc7(32, 30).with_wrap(Wrap::MirroredRepeat),
        v_repeat(bc7(32, 30)),
        bc7(30, 30).with_mip_levels(2),
    ] {
        let registered = b.textures().register(&desc, &vec![0; desc.byte_len()]);
        #[cfg(feature = "decode")]
        {
            let decoded = b.desc(registered.unwrap()).unwrap();
            assert_eq!(decoded, TextureDesc { format: Format::Rgba8Unorm, ..desc });
            continue;
        }
        #[allow(unreachable_code)]
        let err = registered.unwrap_err();
        assert!(
            matches!(err, TextureError::PartialBlocks { width_px, height_px, block_px: [4, 4], mip_levels, wrap_u, wrap_v, .. }
                if [width_px, height_px] == [desc.width_px, desc.height_px] && mip_levels == desc.mip_levels
                    && [wrap_u, wrap_v] == [desc.sampler.wrap_u, desc.sampler.wrap_v]),
            "{err}"
        );
    }
    // A wrap along an axis in whole blocks tiles no padding.
    for desc in
        [bc7(32, 32).with_wrap(Wrap::Repeat), bc7(24, 24).with_mip_levels(5), bc7(30, 30), v_repeat(bc7(30, 32))]
    {
        b.textures().register(&desc, &vec![0; desc.byte_len()]).unwrap();
    }
}

/// Host frames: a rectangle freed after a plan of the frame was finished is not given to a
/// new texture until the host ends the frame (a wgpu host prepares several plans before one
/// submit, and the new texture's write would run before the first plan's pass).
#[test]
fn freed_rectangles_wait_for_the_host_frame_to_end() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let d = TextureDesc::new(16, 16);
    let a = b.textures().register(&d, &[1; 16 * 16 * 4]).unwrap();
    b.begin_frame();
    dev.execute(b.finish()).unwrap();
    b.end_frame();
    let frame = b.frame_number();
    // Plan 0 of the frame draws `a`; then `a` is freed and `c` registered before plan 1.
    b.begin_frame();
    b.push(&Quad::rect(a, [0.0, 0.0], [16.0, 16.0])).unwrap();
    dev.execute(b.finish()).unwrap();
    let at = b.placement(a).unwrap();
    b.textures().free(a).unwrap();
    let c = b.textures().register(&d, &[2; 16 * 16 * 4]).unwrap();
    let c_at = b.placement(c).unwrap();
    assert!((c_at.array, c_at.layer, c_at.rect_px) != (at.array, at.layer, at.rect_px), "reused within the frame");
    b.begin_frame();
    b.push(&Quad::rect(c, [0.0, 0.0], [16.0, 16.0])).unwrap();
    dev.execute(b.finish()).unwrap();
    assert_eq!(b.frame_number(), frame, "plans do not end host frames once the host ends them");
    b.end_frame();
    assert_eq!(b.frame_number(), frame + 1);
    // Now the rectangle (moved with its array when the page grew for `c`) is free again:
    // the next texture takes it, beside `c`, without growing anything.
    let held = b.allocator().allocated_bytes();
    let e = b.textures().register(&d, &[3; 16 * 16 * 4]).unwrap();
    let e_at = b.placement(e).unwrap();
    assert_eq!(b.allocator().allocated_bytes(), held);
    assert_eq!((e_at.array, e_at.layer), (c_at.array, c_at.layer));
    assert_ne!(e_at.rect_px, c_at.rect_px);
}

/// With the `decode` feature, a texture of a family the device lacks is checked (size,
/// levels, length, budget) before it is decoded: a declared size past the device, 33 levels
/// or more bytes than the budget are refused without decoding (and without panicking).
#[cfg(feature = "decode")]
#[test]
fn decoding_comes_after_every_check() {
    let config = Config::default().with_budget_bytes(8 << 20);
    let mut b = Batcher::new(Limits::guaranteed_minimum(), config).unwrap();
    let bc1 = |w, h| TextureDesc::new(w, h).with_format(Format::Bc1RgbaUnorm);
    // 33 levels of a 1x1 texture: refused, not a shift overflow.
    let levels = bc1(4, 4).with_mip_levels(33);
    let err = b.textures().register(&levels, &vec![0; 8 * 33]).unwrap_err();
    assert!(matches!(err, TextureError::MipLevels { mip_levels: 33, .. }), "{err}");
    // 2048x2048 of BC1 is 2 MiB of blocks but 16 MiB decoded: more than the 8 MiB budget.
    let big = bc1(2048, 2048);
    let err = b.textures().register(&big, &vec![0; big.byte_len()]).unwrap_err();
    assert!(
        matches!(err, TextureError::BudgetExhausted { requested_bytes, budget_bytes, .. }
        if requested_bytes == 2048 * 2048 * 4 && budget_bytes == 8 << 20),
        "{err}"
    );
    assert_eq!(b.plan().counters.textures_decoded, 0);
    let small = bc1(64, 64);
    b.textures().register(&small, &vec![0; small.byte_len()]).unwrap();
}

/// Host frames and moving memory: rectangles freed after a plan of the frame wait for its end,
/// and a compaction meanwhile moves them with the live ones; at the frame's end they are freed
/// where they went, the live textures still sample their own texels, and the memory comes back.
#[test]
fn waiting_rectangles_follow_a_compaction() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let ids: Vec<TextureId> = (0..40)
        .map(|i| {
            let d = TextureDesc::new(64, 64);
            b.textures().register(&d, &solid(&d, i)).unwrap()
        })
        .collect();
    let draw = |b: &mut Batcher, dev: &mut MockDevice, live: &[TextureId]| {
        b.begin_frame();
        for (i, &id) in live.iter().enumerate() {
            b.push(&Quad::rect(id, [i as f32, 0.0], [4.0, 4.0])).unwrap();
        }
        dev.execute(b.finish()).unwrap();
        for (i, &id) in live.iter().enumerate() {
            assert_eq!(dev.sampled()[i].map(|s| s.0), Some(id), "quad {i}");
        }
    };
    draw(&mut b, &mut dev, &ids);
    b.end_frame();
    // Most textures go before this frame's first plan (freed at once); plan 0 draws the rest;
    // four more go after it (waiting for the frame's end); then the pages compact, moving
    // the live and the waiting rectangles alike.
    for &id in &ids[..30] {
        b.textures().free(id).unwrap();
    }
    draw(&mut b, &mut dev, &ids[30..]);
    for &id in &ids[30..34] {
        b.textures().free(id).unwrap();
    }
    let kept = &ids[34..];
    let held = b.allocator().allocated_bytes();
    assert!(b.textures().compact() > 0, "the rectangles move");
    draw(&mut b, &mut dev, kept);
    b.end_frame();
    for _ in 0..8 {
        draw(&mut b, &mut dev, kept);
        b.end_frame();
    }
    let texels = texel_bytes(&b, kept);
    let now = b.allocator().allocated_bytes();
    assert!(now < held && now <= 2 * texels + (1 << 20), "held {held}, now {now}, texels {texels}");
    assert_eq!(dev.allocated_bytes(), now);
}
