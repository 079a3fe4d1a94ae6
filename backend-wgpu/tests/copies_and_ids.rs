//! GPU copies after staged writes, and array ids that come back, from hand-made plans the
//! validator accepts (each on wgpu's Vulkan backend, lavapipe, and its GL backend, llvmpipe).

use crate::common;
// Hand-made plans, shared with the GL backend's tests.
use layerbatch_testkit::plans;

use common::{color, draw, setup, Frame, Gpu, CLEAR};
use layerbatch_core::plan::{ArrayDesc, ArrayId, ArrayOp, Instance};
use layerbatch_core::{Config, Filter, Format, MockDevice, Sampler, Wrap};
use plans::PlanBuilder;

on_both_backends!(
    growth_copy_after_staged_writes_does_not_panic,
    shrink_copy_after_staged_writes_does_not_panic,
    reused_array_id_shows_new_content,
);

/// Side of every test texture, texels and pixels.
const TEX: u32 = 16;

fn desc(layers: u32, mip_levels: u32) -> ArrayDesc {
    ArrayDesc {
        width_px: TEX,
        height_px: TEX,
        layers,
        format: Format::Rgba8Unorm,
        mip_levels,
        sampler: Sampler::new(Filter::Nearest, Wrap::ClampToEdge),
        render_target: false,
        normal_map: false,
        host: None,
    }
}

/// Draws `layer` of the array in `slot` 1:1 at `(x, y)`.
fn layer_quad(p: &mut PlanBuilder, slot: u32, layer: u32, [x, y]: [f32; 2]) {
    let t = TEX as f32;
    p.instance(Instance {
        origin: [x, y],
        axis_x: [t, 0.0],
        axis_y: [0.0, t],
        uv_rect: [0.0, 0.0, t, t],
        tex_rect: [0, 0, TEX as u16, TEX as u16],
        color: [255; 4],
        slot_flags_layer: Instance::pack(slot, 0, layer),
        ..Instance::default()
    });
}

/// Where [`layer_quad`] of layer `i` goes in these tests: one row of 20 px cells.
fn cell(i: u32) -> [f32; 2] {
    [i as f32 * 20.0, 0.0]
}

/// Panics unless the cell of layer `i` is `want` inside and the clear colour beside it.
#[track_caller]
fn expect_cell(frame: &Frame, i: u32, want: [u8; 4], what: &str) {
    let [x, y] = cell(i).map(|v| v as u32);
    for (dx, dy) in [(0, 0), (TEX / 2, TEX / 2), (TEX - 1, TEX - 1)] {
        frame.expect(x + dx, y + dy, want, 0, what);
    }
    frame.expect(x + TEX + 1, y + 1, CLEAR, 0, what);
}

/// Layer `i`'s colour before plan 2 rewrites it, and after.
fn old_color(i: u32) -> [u8; 4] {
    color(i as usize)
}
fn new_color(i: u32) -> [u8; 4] {
    color(100 + i as usize)
}

/// Plan 1 creates array Z (2 layers) and an 8-layer array Y (each layer its own colour). Plan
/// 2 grows Z first (a GPU copy: every write after it is staged into the renderer's encoder),
/// rewrites layers 1, 3 and 5 of Y (three staged writes, into non-adjacent layers), then grows
/// Y copying all 8 layers, and draws them. One copy of the 8 layers there made wgpu-core 30.0.2
/// panic (`ArrayVec: capacity exceeded`, collecting the source's 3 pending barriers into an
/// `ArrayVec<_, 2>`); the renderer copies layer by layer. Every layer shows its content, the
/// rewritten ones their new colour, and the device counts the layers copied as the mock does.
fn growth_copy_after_staged_writes_does_not_panic(gpu: &Gpu) {
    copy_after_staged_writes(gpu, false);
}

/// The same with a shrink of Y (8 layers of 2 levels to 7, copying 7), after staged writes
/// into layers 0, 2 and 4 (both levels).
fn shrink_copy_after_staged_writes_does_not_panic(gpu: &Gpu) {
    copy_after_staged_writes(gpu, true);
}

