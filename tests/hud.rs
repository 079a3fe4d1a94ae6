//! The "HUD over a game" scene (issue 18): 64 sprite textures, nine-slice and rounded panels,
//! bars, lines, circles, polygons, and text in three sizes and three fonts (Latin, CJK, colour
//! emoji), interleaved in z, some translucent, some additive: one draw call per frame at slot
//! tier 1 on GL 3.3, GLES 3.0, wgpu Vulkan and wgpu GL, the same pixels on every backend
//! within 2 per channel; its text against swash's own glyphs composited on the CPU, its shapes
//! against tiny-skia; and painter's order across kinds.
//!
//! Fonts come from Debian's fonts-* packages (scripts/install-fonts.sh). Under `CI=true` a
//! device or a font that cannot be had fails the test; outside CI it prints `skipped:`. With
//! `LAYERBATCH_HUD_PNG=path`, the first backend's frame of the scene is written there.

use layerbatch::shapes::{point, BorderRadii, FillStyle, Path, StrokeStyle, Winding};
use layerbatch::{premultiply, Batcher, Config, Quad};
use layerbatch_testkit::fonts::{self, Font};
use layerbatch_testkit::headless::{self, DeviceKind, Headless};
use layerbatch_testkit::hud::draw::{layout, HudDrawer};
use layerbatch_testkit::hud::{self, HudFont, HudItem, HudScene};
use layerbatch_testkit::shapes_ref::{self, Reference};
use layerbatch_testkit::text_ref::TextReference;

const SIZE: [u32; 2] = hud::SIZE;
const BACK: [u8; 4] = [30, 30, 40, 255];

/// The device, a batcher with its renderer, and the HUD drawer (textures registered, texts
/// laid out).
fn open(kind: DeviceKind, scene: &HudScene, test: &str) -> Option<(Headless, Batcher, HudDrawer)> {
    let fonts = fonts::require(fonts::system(&Font::ALL), test)?;
    let mut dev = headless::open_for_test(kind, SIZE, test)?;
    let mut b = Batcher::new(dev.limits(), Config::default()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let drawer = HudDrawer::new(&mut b, scene, fonts).expect("the scene's textures");
    Some((dev, b, drawer))
}

fn background(b: &mut Batcher) {
    let white = b.textures().white().unwrap();
    b.push(&Quad::solid(white, [0.0, 0.0], [SIZE[0] as f32, SIZE[1] as f32], BACK)).unwrap();
}

#[test]
fn the_hud_scene_is_one_draw_at_tier_one_and_the_same_on_every_backend() {
    const TEST: &str = "the_hud_scene_is_one_draw_at_tier_one_and_the_same_on_every_backend";
    let scene = hud::scene(7);
    let mut reference: Option<(DeviceKind, Vec<u8>)> = None;
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut b, mut drawer)) = open(kind, &scene, TEST) else { continue };
        // Two frames: the first uploads every texture and glyph, the second is steady.
        for frame in 0..2 {
            b.begin_frame();
            background(&mut b);
            let drawn = drawer.draw(&mut b, &scene).expect("the scene");
            let plan = b.finish();
            let c = plan.counters;
            assert_eq!((plan.segments.len(), c.max_slot_tier), (1, 1), "{kind:?} frame {frame}: {:?}", plan.segments);
            assert!(drawn.glyphs > 80 && drawn.triangles > 1000 && drawn.quads > 440, "{drawn:?}");
            assert_eq!(c.triangles, drawn.triangles);
            dev.draw(plan).expect("draw");
            assert_eq!(dev.stats().device_frame.draw_calls, 1, "{kind:?} frame {frame}");
        }
        let img = dev.read();
        if let Some(path) = std::env::var_os("LAYERBATCH_HUD_PNG").filter(|_| reference.is_none()) {
            image::save_buffer(path, &img, SIZE[0], SIZE[1], image::ColorType::Rgba8).expect("png");
        }
        match &reference {
            None => reference = Some((kind, img)),
            Some((first, r)) => {
                // Away from edges every pixel agrees within 2. On an edge, a sample exactly
                // on a pixel centre can be in on one backend and out on the other (GL's y is
                // flipped, so its top-left tie rule is another edge's): such pixels are
                // counted and bounded.
                let (inner, edge) = differing(r, &img);
                assert_eq!(inner, 0, "{kind:?} vs {first:?}: {inner} pixels away from edges differ by more than 2");
                assert!(edge <= 300, "{kind:?} vs {first:?}: {edge} edge pixels differ by more than 2");
                eprintln!(
                    "{kind:?} vs {first:?}: 0 pixels away from edges and {edge} edge pixels differ by more than 2"
                );
            }
        }
    }
}

