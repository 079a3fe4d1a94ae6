//! Atlas pages on wgpu, from hand-made plans (each on wgpu's Vulkan backend, lavapipe, and its
//! GL backend, llvmpipe): texel-space coordinates clamped into each texture's own rectangle,
//! layers that grow in size, shrink and rectangle copies, and samplers that follow each
//! array's filter and wrap.

use crate::common;
// Hand-made plans, shared with the GL backend's tests.
use layerbatch_testkit::plans;

use common::{color, draw, setup, solid, Frame, Gpu, CLEAR, SIZE};
use layerbatch_core::plan::{ArrayDesc, ArrayId, ArrayOp, Instance};
use layerbatch_core::{
    mip_size, Batcher, Budget, Config, Filter, Format, MockDevice, Quad, Sampler, TextureDesc, TextureId, Wrap,
};
use plans::PlanBuilder;

on_both_backends!(
    no_foreign_texel,
    grow_enlarges_layers_keeping_texels,
    shrink_and_copy_rect,
    repeat_and_mirror_use_the_sampler,
    core_pages_pack_and_compact,
);

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const YELLOW: [u8; 4] = [255, 255, 0, 255];
const MAGENTA: [u8; 4] = [255, 0, 255, 255];
const CYAN: [u8; 4] = [0, 255, 255, 255];
const WHITE: [u8; 4] = [255, 255, 255, 255];
const ORANGE: [u8; 4] = [255, 128, 0, 255];

fn desc(width_px: u32, height_px: u32, layers: u32, mip_levels: u32, filter: Filter, wrap: Wrap) -> ArrayDesc {
    ArrayDesc {
        width_px,
        height_px,
        layers,
        format: Format::Rgba8Unorm,
        mip_levels,
        sampler: Sampler::new(filter, wrap),
        render_target: false,
        normal_map: false,
        host: None,
    }
}

/// A quad at `origin` with axes `axis_x`, `axis_y`, sampling `uv_rect` (texels) of the texture
/// at `tex_rect` (texels) in `layer` of slot `slot`, white.
fn quad(origin: [f32; 2], axis_x: [f32; 2], axis_y: [f32; 2], uv_rect: [f32; 4], tex_rect: [f32; 4]) -> Instance {
    let tex_rect = tex_rect.map(|v| v as u16);
    Instance { origin, axis_x, axis_y, uv_rect, tex_rect, color: [255; 4], ..Instance::default() }
}

/// An axis-aligned `w` x `h` quad at `(x, y)` showing the texture at `tex_rect` whole, 1 texel
/// per texel of `uv_rect`.
fn rect_quad(x: f32, y: f32, w: f32, h: f32, tex_rect: [f32; 4]) -> Instance {
    quad([x, y], [w, 0.0], [0.0, h], tex_rect, tex_rect)
}

fn with(mut i: Instance, slot: u32, flags: u32, layer: u32) -> Instance {
    i.slot_flags_layer = Instance::pack(slot, flags, layer);
    i
}

/// Panics unless every pixel of `frame` in `x0..x1, y0..y1` is `want`.
#[track_caller]
fn expect_region(frame: &Frame, [x0, y0, x1, y1]: [u32; 4], want: [u8; 4], what: &str) {
    for y in y0..y1 {
        for x in x0..x1 {
            frame.expect(x, y, want, 0, what);
        }
    }
}

/// Layers a test array may have on this device: wgpu's GL backend misreads 1 layer and
/// multiples of 6, so `layers` is bumped past them where the budget says so.
fn layers(budget: &Budget, layers: u32) -> u32 {
    if budget.avoid_ambiguous_layer_counts && (layers == 1 || layers.is_multiple_of(6)) {
        layers + 1
    } else {
        layers
    }
}

