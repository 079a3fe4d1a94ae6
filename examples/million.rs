//! A million sprites over any number of textures, in four draws: a 1024 x 1024-tile map over
//! 8 tilesets scrolling under the camera (a tilemap: a draw a row of the chunks in view, two
//! here), 1,000,000 static
//! sprites over 256 textures of mixed sizes in a resident layer (recorded once, kept on the
//! device, drawn by one item a frame), 100,000 sprites moving every frame, and a HUD line of
//! text, all in one batcher frame, offscreen on GL or wgpu. Prints, per frame after the warm-up: draw calls,
//! bytes sent to the device (pushed vertices, resident vertices, texels) and where the time
//! goes (the phases of the stress example).
//!
//! ```text
//! cargo run --release --example million -- [--backend gl|wgpu] [--static N] [--dynamic N]
//!     [--textures N] [--map N] [--frames N] [--target WxH] [--out FILE.png]
//! ```
//!
//! Defaults: wgpu, a 1024-tile map (`--map 0`: none), 1,000,000 static, 100,000 dynamic, 256
//! textures, 5 frames after 2 of
//! warm-up, a 320x180 target with sprites at a tenth of their texture's size (so a software
//! rasterizer's fill does not hide the CPU). Instanced quads and an instance capacity of
//! 131,072 (Config::instance_capacity; the default 65,536 would split the moving sprites into
//! two draws). The HUD font is DejaVu Sans (scripts/install-fonts.sh).

use std::time::Instant;

use layerbatch::text::cosmic_text::{fontdb, Attrs, Buffer, Family, FontSystem, Metrics, Shaping};
use layerbatch::text::GlyphCache;
use layerbatch::tilemap::{TileTable, Tilemap};
use layerbatch::{Affine2, Batcher, Config, QuadVertices, ResidentStyle, TextureDesc};
use layerbatch_testkit::headless::{DeviceKind, Headless};
use layerbatch_testkit::phases::PhaseRecorder;
use layerbatch_testkit::scene::{texture_pixels, Scene, SceneOptions, Sizes};

const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

struct Args {
    wgpu: bool,
    statics: usize,
    dynamic: usize,
    textures: usize,
    map: u32,
    frames: u64,
    target: [u32; 2],
    out: String,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        wgpu: true,
        statics: 1_000_000,
        dynamic: 100_000,
        textures: 256,
        map: 1024,
        frames: 5,
        target: [320, 180],
        out: "million.png".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--backend" => a.wgpu = value()? != "gl",
            "--static" => a.statics = number(value()?)?.min(5_000_000),
            "--dynamic" => a.dynamic = number(value()?)?.min(5_000_000),
            "--textures" => a.textures = number(value()?)?.clamp(1, 4096),
            "--map" => a.map = number(value()?)?.min(4096) as u32,
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse()?;
    let kind = if args.wgpu { DeviceKind::WgpuVulkan } else { DeviceKind::Gl };
    let mut dev = Headless::new(kind, args.target)?;
    let config = Config::default().with_quad_vertices(QuadVertices::Instanced).with_instance_capacity(131_072);
    let mut batcher = Batcher::new(dev.limits(), config)?;
    dev.init(batcher.budget())?;
    let opts = SceneOptions {
        sprites: args.statics + args.dynamic,
        textures: args.textures,
        viewport_px: args.target,
        sizes: Sizes::Mixed,
        sprite_scale: 0.1,
        ..SceneOptions::default()
    };
    let mut scene = Scene::new(&mut batcher, opts)?;
    let t = Instant::now();
    let statics = scene.take_sprites(args.statics);
    let layer = (!statics.is_empty()).then(|| batcher.textures().create_resident(&statics)).transpose()?;
    let create_ms = t.elapsed().as_secs_f64() * 1e3;
    drop(statics);
    // The map: 8 tilesets of 8 x 8 tiles of 16 px, tiles of 4 px on screen.
    let t = Instant::now();
    let map = match args.map {
        0 => None,
        side => {
            let mut table = TileTable::new();
            for s in 0..8 {
                let set =
                    batcher.textures().register(&TextureDesc::new(128, 128), &texture_pixels(1000 + s, 128, 128))?;
                for k in 0..64 {
                    table.push(set, [(k % 8) as f32 * 16.0, (k / 8) as f32 * 16.0, 16.0, 16.0], [128, 128]);
                }
            }
            let ids: Vec<u32> = (0..side * side).map(|i| 1 + (i * 7 + i / side * 3) % 512).collect();
            Some(Tilemap::new(&mut batcher, &table, [side, side], 4.0, 32, &ids)?)
        }
    };
    let map_ms = t.elapsed().as_secs_f64() * 1e3;

