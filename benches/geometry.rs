//! What triangles cost in the quad stream, on layerbatch-gl (GL 3.3, llvmpipe here) and
//! layerbatch-wgpu (Vulkan, lavapipe), in one group each: 20,000 quads of 64 textures drawn
//! instanced (the GPU default), the same quads plus one triangle (a plan with triangles is
//! drawn indexed: four vertex records a quad), the same quads with indexed quads forced, and
//! the HUD scene (sprites, shapes, nine-slices and text, one draw). Each frame: push, finish,
//! draw, wait. Vertex bytes per frame are printed. `cargo bench --bench geometry`; with the
//! `CI` env var set, 2,000 quads.

use criterion::{criterion_group, criterion_main, Criterion};
use layerbatch::{Batcher, Config, Mesh, Quad, QuadVertices, TextureDesc, TextureId, Vertex};
use layerbatch_testkit::fonts::{self, Font};
use layerbatch_testkit::headless::{DeviceKind, Headless};
use layerbatch_testkit::hud::{self, draw::HudDrawer};
use layerbatch_testkit::{ci, scene};

const SIZE: [u32; 2] = [640, 480];

fn quads(b: &mut Batcher, textures: &[TextureId], n: usize) {
    for i in 0..n {
        let pos = [(i * 7 % 620) as f32, (i * 13 % 460) as f32];
        b.push(&Quad::rect(textures[i % textures.len()], pos, [16.0, 16.0])).unwrap();
    }
}

fn run(c: &mut Criterion, kind: DeviceKind, group: &str) {
    let n = if std::env::var_os("CI").is_some() { 2_000 } else { 20_000 };
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    let cases = [
        ("quads_instanced", QuadVertices::Instanced, false),
        ("quads_instanced_plus_one_triangle", QuadVertices::Instanced, true),
        ("quads_indexed", QuadVertices::Indexed, false),
    ];
    for (name, vertices, triangle) in cases {
        let Some(mut dev) = ci::require(Headless::new(kind, SIZE), group, &format!("{kind:?} device")) else { return };
        let mut b = Batcher::new(dev.limits(), Config::default().with_quad_vertices(vertices)).expect("budget");
        dev.init(b.budget()).expect("renderer");
        let textures: Vec<TextureId> = (0..64)
            .map(|i| b.textures().register(&TextureDesc::new(16, 16), &scene::texture_pixels(i, 16, 16)).unwrap())
            .collect();
        let white = b.textures().white().unwrap();
        let mut mesh = Mesh::default();
        for p in [[0.0, 0.0], [30.0, 0.0], [0.0, 30.0]] {
            mesh.push_vertex(Vertex::solid(p, [255, 0, 0, 255]));
        }
        mesh.push_triangle(0, 1, 2);
        let frame = |b: &mut Batcher, dev: &mut Headless| {
            b.begin_frame();
            quads(b, &textures, n);
            if triangle {
                b.push_mesh(white, &mesh).unwrap();
            }
            let plan = b.finish();
            dev.draw(plan).expect("draw");
        };
        frame(&mut b, &mut dev);
        frame(&mut b, &mut dev);
        let d = dev.stats().device_frame;
        eprintln!(
            "{group}/{name}: {n} quads, {} draw calls, {} vertex bytes per frame",
            d.draw_calls, d.instance_bytes_written
        );
        g.bench_function(name, |bench| bench.iter(|| frame(&mut b, &mut dev)));
    }
    // The HUD scene.
    let Some(fonts) = ci::require(fonts::system(&Font::ALL), group, "fonts") else { return };
    let Some(mut dev) = ci::require(Headless::new(kind, hud::SIZE), group, &format!("{kind:?} device")) else { return };
    let mut b = Batcher::new(dev.limits(), Config::default()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let scene = hud::scene(7);
    let mut drawer = HudDrawer::new(&mut b, &scene, fonts).expect("textures");
    let mut hud_frame = |b: &mut Batcher, dev: &mut Headless| {
        b.begin_frame();
        drawer.draw(b, &scene).expect("scene");
        let plan = b.finish();
        dev.draw(plan).expect("draw");
    };
    hud_frame(&mut b, &mut dev);
    hud_frame(&mut b, &mut dev);
    let d = dev.stats().device_frame;
    eprintln!("{group}/hud: {} draw calls, {} vertex bytes per frame", d.draw_calls, d.instance_bytes_written);
    g.bench_function("hud", |bench| bench.iter(|| hud_frame(&mut b, &mut dev)));
    g.finish();
}

fn bench(c: &mut Criterion) {
    run(c, DeviceKind::Gl, "geometry_gl");
    run(c, DeviceKind::WgpuVulkan, "geometry_wgpu");
}

criterion_group!(benches, bench);
criterion_main!(benches);