/// The 3x3 grid of [`no_foreign_texel`]: column widths and row heights, odd on purpose, packed
/// edge to edge from the layer's origin.
const COLUMNS: [u32; 3] = [13, 17, 11];
const ROWS: [u32; 3] = [15, 9, 19];
const NEIGHBOURS: [[u8; 4]; 8] = [RED, GREEN, BLUE, YELLOW, MAGENTA, CYAN, ORANGE, [128, 0, 255, 255]];
/// The middle texture's colour: white, so a mix with the black clear colour is a grey, and any
/// neighbour's texel (each saturated) shows as a colour that is not.
const MIDDLE: [u8; 4] = WHITE;
/// The rest of the layer (not a grey either).
const BACKGROUND: [u8; 4] = [9, 200, 60, 255];

/// One 64x64 linear, clamp-to-edge layer holding a 3x3 grid of solid textures packed edge to
/// edge (odd sizes), over a poison background. The middle one (17x9 at (13, 15)) is drawn with
/// [`Instance::FLAG_CLAMP_TO_RECT`] scaled up 4x, down to a quarter, rotated, flipped in u and
/// in v, with UVs reaching half its size outside it on every side, and at an odd scale and
/// offset. Every pixel is the middle texture's colour or the clear colour (or a mix of just the
/// two): no neighbour's texel and no background reaches the screen. Without the flag, the same
/// frame does show a neighbour (the check can see a bleed).
fn no_foreign_texel(gpu: &Gpu) {
    let (b, mut r) = setup(gpu, Config::default());
    let budget = b.budget();
    let array = ArrayId(0);
    let mut p = PlanBuilder::new(1, budget);
    p.op(ArrayOp::Create { array, desc: desc(64, 64, layers(budget, 2), 1, Filter::Linear, Wrap::ClampToEdge) });
    p.write_solid(array, 1, [0, 0], [64, 64], BACKGROUND);
    let mut y = 0;
    let mut k = 0;
    for (row, &h) in ROWS.iter().enumerate() {
        let mut x = 0;
        for (col, &w) in COLUMNS.iter().enumerate() {
            let color = if (row, col) == (1, 1) {
                MIDDLE
            } else {
                k += 1;
                NEIGHBOURS[k - 1]
            };
            p.write_solid(array, 1, [x, y], [w, h], color);
            x += w;
        }
        y += h;
    }
    let rect = [13.0, 15.0, 30.0, 24.0];
    let [x0, y0, x1, y1] = rect;
    let (w, h) = (x1 - x0, y1 - y0);
    let (c, s) = (0.6f32.cos(), 0.6f32.sin());
    let quads = [
        // 4x: 68 x 36.
        quad([4.0, 4.0], [4.0 * w, 0.0], [0.0, 4.0 * h], rect, rect),
        // A quarter: 4.25 x 2.25.
        quad([80.0, 4.0], [w / 4.0, 0.0], [0.0, h / 4.0], rect, rect),
        // Rotated, 3x.
        quad([120.0, 4.0], [3.0 * w * c, 3.0 * w * s], [-3.0 * h * s, 3.0 * h * c], rect, rect),
        // Flipped in u, then in both.
        quad([4.0, 60.0], [3.0 * w, 0.0], [0.0, 3.0 * h], [x1, y0, x0, y1], rect),
        quad([60.0, 60.0], [3.0 * w, 0.0], [0.0, 3.0 * h], [x1, y1, x0, y0], rect),
        // UVs from -0.5 to 1.5 of its size, 3x.
        quad(
            [4.0, 100.0],
            [6.0 * w, 0.0],
            [0.0, 6.0 * h],
            [x0 - w / 2.0, y0 - h / 2.0, x1 + w / 2.0, y1 + h / 2.0],
            rect,
        ),
        // The same, flipped, rotated the other way, at an odd scale and offset.
        quad(
            [170.0, 120.0],
            [2.3 * 2.0 * w * c, -2.3 * 2.0 * w * s],
            [2.3 * 2.0 * h * s, 2.3 * 2.0 * h * c],
            [x1 + w / 2.0, y0 - h / 2.0, x0 - w / 2.0, y1 + h / 2.0],
            rect,
        ),
        // Sub-texel slivers at the rectangle's edges, magnified 8x.
        quad([120.0, 100.0], [8.0, 0.0], [0.0, 40.0], [x0, y0, x0 + 1.0, y1], rect),
        quad([140.0, 100.0], [40.0, 0.0], [0.0, 8.0], [x0, y1 - 1.0, x1, y1], rect),
    ];
    let plan_with = |p: &PlanBuilder, flags: u32, sequence: u64| {
        let mut p = p.clone();
        p.set_sequence(sequence);
        for q in quads {
            p.instance(with(q, 0, flags, 1));
        }
        p.segment(&[Some(array)], &[(0, array)]);
        p.finish()
    };
    let clamped = Instance::FLAG_CLAMP_TO_RECT | Instance::FLAG_LINEAR;
    let frame = draw(gpu, &mut r, &plan_with(&p, clamped, 1));
    let foreign = foreign_pixels(&frame);
    assert!(
        foreign.is_empty(),
        "{}: {} pixels show a foreign texel, e.g. {:?}",
        gpu.adapter,
        foreign.len(),
        &foreign[..foreign.len().min(8)]
    );
    // Each quad shows the middle texture, edges included.
    for (x, y) in [(5, 5), (71, 5), (5, 39), (71, 39), (38, 22), (81, 5), (4 + 26, 60 + 14), (60 + 26, 60 + 14)] {
        frame.expect(x, y, MIDDLE, 0, "the middle texture");
    }
    for (x, y) in [(5, 101), (105, 101), (5, 153), (105, 153), (124, 120), (150, 104)] {
        frame.expect(x, y, MIDDLE, 0, "UVs outside the texture, clamped to its edge");
    }

    // The check sees a bleed: without the flag, linear filtering at the quads' edges and the
    // UVs outside the texture read the neighbours.
    let mut r2 = setup(gpu, Config::default()).1;
    let frame = draw(gpu, &mut r2, &plan_with(&p, Instance::FLAG_LINEAR, 1));
    let foreign = foreign_pixels(&frame);
    assert!(foreign.len() > 100, "{}: without clamping only {} foreign pixels", gpu.adapter, foreign.len());
}