fn copy_after_staged_writes(gpu: &Gpu, shrink: bool) {
    let (b, mut r) = setup(gpu, Config::default());
    let budget = b.budget();
    let mut mock = MockDevice::new(budget);
    let (z, y, z2, y2) = (ArrayId(0), ArrayId(1), ArrayId(2), ArrayId(3));
    let levels = if shrink { 2 } else { 1 };
    let old_y = desc(8, levels);
    let write = |p: &mut PlanBuilder, array, layer, c: [u8; 4]| {
        p.write_solid_levels(array, layer, [0, 0], [TEX, TEX], &vec![c; levels as usize]);
    };

    let mut p = PlanBuilder::new(1, budget);
    p.op(ArrayOp::Create { array: z, desc: desc(2, 1) });
    p.op(ArrayOp::Create { array: y, desc: old_y });
    p.write_solid(z, 0, [0, 0], [TEX, TEX], [255, 255, 255, 255]);
    for i in 0..8 {
        write(&mut p, y, i, old_color(i));
    }
    for i in 0..8 {
        layer_quad(&mut p, 0, i, cell(i));
    }
    let plan = p.finish_with(y);
    mock.execute(&plan).unwrap();
    let frame = draw(gpu, &mut r, &plan);
    for i in 0..8 {
        expect_cell(&frame, i, old_color(i), &format!("{}: plan 1, layer {i}", gpu.adapter));
    }

    let rewritten: [u32; 3] = if shrink { [0, 2, 4] } else { [1, 3, 5] };
    let (new_y, copied) = if shrink { (desc(7, levels), 7) } else { (desc(10, levels), 8) };
    let mut p = PlanBuilder::new(2, budget);
    p.op(ArrayOp::Grow { from: z, to: z2, desc: desc(3, 1), copy_layers: 2 });
    for &i in &rewritten {
        write(&mut p, y, i, new_color(i));
    }
    p.op(if shrink {
        ArrayOp::Shrink { from: y, to: y2, desc: new_y, copy_layers: copied }
    } else {
        ArrayOp::Grow { from: y, to: y2, desc: new_y, copy_layers: copied }
    });
    for i in 0..copied {
        layer_quad(&mut p, 0, i, cell(i));
    }
    // Z's grown copy too, in a segment of its own, below the row.
    p.segment(&[Some(y2)], &[(0, y2)]);
    layer_quad(&mut p, 0, 0, [0.0, 40.0]);
    let plan = p.finish_with(z2);
    mock.execute(&plan).unwrap();
    let frame = draw(gpu, &mut r, &plan);
    for i in 0..copied {
        let want = if rewritten.contains(&i) { new_color(i) } else { old_color(i) };
        expect_cell(&frame, i, want, &format!("{}: after the copy, layer {i}", gpu.adapter));
    }
    frame.expect(8, 48, [255, 255, 255, 255], 0, &format!("{}: the grown Z", gpu.adapter));
    let (d, m) = (r.stats().device_frame, mock.frame_counters());
    assert_eq!(d.layers_copied, u64::from(copied) + 2, "{}: layers, as core's mock counts", gpu.adapter);
    assert_eq!(
        (d.layers_copied, d.arrays_created, d.arrays_destroyed, d.texture_bytes_written),
        (m.layers_copied, m.arrays_created, m.arrays_destroyed, m.texture_bytes_written),
        "{}: the device's counts are the mock's",
        gpu.adapter
    );
    assert_eq!(r.array_texture(y2).map(wgpu::Texture::depth_or_array_layers), Some(new_y.layers));
    assert!(r.array_texture(y).is_none() && r.array_texture(z).is_none(), "the old arrays are gone");
}

