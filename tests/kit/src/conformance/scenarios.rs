//! The plans of the conformance suite: each scenario records a few frames with the batcher's
//! public API and keeps a copy of every plan.

use layerbatch_core::{
    Affine2, Batcher, BlendMode, Config, DeviceCounters, Filter, FramePlan, Mesh, NineSlice, Quad, QuadVertices,
    ResidentStyle, SortKey, TextureDesc, TextureId, Usage, Vertex,
};

use super::Scenario;
use crate::scene::{texture_pixels, Rng, Scene, SceneOptions, Sizes};

/// Every scenario, in the order they run.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "registrations_create_arrays",
        config: class_arrays,
        plans: registrations_create_arrays,
        exercises: |c| c.arrays_created >= 2 && c.texture_bytes_written > 0 && c.draw_calls >= 3,
    },
    Scenario {
        name: "class_array_growth",
        config: class_arrays,
        plans: class_array_growth,
        exercises: |c| c.layers_copied > 0 && c.arrays_destroyed > 0,
    },
    Scenario {
        name: "atlas_pages",
        config: small_pages,
        plans: atlas_pages,
        exercises: |c| c.arrays_created > 0 && c.layers_copied > 0,
    },
    Scenario {
        name: "compaction",
        config: || small_pages().with_auto_compact(false),
        plans: compaction,
        exercises: |c| c.layers_copied > 0,
    },
    Scenario {
        name: "mip_levels",
        config: class_arrays,
        plans: mip_levels,
        exercises: |c| c.texture_bytes_written > 0,
    },
    Scenario {
        name: "render_target_with_mips",
        config: Config::default,
        plans: render_target_with_mips,
        exercises: |c| c.mip_levels_regenerated > 0,
    },
    Scenario {
        name: "free_and_destroy",
        config: class_arrays,
        plans: free_and_destroy,
        exercises: |c| c.arrays_destroyed > 0,
    },
    Scenario {
        name: "rebuild_after_restore",
        config: || Config::default().with_keep_pixels(true),
        plans: rebuild_after_restore,
        exercises: |c| c.arrays_destroyed > 0 && c.frames == 3,
    },
    Scenario {
        name: "several_frames",
        config: Config::default,
        plans: several_frames,
        exercises: |c: &DeviceCounters| c.frames == 5,
    },
    Scenario {
        name: "triangles_between_instanced_quads",
        config: || Config::default().with_quad_vertices(QuadVertices::Instanced),
        plans: triangles_between_instanced_quads,
        // Three frames of 25 quads; the middle one has 2 triangles and a nine-slice, and is
        // drawn indexed: 25 x 64 + (25 + 2 + 9) x 256 + 25 x 64 bytes.
        exercises: |c: &DeviceCounters| c.frames == 3 && c.instance_bytes_written == 25 * 64 * 2 + 36 * 256,
    },
    Scenario {
        name: "clips",
        config: || Config::default().with_instance_capacity(16),
        plans: clips,
        // Some segments are clipped away, one block wholly: its bytes are never uploaded.
        exercises: |c: &DeviceCounters| c.segments_clipped_away >= 3 && c.frames == 3,
    },
    Scenario {
        name: "resident_layers",
        config: small_pages,
        plans: resident_layers,
        exercises: |c: &DeviceCounters| {
            c.residents_created >= 3
                && c.residents_destroyed >= 2
                && c.resident_bytes_written > 0
                && c.layers_copied > 0
        },
    },
    Scenario {
        name: "resident_layers_indexed",
        // Blocks of 16: the layer is drawn in several draws, and pushed quads after it go
        // back to a block uploaded before it.
        config: || small_pages().with_quad_vertices(QuadVertices::Indexed).with_instance_capacity(16),
        plans: resident_layers,
        exercises: |c: &DeviceCounters| c.residents_created >= 3 && c.draw_calls >= 20,
    },
    Scenario {
        name: "sorted",
        config: small_pages,
        plans: sorted,
        // Frame 1: 60 y-sorted quads over 12 textures and a HUD, one draw. Frame 2: a
        // multiplied run, a mesh, a flush and a resident layer placed by key among them.
        exercises: |c: &DeviceCounters| c.frames == 2 && c.draw_calls >= 5 && c.residents_created == 1,
    },
];