/// Pixels that are neither [`MIDDLE`], [`CLEAR`] nor a mix of the two (white and black: a
/// grey), exactly.
fn foreign_pixels(frame: &Frame) -> Vec<(u32, u32, [u8; 4])> {
    let mut out = Vec::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let p = frame.px(x, y);
            let mix = p[0] == p[1] && p[1] == p[2] && p[3] == 255;
            if !(p == MIDDLE || p == CLEAR || mix) {
                out.push((x, y, p));
            }
        }
    }
    out
}

/// Level `level` of texture `t` of [`grow_enlarges_layers_keeping_texels`]: a solid colour per
/// texture and level.
fn grow_color(t: usize, level: u32) -> [u8; 4] {
    [[RED, GREEN, BLUE, YELLOW], [CYAN, MAGENTA, ORANGE, WHITE]][level as usize][t]
}

/// Plan 1 writes three textures (two levels each, each level its own colour) into a 32x32
/// nearest array of 2 layers and draws them; plan 2 grows it to 64x64 and 4 layers (the copy
/// takes each level's old size), writes a fourth texture outside the old size (staged, after
/// the copy), and draws every texture by the same texel coordinates: level 0 1:1 and level 1
/// minified 2x, every pixel right.
fn grow_enlarges_layers_keeping_texels(gpu: &Gpu) {
    let (b, mut r) = setup(gpu, Config::default());
    let budget = b.budget();
    let (a0, a1) = (ArrayId(0), ArrayId(1));
    let old = desc(32, 32, 2, 2, Filter::Nearest, Wrap::ClampToEdge);
    // (layer, origin, size) of each texture, texels.
    let textures: [(u32, [u32; 2], [u32; 2]); 4] =
        [(0, [0, 0], [16, 16]), (0, [16, 0], [16, 32]), (1, [0, 16], [32, 16]), (0, [32, 32], [24, 16])];
    let write = |p: &mut PlanBuilder, array, t: usize| {
        let (layer, xy, [w, h]) = textures[t];
        let levels: Vec<Vec<u8>> = (0..2)
            .map(|l| {
                let (lw, lh) = mip_size(w, h, l);
                solid(lw, lh, grow_color(t, l))
            })
            .collect();
        p.write(array, layer, xy, [w, h], &levels);
    };
    // Texture t at 1:1 and minified 2x, in row t.
    let draw_textures = |p: &mut PlanBuilder, n: usize| {
        for (t, &(layer, [x, y], [w, h])) in textures.iter().enumerate().take(n) {
            let tex = [x as f32, y as f32, (x + w) as f32, (y + h) as f32];
            let row = 40.0 * t as f32;
            p.instance(with(rect_quad(0.0, row, w as f32, h as f32, tex), 0, 0, layer));
            p.instance(with(rect_quad(100.0, row, w as f32 / 2.0, h as f32 / 2.0, tex), 0, 0, layer));
        }
    };
    let check = |frame: &Frame, n: usize, what: &str| {
        for (t, &(_, _, [w, h])) in textures.iter().enumerate().take(n) {
            let row = 40 * t as u32;
            let what = format!("{}: {what}, texture {t}", gpu.adapter);
            expect_region(frame, [0, row, w, row + h], grow_color(t, 0), &format!("{what}, level 0"));
            expect_region(frame, [100, row, 100 + w / 2, row + h / 2], grow_color(t, 1), &format!("{what}, level 1"));
            frame.expect(w, row, CLEAR, 0, &what);
        }
    };

    let mut p = PlanBuilder::new(1, budget);
    p.op(ArrayOp::Create { array: a0, desc: old });
    for t in 0..3 {
        write(&mut p, a0, t);
    }
    draw_textures(&mut p, 3);
    p.segment(&[Some(a0)], &[(0, a0)]);
    check(&draw(gpu, &mut r, &p.finish()), 3, "before the growth");

    let mut p = PlanBuilder::new(2, budget);
    let new = ArrayDesc { width_px: 64, height_px: 64, layers: layers(budget, 4), ..old };
    p.op(ArrayOp::Grow { from: a0, to: a1, desc: new, copy_layers: 2 });
    write(&mut p, a1, 3);
    draw_textures(&mut p, 4);
    p.segment(&[Some(a1)], &[(0, a1)]);
    let frame = draw(gpu, &mut r, &p.finish());
    check(&frame, 4, "after growing to 64x64");
    let s = r.stats().device_frame;
    assert_eq!((s.arrays_created, s.arrays_destroyed, s.layers_copied), (1, 1, 2));
    let texture = r.array_texture(a1).expect("the grown array");
    assert_eq!((texture.width(), texture.height(), texture.mip_level_count()), (64, 64, 2));
    assert_eq!(r.array_count(), 1);
}