/// Pixels of `b` that differ from `a` by more than 2 in a channel: `(away from edges, on
/// edges)`, an edge pixel being one of `a` whose 3x3 neighbourhood is not uniform within 2.
fn differing(a: &[u8], b: &[u8]) -> (usize, usize) {
    let (w, h) = (SIZE[0] as i64, SIZE[1] as i64);
    let px = |img: &[u8], x: i64, y: i64| {
        let i = ((y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) * 4) as usize;
        [img[i], img[i + 1], img[i + 2], img[i + 3]]
    };
    let far = |p: [u8; 4], q: [u8; 4]| p.iter().zip(q).any(|(x, y)| x.abs_diff(y) > 2);
    let (mut inner, mut edge) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            if !far(px(a, x, y), px(b, x, y)) {
                continue;
            }
            let on_edge = (-1..=1).any(|dy| (-1..=1).any(|dx| far(px(a, x, y), px(a, x + dx, y + dy))));
            if on_edge {
                edge += 1;
            } else {
                inner += 1;
            }
        }
    }
    (inner, edge)
}

#[test]
fn hud_text_matches_swash_composited_on_the_cpu() {
    const TEST: &str = "hud_text_matches_swash_composited_on_the_cpu";
    let scene = hud::scene(7);
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut b, mut drawer)) = open(kind, &scene, TEST) else { continue };
        let mut want = TextReference::new(SIZE[0], SIZE[1], BACK);
        b.begin_frame();
        background(&mut b);
        let mut k = 0;
        for item in &scene.items {
            if let HudItem::Text { pos, color, .. } = item {
                let color = premultiply(*color);
                let buffer = &drawer.buffers[k];
                drawer.glyphs.draw_buffer(&mut b, &mut drawer.fonts, buffer, *pos, color).expect("text");
                want.draw_buffer(&mut drawer.fonts, buffer, *pos, color);
                k += 1;
            }
        }
        let plan = b.finish();
        assert_eq!(plan.segments.len(), 1, "{kind:?}");
        dev.draw(plan).expect("draw");
        let got = dev.read();
        assert!(want.glyphs.len() > 80, "{} glyphs", want.glyphs.len());
        assert!(want.glyphs.iter().any(|g| g.color), "the emoji are colour glyphs");
        if let Err(e) = want.compare_glyphs(&got, 2) {
            panic!("{kind:?}: {e}");
        }
    }
}

/// The scene's shapes as lyon paths with their styles, for tiny-skia.
enum Styled {
    Fill(Path, FillStyle),
    Stroke(Path, StrokeStyle),
}

fn shape_paths(item: &HudItem) -> Vec<Styled> {
    let fill = |c: [u8; 4]| FillStyle::new(premultiply(c));
    let stroke = |w: f32, c: [u8; 4]| StrokeStyle::new(premultiply(c), w);
    let mut out = Vec::new();
    let circle = |c: [f32; 2], r: f32| {
        let mut p = Path::builder();
        p.add_circle(point(c[0], c[1]), r, Winding::Positive);
        p.build()
    };
    let rounded = |r: [f32; 4], radius: f32| {
        let mut p = Path::builder();
        let rect = layerbatch::shapes::Box2D::new(point(r[0], r[1]), point(r[0] + r[2], r[1] + r[3]));
        p.add_rounded_rectangle(&rect, &BorderRadii::new(radius), Winding::Positive);
        p.build()
    };
    let poly = |pts: &[[f32; 2]], closed: bool| {
        let mut p = Path::builder();
        p.begin(point(pts[0][0], pts[0][1]));
        for q in &pts[1..] {
            p.line_to(point(q[0], q[1]));
        }
        p.end(closed);
        p.build()
    };
    match item {
        HudItem::RoundedRect { rect, radius, fill: f, stroke: s } => {
            out.push(Styled::Fill(rounded(*rect, *radius), fill(*f)));
            if let Some((w, c)) = s {
                out.push(Styled::Stroke(rounded(*rect, *radius), stroke(*w, *c)));
            }
        }
        HudItem::Circle { center, radius, fill: f, stroke: s } => {
            if let Some(c) = f {
                out.push(Styled::Fill(circle(*center, *radius), fill(*c)));
            }
            if let Some((w, c)) = s {
                out.push(Styled::Stroke(circle(*center, *radius), stroke(*w, *c)));
            }
        }
        HudItem::Polygon { points, color } => out.push(Styled::Fill(poly(points, true), fill(*color))),
        HudItem::Line { from, to, width, color } => {
            out.push(Styled::Stroke(poly(&[*from, *to], false), stroke(*width, *color)))
        }
        _ => {}
    }
    out
}

