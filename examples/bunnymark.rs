//! A bunnymark on moving sprites: N bunnies over T textures bounce around the target, every
//! one moving every frame, drawn by one moving layer ([`TextureStore::create_moving`]): the
//! bunnies' quads stay on the device, and each frame the host writes 16 bytes a bunny in place
//! (`motions_mut`). Offscreen on GL or wgpu. Prints, per frame after the warm-up: draw calls,
//! bytes sent to the device, and where the time goes (the phases of the stress example: the
//! host's update of its bunnies is the scene phase, layerbatch's part is push..submit).
//!
//! ```text
//! cargo run --release --example bunnymark -- [--backend gl|wgpu] [--bunnies N] [--textures T]
//!     [--indexed] [--frames N] [--target WxH] [--out FILE.png]
//! ```
//!
//! Defaults: wgpu, 1,000,000 bunnies over 256 textures, instanced quads (one draw; `--indexed`:
//! four vertex records a quad, a draw per `instance_capacity`, as software rasterizers prefer),
//! 5 frames after 2 of warm-up, a 320x180 target with bunnies of 4x4 pixels (so a software
//! rasterizer's fill does not hide the CPU; its vertex work is the GPU's, in the wait phase).
//!
//! [`TextureStore::create_moving`]: layerbatch::TextureStore::create_moving

use std::time::Instant;

use layerbatch::{Batcher, Config, Motion, Quad, QuadVertices, ResidentStyle, TextureDesc};
use layerbatch_testkit::headless::{DeviceKind, Headless};
use layerbatch_testkit::phases::PhaseRecorder;
use layerbatch_testkit::scene::texture_pixels;

struct Args {
    wgpu: bool,
    indexed: bool,
    bunnies: usize,
    textures: usize,
    frames: u64,
    target: [u32; 2],
    out: String,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        wgpu: true,
        indexed: false,
        bunnies: 1_000_000,
        textures: 256,
        frames: 5,
        target: [320, 180],
        out: "bunnymark.png".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--backend" => a.wgpu = value()? != "gl",
            "--indexed" => a.indexed = true,
            "--bunnies" => a.bunnies = number(value()?)?.clamp(1, 2_000_000),
            "--textures" => a.textures = number(value()?)?.clamp(1, 4096),
            "--frames" => a.frames = number(value()?)?.max(1) as u64,
            "--target" => {
                let v = value()?;
                let (w, h) = v.split_once('x').ok_or(format!("--target {v}: WxH"))?;
                a.target = [number(w.into())?.clamp(1, 8192) as u32, number(h.into())?.clamp(1, 8192) as u32];
            }
            "--out" => a.out = value()?,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

/// A bunny's place and speed, pixels and pixels a frame: the host's own state.
#[derive(Clone, Copy)]
struct Bunny {
    at: [f32; 2],
    speed: [f32; 2],
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse()?;
    let kind = if args.wgpu { DeviceKind::WgpuVulkan } else { DeviceKind::Gl };
    let mut dev = Headless::new(kind, args.target)?;
    let vertices = if args.indexed { QuadVertices::Indexed } else { QuadVertices::Instanced };
    let config = Config::default().with_budget_bytes(1 << 30).with_quad_vertices(vertices);
    let mut batcher = Batcher::new(dev.limits(), config)?;
    dev.init(batcher.budget())?;
    let textures: Vec<_> = (0..args.textures)
        .map(|i| {
            let (w, h) = [(26, 37), (32, 32), (24, 30), (20, 28)][i % 4];
            batcher.textures().register(&TextureDesc::new(w, h), &texture_pixels(i, w, h))
        })
        .collect::<Result<_, _>>()?;
    let quads: Vec<Quad> =
        (0..args.bunnies).map(|i| Quad::rect(textures[i % textures.len()], [-2.0, -2.0], [4.0, 4.0])).collect();
    let t = Instant::now();
    let layer = batcher.textures().create_moving(&quads)?;
    let create_ms = t.elapsed().as_secs_f64() * 1e3;
    drop(quads);
    let [w, h] = args.target.map(|v| v as f32);
    let mut seed = 0x6275_6e6eu64;
    let mut unit = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 10_000) as f32 / 10_000.0
    };
    let mut bunnies: Vec<Bunny> = (0..args.bunnies)
        .map(|_| Bunny { at: [unit() * w, unit() * h], speed: [unit() * 4.0 - 2.0, unit() * 2.0] })
        .collect();

    let warmup = 2;
    let mut phases = PhaseRecorder::new(warmup);
    let mut sums = [0u64; 3];
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for frame in 0..warmup + args.frames {
        // The host's update, straight into layerbatch's motions: gravity and bounces.
        let t0 = Instant::now();
        let motions = batcher.textures().motions_mut(layer, 0..args.bunnies as u32)?;
        for (b, m) in bunnies.iter_mut().zip(motions) {
            b.speed[1] += 0.5;
            b.at = [b.at[0] + b.speed[0], b.at[1] + b.speed[1]];
            if b.at[0] < 0.0 || b.at[0] > w {
                b.speed[0] = -b.speed[0];
            }
            if b.at[1] > h {
                b.speed[1] *= -0.85;
                b.at[1] = h;
            }
            *m = Motion::at(b.at);
        }
        let t1 = Instant::now();
        batcher.begin_frame();
        batcher.draw_resident(layer, &ResidentStyle::default())?;
        let t2 = Instant::now();
        let plan = batcher.finish();
        let finish_ms = ms(t2);
        let times = dev.draw_timed(plan)?;
        let between = |a: Instant, b: Instant| b.duration_since(a).as_secs_f64() * 1e3;
        let (scene_ms, push_ms) = (between(t0, t1), between(t1, t2));
        phases.record(&times.phases(scene_ms, push_ms, finish_ms));
        if frame >= warmup {
            let c = dev.stats().device_frame;
            for (s, v) in sums.iter_mut().zip([c.draw_calls, c.motion_bytes_written, c.resident_bytes_written]) {
                *s += v;
            }
        }
    }
    let n = args.frames as f64;
    println!(
        "layerbatch bunnymark: {} on {}, {}x{} offscreen, {} frames after {warmup} of warm-up",
        dev.backend_name(),
        dev.adapter(),
        args.target[0],
        args.target[1],
        args.frames
    );
    println!(
        "  {} moving bunnies over {} textures in one moving layer (made in {create_ms:.0} ms)",
        args.bunnies, args.textures
    );
    println!("  per frame: {:.2} draw calls", sums[0] as f64 / n);
    println!(
        "  per frame: {:.2} MB of motions ({:.1} bytes a bunny), {:.2} MB of the static half",
        sums[1] as f64 / n / 1e6,
        sums[1] as f64 / n / args.bunnies as f64,
        sums[2] as f64 / n / 1e6
    );
    phases.report().print("; scene = the host's update");
    let pixels = dev.read();
    image::save_buffer(&args.out, &pixels, args.target[0], args.target[1], image::ColorType::Rgba8)?;
    println!("  last frame saved to {}", args.out);
    Ok(())
}
