//! Geometry beyond rectangles: triangles in the quad stream (one draw with quads, painter's
//! order, the vertices backends upload, meshes refused whole) and nine-slices.

use super::register_n;
use crate::plan::*;
use crate::validate::PlanValidator;
use crate::*;

const RED: [u8; 4] = [255, 0, 0, 255];

fn triangle(at: [f32; 2], colors: [[u8; 4]; 3]) -> Mesh {
    let mut m = Mesh::default();
    let [x, y] = at;
    m.push_vertex(Vertex::new([x, y], [0.0, 0.0], colors[0]));
    m.push_vertex(Vertex::new([x + 8.0, y], [1.0, 0.0], colors[1]));
    m.push_vertex(Vertex::new([x, y + 8.0], [0.0, 1.0], colors[2]));
    m.push_triangle(0, 1, 2);
    m
}

fn paged() -> Batcher {
    Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap()
}

#[test]
fn triangles_and_quads_of_64_textures_share_one_draw_in_push_order() {
    let mut b = paged();
    let ids = register_n(&mut b, &[(16, 16), (24, 9), (7, 30)], 64);
    let mut dev = MockDevice::new(b.budget());
    let instanced = !b.budget().indexed_quads;
    b.begin_frame();
    for (i, &id) in ids.iter().enumerate() {
        b.push(&Quad::rect(id, [i as f32, 0.0], [8.0, 8.0])).unwrap();
        b.push_mesh(id, &triangle([i as f32, 10.0], [RED; 3])).unwrap();
    }
    let plan = b.finish();
    dev.execute(plan).unwrap();
    assert_eq!(plan.segments.len(), 1, "{:?}", plan.segments);
    assert_eq!((plan.counters.quads, plan.counters.triangles), (64, 64));
    // The budget draws quads instanced; a plan with triangles is drawn indexed.
    assert!(instanced && plan.indexed);
    for (i, &id) in ids.iter().enumerate() {
        assert!(!plan.instances[2 * i].is_triangle() && plan.instances[2 * i + 1].is_triangle());
        assert_eq!(dev.sampled()[2 * i].map(|s| s.0), Some(id));
        assert_eq!(dev.sampled()[2 * i + 1].map(|s| s.0), Some(id), "triangle {i} samples its texture");
    }
    assert_eq!(dev.frame_counters().instance_bytes_written, 128 * u64::from(Instance::QUAD_BYTES));
}

#[test]
fn a_triangle_is_drawn_from_its_corners_and_a_quad_from_its_instance() {
    let mut b = paged();
    let id = register_n(&mut b, &[(20, 10)], 1)[0];
    b.begin_frame();
    b.push(&Quad::rect(id, [0.0, 0.0], [4.0, 4.0])).unwrap();
    let colors = [[255, 0, 0, 255], [0, 128, 0, 128], [0, 0, 64, 64]];
    b.push_mesh(id, &triangle([30.0, 40.0], colors)).unwrap();
    let plan = b.finish();
    let mut v = Vec::new();
    plan.expand_block(0, &mut v);
    assert_eq!(v.len(), 8);
    assert!(v[..4].iter().all(|x| *x == plan.instances[0]));
    let t = plan.instances[1];
    let rect = t.tex_rect.map(f32::from);
    let (w, h) = (rect[2] - rect[0], rect[3] - rect[1]);
    assert_eq!((w, h), (20.0, 10.0));
    let want_pos = [[30.0, 40.0], [38.0, 40.0], [30.0, 48.0], [30.0, 48.0]];
    let want_uv = [[0.0, 0.0], [w, 0.0], [0.0, h], [0.0, h]];
    for k in 0..4 {
        let c = v[4 + k];
        assert_eq!(c.origin, want_pos[k], "corner {k}");
        assert_eq!((c.axis_x, c.axis_y), ([0.0; 2], [0.0; 2]), "corner {k} has no axes");
        let uv = [rect[0] + want_uv[k][0], rect[1] + want_uv[k][1]];
        assert_eq!(c.uv_rect, [uv[0], uv[1], uv[0], uv[1]], "corner {k}");
        assert_eq!(c.color, colors[k.min(2)]);
        assert_eq!((c.tex_rect, c.slot_flags_layer), (t.tex_rect, t.slot_flags_layer));
    }
}

