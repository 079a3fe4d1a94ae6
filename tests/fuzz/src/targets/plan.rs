//! `plan`: valid plans taken from batchers (sprites in pages and class arrays, meshes,
//! growth, a render target, compressed textures with mips, a rebuild, resident layers, a tile
//! grid culled on the GPU), their
//! numbers mutated (ids, sizes, layers, levels, byte ranges, instance and slot fields, segment
//! ranges, clips, transforms, the target, resident ops, draws and instances), through `PlanValidator::check`, which must never panic; a plan it
//! accepts must then run on the mock device.

use crate::rng::{Reader, Rng, EDGE_U32};
use crate::runner::{Outcome, Target};
use layerbatch_core::plan::{ArrayId, ArrayOp, GridDraw, Instances, ResidentOp, ResourceOp};
use layerbatch_core::tilegrid::TileGrid;
use layerbatch_core::tilemap::TileTable;
use layerbatch_core::validate::PlanValidator;
use layerbatch_core::{
    Batcher, BlendMode, Budget, Config, Format, FormatFamilies, FramePlan, Limits, Mesh, MockDevice, Motion, PlanError,
    PlanTarget, Quad, ResidentId, ResidentStyle, TextureDesc, Usage, Vertex,
};

/// A plan to mutate, the plans before it, and the budget of the batcher that made them.
struct Scenario {
    budget: Budget,
    history: Vec<FramePlan>,
    plan: FramePlan,
    /// Host textures the host hands the mock device first: id and size.
    hosts: Vec<(layerbatch_core::TextureId, [u32; 2])>,
}

fn sprites(b: &mut Batcher, sizes: &[(u32, u32)]) -> Result<Vec<layerbatch_core::TextureId>, String> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &(w, h))| {
            let px = vec![(i * 37) as u8; (w * h * 4) as usize];
            b.textures().register(&TextureDesc::new(w, h), &px).map_err(|e| e.to_string())
        })
        .collect()
}

