//! Triangles in the quad stream on every backend: a mesh with a colour per corner and a
//! textured triangle from an atlas page, between quads, in one draw, with instanced and with
//! indexed quads; the pixels match a CPU evaluation of the same triangles and agree across
//! backends within 2 per channel.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use layerbatch::{premultiply, Batcher, Config, Mesh, Quad, QuadVertices, TextureDesc, Vertex};
use layerbatch_testkit::headless::{self, DeviceKind};

const SIZE: [u32; 2] = [96, 64];
const BACK: [u8; 4] = [20, 40, 60, 255];
const CORNERS: [[u8; 4]; 3] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]];
/// The gradient triangle, pixels.
const TRI: [[f32; 2]; 3] = [[4.0, 4.0], [60.0, 4.0], [4.0, 60.0]];

/// A 4x4 texture of four 2x2 colour blocks.
fn checker() -> (TextureDesc, Vec<u8>) {
    let colors = [[255, 255, 0, 255], [255, 0, 255, 255], [0, 255, 255, 255], [255, 255, 255, 255]];
    let mut px = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            px.extend_from_slice(&colors[(y / 2) * 2 + x / 2]);
        }
    }
    (TextureDesc::new(4, 4).with_filter(layerbatch::Filter::Nearest), px)
}

/// Draws the scene; returns the readback and the frame's draw calls.
fn scene(kind: DeviceKind, vertices: QuadVertices, test: &str) -> Option<(Vec<u8>, u64)> {
    let mut dev = headless::open_for_test(kind, SIZE, test)?;
    let config = Config::default().with_quad_vertices(vertices);
    let mut b = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let white = b.textures().white().unwrap();
    let (desc, px) = checker();
    let tex = b.textures().register(&desc, &px).unwrap();
    b.begin_frame();
    b.push(&Quad::solid(white, [0.0, 0.0], [SIZE[0] as f32, SIZE[1] as f32], BACK)).unwrap();
    let mut gradient = Mesh::default();
    for (p, c) in TRI.iter().zip(CORNERS) {
        gradient.push_vertex(Vertex::solid(*p, c));
    }
    gradient.push_triangle(0, 1, 2);
    b.push_mesh(white, &gradient).unwrap();
    // On top of the gradient: a quad, then a textured triangle over the quad.
    b.push(&Quad::solid(white, [8.0, 8.0], [12.0, 12.0], premultiply([255, 255, 255, 128]))).unwrap();
    let mut textured = Mesh::default();
    for (p, uv) in [([64.0, 8.0], [0.0, 0.0]), ([92.0, 8.0], [1.0, 0.0]), ([64.0, 36.0], [0.0, 1.0])] {
        textured.push_vertex(Vertex::new(p, uv, [255; 4]));
    }
    textured.push_triangle(0, 1, 2);
    b.push_mesh(tex, &textured).unwrap();
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1, "{kind:?}: one segment");
    assert!(plan.indexed);
    dev.draw(plan).expect("draw");
    let draws = dev.stats().device_frame.draw_calls;
    Some((dev.read(), draws))
}

fn at(img: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * SIZE[0] + x) * 4) as usize;
    [img[i], img[i + 1], img[i + 2], img[i + 3]]
}

/// The gradient's colour at the centre of pixel `(x, y)`, evaluated on the CPU.
fn gradient_at(x: u32, y: u32) -> [f32; 4] {
    let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
    let [a, b, c] = TRI;
    let det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
    let l1 = ((px - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (py - a[1])) / det;
    let l2 = ((b[0] - a[0]) * (py - a[1]) - (px - a[0]) * (b[1] - a[1])) / det;
    let l0 = 1.0 - l1 - l2;
    std::array::from_fn(|k| {
        l0 * f32::from(CORNERS[0][k]) + l1 * f32::from(CORNERS[1][k]) + l2 * f32::from(CORNERS[2][k])
    })
}

fn near(got: [u8; 4], want: [f32; 4], tol: f32) -> bool {
    got.iter().zip(want).all(|(&g, w)| (f32::from(g) - w).abs() <= tol)
}

#[test]
fn triangles_draw_with_quads_in_one_draw_on_every_backend() {
    const TEST: &str = "triangles_draw_with_quads_in_one_draw_on_every_backend";
    let mut reference: Option<Vec<u8>> = None;
    for kind in DeviceKind::ALL {
        for vertices in [QuadVertices::Instanced, QuadVertices::Indexed] {
            let Some((img, draws)) = scene(kind, vertices, TEST) else { continue };
            assert_eq!(draws, 1, "{kind:?} {vertices:?}: one draw call");
            // Inside the gradient, away from its edges and the quad: the interpolated colour.
            for (x, y) in [(10, 30), (30, 10), (24, 24), (6, 50), (40, 12)] {
                let want = gradient_at(x, y);
                assert!(
                    near(at(&img, x, y), want, 2.0),
                    "{kind:?} {vertices:?} ({x},{y}): {:?} vs {want:?}",
                    at(&img, x, y)
                );
            }
            // The translucent quad is over the gradient: half white over it.
            let under = gradient_at(14, 14);
            let over = under.map(|c| 127.5 + c * 0.5);
            assert!(
                near(at(&img, 14, 14), [over[0], over[1], over[2], 255.0], 2.0),
                "{kind:?}: {:?}",
                at(&img, 14, 14)
            );
            // The textured triangle samples its own texture's four blocks, nothing around it.
            assert_eq!(at(&img, 66, 10), [255, 255, 0, 255], "{kind:?} {vertices:?}");
            assert_eq!(at(&img, 80, 10), [255, 0, 255, 255], "{kind:?} {vertices:?}");
            assert_eq!(at(&img, 66, 24), [0, 255, 255, 255], "{kind:?} {vertices:?}");
            assert_eq!(at(&img, 90, 34), BACK, "{kind:?}: outside the triangle");
            // Outside everything: the background.
            assert_eq!(at(&img, 70, 60), BACK);
            match &reference {
                None => reference = Some(img),
                Some(r) => {
                    let (bad, worst) =
                        headless::compare(r, &img, SIZE[0], 2, "GL 3.3 instanced", &format!("{kind:?} {vertices:?}"));
                    assert_eq!(bad, 0, "{kind:?} {vertices:?}: {bad} pixels differ by more than 2 (worst {worst})");
                }
            }
        }
    }
}
