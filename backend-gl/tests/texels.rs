//! Texel-space sampling and the GPU copies of atlas pages, on a real context (llvmpipe through
//! EGL), each scene on desktop GL 3.3 core and on GLES 3.0: clamping into a texture's own
//! rectangle (no foreign texel, whatever the UVs, filter, scale or rotation), growth to larger
//! layers, shrinking, rectangle copies between layers, and a padded texture through the
//! batcher.
// The tests drive GL directly (host-side state, readback): every call is in `unsafe`.
#![allow(unsafe_code)]

use crate::common;

use common::{solid, Ctx, Image, Offscreen};
use layerbatch_core::plan::{ArrayDesc, ArrayId, ArrayOp, Instance};
use layerbatch_core::{Batcher, Config, Filter, Format, FramePlan, Quad, Sampler, TextureDesc, Wrap};
use layerbatch_gl::{Capabilities, CopyPath, Renderer, Target};
use layerbatch_testkit::plans;
use plans::PlanBuilder;

const W: u32 = 256;
const H: u32 = 256;
const CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const BLACK: [u8; 4] = [0, 0, 0, 255];

/// A quad's `origin`, `axis_x` and `axis_y`, pixels.
type Corners = [[f32; 2]; 3];

/// An axis-aligned quad at `origin`, `size` pixels.
fn rect(origin: [f32; 2], [w, h]: [f32; 2]) -> Corners {
    [origin, [w, 0.0], [0.0, h]]
}

/// A quad `size` pixels, centred on `center`, rotated by `angle` radians.
fn rotated(center: [f32; 2], [w, h]: [f32; 2], angle: f32) -> Corners {
    let (s, c) = angle.sin_cos();
    let ax = [c * w, s * w];
    let ay = [-s * h, c * h];
    [[center[0] - 0.5 * (ax[0] + ay[0]), center[1] - 0.5 * (ax[1] + ay[1])], ax, ay]
}

fn desc(width_px: u32, height_px: u32, layers: u32, mip_levels: u32, filter: Filter) -> ArrayDesc {
    ArrayDesc {
        width_px,
        height_px,
        layers,
        format: Format::Rgba8Unorm,
        mip_levels,
        sampler: Sampler::new(filter, Wrap::ClampToEdge),
        render_target: false,
        normal_map: false,
        host: None,
    }
}

/// A batcher (for its budget and a texture id to name writes), a renderer forced onto `path`
/// (`None`: what the context offers) and an offscreen target. `None` when the context lacks
/// copy-image and `path` asks for it.
fn setup(ctx: &Ctx, path: Option<CopyPath>) -> Option<(Batcher, Renderer, Offscreen)> {
    // Compressed copies only where the renderer makes them (copy-image).
    let limits = Renderer::query_limits(&ctx.gl);
    let copies = limits.compressed_copies && path != Some(CopyPath::Blit);
    let batcher = Batcher::new(limits.with_compressed_copies(copies), Config::default()).unwrap();
    let renderer = match path {
        None => Renderer::new(ctx.gl.clone(), batcher.budget()).unwrap(),
        Some(path) => {
            let caps = Capabilities { copy_image: path == CopyPath::CopyImage, ..Capabilities::detect(&ctx.gl) };
            let r = Renderer::with_capabilities(ctx.gl.clone(), batcher.budget(), caps).unwrap();
            if r.copy_path() != path {
                println!("skipped: {path:?}: the context lacks it");
                r.destroy();
                return None;
            }
            r
        }
    };
    Some((batcher, renderer, Offscreen::new(&ctx.gl, W, H, CLEAR)))
}

/// Paints `plan` into `target` (cleared first) and reads it back.
fn paint(ctx: &Ctx, renderer: &mut Renderer, target: &Offscreen, plan: &FramePlan) -> Image {
    target.clear(&ctx.gl, CLEAR);
    renderer.paint(plan, &Target::framebuffer(target.fbo, [W, H])).expect("paint");
    target.read(&ctx.gl)
}