/// A 32x32 nearest array of 3 layers holds a texture in layer 0 and one in layer 1.
///
/// Plan 2 updates the second texture (a queue write, before the copy), copies it from layer 1
/// to another place in layer 0, overwrites its old place (a write after the copy, so staged),
/// then shrinks the array to 1 layer (2 where wgpu's GL backend would misread 1). The moved
/// texture draws right at its new place: with the update, without the later write (which, as
/// a queue write, would have landed before the copy).
///
/// Plan 3 compacts into a new array, as core's page compaction does: a Create, a rectangle
/// copy per texture from the old array into the new one, a Destroy, then a write into the new
/// array (staged after the copies). Every texture draws right at its new place.
fn shrink_and_copy_rect(gpu: &Gpu) {
    let (b, mut r) = setup(gpu, Config::default());
    let budget = b.budget();
    let (a0, a1, a2) = (ArrayId(0), ArrayId(1), ArrayId(2));
    let old = desc(32, 32, 3, 1, Filter::Nearest, Wrap::ClampToEdge);
    let p_rect = [0.0, 0.0, 16.0, 16.0];
    let q_old = [8.0, 4.0, 20.0, 14.0];
    let q_new = [16.0, 16.0, 28.0, 26.0];

    let mut p = PlanBuilder::new(1, budget);
    p.op(ArrayOp::Create { array: a0, desc: old });
    p.write_solid(a0, 0, [0, 0], [16, 16], RED);
    p.write_solid(a0, 1, [8, 4], [12, 10], GREEN);
    p.write_solid(a0, 2, [0, 0], [32, 32], BLUE);
    p.instance(with(rect_quad(0.0, 0.0, 16.0, 16.0, p_rect), 0, 0, 0));
    p.instance(with(rect_quad(40.0, 0.0, 12.0, 10.0, q_old), 0, 0, 1));
    p.segment(&[Some(a0)], &[(0, a0)]);
    let frame = draw(gpu, &mut r, &p.finish());
    expect_region(&frame, [0, 0, 16, 16], RED, "plan 1, first texture");
    expect_region(&frame, [40, 0, 52, 10], GREEN, "plan 1, second texture");

    let mut p = PlanBuilder::new(2, budget);
    let kept = layers(budget, 1);
    p.write_solid(a0, 1, [8, 4], [12, 10], CYAN);
    p.op(ArrayOp::CopyRect {
        from: a0,
        from_layer: 1,
        from_xy: [8, 4],
        to: a0,
        to_layer: 0,
        to_xy: [16, 16],
        size: [12, 10],
    });
    p.write_solid(a0, 1, [8, 4], [12, 10], MAGENTA);
    p.op(ArrayOp::Shrink { from: a0, to: a1, desc: ArrayDesc { layers: kept, ..old }, copy_layers: kept });
    p.instance(with(rect_quad(0.0, 0.0, 16.0, 16.0, p_rect), 0, 0, 0));
    p.instance(with(rect_quad(40.0, 0.0, 12.0, 10.0, q_new), 0, 0, 0));
    // The whole of layer 0: the moved texture beside the first one, nothing else.
    p.instance(with(rect_quad(0.0, 40.0, 32.0, 32.0, [0.0, 0.0, 32.0, 32.0]), 0, 0, 0));
    if kept > 1 {
        p.instance(with(rect_quad(80.0, 0.0, 12.0, 10.0, q_old), 0, 0, 1));
    }
    p.segment(&[Some(a1)], &[(0, a1)]);
    let frame = draw(gpu, &mut r, &p.finish());
    let what = |s: &str| format!("{}: plan 2, {s}", gpu.adapter);
    expect_region(&frame, [0, 0, 16, 16], RED, &what("first texture"));
    expect_region(&frame, [40, 0, 52, 10], CYAN, &what("moved texture, updated before the copy"));
    expect_region(&frame, [0, 40, 16, 56], RED, &what("layer 0"));
    expect_region(&frame, [16, 56, 28, 66], CYAN, &what("layer 0, the moved rectangle"));
    expect_region(&frame, [28, 40, 32, 72], CLEAR, &what("layer 0, never written"));
    if kept > 1 {
        expect_region(&frame, [80, 0, 92, 10], MAGENTA, &what("its old place, written after the copy"));
    }
    let s = r.stats().device_frame;
    // A rectangle copy counts one layer copied, as core's mock device counts it.
    assert_eq!((s.arrays_created, s.arrays_destroyed, s.layers_copied), (1, 1, 1 + u64::from(kept)));
    assert_eq!(r.array_texture(a1).expect("the shrunk array").depth_or_array_layers(), kept);
    assert_eq!(r.array_count(), 1);

    let mut p = PlanBuilder::new(3, budget);
    let compact = ArrayDesc { width_px: 32, height_px: 16, layers: layers(budget, 1), ..old };
    p.op(ArrayOp::Create { array: a2, desc: compact });
    let copy = |from_xy, to_xy, size| ArrayOp::CopyRect {
        from: a1,
        from_layer: 0,
        from_xy,
        to: a2,
        to_layer: compact.layers - 1,
        to_xy,
        size,
    };
    p.op(copy([16, 16], [0, 0], [12, 10]));
    p.op(copy([0, 0], [12, 0], [16, 16]));
    p.op(ArrayOp::Destroy { array: a1 });
    p.write_solid(a2, compact.layers - 1, [28, 0], [4, 16], YELLOW);
    p.instance(with(rect_quad(0.0, 0.0, 32.0, 16.0, [0.0, 0.0, 32.0, 16.0]), 0, 0, compact.layers - 1));
    p.segment(&[Some(a2)], &[(0, a2)]);
    let frame = draw(gpu, &mut r, &p.finish());
    let what = |s: &str| format!("{}: plan 3, {s}", gpu.adapter);
    expect_region(&frame, [0, 0, 12, 10], CYAN, &what("the moved texture, moved again"));
    expect_region(&frame, [0, 10, 12, 16], CLEAR, &what("below it, never written"));
    expect_region(&frame, [12, 0, 28, 16], RED, &what("the first texture"));
    expect_region(&frame, [28, 0, 32, 16], YELLOW, &what("a write after the copies"));
    let s = r.stats().device_frame;
    assert_eq!((s.arrays_created, s.arrays_destroyed, s.layers_copied), (1, 1, 2));
    assert_eq!(r.array_count(), 1);
}

