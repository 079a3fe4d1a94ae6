//! Preparing text for a frame, beside glyphon 0.12 (the wgpu text renderer, on the same wgpu
//! 30 and cosmic-text 0.19): the same 10,000 glyphs (121 lines, Latin and CJK, 16 px, laid
//! out once), warm caches, on wgpu Vulkan (lavapipe here). glyphon: `TextRenderer::prepare`
//! (glyph lookup, vertices, upload) and `TextAtlas::trim`. layerbatch: `GlyphCache::draw_buffer`
//! of every line into a frame, `Batcher::finish` (the plan) and `Renderer::prepare` (the
//! upload), with its default vertices and with instanced quads. Each iteration's draw is
//! recorded and submitted outside the timing, so both run as in a game loop.
//! `cargo bench --bench text_prepare`; with the `CI` env var set, 2,000 glyphs.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use glyphon::{Cache, Color, Resolution, TextArea, TextAtlas, TextBounds, TextRenderer, Viewport};
use layerbatch::text::cosmic_text::{Attrs, Buffer, FontSystem, Metrics, Shaping, SwashCache};
use layerbatch::text::GlyphCache;
use layerbatch::{Batcher, Config, QuadVertices};
use layerbatch_testkit::fonts::{self, Font};
use layerbatch_testkit::{ci, gpu};

const SIZE: [u32; 2] = [1280, 2000];
const LINE: &str = "The bridge holds; wave seven begins at dawn. 勇者の剣を手に入れた。 Gold +120, XP +45 (x3)";

/// Lines until they hold `glyphs` glyphs.
fn lines(fonts: &mut FontSystem, glyphs: usize) -> Vec<Buffer> {
    let mut out = Vec::new();
    while count(&out) < glyphs {
        let mut b = Buffer::new(fonts, Metrics::new(16.0, 20.0));
        // A different line each time (the digits), the same glyph set.
        b.set_text(&format!("{:03} {LINE}", out.len()), &Attrs::new(), Shaping::Advanced, None);
        b.shape_until_scroll(fonts, false);
        out.push(b);
    }
    out
}

fn count(buffers: &[Buffer]) -> usize {
    buffers.iter().flat_map(|b| b.layout_runs()).map(|r| r.glyphs.len()).sum()
}

fn bench(c: &mut Criterion) {
    let glyphs = if std::env::var_os("CI").is_some() { 2_000 } else { 10_000 };
    let instance = gpu::headless_instance(wgpu::Backends::VULKAN);
    let Some((adapter, device, queue)) = ci::require(gpu::device(&instance, None), "text_prepare", "wgpu Vulkan")
    else {
        return;
    };
    let Some(mut fonts) = ci::require(fonts::system(&[Font::Latin, Font::Cjk]), "text_prepare", "fonts") else {
        return;
    };
    let buffers = lines(&mut fonts, glyphs);
    let pos = |i: usize| [8.0 + (i % 2) as f32 * 640.0, 8.0 + (i / 2) as f32 * 20.0];
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let target = gpu::target(&device, SIZE, format);
    let view = target.create_view(&Default::default());
    eprintln!("text_prepare: {} glyphs in {} lines on {}", count(&buffers), buffers.len(), gpu::describe(&adapter));
    let mut g = c.benchmark_group("text_prepare");
    g.sample_size(20);

    // glyphon.
    let cache = Cache::new(&device);
    let mut atlas = TextAtlas::new(&device, &queue, &cache, format);
    let mut viewport = Viewport::new(&device, &cache);
    viewport.update(&queue, Resolution { width: SIZE[0], height: SIZE[1] });
    let mut text = TextRenderer::new(&mut atlas, &device, wgpu::MultisampleState::default(), None);
    let mut swash = SwashCache::new();
    let mut glyphon_frame = |fonts: &mut FontSystem| {
        let t = Instant::now();
        let areas = buffers.iter().enumerate().map(|(i, buffer)| TextArea {
            buffer,
            left: pos(i)[0],
            top: pos(i)[1],
            scale: 1.0,
            bounds: TextBounds::default(),
            default_color: Color::rgb(255, 255, 255),
            custom_glyphs: &[],
        });
        text.prepare(&device, &queue, fonts, &mut atlas, &viewport, areas, &mut swash).expect("glyphon prepare");
        atlas.trim();
        let spent = t.elapsed();
        let mut encoder = device.create_command_encoder(&Default::default());
        text.render(&atlas, &viewport, &mut gpu::clear_pass(&mut encoder, &view, [0.0; 4])).expect("glyphon render");
        queue.submit([encoder.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
        spent
    };
    glyphon_frame(&mut fonts); // warm: rasterise and upload every glyph
    g.bench_function("glyphon_prepare", |b| {
        b.iter_custom(|n| (0..n).map(|_| glyphon_frame(&mut fonts)).sum::<Duration>())
    });

    // layerbatch, with its default vertices (indexed on a software rasterizer: 256 bytes a
    // glyph) and with instanced quads forced (64 bytes a glyph, the default on GPUs).
    for (name, vertices) in [
        ("layerbatch_draw_buffer_finish_prepare", QuadVertices::Auto),
        ("layerbatch_instanced_draw_buffer_finish_prepare", QuadVertices::Instanced),
    ] {
        let config = Config::default().with_quad_vertices(vertices);
        let mut batcher = Batcher::new(layerbatch_wgpu::device_limits(&device), config).expect("budget");
        let options = layerbatch_wgpu::RendererOptions::default();
        let mut renderer =
            layerbatch_wgpu::Renderer::new(&device, format, batcher.budget(), &options).expect("renderer");
        let mut prepared = renderer.create_prepared();
        let mut cache = GlyphCache::default();
        let mut layerbatch_frame = |fonts: &mut FontSystem| {
            let t = Instant::now();
            batcher.begin_frame();
            for (i, buffer) in buffers.iter().enumerate() {
                cache.draw_buffer(&mut batcher, fonts, buffer, pos(i), [255; 4]).expect("text");
            }
            let plan = batcher.finish();
            renderer.prepare(&device, &queue, &mut prepared, plan, SIZE).expect("prepare");
            let spent = t.elapsed();
            assert_eq!(plan.counters.draw_calls, 1);
            let mut encoder = device.create_command_encoder(&Default::default());
            renderer.render(&prepared, &mut gpu::clear_pass(&mut encoder, &view, [0.0; 4])).expect("render");
            queue.submit([encoder.finish()]);
            device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
            spent
        };
        layerbatch_frame(&mut fonts);
        g.bench_function(name, |b| b.iter_custom(|n| (0..n).map(|_| layerbatch_frame(&mut fonts)).sum::<Duration>()));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
