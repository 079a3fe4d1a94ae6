//! A dynamic texture resized every frame must cost the same on frame 1,000,000 as on frame
//! 10 (it grew to 497 us a frame and +13 MiB over 100,000 frames while array ids were never
//! reused). The test runs itself again in a child process, alone, so the process's memory is
//! the test's (the crate's other tests share its binary).
//! `LAYERBATCH_RESIZE_FRAMES=1000000` runs the long version.

use layerbatch_core::validate::PlanValidator;
use layerbatch_core::{Batcher, Config, Limits, Quad, TextureDesc, Usage};

fn solid(d: &TextureDesc, v: u8) -> Vec<u8> {
    vec![v; d.byte_len()]
}

/// Resident set size of this process, bytes (0 where `/proc` has none).
fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    statm.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()).unwrap_or(0) * 4096
}

/// Ids are reused, so the allocator's, the ladder's and the executor's tables stay as small
/// as the arrays alive at once, and memory stays flat.
#[test]
fn dynamic_texture_resized_every_frame_keeps_tables_bounded() {
    const CHILD: &str = "LAYERBATCH_RESIZE_SOAK_CHILD";
    if std::env::var_os(CHILD).is_none() {
        let name = "resize_soak::dynamic_texture_resized_every_frame_keeps_tables_bounded";
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        eprintln!("{text}");
        assert!(out.status.success() && text.contains("1 passed"), "the soak, alone in a child process, failed");
        return;
    }
    let frames: u32 = std::env::var("LAYERBATCH_RESIZE_FRAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut validator = PlanValidator::new(b.budget());
    let sprite = b.textures().register(&TextureDesc::new(8, 8), &[255; 256]).unwrap();
    let d = TextureDesc::new(4, 4).with_usage(Usage::Dynamic);
    let dynamic = b.textures().register(&d, &solid(&d, 1)).unwrap();
    let mut most_ids = 0;
    let start = std::time::Instant::now();
    let mut half = None;
    let mut rss_half = 0;
    for f in 0..frames {
        let side = 4 + f % 13;
        b.textures().resize(dynamic, side, side, &vec![f as u8; (side * side * 4) as usize]).unwrap();
        b.begin_frame();
        b.push(&Quad::rect(sprite, [0.0, 0.0], [8.0, 8.0])).unwrap();
        b.push(&Quad::rect(dynamic, [8.0, 0.0], [8.0, 8.0])).unwrap();
        validator.check(b.finish()).unwrap();
        most_ids = most_ids.max(b.allocator().array_id_bound());
        if f == frames / 2 {
            half = Some(start.elapsed());
            rss_half = rss_bytes();
        }
    }
    let total = start.elapsed();
    let half = half.unwrap();
    let rss_end = rss_bytes();
    // Not asserted (no timed assertions): the second half costs what the first did.
    eprintln!(
        "{frames} resizes: first half {:.2} us/frame, second half {:.2} us/frame; RSS {} KiB at half, {} KiB at the end",
        half.as_secs_f64() * 1e6 / f64::from(frames / 2),
        (total - half).as_secs_f64() * 1e6 / f64::from(frames - frames / 2),
        rss_half >> 10,
        rss_end >> 10,
    );
    // Flat: this test runs alone in its binary, so the process's memory is its own.
    assert!(rss_end <= rss_half + (1 << 20), "RSS grew from {rss_half} to {rss_end} bytes");
    assert!(most_ids <= 4, "array ids reached {most_ids}");
    assert!(validator.array_count() <= 3, "{} arrays on the device", validator.array_count());
}