/// Texel `(x, y)` of the 4x4 textures of [`repeat_and_mirror_use_the_sampler`]: all 16 differ.
fn wrap_texel(x: u32, y: u32) -> [u8; 4] {
    [(x * 80 + 10) as u8, (y * 80 + 10) as u8, ((x * 4 + y) * 15) as u8, 255]
}

/// A texel index wrapped into `0..n` by `wrap`.
fn wrap_index(i: i64, n: i64, wrap: Wrap) -> i64 {
    match wrap {
        Wrap::Repeat => i.rem_euclid(n),
        Wrap::MirroredRepeat => {
            let m = i.rem_euclid(2 * n);
            if m < n {
                m
            } else {
                2 * n - 1 - m
            }
        }
        Wrap::ClampToEdge => i.clamp(0, n - 1),
    }
}

/// What a GPU sampler returns at `(u, v)` (texels) of a 4x4 [`wrap_texel`] texture: bilinear
/// between the four wrapped texels around it, or the nearest one.
fn reference(u: f64, v: f64, filter: Filter, wrap: Wrap) -> [f64; 4] {
    let texel = |x: i64, y: i64| wrap_texel(wrap_index(x, 4, wrap) as u32, wrap_index(y, 4, wrap) as u32);
    match filter {
        Filter::Nearest => texel(u.floor() as i64, v.floor() as i64).map(f64::from),
        Filter::Linear => {
            let (u, v) = (u - 0.5, v - 0.5);
            let (i, j) = (u.floor() as i64, v.floor() as i64);
            let (fu, fv) = (u - u.floor(), v - v.floor());
            let mut out = [0.0; 4];
            for (dx, dy, weight) in
                [(0, 0, (1.0 - fu) * (1.0 - fv)), (1, 0, fu * (1.0 - fv)), (0, 1, (1.0 - fu) * fv), (1, 1, fu * fv)]
            {
                let t = texel(i + dx, j + dy);
                for k in 0..4 {
                    out[k] += weight * f64::from(t[k]);
                }
            }
            out
        }
    }
}

