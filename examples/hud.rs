//! A game's HUD in one draw call, on wgpu: sprites, a nine-slice panel, shapes (a rounded
//! card, a health bar, a radar, a trail) and text (Latin, CJK and colour emoji through
//! cosmic-text) pushed in painter's order into one batcher frame. Renders offscreen and
//! writes a PNG: `cargo run --example hud -- [out.png]`. Fonts: scripts/install-fonts.sh.
use layerbatch::shapes::{FillStyle, LineCap, LineJoin, Shapes, StrokeStyle};
use layerbatch::text::cosmic_text::{fontdb, Attrs, Buffer, Family, FontSystem, Metrics, Shaping};
use layerbatch::text::GlyphCache;
use layerbatch::{premultiply, Batcher, BlendMode, Config, Mesh, NineSlice, Quad, TextureDesc};
use layerbatch_testkit::{gpu, hud, scene};
use layerbatch_wgpu::{Renderer, RendererOptions};

const SIZE: [u32; 2] = [480, 270];
const FONTS: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
];

/// One line of `text` in `family` at `size_px`, laid out once.
fn line(fonts: &mut FontSystem, text: &str, family: &str, size_px: f32) -> Buffer {
    let mut buffer = Buffer::new(fonts, Metrics::new(size_px, size_px * 1.25));
    buffer.set_text(text, &Attrs::new().family(Family::Name(family)), Shaping::Advanced, None);
    buffer.shape_until_scroll(fonts, false);
    buffer
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "hud.png".into());
    let instance = gpu::headless_instance(wgpu::Backends::all());
    let (adapter, device, queue) = gpu::device(&instance, None)?;
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut batcher = Batcher::new(layerbatch_wgpu::device_limits(&device), Config::default())?;
    let mut renderer = Renderer::new(&device, format, batcher.budget(), &RendererOptions::default())?;
    let mut prepared = renderer.create_prepared();

    // Textures: 16 sprites and a panel, all in atlas pages; fonts from files.
    let sprites = (0..16)
        .map(|i| batcher.textures().register(&TextureDesc::new(24, 24), &scene::texture_pixels(i, 24, 24)))
        .collect::<Result<Vec<_>, _>>()?;
    let panel_px: Vec<u8> = hud::panel_pixels().chunks(4).flat_map(|p| premultiply([p[0], p[1], p[2], p[3]])).collect();
    let panel = batcher.textures().register(&TextureDesc::new(hud::PANEL_PX, hud::PANEL_PX), &panel_px)?;
    let white = batcher.textures().white()?;
    let mut db = fontdb::Database::new();
    for f in FONTS {
        db.load_font_file(f)?;
    }
    let mut fonts = FontSystem::new_with_locale_and_db("en-US".into(), db);
    let score = line(&mut fonts, "SCORE 012345", "DejaVu Sans", 24.0);
    let quest = line(&mut fonts, "勇者の剣を手に入れた", "Droid Sans Fallback", 16.0);
    let hearts = line(&mut fonts, "❤❤❤🔥", "Noto Color Emoji", 20.0);
    let (mut shapes, mut mesh, mut glyphs) = (Shapes::new(), Mesh::default(), GlyphCache::default());

    batcher.begin_frame();
    // The world: sprites, then additive sparks over them.
    for (i, &s) in sprites.iter().cycle().take(120).enumerate() {
        let (x, y) = ((i * 37 % 460) as f32 + 10.0, (i * 53 % 250) as f32 + 10.0);
        batcher.push(&Quad::rotated(s, [x, y], [24.0, 24.0], i as f32 * 0.3))?;
    }
    batcher.state().set_blend(BlendMode::Additive);
    for i in 0..20 {
        batcher.push(
            &Quad::rect(sprites[i % 16], [i as f32 * 23.0, 200.0], [12.0, 12.0])
                .with_straight_color([255, 200, 120, 180]),
        )?;
    }
    batcher.state().set_blend(BlendMode::Over);
    // A nine-slice window with a health bar, a translucent card with a radar, a trail.
    batcher.push_nine_slice(&NineSlice::new(panel, [8.0, 8.0, 220.0, 80.0], [hud::PANEL_BORDER_PX; 4]))?;
    mesh.clear();
    shapes.fill_rounded_rect(&mut mesh, [20.0, 60.0, 190.0, 12.0], [6.0; 4], &FillStyle::new([60, 0, 0, 255]))?;
    shapes.fill_rounded_rect(&mut mesh, [20.0, 60.0, 120.0, 12.0], [6.0; 4], &FillStyle::new([230, 40, 40, 255]))?;
    let card = premultiply([10, 20, 40, 170]);
    shapes.fill_rounded_rect(&mut mesh, [330.0, 8.0, 142.0, 142.0], [14.0; 4], &FillStyle::new(card))?;
    shapes.stroke_circle(&mut mesh, [401.0, 79.0], 60.0, &StrokeStyle::new([90, 255, 120, 255], 2.0))?;
    shapes.fill_circle(&mut mesh, [420.0, 60.0], 4.0, &FillStyle::new([255, 240, 80, 255]))?;
    let trail: Vec<[f32; 2]> =
        (0..20).map(|i| [40.0 + 12.0 * i as f32, 160.0 + 20.0 * (i as f32 * 0.6).sin()]).collect();
    let stroke =
        StrokeStyle::new(premultiply([120, 255, 160, 200]), 3.0).with_cap(LineCap::Round).with_join(LineJoin::Round);
    shapes.polyline(&mut mesh, &trail, false, &stroke)?;
    batcher.push_mesh(white, &mesh)?;
    // Text over the panel and the card, after the shapes it sits on.
    glyphs.draw_buffer(&mut batcher, &mut fonts, &score, [22.0, 20.0], [20, 30, 70, 255])?;
    glyphs.draw_buffer(&mut batcher, &mut fonts, &quest, [20.0, 236.0], [255, 255, 255, 255])?;
    glyphs.draw_buffer(&mut batcher, &mut fonts, &hearts, [340.0, 120.0], [255, 255, 255, 255])?;
    let plan = batcher.finish();
    let c = plan.counters;
    println!(
        "{} quads, {} triangles: {} draw call(s) at slot tier {} on {}",
        c.quads,
        c.triangles,
        c.draw_calls,
        c.max_slot_tier,
        gpu::describe(&adapter)
    );

    // Prepare, then render into the host's pass; the host submits.
    let target = gpu::target(&device, SIZE, format);
    let view = target.create_view(&Default::default());
    renderer.prepare(&device, &queue, &mut prepared, plan, SIZE)?;
    let mut encoder = device.create_command_encoder(&Default::default());
    renderer.render(&prepared, &mut gpu::clear_pass(&mut encoder, &view, [0.08, 0.08, 0.12, 1.0]))?;
    queue.submit([encoder.finish()]);
    let pixels = gpu::read_texture(&device, &queue, &target);
    image::save_buffer(&out, &pixels, SIZE[0], SIZE[1], image::ColorType::Rgba8)?;
    println!("wrote {out}");
    Ok(())
}