// a. One 64x64 layer holds a 3x3 grid of small solid textures of odd sizes packed edge to
//    edge, in colours that each have full red or full blue. The middle one (pure green) is
//    drawn with the clamp flag magnified 4x, minified to 1/4, rotated, flipped, at fractional
//    positions and with UVs reaching half its size outside it, linear and nearest: every
//    pixel is a shade of green on black (red and blue exactly 0), so not one neighbour's
//    texel was read, and the parts outside its rectangle show its edge.
fn no_foreign_texel(ctx: &Ctx) {
    const MID: [u8; 4] = [0, 255, 0, 255];
    const NEIGHBOURS: [[u8; 4]; 8] = [
        [255, 0, 0, 255],
        [0, 0, 255, 255],
        [255, 0, 255, 255],
        [255, 255, 255, 255],
        [255, 255, 0, 255],
        [0, 255, 255, 255],
        [255, 128, 0, 255],
        [128, 0, 255, 255],
    ];
    // Odd sizes, from an odd corner: the middle texture is 11x9 at (16, 12).
    let (widths, heights, corner) = ([13u32, 11, 17], [7u32, 9, 12], [3u32, 5]);
    let col_x = [corner[0], corner[0] + widths[0], corner[0] + widths[0] + widths[1]];
    let row_y = [corner[1], corner[1] + heights[0], corner[1] + heights[0] + heights[1]];
    let [x0, y0] = [col_x[1] as f32, row_y[1] as f32];
    let [x1, y1] = [x0 + widths[1] as f32, y0 + heights[1] as f32];
    let (tw, th) = (x1 - x0, y1 - y0);
    let tex = [x0, y0, x1, y1];
    for filter in [Filter::Linear, Filter::Nearest] {
        let Some((batcher, mut renderer, target)) = setup(ctx, None) else { return };
        let array = ArrayId(0);
        let mut b = PlanBuilder::new(1, batcher.budget());
        b.op(ArrayOp::Create { array, desc: desc(64, 64, 1, 1, filter) });
        let mut neighbours = NEIGHBOURS.iter();
        for (row, &h) in heights.iter().enumerate() {
            for (col, &w) in widths.iter().enumerate() {
                let c = if (row, col) == (1, 1) { MID } else { *neighbours.next().unwrap() };
                b.write_solid_levels(array, 0, [col_x[col], row_y[row]], [w, h], &[c]);
            }
        }
        let linear = if filter == Filter::Linear { Instance::FLAG_LINEAR } else { 0 };
        let flags = Instance::FLAG_CLAMP_TO_RECT | linear;
        // Quads, and a point inside each that must show exactly MID.
        let outside = [x0 - 0.5 * tw, y0 - 0.5 * th, x1 + 0.5 * tw, y1 + 0.5 * th];
        let quads: [(Corners, [f32; 4], [u32; 2]); 9] = [
            (rect([4.0, 4.0], [4.0 * tw, 4.0 * th]), tex, [25, 22]), // magnified 4x
            (rect([60.3, 4.6], [0.25 * tw, 0.25 * th]), tex, [61, 5]), // minified to 1/4
            (rect([70.0, 4.0], [0.5 * tw, 0.5 * th]), tex, [72, 6]), // minified to 1/2
            (rotated([120.0, 30.0], [3.0 * tw, 3.0 * th], 0.52), tex, [120, 30]), // rotated
            (rect([160.0, 4.0], [4.0 * tw, 4.0 * th]), [x1, y0, x0, y1], [162, 6]), // flipped in x
            (rect([210.0, 4.0], [4.0 * tw, 4.0 * th]), [x1, y1, x0, y0], [250, 38]), // flipped in x and y
            // UVs from -0.5 to 1.5 of the texture, 4x: its edge texels stretched outwards.
            (rect([4.0, 60.0], [8.0 * tw, 8.0 * th]), outside, [5, 61]),
            (rotated([170.0, 140.0], [4.6 * tw, 4.6 * th], -0.8), outside, [170, 140]),
            (rect([20.37, 150.71], [5.3 * tw, 5.3 * th]), tex, [21, 151]), // fractional
        ];
        for (quad, uv, _) in quads {
            b.draw(quad, uv, tex, flags, 0);
        }
        let img = paint(ctx, &mut renderer, &target, &b.finish_with(array));
        let what = format!("{filter:?}");
        for (x, y, p) in img.pixels() {
            assert!(p[0] == 0 && p[2] == 0 && p[3] == 255, "{what}: a foreign texel at ({x}, {y}): {p:?}");
        }
        for (i, (_, _, [x, y])) in quads.iter().enumerate() {
            assert_eq!(img.at(*x, *y), MID, "{what}: quad {i} at ({x}, {y})");
        }
        // The magnified quads are MID all over (no partial coverage: no multisampling).
        img.assert_rect([4, 4, 48, 40], MID, 0, &format!("{what}: magnified"));
        img.assert_rect([4, 60, 92, 132], MID, 0, &format!("{what}: UVs outside 0..1, edges stretched"));
        img.assert_rect([92, 60, W, 100], BLACK, 0, &format!("{what}: beside the quads"));
        renderer.destroy();
        target.delete(&ctx.gl);
    }
}
both_flavors!(no_foreign_texel);