/// No atlas pages: every texture in the array of its size class.
fn class_arrays() -> Config {
    Config::default().with_max_packed_size_px(0)
}

/// Atlas pages of 256 px, for textures up to 128 px: a few dozen textures fill several.
fn small_pages() -> Config {
    Config::default().with_page_size_px(256).with_max_packed_size_px(128)
}

/// Registers a `w` x `h` texture of `desc`'s other settings, its pixels from `seed`.
fn register(b: &mut Batcher, desc: TextureDesc, seed: usize) -> TextureId {
    let pixels = texture_pixels(seed, desc.width_px, desc.height_px);
    b.textures()
        .register(&desc, &pixels)
        .unwrap_or_else(|e| panic!("register {}x{}: {e}", desc.width_px, desc.height_px))
}

/// One frame drawing each of `textures` as a 12 px square, in a grid over a 64 px target.
fn frame(b: &mut Batcher, textures: &[TextureId]) -> FramePlan {
    b.begin_frame();
    push_grid(b, textures);
    b.finish().clone()
}

fn push_grid(b: &mut Batcher, textures: &[TextureId]) {
    for (i, &t) in textures.iter().enumerate() {
        let at = [(i % 5) as f32 * 12.5 + 0.3, (i / 5 % 5) as f32 * 12.5 + 0.6];
        b.push(&Quad::rect(t, at, [12.0, 12.0])).expect("a live texture");
    }
}

fn registrations_create_arrays(b: &mut Batcher) -> Vec<FramePlan> {
    let sizes = [(16, 16), (32, 32), (64, 64), (32, 16), (300, 200), (7, 9)];
    let mut ids: Vec<TextureId> =
        (0..12).map(|i| register(b, TextureDesc::new(sizes[i % 6].0, sizes[i % 6].1), i)).collect();
    ids.push(register(b, TextureDesc::new(8, 8).with_filter(Filter::Nearest), 12));
    let first = frame(b, &ids);
    // The same textures again (nothing to upload), in three blend runs.
    b.begin_frame();
    push_grid(b, &ids[..4]);
    b.state().set_blend(BlendMode::Multiply);
    push_grid(b, &ids[4..8]);
    b.state().set_blend(BlendMode::Over);
    push_grid(b, &ids[8..]);
    vec![first, b.finish().clone()]
}

fn class_array_growth(b: &mut Batcher) -> Vec<FramePlan> {
    let desc = TextureDesc::new(32, 32);
    let mut ids: Vec<TextureId> = (0..2).map(|i| register(b, desc, i)).collect();
    let mut plans = vec![frame(b, &ids)];
    // Past the array's initial layers: it grows on the device (a new array, layers copied).
    ids.extend((2..12).map(|i| register(b, desc, i)));
    plans.push(frame(b, &ids));
    ids.extend((12..40).map(|i| register(b, desc, i)));
    plans.push(frame(b, &ids[ids.len() - 25..]));
    plans
}

fn atlas_pages(b: &mut Batcher) -> Vec<FramePlan> {
    let mut rng = Rng::new(3);
    let mut ids = Vec::new();
    let mut plans = Vec::new();
    for round in 0..3 {
        for i in 0..20 {
            let (w, h) = (4 + rng.next_u32() % 120, 4 + rng.next_u32() % 120);
            ids.push(register(b, TextureDesc::new(w, h), round * 20 + i));
        }
        plans.push(frame(b, &ids[ids.len() - 20..]));
    }
    plans
}