fn draw_all(b: &mut Batcher, ids: &[layerbatch_core::TextureId]) -> Result<(), String> {
    for (i, &id) in ids.iter().enumerate() {
        let quad = Quad::rect(id, [i as f32 * 3.0, i as f32], [16.0, 16.0]);
        b.push(&quad).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Builds the scenarios; every plan in them is checked valid here.
fn scenarios() -> Result<Vec<Scenario>, String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let mut out = Vec::new();
    let limits = Limits::guaranteed_minimum().with_format_families(FormatFamilies::ALL);
    let mut b = Batcher::new(limits, Config::default()).map_err(|e| err(&e))?;
    let white = b.textures().white().map_err(|e| err(&e))?;
    let ids = sprites(&mut b, &[(16, 16), (8, 30), (64, 64), (300, 200), (1, 1), (128, 32)])?;
    let layer_quads: Vec<Quad> = (0..40).map(|i| Quad::rect(ids[i % ids.len()], [i as f32, 2.0], [9.0, 9.0])).collect();
    let layer = b.textures().create_resident(&layer_quads).map_err(|e| err(&e))?;
    // A moving layer: its create and move ops (motions) are mutated too.
    let moving = b.textures().create_moving(&layer_quads[..1500.min(layer_quads.len())]).map_err(|e| err(&e))?;
    let motions: Vec<Motion> = (0..layer_quads.len()).map(|i| Motion::new([i as f32, 3.0], 0.5, 1.5)).collect();
    b.textures().move_sprites(moving, 0, &motions).map_err(|e| err(&e))?;
    let style = ResidentStyle::default().with_tint([0.5; 4]).with_clip(Some([0, 0, 50, 50]));
    b.begin_frame();
    draw_all(&mut b, &ids)?;
    b.draw_resident(layer, &style).map_err(|e| err(&e))?;
    b.draw_resident(moving, &style).map_err(|e| err(&e))?;
    let mut mesh = Mesh::default();
    for p in [[0.0, 0.0], [40.0, 0.0], [0.0, 40.0]] {
        mesh.push_vertex(Vertex::solid(p, [255, 0, 0, 255]));
    }
    mesh.push_triangle(0, 1, 2);
    b.push_mesh(white, &mesh).map_err(|e| err(&e))?;
    b.state().set_blend(BlendMode::Additive);
    b.state().set_clip(Some([2, 3, 100, 50]));
    b.state().set_transform([1.0, 0.2, -0.2, 1.0, 5.0, 6.0]);
    draw_all(&mut b, &ids)?;
    let plan1 = b.finish().clone();
    out.push(Scenario { budget: b.budget().clone(), history: vec![], plan: plan1.clone(), hosts: Vec::new() });
    // Plan 2: many more sprites (arrays grow), some freed.
    let more = sprites(&mut b, &[(32, 32); 40])?;
    for id in more.iter().step_by(3) {
        b.textures().free(*id).map_err(|e| err(&e))?;
    }
    let _ = b.textures().free(ids[1]);
    b.textures().update_resident(layer, 5, &layer_quads[20..30]).map_err(|e| err(&e))?;
    b.textures().move_sprites(moving, 7, &motions[..9]).map_err(|e| err(&e))?;
    b.begin_frame();
    b.draw_resident(moving, &ResidentStyle::default()).map_err(|e| err(&e))?;
    b.draw_resident(layer, &ResidentStyle::default()).map_err(|e| err(&e))?;
    draw_all(&mut b, &ids[2..])?;
    let live: Vec<_> = more.iter().copied().filter(|id| b.contains(*id)).collect();
    draw_all(&mut b, &live)?;
    let plan2 = b.finish().clone();
    out.push(Scenario {
        budget: b.budget().clone(),
        history: vec![plan1.clone()],
        plan: plan2.clone(),
        hosts: Vec::new(),
    });
    // Plan 3: a rebuild after restore.
    b.restore();
    b.begin_frame();
    draw_all(&mut b, &ids[2..])?;
    b.draw_resident(layer, &style).map_err(|e| err(&e))?;
    let plan3 = b.finish().clone();
    out.push(Scenario { budget: b.budget().clone(), history: vec![plan1, plan2], plan: plan3, hosts: Vec::new() });
    // A render target drawn into, then sampled.
    let mut b = Batcher::new(limits, Config::default()).map_err(|e| err(&e))?;
    let target =
        b.textures().register(&TextureDesc::new(64, 64).with_usage(Usage::RenderTarget), &[]).map_err(|e| err(&e))?;
    let ids = sprites(&mut b, &[(16, 16), (20, 20)])?;
    b.begin_frame_into(target, Some([0.0, 0.0, 0.0, 1.0])).map_err(|e| err(&e))?;
    draw_all(&mut b, &ids)?;
    let into = b.finish().clone();
    out.push(Scenario { budget: b.budget().clone(), history: vec![], plan: into.clone(), hosts: Vec::new() });
    b.begin_frame();
    draw_all(&mut b, &[target, ids[0]])?;
    let after = b.finish().clone();
    out.push(Scenario { budget: b.budget().clone(), history: vec![into], plan: after, hosts: Vec::new() });
    // Host textures, viewed (as wgpu) and copied (as GL): more than the slots, drawn twice,
    // one changed in between.
    for views in [true, false] {
        let config = Config::default().with_max_slots(2);
        let mut b = Batcher::new(limits.with_host_texture_views(views), config).map_err(|e| err(&e))?;
        let desc = TextureDesc::new(16, 8).with_usage(Usage::Host);
        let hosts: Vec<_> =
            (0..3).map(|_| b.textures().register(&desc, &[])).collect::<Result<_, _>>().map_err(|e| err(&e))?;
        let ids = sprites(&mut b, &[(16, 16)])?;
        b.begin_frame();
        draw_all(&mut b, &[hosts[0], ids[0], hosts[1], hosts[2], hosts[0]])?;
        let first = b.finish().clone();
        b.textures().host_changed(hosts[1]).map_err(|e| err(&e))?;
        b.begin_frame();
        draw_all(&mut b, &[hosts[2], hosts[1], ids[0], hosts[0]])?;
        let second = b.finish().clone();
        let hosts: Vec<_> = hosts.iter().map(|&h| (h, [16, 8])).collect();
        out.push(Scenario { budget: b.budget().clone(), history: vec![], plan: first.clone(), hosts: hosts.clone() });
        out.push(Scenario { budget: b.budget().clone(), history: vec![first], plan: second, hosts });
    }
    // A tile grid culled on the GPU: its layer and cells created, cells written, drawn twice.
    let gpu = limits.with_max_storage_binding_bytes(1 << 20);
    let mut b = Batcher::new(gpu, Config::default()).map_err(|e| err(&e))?;
    let ids = sprites(&mut b, &[(32, 32), (16, 48)])?;
    let mut table = TileTable::new();
    for (i, &set) in ids.iter().enumerate() {
        table.push(set, [0.0, 0.0, 16.0, 16.0], [32, 16 * (i as u32 + 2)]);
    }
    let cells: Vec<u32> = (0..64 * 40).map(|i| (i % 3) as u32).collect();
    let mut grid = TileGrid::new(&mut b, &table, [64, 40], 16.0, &cells).map_err(|e| err(&e))?;
    b.begin_frame();
    grid.draw(&mut b, [10.0, 20.0, 300.0, 200.0], &style).map_err(|e| err(&e))?;
    let made = b.finish().clone();
    out.push(Scenario { budget: b.budget().clone(), history: vec![], plan: made.clone(), hosts: Vec::new() });
    grid.set_tiles(&mut b, [3, 4], [5, 2], &[1; 10]).map_err(|e| err(&e))?;
    b.begin_frame();
    grid.draw(&mut b, [0.0, 0.0, 1024.0, 640.0], &ResidentStyle::default()).map_err(|e| err(&e))?;
    draw_all(&mut b, &ids)?;
    out.push(Scenario { budget: b.budget().clone(), history: vec![made], plan: b.finish().clone(), hosts: Vec::new() });
    // Compressed textures with mips, in class arrays and pages.
    let mut b = Batcher::new(limits, Config::default()).map_err(|e| err(&e))?;
    let mut ids = Vec::new();
    for (format, w, h, levels) in [
        (Format::Bc7RgbaUnorm, 32, 32, 6),
        (Format::Bc1RgbaUnorm, 12, 8, 1),
        (Format::Astc { block: layerbatch_core::AstcBlock::B4x4, srgb: false }, 64, 16, 3),
    ] {
        let desc = TextureDesc::new(w, h).with_format(format).with_mip_levels(levels);
        ids.push(b.textures().register(&desc, &vec![0x5A; desc.byte_len()]).map_err(|e| err(&e))?);
    }
    b.begin_frame();
    draw_all(&mut b, &ids)?;
    out.push(Scenario { budget: b.budget().clone(), history: vec![], plan: b.finish().clone(), hosts: Vec::new() });
    // Every scenario valid as made.
    for (i, s) in out.iter().enumerate() {
        let mut v = PlanValidator::new(&s.budget);
        for p in s.history.iter().chain([&s.plan]) {
            v.check(p).map_err(|e| format!("scenario {i}: plan {} refused as made: {e}", p.sequence))?;
        }
    }
    Ok(out)
}

/// A new value for a `u32` field.
fn u32_from(r: &mut Reader<'_>, v: u32) -> u32 {
    match r.below(6) {
        0 => EDGE_U32[r.below(EDGE_U32.len())],
        1 => v.wrapping_add(1),
        2 => v.wrapping_sub(1),
        3 => v ^ (1 << (r.u8() % 32)),
        4 => v.wrapping_add(u32::from(r.u8())),
        _ => r.edgy_u32(),
    }
}

fn usize_from(r: &mut Reader<'_>, v: usize) -> usize {
    match r.below(4) {
        0 => usize::MAX - usize::from(r.u8()),
        1 => v.wrapping_add(1),
        2 => v.wrapping_sub(1),
        _ => u32_from(r, v as u32) as usize,
    }
}

fn f32_from(r: &mut Reader<'_>, v: f32) -> f32 {
    if r.bool() {
        r.edgy_f32()
    } else {
        v + f32::from(r.u8()) - 128.0
    }
}

fn mutate_desc(r: &mut Reader<'_>, d: &mut layerbatch_core::plan::ArrayDesc) {
    match r.below(7) {
        0 => d.width_px = u32_from(r, d.width_px),
        1 => d.height_px = u32_from(r, d.height_px),
        2 => d.layers = u32_from(r, d.layers),
        3 => d.mip_levels = u32_from(r, d.mip_levels),
        4 => d.format = Format::ALL[r.below(Format::ALL.len())],
        5 => {
            use layerbatch_core::plan::HostAccess;
            d.host = [None, Some(HostAccess::View), Some(HostAccess::Copy)][r.below(3)];
        }
        _ => d.render_target = !d.render_target,
    }
}

fn mutate_id(r: &mut Reader<'_>, id: &mut ArrayId) {
    id.0 = u32_from(r, id.0);
}

fn mutate_resident(r: &mut Reader<'_>, id: &mut ResidentId) {
    if r.bool() {
        id.index = u32_from(r, id.index);
    } else {
        id.generation = u32_from(r, id.generation);
    }
}

fn mutate_op(r: &mut Reader<'_>, op: &mut ResourceOp) {
    match op {
        ResourceOp::Resident(ResidentOp::Create { resident, instances, indexed, moving, cells }) => match r.below(5) {
            0 => mutate_resident(r, resident),
            1 => *instances = u32_from(r, *instances),
            2 => *moving = !*moving,
            3 => *cells = u32_from(r, *cells),
            _ => *indexed = !*indexed,
        },
        ResourceOp::Resident(ResidentOp::WriteCells { resident, first, cells }) => match r.below(4) {
            0 => mutate_resident(r, resident),
            1 => *first = u32_from(r, *first),
            2 => cells.start = u32_from(r, cells.start),
            _ => cells.end = u32_from(r, cells.end),
        },
        ResourceOp::Resident(ResidentOp::Move { resident, first, motions }) => match r.below(4) {
            0 => mutate_resident(r, resident),
            1 => *first = u32_from(r, *first),
            2 => motions.start = u32_from(r, motions.start),
            _ => motions.end = u32_from(r, motions.end),
        },
        ResourceOp::Resident(ResidentOp::Write { resident, first, instances }) => match r.below(4) {
            0 => mutate_resident(r, resident),
            1 => *first = u32_from(r, *first),
            2 => instances.start = u32_from(r, instances.start),
            _ => instances.end = u32_from(r, instances.end),
        },
        ResourceOp::Resident(ResidentOp::Destroy { resident }) => mutate_resident(r, resident),
        ResourceOp::Array(a) => match a {
            ArrayOp::Create { array, desc } => {
                if r.bool() {
                    mutate_id(r, array);
                } else {
                    mutate_desc(r, desc);
                }
            }
            ArrayOp::Grow { from, to, desc, copy_layers } | ArrayOp::Shrink { from, to, desc, copy_layers } => {
                match r.below(4) {
                    0 => mutate_id(r, from),
                    1 => mutate_id(r, to),
                    2 => mutate_desc(r, desc),
                    _ => *copy_layers = u32_from(r, *copy_layers),
                }
            }
            ArrayOp::CopyRect { from, from_layer, from_xy, to, to_layer, to_xy, size } => match r.below(7) {
                0 => mutate_id(r, from),
                1 => *from_layer = u32_from(r, *from_layer),
                2 => from_xy[r.below(2)] = u32_from(r, from_xy[0]),
                3 => mutate_id(r, to),
                4 => *to_layer = u32_from(r, *to_layer),
                5 => to_xy[r.below(2)] = u32_from(r, to_xy[1]),
                _ => size[r.below(2)] = u32_from(r, size[0]),
            },
            ArrayOp::Destroy { array } => mutate_id(r, array),
            ArrayOp::HostContents { array, .. } => mutate_id(r, array),
        },
        ResourceOp::WriteLayer { array, layer, x_px, y_px, width_px, height_px, mip_levels, bytes, .. } => {
            match r.below(9) {
                0 => mutate_id(r, array),
                1 => *layer = u32_from(r, *layer),
                2 => *x_px = u32_from(r, *x_px),
                3 => *y_px = u32_from(r, *y_px),
                4 => *width_px = u32_from(r, *width_px),
                5 => *height_px = u32_from(r, *height_px),
                6 => *mip_levels = u32_from(r, *mip_levels),
                7 => bytes.start = usize_from(r, bytes.start),
                _ => bytes.end = usize_from(r, bytes.end),
            }
        }
    }
}

/// Applies one mutation, chosen by the input, to `p`.
fn mutate(r: &mut Reader<'_>, p: &mut FramePlan) {
    match r.below(16) {
        0 => match r.below(5) {
            0 => p.sequence = u64::from(u32_from(r, p.sequence as u32)) | if r.bool() { u64::MAX << 32 } else { 0 },
            1 => p.batcher = u32_from(r, p.batcher),
            2 => p.rebuild = !p.rebuild,
            3 => p.instance_capacity = u32_from(r, p.instance_capacity),
            _ => p.indexed = !p.indexed,
        },
        1 | 2 => {
            if !p.ops.is_empty() {
                let i = r.below(p.ops.len());
                mutate_op(r, &mut p.ops[i]);
            }
        }
        3 => {
            // Ops removed, repeated or swapped.
            let n = p.ops.len();
            if n > 0 {
                let (i, j) = (r.below(n), r.below(n));
                match r.below(3) {
                    0 => {
                        p.ops.remove(i);
                    }
                    1 => {
                        let op = p.ops[i].clone();
                        p.ops.insert(j, op);
                    }
                    _ => p.ops.swap(i, j),
                }
            }
        }
        4 => {
            let n = r.u16() as usize;
            p.upload_bytes.truncate(n % (p.upload_bytes.len() + 1));
        }
        5 | 6 => {
            if !p.instances.is_empty() {
                let i = r.below(p.instances.len());
                let inst = &mut p.instances[i];
                match r.below(6) {
                    0 => inst.slot_flags_layer = u32_from(r, inst.slot_flags_layer),
                    1 => inst.tex_rect[r.below(4)] = u32_from(r, u32::from(inst.tex_rect[0])) as u16,
                    5 => inst.effect = u32_from(r, inst.effect),
                    2 => inst.uv_rect[r.below(4)] = f32_from(r, inst.uv_rect[0]),
                    3 => inst.origin[r.below(2)] = f32_from(r, inst.origin[0]),
                    _ => inst.axis_x[r.below(2)] = f32_from(r, inst.axis_x[0]),
                }
            }
        }
        7 => {
            // Instances removed or repeated, or the same ones in two parts (as parts recorded
            // on two threads leave them).
            if !p.instances.is_empty() {
                let mut v = p.instances.to_vec();
                let i = r.below(v.len());
                p.instances = match r.below(3) {
                    0 => {
                        v.remove(i);
                        v.into()
                    }
                    1 => {
                        v.insert(i, v[i]);
                        v.into()
                    }
                    _ => {
                        let tail = v.split_off(i);
                        Instances::from_parts([v, tail])
                    }
                };
            }
        }
        8 => {
            if r.bool() && !p.triangles.is_empty() {
                let i = r.below(p.triangles.len());
                let c = &mut p.triangles[i][r.below(3)];
                c.pos_px[r.below(2)] = f32_from(r, c.pos_px[0]);
                c.uv_texels[r.below(2)] = f32_from(r, c.uv_texels[0]);
            } else if r.bool() {
                p.triangles.pop();
            } else if !p.block_triangles.is_empty() {
                let i = r.below(p.block_triangles.len());
                p.block_triangles[i] = u32_from(r, p.block_triangles[i]);
            } else {
                p.block_triangles.push(r.edgy_u32());
            }
        }
        9 | 10 => {
            if !p.segments.is_empty() {
                let i = r.below(p.segments.len());
                let s = &mut p.segments[i];
                match r.below(9) {
                    7 => {
                        s.resident = match s.resident {
                            Some(_) if r.bool() => None,
                            Some(mut id) => {
                                mutate_resident(r, &mut id);
                                Some(id)
                            }
                            None => Some(ResidentId { index: r.edgy_u32() % 4, generation: r.edgy_u32() % 4 }),
                        }
                    }
                    8 => {
                        if !p.resident_instances.is_empty() {
                            let i = r.below(p.resident_instances.len());
                            let inst = &mut p.resident_instances[i];
                            inst.slot_flags_layer = u32_from(r, inst.slot_flags_layer);
                        }
                    }
                    0 => s.instances.start = u32_from(r, s.instances.start),
                    1 if r.bool() => {
                        let mut g = s.grid.unwrap_or(GridDraw { cells: [0, 0, 1, 1], width: 1, tile_px: 1.0 });
                        match r.below(4) {
                            0 => g.cells[r.below(4)] = u32_from(r, g.cells[0]),
                            1 => g.width = u32_from(r, g.width),
                            2 => g.tile_px = f32_from(r, g.tile_px),
                            _ => {}
                        }
                        s.grid = if r.below(8) == 0 { None } else { Some(g) };
                    }
                    1 => s.instances.end = u32_from(r, s.instances.end),
                    2 => s.tier = u32_from(r, s.tier),
                    3 => s.slots.start = u32_from(r, s.slots.start),
                    4 => s.slots.end = u32_from(r, s.slots.end),
                    5 => s.binds = u32_from(r, s.binds.start)..u32_from(r, s.binds.end),
                    _ => s.state = u32_from(r, s.state),
                }
            }
        }
        11 => {
            // Segments removed or repeated.
            if !p.segments.is_empty() {
                let i = r.below(p.segments.len());
                if r.bool() {
                    p.segments.remove(i);
                } else {
                    let s = p.segments[i].clone();
                    p.segments.push(s);
                }
            }
        }
        12 => {
            if !p.binds.is_empty() {
                let i = r.below(p.binds.len());
                if r.bool() {
                    p.binds[i].slot = u32_from(r, p.binds[i].slot);
                } else {
                    mutate_id(r, &mut p.binds[i].array);
                }
            }
        }
        13 => {
            if !p.slot_tables.is_empty() {
                let i = r.below(p.slot_tables.len());
                p.slot_tables[i] = if r.below(3) == 0 { None } else { Some(ArrayId(r.edgy_u32() % 64)) };
            }
        }
        14 => {
            if !p.states.is_empty() {
                let i = r.below(p.states.len());
                let s = &mut p.states[i];
                if r.bool() {
                    s.clip_px = if r.below(4) == 0 {
                        None
                    } else {
                        Some([r.edgy_u32(), r.edgy_u32(), r.edgy_u32(), r.edgy_u32()])
                    };
                } else {
                    s.transform[r.below(6)] = r.edgy_f32();
                }
            }
        }
        _ => {
            p.target = match (p.target, r.below(3)) {
                (_, 0) => None,
                (Some(mut t), 1) => {
                    match r.below(3) {
                        0 => mutate_id(r, &mut t.array),
                        1 => t.layer = u32_from(r, t.layer),
                        _ => t.size_px[r.below(2)] = u32_from(r, t.size_px[0]),
                    }
                    Some(t)
                }
                (t, _) => Some(PlanTarget {
                    texture: t.map_or_else(dummy_id, |t| t.texture),
                    array: ArrayId(r.edgy_u32() % 16),
                    layer: r.edgy_u32() % 4,
                    size_px: [r.edgy_u32(), r.edgy_u32()],
                    clear_rgba: if r.bool() { Some([r.edgy_f32(); 4]) } else { None },
                }),
            };
        }
    }
}

/// A texture id for a made-up target (the validator does not look it up).
fn dummy_id() -> layerbatch_core::TextureId {
    static ID: std::sync::OnceLock<layerbatch_core::TextureId> = std::sync::OnceLock::new();
    *ID.get_or_init(|| {
        let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).expect("a batcher");
        b.textures().white().expect("the white texture")
    })
}