// b. Plan 1 writes textures (two mip levels, a colour each) into a 32x32 array of 2 layers and
//    draws them; plan 2 grows it to 64x64 with 4 layers, writes one more texture into the new
//    space, and draws the old ones by the same texel coordinates at level 0 and level 1:
//    the right colours, on both copy paths.
fn grow_enlarges_layers_keeping_texels(ctx: &Ctx, path: CopyPath) {
    let Some((batcher, mut renderer, target)) = setup(ctx, Some(path)) else { return };
    let (old, new) = (ArrayId(0), ArrayId(1));
    let colors: [[[u8; 4]; 2]; 4] = [
        [[230, 20, 20, 255], [120, 10, 10, 255]],
        [[20, 230, 20, 255], [10, 120, 10, 255]],
        [[20, 20, 230, 255], [10, 10, 120, 255]],
        [[230, 230, 20, 255], [120, 120, 10, 255]],
    ];
    // (layer, corner, size) of the textures of plan 1.
    let textures: [(u32, [u32; 2], [u32; 2]); 3] =
        [(0, [0, 0], [16, 16]), (0, [16, 8], [16, 24]), (1, [0, 0], [32, 32])];
    let flags = Instance::FLAG_CLAMP_TO_RECT;
    // Texture `i` drawn 1:1 in row 0 and at half size (level 1) in row 1 of column `i`.
    let draw = |b: &mut PlanBuilder, i: usize, layer: u32, [x, y]: [u32; 2], [w, h]: [u32; 2]| {
        let r = [x as f32, y as f32, (x + w) as f32, (y + h) as f32];
        let col = 48.0 * i as f32;
        b.draw(rect([col, 0.0], [w as f32, h as f32]), r, r, flags, layer);
        b.draw(rect([col, 40.0], [w as f32 / 2.0, h as f32 / 2.0]), r, r, flags, layer);
    };
    let check = |img: &Image, i: usize, [w, h]: [u32; 2], levels: [[u8; 4]; 2], when: &str| {
        let col = 48 * i as u32;
        img.assert_rect([col, 0, col + w, h], levels[0], 0, &format!("{when}: texture {i}, level 0"));
        img.assert_rect([col, 40, col + w / 2, 40 + h / 2], levels[1], 0, &format!("{when}: texture {i}, level 1"));
    };

    let mut b = PlanBuilder::new(1, batcher.budget());
    b.op(ArrayOp::Create { array: old, desc: desc(32, 32, 2, 2, Filter::Nearest) });
    for (i, &(layer, at, size)) in textures.iter().enumerate() {
        b.write_solid_levels(old, layer, at, size, &colors[i]);
        draw(&mut b, i, layer, at, size);
    }
    let img = paint(ctx, &mut renderer, &target, &b.finish_with(old));
    for (i, &(_, _, size)) in textures.iter().enumerate() {
        check(&img, i, size, colors[i], "plan 1");
    }

    let mut b = PlanBuilder::new(2, batcher.budget());
    b.op(ArrayOp::Grow { from: old, to: new, desc: desc(64, 64, 4, 2, Filter::Nearest), copy_layers: 2 });
    // A texture in the space the growth added: at (32, 16) of layer 0, and in a new layer.
    let added: [(u32, [u32; 2], [u32; 2]); 2] = [(0, [32, 16], [32, 32]), (3, [0, 0], [16, 16])];
    for &(layer, at, size) in &added {
        b.write_solid_levels(new, layer, at, size, &colors[3]);
    }
    for (i, &(layer, at, size)) in textures.iter().chain(&added).enumerate() {
        draw(&mut b, i, layer, at, size);
    }
    let img = paint(ctx, &mut renderer, &target, &b.finish_with(new));
    for (i, &(_, _, size)) in textures.iter().chain(&added).enumerate() {
        check(&img, i, size, colors[i.min(3)], &format!("plan 2 ({path:?})"));
    }
    let stats = renderer.stats();
    assert_eq!(stats.device_frame.layers_copied, 2);
    assert_eq!((stats.device_frame.arrays_created, stats.device_frame.arrays_destroyed), (1, 1));
    assert_eq!(renderer.array_count(), 1);
    assert!(renderer.array_texture(old).is_none() && renderer.array_texture(new).is_some());
    renderer.destroy();
    target.delete(&ctx.gl);
}
fn grow_enlarges_layers_keeping_texels_copy_image(ctx: &Ctx) {
    grow_enlarges_layers_keeping_texels(ctx, CopyPath::CopyImage);
}
fn grow_enlarges_layers_keeping_texels_blit(ctx: &Ctx) {
    grow_enlarges_layers_keeping_texels(ctx, CopyPath::Blit);
}
both_flavors!(grow_enlarges_layers_keeping_texels_copy_image);
both_flavors!(grow_enlarges_layers_keeping_texels_blit);