fn compaction(b: &mut Batcher) -> Vec<FramePlan> {
    let ids: Vec<TextureId> = (0..96).map(|i| register(b, TextureDesc::new(60, 60), i)).collect();
    let mut plans = vec![frame(b, &ids[..25])];
    // Free three of every four, then repack: rectangles move down (GPU copies), layers go.
    let kept: Vec<TextureId> = ids.iter().enumerate().filter(|(i, _)| i % 4 == 3).map(|(_, &t)| t).collect();
    for (i, &t) in ids.iter().enumerate() {
        if i % 4 != 3 {
            b.textures().free(t).expect("live");
        }
    }
    plans.push(frame(b, &kept[..20]));
    assert!(b.textures().compact() > 0, "compaction: nothing moved");
    plans.push(frame(b, &kept[4..]));
    plans
}

fn mip_levels(b: &mut Batcher) -> Vec<FramePlan> {
    let ids = vec![
        register(b, TextureDesc::new(64, 64).with_mip_levels(7), 0),
        register(b, TextureDesc::new(32, 32).with_mip_levels(3), 1),
        register(b, TextureDesc::new(64, 64).with_mip_levels(7).with_usage(Usage::Dynamic), 2),
    ];
    let first = frame(b, &ids);
    // A dynamic texture rewritten: every level again.
    b.textures().update(ids[2], &texture_pixels(5, 64, 64)).expect("update");
    vec![first, frame(b, &ids)]
}

fn render_target_with_mips(b: &mut Batcher) -> Vec<FramePlan> {
    let rt_desc = TextureDesc::new(64, 64).with_usage(Usage::RenderTarget).with_mip_levels(4);
    let rt = b.textures().register(&rt_desc, &[]).expect("a render target");
    let sprite = register(b, TextureDesc::new(16, 16), 1);
    let mut plans = Vec::new();
    for _ in 0..2 {
        b.begin_frame_into(rt, Some([0.1, 0.2, 0.3, 1.0])).expect("a render target");
        push_grid(b, &[sprite, sprite, sprite]);
        plans.push(b.finish().clone());
        plans.push(frame(b, &[rt, sprite]));
    }
    plans
}

fn free_and_destroy(b: &mut Batcher) -> Vec<FramePlan> {
    let small: Vec<TextureId> = (0..3).map(|i| register(b, TextureDesc::new(16, 16), i)).collect();
    // Dynamic textures: an array each.
    let dynamic = TextureDesc::new(64, 64).with_usage(Usage::Dynamic);
    let big: Vec<TextureId> = (0..3).map(|i| register(b, dynamic, 10 + i)).collect();
    let mut plans = vec![frame(b, &[small.clone(), big.clone()].concat())];
    // Every dynamic texture freed: their arrays go.
    for &t in &big {
        b.textures().free(t).expect("live");
    }
    plans.push(frame(b, &small));
    plans.push(frame(b, &small[1..]));
    plans
}

fn rebuild_after_restore(b: &mut Batcher) -> Vec<FramePlan> {
    let ids: Vec<TextureId> = (0..5).map(|i| register(b, TextureDesc::new(24 + 8 * i as u32, 24), i)).collect();
    let first = frame(b, &ids);
    // As after a lost device: the next plan rebuilds every array from core's copies.
    assert!(b.restore().is_empty(), "keep_pixels: nothing to re-send");
    let rebuild = frame(b, &ids);
    assert!(rebuild.rebuild, "restore: a rebuild plan");
    vec![first, rebuild, frame(b, &ids[2..])]
}

fn several_frames(b: &mut Batcher) -> Vec<FramePlan> {
    let opts = SceneOptions {
        sprites: 400,
        textures: 24,
        viewport_px: [64, 64],
        sizes: Sizes::Mixed,
        ..SceneOptions::default()
    };
    let mut scene = Scene::new(b, opts).expect("the scene's textures fit");
    let mut rng = Rng::new(9);
    (0..5)
        .map(|i| {
            if i >= 2 {
                scene.churn(b, &mut rng, 3, 96).expect("churn");
            }
            scene.frame(b, 1.0 / 60.0).clone()
        })
        .collect()
}

