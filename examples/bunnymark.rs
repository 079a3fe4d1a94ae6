//! A bunnymark on moving sprites: N bunnies over T textures bounce around the target, every
//! one moving every frame, drawn by one moving layer ([`TextureStore::create_moving`]): the
//! bunnies' quads stay on the device, and each frame the host writes 16 bytes a bunny in place
//! (`motions_mut`). Offscreen on GL or wgpu. Prints, per frame after the warm-up: draw calls,
//! bytes sent to the device, and where the time goes (the phases of the stress example: the
//! host's update of its bunnies is the scene phase, layerbatch's part is push..submit).
//!
//! With `--push`, each bunny is instead a whole quad pushed every frame (the immediate path),
//! with `--sort y` a y key each (the frame drawn in key order); `--threads K` splits the
//! host's update over K threads, and with `--push` records the quads on them too, in parts
//! (`Batcher::record_parts`): the push phase is then the update and the recording together.
//!
//! ```text
//! cargo run --release --example bunnymark -- [--backend gl|wgpu] [--bunnies N] [--textures T]
//!     [--indexed] [--push] [--sort y] [--threads K] [--frames N] [--target WxH] [--out FILE.png]
//! ```
//!
//! Defaults: wgpu, 1,000,000 bunnies over 256 textures, a moving layer, one thread, instanced
//! quads (one draw; `--indexed`: four vertex records a quad, a draw per `instance_capacity`, as
//! software rasterizers prefer), 5 frames after 2 of warm-up, a 320x180 target with bunnies of
//! 4x4 pixels (so a software rasterizer's fill does not hide the CPU; its vertex work is the
//! GPU's, in the wait phase).
//!
//! [`TextureStore::create_moving`]: layerbatch::TextureStore::create_moving

use std::time::Instant;

use layerbatch::{Batcher, Config, Motion, PartRecorder, Quad, QuadVertices, ResidentStyle, SortKey, TextureDesc};
use layerbatch_testkit::headless::{DeviceKind, Headless};
use layerbatch_testkit::phases::PhaseRecorder;
use layerbatch_testkit::scene::texture_pixels;

struct Args {
    wgpu: bool,
    indexed: bool,
    push: bool,
    sort_y: bool,
    threads: usize,
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
        push: false,
        sort_y: false,
        threads: 1,
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
            "--push" => a.push = true,
            "--sort" => match value()?.as_str() {
                "y" => a.sort_y = true,
                v => return Err(format!("--sort {v}: only y")),
            },
            "--threads" => a.threads = number(value()?)?.clamp(1, 64),
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
    if a.sort_y && !a.push {
        return Err("--sort y sorts pushed quads: add --push (a moving layer draws in its own order)".into());
    }
    Ok(a)
}

/// A bunny's place and speed, pixels and pixels a frame, and its quad: the host's own state.
#[derive(Clone, Copy)]
struct Bunny {
    at: [f32; 2],
    speed: [f32; 2],
    quad: Quad,
}

impl Bunny {
    /// A frame of gravity and bounces inside `[w, h]`.
    fn step(&mut self, [w, h]: [f32; 2]) {
        self.speed[1] += 0.5;
        self.at = [self.at[0] + self.speed[0], self.at[1] + self.speed[1]];
        if self.at[0] < 0.0 || self.at[0] > w {
            self.speed[0] = -self.speed[0];
        }
        if self.at[1] > h {
            self.speed[1] *= -0.85;
            self.at[1] = h;
        }
    }
}

/// Steps `bunnies` and pushes their quads into `part` (a y key each when `sort_y`).
fn step_and_push(part: &mut PartRecorder<'_>, bunnies: &mut [Bunny], size: [f32; 2], sort_y: bool) {
    for b in bunnies {
        b.step(size);
        if sort_y {
            part.set_sort_key(SortKey::zy(0, b.at[1]));
        }
        let quad = Quad { origin: [b.at[0] - 2.0, b.at[1] - 2.0], ..b.quad };
        part.push(&quad).expect("a live texture");
    }
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
    let layer = match args.push {
        false => Some(batcher.textures().create_moving(&quads)?),
        true => None,
    };
    let create_ms = t.elapsed().as_secs_f64() * 1e3;
    let size = args.target.map(|v| v as f32);
    let [w, h] = size;
    let mut seed = 0x6275_6e6eu64;
    let mut unit = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 10_000) as f32 / 10_000.0
    };
    let mut bunnies: Vec<Bunny> = (quads.iter())
        .map(|&quad| Bunny { at: [unit() * w, unit() * h], speed: [unit() * 4.0 - 2.0, unit() * 2.0], quad })
        .collect();
    drop(quads);
    let chunk = args.bunnies.div_ceil(args.threads);

    let warmup = 2;
    let mut phases = PhaseRecorder::new(warmup);
    let mut sums = [0u64; 3];
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for frame in 0..warmup + args.frames {
        let t0 = Instant::now();
        if let Some(layer) = layer {
            // The host's update, straight into layerbatch's motions: gravity and bounces.
            let motions = batcher.textures().motions_mut(layer, 0..args.bunnies as u32)?;
            let update = |bunnies: &mut [Bunny], motions: &mut [Motion]| {
                for (b, m) in bunnies.iter_mut().zip(motions) {
                    b.step(size);
                    *m = Motion::at(b.at);
                }
            };
            // The first chunk on this thread, the others on threads of their own.
            std::thread::scope(|s| {
                let mut work = bunnies.chunks_mut(chunk).zip(motions.chunks_mut(chunk));
                let first = work.next();
                for (bunnies, motions) in work {
                    s.spawn(move || update(bunnies, motions));
                }
                if let Some((bunnies, motions)) = first {
                    update(bunnies, motions);
                }
            });
        }
        let t1 = Instant::now();
        batcher.begin_frame();
        match layer {
            Some(layer) => batcher.draw_resident(layer, &ResidentStyle::default())?,
            // Each thread steps its bunnies and pushes their quads, in parts.
            None => batcher.record_parts(args.threads, |parts| {
                std::thread::scope(|s| {
                    let mut work = parts.iter_mut().zip(bunnies.chunks_mut(chunk));
                    let first = work.next();
                    for (part, bunnies) in work {
                        s.spawn(move || step_and_push(part, bunnies, size, args.sort_y));
                    }
                    if let Some((part, bunnies)) = first {
                        step_and_push(part, bunnies, size, args.sort_y);
                    }
                })
            })?,
        }
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
    match layer {
        Some(_) => println!(
            "  {} moving bunnies over {} textures in one moving layer (made in {create_ms:.0} ms), {} thread(s)",
            args.bunnies, args.textures, args.threads
        ),
        None => println!(
            "  {} bunnies over {} textures, each a quad pushed every frame{}, in {} part(s) on as many threads",
            args.bunnies,
            args.textures,
            if args.sort_y { " with a y key" } else { "" },
            args.threads
        ),
    }
    println!("  per frame: {:.2} draw calls", sums[0] as f64 / n);
    println!(
        "  per frame: {:.2} MB of motions ({:.1} bytes a bunny), {:.2} MB of the static half",
        sums[1] as f64 / n / 1e6,
        sums[1] as f64 / n / args.bunnies as f64,
        sums[2] as f64 / n / 1e6
    );
    phases.report().print(match layer {
        Some(_) => "; scene = the host's update",
        None => "; push = the host's update and the recording, in parts",
    });
    let pixels = dev.read();
    image::save_buffer(&args.out, &pixels, args.target[0], args.target[1], image::ColorType::Rgba8)?;
    println!("  last frame saved to {}", args.out);
    Ok(())
}