#[test]
fn quads_alone_follow_the_budget_and_additive_triangles_lose_their_alpha() {
    let mut b = paged();
    let id = register_n(&mut b, &[(8, 8)], 1)[0];
    b.begin_frame();
    b.push(&Quad::rect(id, [0.0, 0.0], [4.0, 4.0])).unwrap();
    assert!(!b.finish().indexed, "no triangle: instanced, as the budget says");
    b.begin_frame();
    b.state().set_blend(BlendMode::Additive);
    b.push_mesh(id, &triangle([0.0, 0.0], [[10, 20, 30, 40]; 3])).unwrap();
    let plan = b.finish();
    assert!(plan.triangles[0].iter().all(|c| c.color == [10, 20, 30, 0]));
}

#[test]
fn triangles_across_blocks_keep_their_corners() {
    let config = Config::default().with_instance_capacity(5);
    let mut b = Batcher::new(Limits::guaranteed_minimum(), config).unwrap();
    let ids = register_n(&mut b, &[(8, 8)], 3);
    b.begin_frame();
    for i in 0..23 {
        let id = ids[i % 3];
        match i % 3 {
            0 => b.push(&Quad::rect(id, [i as f32, 0.0], [4.0, 4.0])).unwrap(),
            _ => b.push_mesh(id, &triangle([i as f32, 1.0], [[i as u8, 0, 0, 255]; 3])).unwrap(),
        }
    }
    let mut dev = MockDevice::new(b.budget());
    let plan = b.finish();
    dev.execute(plan).unwrap();
    assert_eq!(plan.block_triangles, [0, 3, 6, 10, 13]);
    let mut v = Vec::new();
    for block in 0..5u32 {
        plan.expand_block(block, &mut v);
        let instances: Vec<Instance> = plan.block_pieces(block).flatten().copied().collect();
        for (k, inst) in instances.iter().enumerate() {
            let i = block as usize * 5 + k;
            match inst.is_triangle() {
                true => assert_eq!((v[4 * k].origin, v[4 * k].color), ([i as f32, 1.0], [i as u8, 0, 0, 255])),
                false => assert_eq!(v[4 * k], *inst),
            }
        }
        // Written straight into a device's memory: the same bytes, at any offset alignment.
        let mut mapped = vec![0u8; 1 + plan.block_bytes(block, true)];
        assert_eq!(plan.write_block(block, true, &mut mapped[1..]), Some(v.len() * 64));
        assert_eq!(&mapped[1..], bytemuck::cast_slice::<_, u8>(&v), "block {block}");
        assert_eq!(plan.write_block(block, false, &mut mapped[1..]), Some(instances.len() * 64));
        assert_eq!(&mapped[1..1 + instances.len() * 64], bytemuck::cast_slice::<_, u8>(&instances));
    }
}

#[test]
fn a_bad_mesh_is_refused_whole() {
    let mut b = paged();
    let id = register_n(&mut b, &[(8, 8)], 1)[0];
    let good = triangle([0.0, 0.0], [RED; 3]);
    assert_eq!(b.push_mesh(id, &good), Err(MeshError::Texture(QuadError::NoFrame)));
    b.begin_frame();
    let mut past = good.clone();
    past.indices.extend_from_slice(&[0, 1, 3]);
    assert_eq!(b.push_mesh(id, &past), Err(MeshError::IndexOutOfRange { at: 5, index: 3, vertices: 3 }));
    let mut partial = good.clone();
    partial.indices.push(0);
    assert_eq!(b.push_mesh(id, &partial), Err(MeshError::PartialTriangle { indices: 4 }));
    for bad in [f32::NAN, f32::INFINITY, 2.0 * Quad::MAX_POSITION] {
        let mut m = good.clone();
        m.vertices[2].pos_px[1] = bad;
        assert_eq!(b.push_mesh(id, &m), Err(MeshError::BadVertex { vertex: 2 }));
    }
    let mut m = good.clone();
    m.vertices[1].uv[0] = f32::NAN;
    assert_eq!(b.push_mesh(id, &m), Err(MeshError::BadVertex { vertex: 1 }));
    let other = register_n(&mut b, &[(8, 8)], 1)[0];
    b.textures().free(other).unwrap();
    assert_eq!(b.push_mesh(other, &good), Err(MeshError::Texture(QuadError::Stale(other))));
    b.push_mesh(id, &Mesh::default()).unwrap();
    let plan = b.finish();
    assert!(plan.instances.is_empty() && plan.triangles.is_empty());
    assert_eq!((plan.counters.meshes_rejected, plan.counters.triangles), (7, 0));
}