/// Instanced quads, then a frame with triangles and a nine-slice among them (drawn indexed),
/// then instanced again: the executors switch between the two and count the same bytes.
fn triangles_between_instanced_quads(b: &mut Batcher) -> Vec<FramePlan> {
    let ids: Vec<TextureId> = (0..25).map(|i| register(b, TextureDesc::new(8 + i as u32 % 3, 8), i)).collect();
    let mut mesh = Mesh::default();
    for (p, uv) in
        [([2.0, 2.0], [0.0, 0.0]), ([40.0, 4.0], [1.0, 0.0]), ([6.0, 50.0], [0.0, 1.0]), ([60.0, 60.0], [1.0, 1.0])]
    {
        mesh.push_vertex(Vertex::new(p, uv, [200, 100, 50, 200]));
    }
    mesh.push_triangle(0, 1, 2);
    mesh.push_triangle(1, 3, 2);
    let first = frame(b, &ids);
    b.begin_frame();
    push_grid(b, &ids[..12]);
    b.push_mesh(ids[3], &mesh).expect("a live texture");
    b.push_nine_slice(&NineSlice::new(ids[4], [10.0, 10.0, 40.0, 30.0], [2.0; 4])).expect("a live texture");
    push_grid(b, &ids[12..]);
    let middle = b.finish().clone();
    vec![first, middle, frame(b, &ids)]
}

/// Clip rectangles on a 64 px target, with blocks of 16 instances: a clip inside, one across
/// the edge, one outside (a segment clipped away), one of zero size, a whole block clipped
/// away, and the clip back to none; then a frame of clips that all leave nothing, and a
/// frame with a clip between two blend modes.
fn clips(b: &mut Batcher) -> Vec<FramePlan> {
    let ids: Vec<TextureId> = (0..6).map(|i| register(b, TextureDesc::new(12, 12), i)).collect();
    b.begin_frame();
    push_grid(b, &ids[..3]);
    b.state().set_clip(Some([10, 10, 30, 30]));
    push_grid(b, &ids);
    b.state().set_clip(Some([50, 40, 100, 100]));
    push_grid(b, &ids[2..]);
    b.state().set_clip(Some([64, 0, 10, 10]));
    push_grid(b, &ids[..2]);
    b.state().set_clip(Some([5, 5, 0, 8]));
    push_grid(b, &ids[..1]);
    // 16 instances of their own block, all clipped away.
    b.state().set_clip(Some([0, 70, 64, 64]));
    for _ in 0..16 {
        push_grid(b, &ids[..1]);
    }
    b.state().set_clip(None);
    push_grid(b, &ids);
    let first = b.finish().clone();

    b.begin_frame();
    b.state().set_clip(Some([100, 100, 4, 4]));
    push_grid(b, &ids);
    let nothing = b.finish().clone();

    b.begin_frame();
    push_grid(b, &ids[..2]);
    b.state().set_clip(Some([0, 0, 32, 64]));
    b.state().set_blend(BlendMode::Additive);
    push_grid(b, &ids[2..4]);
    b.state().set_blend(BlendMode::Multiply);
    push_grid(b, &ids[4..]);
    b.state().set_clip(None);
    push_grid(b, &ids);
    vec![first, nothing, b.finish().clone()]
}