// c. Plan 1 fills layer 0 white with a red texture at its origin, and layer 1 blue with a
//    green texture at (8, 8). Plan 2 copies the green rectangle to (16, 16) of layer 0
//    (CopyRect within the array), shrinks the array to that one layer, and draws layer 0
//    whole and the moved texture by its new rectangle: red, green where it landed, white
//    elsewhere, no blue. Plan 3 copies both rectangles into two layers of a new, smaller
//    array (CopyRect between arrays) and destroys the old one. On both copy paths.
fn shrink_and_copy_rect(ctx: &Ctx, path: CopyPath) {
    const WHITE: [u8; 4] = [255; 4];
    const RED: [u8; 4] = [230, 20, 20, 255];
    const GREEN: [u8; 4] = [20, 230, 20, 255];
    const BLUE: [u8; 4] = [20, 20, 230, 255];
    let Some((batcher, mut renderer, target)) = setup(ctx, Some(path)) else { return };
    let (old, new) = (ArrayId(0), ArrayId(1));
    let whole = [0.0, 0.0, 32.0, 32.0];
    let mut b = PlanBuilder::new(1, batcher.budget());
    b.op(ArrayOp::Create { array: old, desc: desc(32, 32, 2, 1, Filter::Nearest) })
        .write_solid_levels(old, 0, [0, 0], [32, 32], &[WHITE])
        .write_solid_levels(old, 0, [0, 0], [16, 16], &[RED])
        .write_solid_levels(old, 1, [0, 0], [32, 32], &[BLUE])
        .write_solid_levels(old, 1, [8, 8], [16, 16], &[GREEN])
        .draw(rect([0.0, 0.0], [32.0, 32.0]), whole, whole, 0, 0)
        .draw(rect([40.0, 0.0], [32.0, 32.0]), whole, whole, 0, 1);
    let img = paint(ctx, &mut renderer, &target, &b.finish_with(old));
    img.assert_rect([0, 0, 16, 16], RED, 0, "plan 1: layer 0");
    img.assert_rect([16, 16, 32, 32], WHITE, 0, "plan 1: layer 0");
    img.assert_rect([48, 8, 64, 24], GREEN, 0, "plan 1: layer 1");
    img.assert_rect([40, 0, 72, 8], BLUE, 0, "plan 1: layer 1");

    let mut b = PlanBuilder::new(2, batcher.budget());
    let moved = [16.0, 16.0, 32.0, 32.0];
    b.op(ArrayOp::CopyRect {
        from: old,
        from_layer: 1,
        from_xy: [8, 8],
        to: old,
        to_layer: 0,
        to_xy: [16, 16],
        size: [16, 16],
    })
    .op(ArrayOp::Shrink { from: old, to: new, desc: desc(32, 32, 1, 1, Filter::Nearest), copy_layers: 1 })
    .draw(rect([0.0, 0.0], [32.0, 32.0]), whole, whole, 0, 0)
    .draw(rect([40.0, 0.0], [48.0, 48.0]), moved, moved, Instance::FLAG_CLAMP_TO_RECT, 0);
    let img = paint(ctx, &mut renderer, &target, &b.finish_with(new));
    let when = format!("plan 2 ({path:?})");
    img.assert_rect([0, 0, 16, 16], RED, 0, &format!("{when}: red kept"));
    img.assert_rect([16, 16, 32, 32], GREEN, 0, &format!("{when}: the copied rectangle"));
    img.assert_rect([16, 0, 32, 16], WHITE, 0, &format!("{when}: beside it"));
    img.assert_rect([0, 16, 16, 32], WHITE, 0, &format!("{when}: beside it"));
    img.assert_rect([40, 0, 88, 48], GREEN, 0, &format!("{when}: the moved texture at its new place"));
    let stats = renderer.stats();
    assert_eq!(stats.device_frame.layers_copied, 2, "one rectangle and one layer");
    assert_eq!((stats.device_frame.arrays_created, stats.device_frame.arrays_destroyed), (1, 1));
    assert_eq!(renderer.array_count(), 1);

    // Plan 3 compacts into another, smaller array: green to layer 1 and red to layer 0 of a
    // 16x16 array of 2 layers, then the 32x32 one is destroyed.
    let small = ArrayId(2);
    let mut b = PlanBuilder::new(3, batcher.budget());
    let tile = [0.0, 0.0, 16.0, 16.0];
    let copy = |from_xy, to_layer| ArrayOp::CopyRect {
        from: new,
        from_layer: 0,
        from_xy,
        to: small,
        to_layer,
        to_xy: [0, 0],
        size: [16, 16],
    };
    b.op(ArrayOp::Create { array: small, desc: desc(16, 16, 2, 1, Filter::Nearest) })
        .op(copy([16, 16], 1))
        .op(copy([0, 0], 0))
        .op(ArrayOp::Destroy { array: new })
        .draw(rect([0.0, 0.0], [32.0, 32.0]), tile, tile, Instance::FLAG_CLAMP_TO_RECT, 0)
        .draw(rect([40.0, 0.0], [32.0, 32.0]), tile, tile, Instance::FLAG_CLAMP_TO_RECT, 1);
    let img = paint(ctx, &mut renderer, &target, &b.finish_with(small));
    let when = format!("plan 3 ({path:?})");
    img.assert_rect([0, 0, 32, 32], RED, 0, &format!("{when}: layer 0 of the new array"));
    img.assert_rect([40, 0, 72, 32], GREEN, 0, &format!("{when}: layer 1 of the new array"));
    let stats = renderer.stats();
    assert_eq!(stats.device_frame.layers_copied, 2, "two rectangles");
    assert_eq!((stats.device_frame.arrays_created, stats.device_frame.arrays_destroyed), (1, 1));
    assert_eq!(renderer.array_count(), 1);
    renderer.destroy();
    target.delete(&ctx.gl);
}
fn shrink_and_copy_rect_copy_image(ctx: &Ctx) {
    shrink_and_copy_rect(ctx, CopyPath::CopyImage);
}
fn shrink_and_copy_rect_blit(ctx: &Ctx) {
    shrink_and_copy_rect(ctx, CopyPath::Blit);
}
both_flavors!(shrink_and_copy_rect_copy_image);
both_flavors!(shrink_and_copy_rect_blit);