/// Array ids come back: an id destroyed, or grown from, in plan k may be created again from
/// plan k + 1 on. The renderer forgets everything it keyed by the id (the texture, the cached
/// bind groups holding it, the slots holding it), so the new array's content shows, never the
/// old texture through a stale bind group.
///
/// Plan 1 creates array 0 (red) and draws it; plan 2 destroys it; plan 3 creates a new array
/// 0 (another size and filter, green in layer 0, blue in layer 2) and draws both layers. Plan 4
/// grows array 0 into array 1 and plan 5 creates array 0 once more (yellow), drawing both from
/// two slots: each shows its own.
fn reused_array_id_shows_new_content(gpu: &Gpu) {
    let (b, mut r) = setup(gpu, Config::default());
    let budget = b.budget();
    let mut mock = MockDevice::new(budget);
    let (a0, a1) = (ArrayId(0), ArrayId(1));
    let (red, green, blue, yellow) = ([255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 255]);
    let mut run = |r: &mut common::Rig, p: &mut PlanBuilder, last: ArrayId| {
        let plan = p.finish_with(last);
        mock.execute(&plan).unwrap();
        draw(gpu, r, &plan)
    };
    let what = |s: &str| format!("{}: {s}", gpu.adapter);

    let mut p = PlanBuilder::new(1, budget);
    p.op(ArrayOp::Create { array: a0, desc: desc(2, 1) });
    p.write_solid(a0, 0, [0, 0], [TEX, TEX], red);
    layer_quad(&mut p, 0, 0, cell(0));
    expect_cell(&run(&mut r, &mut p, a0), 0, red, &what("plan 1, the first array 0"));

    let mut p = PlanBuilder::new(2, budget);
    p.op(ArrayOp::Destroy { array: a0 });
    let frame = run(&mut r, &mut p, a0);
    frame.expect(8, 8, CLEAR, 0, &what("plan 2 draws nothing"));

    let mut p = PlanBuilder::new(3, budget);
    let other = ArrayDesc {
        width_px: 32,
        height_px: 32,
        layers: 3,
        sampler: Sampler::new(Filter::Linear, Wrap::ClampToEdge),
        ..desc(3, 1)
    };
    p.op(ArrayOp::Create { array: a0, desc: other });
    p.write_solid(a0, 0, [0, 0], [TEX, TEX], green);
    p.write_solid(a0, 2, [0, 0], [TEX, TEX], blue);
    layer_quad(&mut p, 0, 0, cell(0));
    layer_quad(&mut p, 0, 2, cell(1));
    let frame = run(&mut r, &mut p, a0);
    expect_cell(&frame, 0, green, &what("plan 3, the new array 0, layer 0"));
    expect_cell(&frame, 1, blue, &what("plan 3, the new array 0, layer 2"));
    assert_eq!(r.array_texture(a0).map(|t| (t.width(), t.depth_or_array_layers())), Some((32, 3)));

    let mut p = PlanBuilder::new(4, budget);
    p.op(ArrayOp::Grow { from: a0, to: a1, desc: ArrayDesc { layers: 4, ..other }, copy_layers: 3 });
    layer_quad(&mut p, 0, 2, cell(0));
    expect_cell(&run(&mut r, &mut p, a1), 0, blue, &what("plan 4, array 1 grown from array 0"));

    let mut p = PlanBuilder::new(5, budget);
    p.op(ArrayOp::Create { array: a0, desc: desc(2, 1) });
    p.write_solid(a0, 1, [0, 0], [TEX, TEX], yellow);
    layer_quad(&mut p, 0, 1, cell(0));
    layer_quad(&mut p, 1, 0, cell(1));
    layer_quad(&mut p, 1, 2, cell(2));
    p.segment(&[Some(a0), Some(a1)], &[(0, a0), (1, a1)]);
    let frame = run(&mut r, &mut p, a0);
    expect_cell(&frame, 0, yellow, &what("plan 5, the third array 0"));
    expect_cell(&frame, 1, green, &what("plan 5, array 1, layer 0"));
    expect_cell(&frame, 2, blue, &what("plan 5, array 1, layer 2"));
    assert_eq!(r.array_count(), 2);
}