#[test]
fn the_validator_refuses_triangles_out_of_step_with_their_corners() {
    let mut b = paged();
    let id = register_n(&mut b, &[(8, 8)], 1)[0];
    b.begin_frame();
    b.push_mesh(id, &triangle([0.0, 0.0], [RED; 3])).unwrap();
    let plan = b.finish().clone();
    let checks = |p: &FramePlan| PlanValidator::new(b.budget()).check(p);
    assert_eq!(checks(&plan), Ok(()));
    let mut no_corners = plan.clone();
    no_corners.triangles.clear();
    no_corners.block_triangles.clear();
    assert!(matches!(checks(&no_corners), Err(PlanError::Triangles { flagged: 1, corners: 0, .. })));
    let mut instanced = plan.clone();
    instanced.indexed = false;
    assert!(matches!(checks(&instanced), Err(PlanError::Triangles { reason, .. }) if reason.contains("indexed")));
    let mut blocks = plan.clone();
    blocks.block_triangles = vec![1];
    assert!(matches!(checks(&blocks), Err(PlanError::Triangles { reason, .. }) if reason.contains("block")));
}

#[test]
fn nine_slice_keeps_borders_and_stretches_or_tiles_the_rest() {
    let mut b = paged();
    let id = b.textures().register(&TextureDesc::new(30, 20), &[9; 30 * 20 * 4]).unwrap();
    b.begin_frame();
    // Borders 4, 5, 6, 7 (l, t, r, b) into 100 x 50: corners unscaled.
    b.push_nine_slice(&NineSlice::new(id, [10.0, 20.0, 100.0, 50.0], [4.0, 5.0, 6.0, 7.0])).unwrap();
    let plan = b.finish().clone();
    assert_eq!(plan.instances.len(), 9);
    let rect = plan.instances[0].tex_rect.map(f32::from);
    let (ox, oy) = (rect[0], rect[1]);
    // Top-left corner: 4 x 5 px from texels 0..4, 0..5.
    let tl = plan.instances[0];
    assert_eq!((tl.origin, tl.axis_x, tl.axis_y), ([10.0, 20.0], [4.0, 0.0], [0.0, 5.0]));
    assert_eq!(tl.uv_rect, [ox, oy, ox + 4.0, oy + 5.0]);
    // Centre: 90 x 38 px from texels 4..24, 5..13.
    let c = plan.instances[4];
    assert_eq!((c.origin, c.axis_x, c.axis_y), ([14.0, 25.0], [90.0, 0.0], [0.0, 38.0]));
    assert_eq!(c.uv_rect, [ox + 4.0, oy + 5.0, ox + 24.0, oy + 13.0]);
    // Bottom-right corner.
    let br = plan.instances[8];
    assert_eq!((br.origin, br.axis_x, br.axis_y), ([104.0, 63.0], [6.0, 0.0], [0.0, 7.0]));

    // Tiled centre: 20 x 8 texel tiles over 90 x 38: 5 x 5 tiles, the last cut, texels too.
    b.begin_frame();
    let tiled = NineSlice::new(id, [10.0, 20.0, 100.0, 50.0], [4.0, 5.0, 6.0, 7.0])
        .with_fill(SliceFill::Stretch, SliceFill::Tile);
    b.push_nine_slice(&tiled).unwrap();
    let plan = b.finish().clone();
    assert_eq!(plan.instances.len(), 8 + 25);
    let last = plan.instances[4 + 24];
    assert_eq!((last.origin, last.axis_x, last.axis_y), ([94.0, 57.0], [10.0, 0.0], [0.0, 6.0]));
    assert_eq!(last.uv_rect, [ox + 4.0, oy + 5.0, ox + 14.0, oy + 11.0]);

    // Smaller than its borders: both shrink in proportion.
    b.begin_frame();
    b.push_nine_slice(&NineSlice::new(id, [0.0, 0.0, 5.0, 6.0], [4.0, 5.0, 6.0, 7.0])).unwrap();
    let plan = b.finish().clone();
    assert_eq!(plan.instances.len(), 4, "no edges, no centre");
    assert_eq!(plan.instances[0].axis_x, [2.0, 0.0]);
}