#[test]
fn hud_shapes_match_tiny_skia() {
    const TEST: &str = "hud_shapes_match_tiny_skia";
    let scene = hud::scene(7);
    let styled: Vec<Styled> = scene.items.iter().flat_map(shape_paths).collect();
    assert!(styled.len() >= 20, "{} shapes", styled.len());
    let references: Vec<Reference> = styled
        .iter()
        .map(|s| match s {
            Styled::Fill(p, st) => shapes_ref::fill_reference(p, st, SIZE, BACK),
            Styled::Stroke(p, st) => shapes_ref::stroke_reference(p, st, SIZE, BACK),
        })
        .collect();
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut b, _drawer)) = open(kind, &scene, TEST) else { continue };
        let white = b.textures().white().unwrap();
        let mut shapes = layerbatch::shapes::Shapes::new();
        let mut mesh = layerbatch::Mesh::default();
        for (n, (s, reference)) in styled.iter().zip(&references).enumerate() {
            mesh.clear();
            match s {
                Styled::Fill(p, st) => shapes.fill_path(&mut mesh, p, st).unwrap(),
                Styled::Stroke(p, st) => shapes.stroke_path(&mut mesh, p, st).unwrap(),
            }
            b.begin_frame();
            background(&mut b);
            b.push_mesh(white, &mesh).unwrap();
            let plan = b.finish();
            dev.draw(plan).expect("draw");
            let d = shapes_ref::compare(&dev.read(), reference);
            assert!(d.outside_max <= 2, "{kind:?} shape {n}: {d:?}");
            assert!(d.coverage_rel().abs() < 0.03, "{kind:?} shape {n}: coverage {:.4} ({d:?})", d.coverage_rel());
            assert!(d.band_max <= 96, "{kind:?} shape {n}: {d:?}");
        }
    }
}

/// Painter's order across kinds: a sprite between two glyphs of one line, a shape between
/// two sprites, each on top of what came before. Reordering any two fails.
#[test]
fn painters_order_holds_across_sprites_glyphs_and_shapes() {
    const TEST: &str = "painters_order_holds_across_sprites_glyphs_and_shapes";
    let scene = hud::scene(7);
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut b, mut drawer)) = open(kind, &scene, TEST) else { continue };
        let white = b.textures().white().unwrap();
        let buffer = layout(&mut drawer.fonts, "MM", HudFont::Latin, 64.0);
        let run = buffer.layout_runs().next().expect("a line");
        let pos = [100.0, 100.0];
        let quads: Vec<Quad> = run
            .glyphs
            .iter()
            .map(|g| {
                let physical = g.physical((pos[0], pos[1] + run.line_y), 1.0);
                drawer
                    .glyphs
                    .glyph_quad(&mut b, &mut drawer.fonts, &physical, [255, 255, 255, 255])
                    .unwrap()
                    .expect("an image")
            })
            .collect();
        assert_eq!(quads.len(), 2);
        let (m1, m2) = (quads[0], quads[1]);
        // The sprite covers the right half of the first M and the left half of the second.
        let mid = |q: &Quad| q.origin[0] + q.axis_x[0] * 0.5;
        let (x0, x1) = (mid(&m1), mid(&m2));
        let red = [255, 0, 0, 255];
        let sprite = Quad::solid(white, [x0, 90.0], [x1 - x0, 100.0], red);
        b.begin_frame();
        background(&mut b);
        b.push(&m1).unwrap();
        b.push(&sprite).unwrap();
        b.push(&m2).unwrap();
        // A circle between two sprites: blue under it, green over it.
        b.push(&Quad::solid(white, [300.0, 300.0], [100.0, 100.0], [0, 0, 255, 255])).unwrap();
        let mut mesh = layerbatch::Mesh::default();
        layerbatch::shapes::Shapes::new()
            .fill_circle(&mut mesh, [350.0, 350.0], 40.0, &FillStyle::new([255, 255, 0, 255]))
            .unwrap();
        b.push_mesh(white, &mesh).unwrap();
        b.push(&Quad::solid(white, [350.0, 300.0], [60.0, 100.0], [0, 255, 0, 255])).unwrap();
        let plan = b.finish();
        assert_eq!(plan.segments.len(), 1);
        dev.draw(plan).expect("draw");
        let img = dev.read();
        let at = |x: f32, y: f32| {
            let i = ((y as u32 * SIZE[0] + x as u32) * 4) as usize;
            [img[i], img[i + 1], img[i + 2], img[i + 3]]
        };
        // Under the sprite everything is red: the first M's right half is hidden; the second
        // M's white strokes show over the red.
        let reds = (x0 as u32 + 1..x1 as u32 - 1).filter(|&x| (95..185).any(|y| at(x as f32, y as f32) == red)).count();
        assert!(reds > 0, "{kind:?}: the sprite shows");
        let whites_first = (x0 as u32 + 1..(m1.origin[0] + m1.axis_x[0]) as u32)
            .flat_map(|x| (95..185).map(move |y| (x, y)))
            .filter(|&(x, y)| at(x as f32, y as f32) == [255; 4])
            .count();
        assert_eq!(whites_first, 0, "{kind:?}: the first glyph is under the sprite");
        let whites_second = (m2.origin[0] as u32..x1 as u32)
            .flat_map(|x| (95..185).map(move |y| (x, y)))
            .filter(|&(x, y)| at(x as f32, y as f32) == [255; 4])
            .count();
        assert!(whites_second > 20, "{kind:?}: the second glyph is over the sprite ({whites_second} white pixels)");
        assert_eq!(at(320.0, 350.0), [255, 255, 0, 255], "{kind:?}: the circle over the blue sprite");
        assert_eq!(at(380.0, 350.0), [0, 255, 0, 255], "{kind:?}: the green sprite over the circle");
        assert_eq!(at(305.0, 305.0), [0, 0, 255, 255], "{kind:?}: blue outside the circle");
    }
}