    let mut db = fontdb::Database::new();
    db.load_font_file(FONT).map_err(|e| format!("{FONT}: {e} (scripts/install-fonts.sh installs it)"))?;
    let mut fonts = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let mut glyphs = GlyphCache::default();
    let mut hud = Buffer::new(&mut fonts, Metrics::new(14.0, 18.0));

    let warmup = 2;
    let mut phases = PhaseRecorder::new(warmup);
    let mut sums = [0u64; 4];
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for frame in 0..warmup + args.frames {
        let t0 = Instant::now();
        scene.step(1.0 / 60.0);
        let text = format!("frame {frame}: {} static + {} moving sprites", args.statics, args.dynamic);
        hud.set_text(&text, &Attrs::new().family(Family::Name("DejaVu Sans")), Shaping::Advanced, None);
        hud.shape_until_scroll(&mut fonts, false);
        let t1 = Instant::now();
        batcher.begin_frame();
        if let Some(map) = &map {
            // The camera scrolls over the map.
            let view = [frame as f32 * 7.0, frame as f32 * 3.0, args.target[0] as f32, args.target[1] as f32];
            let style = ResidentStyle::default().with_transform(Affine2::translation(-view[0], -view[1]));
            map.draw(&mut batcher, view, &style)?;
        }
        if let Some(layer) = layer {
            batcher.draw_resident(layer, &ResidentStyle::default())?;
        }
        scene.push(&mut batcher);
        glyphs.draw_buffer(&mut batcher, &mut fonts, &hud, [4.0, 4.0], [255, 255, 255, 255])?;
        let t2 = Instant::now();
        let plan = batcher.finish();
        let finish_ms = ms(t2);
        let times = dev.draw_timed(plan)?;
        let between = |a: Instant, b: Instant| b.duration_since(a).as_secs_f64() * 1e3;
        let (scene_ms, push_ms) = (between(t0, t1), between(t1, t2));
        phases.record(&times.phases(scene_ms, push_ms, finish_ms));
        if frame >= warmup {
            let c = dev.stats().device_frame;
            for (s, v) in sums.iter_mut().zip([
                c.draw_calls,
                c.instance_bytes_written,
                c.resident_bytes_written,
                c.texture_bytes_written,
            ]) {
                *s += v;
            }
        }
    }
    let n = args.frames as f64;
    let mb = |b: u64| b as f64 / n / 1e6;
    println!(
        "layerbatch million: {} on {}, {}x{} offscreen, {} frames after {warmup} of warm-up",
        dev.backend_name(),
        dev.adapter(),
        args.target[0],
        args.target[1],
        args.frames
    );
    println!(
        "  {} static sprites in a resident layer (made in {create_ms:.0} ms), {} moving, {} textures, one HUD line; {:.1} MB of resident layers on the device",
        args.statics,
        args.dynamic,
        args.textures,
        batcher.textures().resident_bytes() as f64 / 1e6
    );
    if let Some(map) = &map {
        let [w, h] = map.size();
        println!("  a {w}x{h}-tile map over 8 tilesets in a resident layer (made in {map_ms:.0} ms)");
    }
    println!("  per frame: {:.2} draw calls", sums[0] as f64 / n);
    println!(
        "  per frame: {:.2} MB sent to the device ({:.2} MB pushed vertices, {:.2} MB resident, {:.2} MB texels)",
        mb(sums[1] + sums[2] + sums[3]),
        mb(sums[1]),
        mb(sums[2]),
        mb(sums[3])
    );
    phases.report().print("");
    let pixels = dev.read();
    image::save_buffer(&args.out, &pixels, args.target[0], args.target[1], image::ColorType::Rgba8)?;
    println!("  last frame saved to {}", args.out);
    Ok(())
}