// d. Through the batcher: a 24x24 clamp-to-edge texture whose surroundings hold poison (a
//    32x32 poison texture registered first, then freed, so that the small one takes its
//    place): in the 32x32 size class (atlas packing off) the poison is its padding, in an
//    atlas page (the default) the rest of the freed rectangle. Drawn with UVs past both edges
//    and past one, linear and nearest: no poison pixel, and the parts past the edge show the
//    edge texels.
fn padded_uv_outside(ctx: &Ctx) {
    for (what, config) in
        [("size class", Config::default().with_max_packed_size_px(0)), ("atlas page", Config::default())]
    {
        padded_uv_outside_with(ctx, what, config);
    }
}

fn padded_uv_outside_with(ctx: &Ctx, what: &str, config: Config) {
    const POISON: [u8; 4] = [255, 0, 255, 255];
    const GREEN: [u8; 4] = [0, 255, 0, 255];
    const BLUE: [u8; 4] = [0, 0, 255, 255];
    let mut batcher = Batcher::new(Renderer::query_limits(&ctx.gl), config).unwrap();
    let mut textures = Vec::new();
    for filter in [Filter::Linear, Filter::Nearest] {
        let poison =
            batcher.textures().register(&TextureDesc::new(32, 32).with_filter(filter), &solid(32, 32, POISON)).unwrap();
        let poison_place = batcher.placement(poison).unwrap();
        batcher.textures().free(poison).unwrap();
        // Left half green, right half blue: no red anywhere, so any red is poison.
        let px: Vec<u8> = (0..24 * 24).flat_map(|i| if i % 24 < 12 { GREEN } else { BLUE }).collect();
        let t = batcher.textures().register(&TextureDesc::new(24, 24).with_filter(filter), &px).unwrap();
        let place = batcher.placement(t).unwrap();
        let at = |p: layerbatch_core::alloc::Placement| (p.array, p.layer, p.rect_px[0], p.rect_px[1]);
        assert_eq!(at(place), at(poison_place), "{what}, {filter:?}: in the poison's place");
        assert_eq!(place.rect_px[2..], [24, 24]);
        textures.push(t);
    }
    let mut renderer = Renderer::new(ctx.gl.clone(), batcher.budget()).unwrap();
    let target = Offscreen::new(&ctx.gl, W, H, CLEAR);
    batcher.begin_frame();
    for (i, &t) in textures.iter().enumerate() {
        let y = 100.0 * i as f32;
        // -0.25..1.25 over 96 px: 16 px of stretched edge each side.
        batcher.push(&Quad::rect(t, [0.0, y], [96.0, 96.0]).with_uv([-0.25, -0.25, 1.25, 1.25])).unwrap();
        // 0..1.5 across 120 px: the right 40 px are the right edge stretched.
        batcher.push(&Quad::rect(t, [100.0, y], [120.0, 80.0]).with_uv([0.0, 0.0, 1.5, 1.0])).unwrap();
        batcher.push(&Quad::rotated(t, [238.0, y + 40.0], [24.0, 24.0], 0.7).with_uv([-0.5, 0.0, 1.5, 1.0])).unwrap();
    }
    let plan = batcher.finish();
    target.clear(&ctx.gl, CLEAR);
    renderer.paint(plan, &Target::framebuffer(target.fbo, [W, H])).unwrap();
    let img = target.read(&ctx.gl);
    for (x, y, p) in img.pixels() {
        assert_eq!(p[0], 0, "{what}: poison (red) at ({x}, {y}): {p:?}");
    }
    for i in 0..2 {
        let y = 100 * i;
        img.assert_rect([0, y, 30, y + 96], GREEN, 0, &format!("{what}: texture {i}: left edge stretched"));
        img.assert_rect([66, y, 96, y + 96], BLUE, 0, &format!("{what}: texture {i}: right edge stretched"));
        img.assert_rect([100, y, 130, y + 80], GREEN, 0, &format!("{what}: texture {i}: left half"));
        let past = format!("{what}: texture {i}: right half and past the edge");
        img.assert_rect([150, y, 220, y + 80], BLUE, 0, &past);
    }
    renderer.destroy();
    target.delete(&ctx.gl);
}
both_flavors!(padded_uv_outside);