/// The target: the scenarios, made once.
pub struct PlanFuzz {
    scenarios: Vec<Scenario>,
}

impl PlanFuzz {
    pub fn new() -> Result<Self, String> {
        Ok(Self { scenarios: scenarios()? })
    }
}

impl Target for PlanFuzz {
    fn name(&self) -> &'static str {
        "plan"
    }

    fn default_iterations(&self) -> u64 {
        400_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        let n = 2 + rng.index(8) * 8;
        rng.bytes(n)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let mut r = Reader::new(input);
        let s = &self.scenarios[r.below(self.scenarios.len())];
        let mut plan = s.plan.clone();
        while !r.is_empty() {
            mutate(&mut r, &mut plan);
        }
        let mut validator = PlanValidator::new(&s.budget);
        for p in &s.history {
            if let Err(e) = validator.check(p) {
                return Outcome::Finding(format!("a stored plan is refused: {e}"));
            }
        }
        match validator.check(&plan) {
            Err(e) => Outcome::err(&e),
            Ok(()) => {
                // Accepted: the mock device (which trusts what the validator accepts) runs it.
                let mut device = MockDevice::new(&s.budget);
                for &(id, size) in &s.hosts {
                    device.set_host_texture(id, size, &vec![9; (size[0] * size[1] * 4) as usize]);
                }
                for p in &s.history {
                    if let Err(e) = device.execute(p) {
                        return Outcome::Finding(format!("the mock device refuses a stored plan: {e}"));
                    }
                }
                match device.execute(&plan) {
                    Ok(()) => Outcome::Ok,
                    // The host's state, not the plan's: a texture of the host's the mock was
                    // not given (a mutated id), or of another size. Refused by name.
                    Err(PlanError::HostTexture { .. }) => Outcome::Ok,
                    Err(e) => Outcome::Finding(format!("the validator accepts a plan the mock device refuses: {e}")),
                }
            }
        }
    }
}