#[test]
fn a_bad_nine_slice_is_refused_whole() {
    let mut b = paged();
    let id = b.textures().register(&TextureDesc::new(30, 20), &[9; 30 * 20 * 4]).unwrap();
    let s = |dest, border| NineSlice::new(id, dest, border);
    assert_eq!(
        b.push_nine_slice(&s([0.0, 0.0, 10.0, 10.0], [1.0; 4])),
        Err(NineSliceError::Texture(QuadError::NoFrame))
    );
    b.begin_frame();
    assert!(matches!(
        b.push_nine_slice(&s([0.0, 0.0, 10.0, 10.0], [20.0, 1.0, 20.0, 1.0])),
        Err(NineSliceError::Borders { .. })
    ));
    assert!(matches!(
        b.push_nine_slice(&s([0.0, 0.0, f32::NAN, 10.0], [1.0; 4])),
        Err(NineSliceError::BadNumber { .. })
    ));
    assert!(matches!(
        b.push_nine_slice(&s([0.0, 0.0, 10.0, 10.0], [-1.0, 1.0, 1.0, 1.0])),
        Err(NineSliceError::BadNumber { .. })
    ));
    assert!(matches!(
        b.push_nine_slice(&s([0.0, 0.0, 10.0, 10.0], [1.0; 4]).with_source_px([25.0, 0.0, 10.0, 10.0])),
        Err(NineSliceError::Borders { .. })
    ));
    let huge = s([0.0, 0.0, 1e9, 1e9], [1.0; 4])
        .with_source_px([0.0, 0.0, 3.0, 3.0])
        .with_fill(SliceFill::Tile, SliceFill::Tile);
    assert!(matches!(b.push_nine_slice(&huge), Err(NineSliceError::TooManyTiles { .. })));
    assert_eq!(
        b.push_nine_slice(&s([1e30, 0.0, 10.0, 10.0], [1.0; 4])),
        Err(NineSliceError::Texture(QuadError::OutOfRange))
    );
    b.textures().free(id).unwrap();
    assert_eq!(
        b.push_nine_slice(&s([0.0, 0.0, 10.0, 10.0], [1.0; 4])),
        Err(NineSliceError::Texture(QuadError::Stale(id)))
    );
    assert!(b.finish().instances.is_empty());
}

#[test]
fn a_mesh_sampling_the_frames_target_is_refused_and_a_cornerless_triangle_draws_a_point() {
    let mut b = paged();
    let id = register_n(&mut b, &[(8, 8)], 1)[0];
    let target = b.textures().register(&TextureDesc::new(32, 32).with_usage(Usage::RenderTarget), &[]).unwrap();
    b.begin_frame_into(target, Some([0.0; 4])).unwrap();
    let mesh = triangle([0.0, 0.0], [RED; 3]);
    assert_eq!(b.push_mesh(target, &mesh), Err(MeshError::Texture(QuadError::SamplesTarget(target))));
    b.push_mesh(id, &mesh).unwrap();
    let mut plan = b.finish().clone();
    assert_eq!(plan.counters.meshes_rejected, 1);
    // A hand-made plan whose triangle lost its corners (refused by the validator) expands
    // to a point: no area, nothing drawn.
    plan.triangles.clear();
    plan.block_triangles.clear();
    let mut v = Vec::new();
    plan.expand_block(0, &mut v);
    assert!(v.iter().all(|r| r.axis_x == [0.0; 2] && r.axis_y == [0.0; 2] && r.origin == [0.0, 0.0]));
}