/// Three 4x4 textures in arrays of their own (each filling its layer): repeat + linear,
/// mirrored repeat + linear, repeat + nearest, drawn 8 px per texel with UVs 0..3 across and
/// 0..1 down. Every pixel equals a CPU reference of the sampler's wrapping and filtering
/// (within 2 per channel; nearest exactly): across each tile seam, linear filtering blends the
/// last and the first texel columns (the mirrored texture the same column twice), with no hard
/// seam, and likewise the first and last rows at the top and bottom.
fn repeat_and_mirror_use_the_sampler(gpu: &Gpu) {
    let (b, mut r) = setup(gpu, Config::default());
    let budget = b.budget();
    let kinds =
        [(Filter::Linear, Wrap::Repeat), (Filter::Linear, Wrap::MirroredRepeat), (Filter::Nearest, Wrap::Repeat)];
    let pixels: Vec<u8> = (0..4).flat_map(|y| (0..4).flat_map(move |x| wrap_texel(x, y))).collect();
    let mut p = PlanBuilder::new(1, budget);
    let tier = *budget.tiers.iter().find(|&&t| t >= 3).expect("a tier of 3 slots or more");
    let mut table = vec![None; tier as usize];
    let mut binds = Vec::new();
    for (k, &(filter, wrap)) in kinds.iter().enumerate() {
        let array = ArrayId(k as u32);
        p.op(ArrayOp::Create { array, desc: desc(4, 4, layers(budget, 2), 1, filter, wrap) });
        p.write(array, 1, [0, 0], [4, 4], std::slice::from_ref(&pixels));
        table[k] = Some(array);
        binds.push((k as u32, array));
        let flags = match (filter, wrap) {
            (Filter::Linear, Wrap::Repeat) => Instance::FLAG_LINEAR | Instance::FLAG_REPEAT,
            (Filter::Linear, _) => Instance::FLAG_LINEAR | Instance::FLAG_MIRROR,
            _ => Instance::FLAG_REPEAT,
        };
        let q = quad([0.0, 40.0 * k as f32], [96.0, 0.0], [0.0, 32.0], [0.0, 0.0, 12.0, 4.0], [0.0, 0.0, 4.0, 4.0]);
        p.instance(with(q, k as u32, flags, 1));
    }
    p.segment(&table, &binds);
    let frame = draw(gpu, &mut r, &p.finish());
    for (k, &(filter, wrap)) in kinds.iter().enumerate() {
        // Nearest exactly; linear within 2 (the sampler's fixed-point weights and rounding).
        let tol = if filter == Filter::Nearest { 0.0 } else { 2.0 };
        for py in 0..32u32 {
            for px in 0..96u32 {
                // 8 px per texel: pixel centres at multiples of 1/16 texel, exact in the
                // sampler's fixed-point weights.
                let (u, v) = ((f64::from(px) + 0.5) / 8.0, (f64::from(py) + 0.5) / 8.0);
                let want = reference(u, v, filter, wrap);
                let got = frame.px(px, 40 * k as u32 + py);
                let ok = (0..4).all(|c| (f64::from(got[c]) - want[c]).abs() <= tol + 0.5);
                assert!(
                    ok,
                    "{}: {filter:?} + {wrap:?}: pixel ({px}, {py}) = texel ({u}, {v}) is {got:?}, the sampler's \
                     reference {want:?}",
                    gpu.adapter
                );
            }
        }
    }
    // No hard seam: just right of the seam at u = 4 (pixel 32, u - 0.5 = 3.5625), linear
    // repeat blends column 3 and column 0.
    let seam = frame.px(32, 12)[0];
    let (last, first) = (wrap_texel(3, 1)[0], wrap_texel(0, 1)[0]);
    assert!(seam < last && seam > first, "{}: repeat seam {seam}, columns {last} and {first}", gpu.adapter);
}