/// Resident layers between pushed quads: created, drawn twice in a frame (moved and tinted),
/// updated by a range, re-created whole, kept right while the arrays its textures live in
/// grow, destroyed while a frame draws it, and drawn by a rebuild plan.
fn resident_layers(b: &mut Batcher) -> Vec<FramePlan> {
    let sizes = [(16, 16), (40, 24), (200, 150), (60, 60)];
    let ids: Vec<TextureId> =
        (0..12).map(|i| register(b, TextureDesc::new(sizes[i % 4].0, sizes[i % 4].1), i)).collect();
    let grid = |ids: &[TextureId], n: usize| -> Vec<Quad> {
        (0..n)
            .map(|i| Quad::rect(ids[i % ids.len()], [(i % 8) as f32 * 8.0, (i / 8) as f32 * 8.0], [7.0, 7.0]))
            .collect()
    };
    let layer = b.textures().create_resident(&grid(&ids, 40)).expect("a layer");
    let other = b.textures().create_resident(&grid(&ids[6..], 20)).expect("a second layer");
    let mut plans = Vec::new();
    let frame_with = |b: &mut Batcher, draw: &dyn Fn(&mut Batcher)| {
        b.begin_frame();
        push_grid(b, &ids[..5]);
        draw(b);
        push_grid(b, &ids[5..9]);
        b.finish().clone()
    };
    let style = ResidentStyle::default();
    plans.push(frame_with(b, &|b| {
        b.draw_resident(layer, &style).unwrap();
        b.push(&Quad::rect(ids[3], [1.0, 1.0], [5.0, 5.0])).unwrap();
        let moved = style.with_transform(Affine2::translation(3.0, 2.0)).with_tint([0.5; 4]);
        b.draw_resident(layer, &moved).unwrap();
        b.draw_resident(other, &style.with_clip(Some([0, 0, 20, 20]))).unwrap();
    }));
    b.textures().update_resident(layer, 10, &grid(&ids[2..], 5)).unwrap();
    plans.push(frame_with(b, &|b| b.draw_resident(layer, &style).unwrap()));
    b.textures().replace_resident(other, &grid(&ids[1..4], 30)).unwrap();
    // The class arrays the layers sample grow.
    for i in 0..40 {
        register(b, TextureDesc::new(200, 150), 100 + i);
    }
    plans.push(frame_with(b, &|b| {
        b.draw_resident(layer, &style).unwrap();
        b.draw_resident(other, &style).unwrap();
        b.textures().destroy_resident(other).unwrap();
    }));
    b.restore();
    plans.push(frame_with(b, &|b| b.draw_resident(layer, &style).unwrap()));
    plans
}

/// Sorted frames: y-sorted sprites pushed in scrambled order, then a frame whose blend runs,
/// mesh, flush and resident layer draw are placed by their keys.
fn sorted(b: &mut Batcher) -> Vec<FramePlan> {
    let sizes = [(16, 16), (40, 24), (200, 150), (60, 60)];
    let ids: Vec<TextureId> =
        (0..12).map(|i| register(b, TextureDesc::new(sizes[i % 4].0, sizes[i % 4].1), i)).collect();
    let sprite = |i: usize| {
        let at = [(i * 37 % 50) as f32 + 0.25, (i * 53 % 48) as f32 + 0.5];
        Quad::rect(ids[i % ids.len()], at, [10.0, 6.0 + (i % 5) as f32 * 2.0])
    };
    let layer = b.textures().create_resident(&(0..8).map(sprite).collect::<Vec<_>>()).expect("a layer");
    let mut plans = Vec::new();
    b.begin_frame();
    for i in 0..60 {
        let q = sprite(i);
        b.state().set_sort_key(SortKey::by_feet(0, &q));
        b.push(&q).expect("a live texture");
    }
    b.state().set_sort_key(SortKey::z(1));
    b.push(&Quad::rect(ids[3], [2.0, 2.0], [20.0, 8.0])).expect("a live texture");
    plans.push(b.finish().clone());

    let mut mesh = Mesh::default();
    for (p, uv) in [([2.0, 30.0], [0.0, 0.0]), ([40.0, 34.0], [1.0, 0.0]), ([6.0, 60.0], [0.0, 1.0])] {
        mesh.push_vertex(Vertex::new(p, uv, [200, 100, 50, 200]));
    }
    mesh.push_triangle(0, 1, 2);
    b.begin_frame();
    for i in 0..40 {
        b.state().set_sort_key(SortKey::zy((i % 3) as i16 - 1, (i * 7 % 11) as f32));
        b.state().set_blend(if i % 9 == 4 { BlendMode::Multiply } else { BlendMode::Over });
        b.push(&sprite(i)).expect("a live texture");
        match i {
            10 => b.push_mesh(ids[5], &mesh).expect("a live texture"),
            20 => b.flush(),
            30 => b.draw_resident(layer, &ResidentStyle::default()).expect("a live layer"),
            _ => {}
        }
    }
    plans.push(b.finish().clone());
    plans
}