/// Atlas pages as core plans them: 60 static textures of odd sizes packed into 64 px pages
/// (the first is drawn alone, so that its small page is on the device; the other 59 then grow
/// it by a GPU copy, in size, then in layers), drawn scaled with linear filtering; then two thirds
/// are freed and [`TextureStore::compact`](layerbatch_core::TextureStore::compact) repacks the rest into
/// a smaller array by rectangle copies between arrays. Every texture shows exactly its colour,
/// edges included, before and after, and the device's counts equal core's mock device's.
fn core_pages_pack_and_compact(gpu: &Gpu) {
    let config = Config::default().with_max_packed_size_px(32).with_page_size_px(64);
    let (mut b, mut r) = setup(gpu, config);
    let mut mock = MockDevice::new(b.budget());
    let size = |i: usize| (6 + (i as u32 * 7) % 27, 6 + (i as u32 * 11) % 27);
    let register = |b: &mut Batcher, i: usize| {
        let (w, h) = size(i);
        Some(b.textures().register(&TextureDesc::new(w, h), &solid(w, h, color(i))).unwrap())
    };
    let mut ids: Vec<Option<TextureId>> = vec![None; 60];
    ids[0] = register(&mut b, 0);
    let mut frame_of = |b: &mut Batcher, r: &mut common::Rig, ids: &[Option<TextureId>], what: &str| {
        b.begin_frame();
        for (i, id) in ids.iter().enumerate() {
            let Some(id) = *id else { continue };
            let (x, y) = ((i % 16) as f32 * 16.0 + 2.0, (i / 16) as f32 * 16.0 + 2.0);
            b.push(&Quad::rect(id, [x, y], [12.0, 12.0])).unwrap();
        }
        let plan = b.finish();
        mock.execute(plan).unwrap();
        let frame = draw(gpu, r, plan);
        for (i, id) in ids.iter().enumerate() {
            if id.is_none() {
                continue;
            }
            let (x, y) = ((i % 16) as u32 * 16 + 2, (i / 16) as u32 * 16 + 2);
            expect_region(&frame, [x, y, x + 12, y + 12], color(i), &format!("{}: {what}, texture {i}", gpu.adapter));
            frame.expect(x - 1, y - 1, CLEAR, 0, what);
        }
        let (d, m) = (r.stats().device_frame, mock.frame_counters());
        assert_eq!(
            (d.draw_calls, d.layers_copied, d.arrays_created, d.arrays_destroyed, d.texture_bytes_written),
            (m.draw_calls, m.layers_copied, m.arrays_created, m.arrays_destroyed, m.texture_bytes_written),
            "{}: {what}: the device's counts are the mock's",
            gpu.adapter
        );
        r.stats().core_frame
    };
    let c = frame_of(&mut b, &mut r, &ids, "the first texture");
    assert_eq!(c.array_growths, 0, "one texture, one page");
    for (i, id) in ids.iter_mut().enumerate().skip(1) {
        *id = register(&mut b, i);
    }
    let c = frame_of(&mut b, &mut r, &ids, "packed");
    assert!(c.array_growths >= 1, "the page array grows");
    assert!(r.stats().device_frame.layers_copied >= 1, "by a GPU copy");
    let arrays: std::collections::HashSet<_> = ids.iter().flatten().map(|&t| b.placement(t).unwrap().array).collect();
    assert_eq!(arrays.len(), 1, "one page array");
    let array = *arrays.iter().next().unwrap();
    let before = b.allocator().array(array).unwrap().layers;
    assert!(before >= 4, "{before} layers of pages");

    for (i, id) in ids.iter_mut().enumerate() {
        if i % 3 != 0 {
            b.textures().free(id.take().unwrap()).unwrap();
        }
    }
    let moved = b.textures().compact();
    assert!(moved > 0, "compaction moves textures");
    let c = frame_of(&mut b, &mut r, &ids, "compacted");
    assert_eq!(c.rect_copies, moved as u64, "one rectangle copy per moved texture");
    let after = ids.iter().flatten().map(|&t| b.placement(t).unwrap().array).collect::<std::collections::HashSet<_>>();
    assert_eq!(after.len(), 1);
    let after = b.allocator().array(*after.iter().next().unwrap()).unwrap().layers;
    assert!(after < before, "{before} layers, then {after}");
    assert_eq!(r.array_count(), b.allocator().arrays().count(), "only the live arrays");
    frame_of(&mut b, &mut r, &ids, "the frame after");
}
