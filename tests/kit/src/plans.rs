//! Hand-made frame plans for the core/backend seam: one that core does not produce yet (a
//! write at an offset in a layer), and a set of bad plans every executor must refuse with the
//! same [`PlanError`]. Used by `backend-gl/tests`, `backend-wgpu/tests` and the root tests.

use layerbatch_core::plan::{ArrayDesc, ArrayId, ArrayOp, FlushCause, Instance, ResourceOp, Segment, SlotBind};
use layerbatch_core::{mip_size, Budget, Filter, Format, FramePlan, PlanError, Sampler, TextureId, Wrap};

/// A hand-made plan, built op by op and quad by quad, for backend tests of plan shapes core
/// does not produce (or not yet).
#[derive(Clone, Debug)]
pub struct PlanBuilder {
    plan: FramePlan,
    /// First instance not yet in a segment.
    segment_start: u32,
}

impl PlanBuilder {
    /// Plan `sequence` for a batcher of `budget`.
    pub fn new(sequence: u64, budget: &Budget) -> Self {
        let mut plan = FramePlan { sequence, instance_capacity: budget.instance_capacity, ..FramePlan::default() };
        plan.totals.frames = sequence;
        Self { plan, segment_start: 0 }
    }

    /// Renumbers the plan (a builder cloned to make several variants).
    pub fn set_sequence(&mut self, sequence: u64) -> &mut Self {
        self.plan.sequence = sequence;
        self.plan.totals.frames = sequence;
        self
    }

    /// Appends an array op.
    pub fn op(&mut self, op: ArrayOp) -> &mut Self {
        self.plan.ops.push(ResourceOp::Array(op));
        self
    }

    /// Writes a `w` x `h` texture at `(x, y)` of `layer`: `levels[l]` holds level `l`'s pixels.
    ///
    /// # Panics
    /// If a level's pixels are not its size.
    pub fn write(
        &mut self,
        array: ArrayId,
        layer: u32,
        [x, y]: [u32; 2],
        [w, h]: [u32; 2],
        levels: &[Vec<u8>],
    ) -> &mut Self {
        let start = self.plan.upload_bytes.len();
        for (l, pixels) in levels.iter().enumerate() {
            let (lw, lh) = mip_size(w, h, l as u32);
            assert_eq!(pixels.len(), (lw * lh * 4) as usize, "level {l} of a {w}x{h} write");
            self.plan.upload_bytes.extend_from_slice(pixels);
        }
        self.plan.ops.push(ResourceOp::WriteLayer {
            texture: bytemuck::Zeroable::zeroed(),
            array,
            layer,
            x_px: x,
            y_px: y,
            width_px: w,
            height_px: h,
            mip_levels: levels.len() as u32,
            bytes: start..self.plan.upload_bytes.len(),
            normal_map: false,
        });
        self
    }

    /// A `w` x `h` texture of one level, one colour.
    pub fn write_solid(
        &mut self,
        array: ArrayId,
        layer: u32,
        xy: [u32; 2],
        [w, h]: [u32; 2],
        color: [u8; 4],
    ) -> &mut Self {
        self.write(array, layer, xy, [w, h], &[color.repeat((w * h) as usize)])
    }

    /// A `w` x `h` texture whose level `l` is all `colors[l]`.
    pub fn write_solid_levels(
        &mut self,
        array: ArrayId,
        layer: u32,
        xy: [u32; 2],
        [w, h]: [u32; 2],
        colors: &[[u8; 4]],
    ) -> &mut Self {
        let levels: Vec<Vec<u8>> = colors
            .iter()
            .enumerate()
            .map(|(l, c)| {
                let (lw, lh) = mip_size(w, h, l as u32);
                c.repeat((lw * lh) as usize)
            })
            .collect();
        self.write(array, layer, xy, [w, h], &levels)
    }

    /// Draws `tex_rect` of `layer` (texels) from a quad with corner `origin` and edges
    /// `axis_x`, `axis_y`, sampling `uv_rect` (texels), from slot 0, untinted.
    pub fn draw(
        &mut self,
        [origin, axis_x, axis_y]: [[f32; 2]; 3],
        uv_rect: [f32; 4],
        tex_rect: [f32; 4],
        flags: u32,
        layer: u32,
    ) -> &mut Self {
        self.instance(Instance {
            origin,
            axis_x,
            axis_y,
            uv_rect,
            // Whole texels (Instance::tex_rect).
            tex_rect: tex_rect.map(|v| v as u16),
            color: [255; 4],
            slot_flags_layer: Instance::pack(0, flags, layer),
            ..Instance::default()
        })
    }

    /// Appends an instance.
    pub fn instance(&mut self, instance: Instance) -> &mut Self {
        self.plan.instances.push(instance);
        self
    }

    /// Ends a segment of the instances since the last one: `table` is its slot table (its
    /// length the tier), `binds` the slots it rebinds.
    pub fn segment(&mut self, table: &[Option<ArrayId>], binds: &[(u32, ArrayId)]) -> &mut Self {
        let end = self.plan.instances.len() as u32;
        let slots = self.plan.slot_tables.len() as u32;
        self.plan.slot_tables.extend_from_slice(table);
        let first_bind = self.plan.binds.len() as u32;
        self.plan.binds.extend(binds.iter().map(|&(slot, array)| SlotBind { slot, array }));
        self.plan.segments.push(Segment {
            instances: self.segment_start..end,
            tier: table.len() as u32,
            slots: slots..slots + table.len() as u32,
            binds: first_bind..self.plan.binds.len() as u32,
            cause: FlushCause::EndOfFrame,
            state: 0,
            resident: None,
            grid: None,
            effects: false,
        });
        self.segment_start = end;
        self
    }

    /// The plan.
    pub fn finish(&mut self) -> FramePlan {
        std::mem::take(&mut self.plan)
    }

    /// The plan, its remaining instances (if any) drawn as one tier-1 segment with `array`
    /// bound to slot 0.
    pub fn finish_with(&mut self, array: ArrayId) -> FramePlan {
        if self.plan.instances.len() as u32 > self.segment_start {
            self.segment(&[Some(array)], &[(0, array)]);
        }
        self.finish()
    }
}

/// A hand-made plan (number 1) writing a 32x32 red texture at a layer's origin and an 8x8
/// green one at (16, 8) of the same layer, then drawing the whole layer 1:1 with nearest
/// filtering. Core places every texture at its layer's origin today; the seam already carries
/// the rectangle (`WriteLayer::x_px`, `y_px`), so packing textures into a layer later needs
/// no backend change. This proves the backend honours it.
pub fn offset_write(texture: TextureId, budget: &Budget) -> FramePlan {
    let array = ArrayId(0);
    let desc = ArrayDesc {
        width_px: 32,
        height_px: 32,
        layers: 2,
        format: Format::Rgba8Unorm,
        mip_levels: 1,
        sampler: Sampler::new(Filter::Nearest, Wrap::ClampToEdge),
        render_target: false,
        normal_map: false,
        host: None,
    };
    let red = [255, 0, 0, 255].repeat(32 * 32);
    let green = [0, 255, 0, 255].repeat(8 * 8);
    let write = |x_px, y_px, size, bytes: std::ops::Range<usize>| ResourceOp::WriteLayer {
        texture,
        array,
        layer: 1,
        x_px,
        y_px,
        width_px: size,
        height_px: size,
        mip_levels: 1,
        bytes,
        normal_map: false,
    };
    let mut plan = FramePlan {
        sequence: 1,
        ops: vec![
            ResourceOp::Array(ArrayOp::Create { array, desc }),
            write(0, 0, 32, 0..red.len()),
            write(16, 8, 8, red.len()..red.len() + green.len()),
        ],
        upload_bytes: [red, green].concat(),
        instances: vec![Instance {
            origin: [0.0, 0.0],
            axis_x: [32.0, 0.0],
            axis_y: [0.0, 32.0],
            uv_rect: [0.0, 0.0, 32.0, 32.0],
            tex_rect: [0, 0, 32, 32],
            color: [255; 4],
            slot_flags_layer: Instance::pack(0, 0, 1),
            ..Instance::default()
        }]
        .into(),
        segments: vec![Segment {
            instances: 0..1,
            tier: 1,
            slots: 0..1,
            binds: 0..1,
            cause: FlushCause::EndOfFrame,
            state: 0,
            resident: None,
            grid: None,
            effects: false,
        }],
        binds: vec![SlotBind { slot: 0, array }],
        slot_tables: vec![Some(array)],
        instance_capacity: budget.instance_capacity,
        ..FramePlan::default()
    };
    plan.totals.frames = 1;
    plan
}

/// Bad variants of [`offset_write`] (each plan number 1, for a fresh executor), with the
/// error every executor must refuse them with. A refused plan changes nothing, so one
/// executor can be fed all of them and then the good plan.
pub fn bad_plans(texture: TextureId, budget: &Budget) -> Vec<(&'static str, FramePlan, PlanError)> {
    let good = offset_write(texture, budget);
    let array = ArrayId(0);
    let with = |f: &dyn Fn(&mut FramePlan)| {
        let mut p = good.clone();
        f(&mut p);
        p
    };
    vec![
        (
            "out-of-range slot",
            with(&|p| p.instances[0].slot_flags_layer = Instance::pack(1, 0, 1)),
            PlanError::InstanceSlot { instance: 0, slot: 1 },
        ),
        (
            "layer past the array",
            with(&|p| p.instances[0].slot_flags_layer = Instance::pack(0, 0, 2)),
            PlanError::InstanceLayer { instance: 0, layer: 2, layers: 2 },
        ),
        (
            "write past the layer",
            with(&|p| {
                if let ResourceOp::WriteLayer { x_px, .. } = &mut p.ops[2] {
                    *x_px = 30;
                }
            }),
            PlanError::WriteOutOfBounds {
                op: 2,
                array,
                layer: 1,
                reason: "the rectangle reaches past the layer's edge",
            },
        ),
        (
            "write bytes out of range",
            with(&|p| p.upload_bytes.truncate(100)),
            PlanError::UploadBytes { op: 1, start: 0, end: 4096, available: 100, expected: 4096 },
        ),
        (
            "unknown array",
            with(&|p| {
                p.binds[0].array = ArrayId(7);
                p.slot_tables[0] = Some(ArrayId(7));
            }),
            PlanError::UnknownArray { at: 0, array: ArrayId(7) },
        ),
        ("array created twice", with(&|p| p.ops.insert(1, p.ops[0].clone())), PlanError::ArrayExists { op: 1, array }),
        (
            "growth copying too many layers",
            with(&|p| {
                let ResourceOp::Array(ArrayOp::Create { desc, .. }) = p.ops[0] else { unreachable!() };
                let to = ArrayId(1);
                p.ops.push(ResourceOp::Array(ArrayOp::Grow {
                    from: array,
                    to,
                    desc: ArrayDesc { layers: 4, ..desc },
                    copy_layers: 3,
                }));
            }),
            PlanError::BadGrow {
                op: 3,
                from: array,
                to: ArrayId(1),
                reason: "copies more layers than one of the arrays has",
            },
        ),
        ("tier without a program", with(&|p| p.segments[0].tier = 3), PlanError::UnknownTier { segment: 0, tier: 3 }),
        (
            "segment past the instances",
            with(&|p| p.segments[0].instances = 0..2),
            PlanError::SegmentRange { segment: 0, start: 0, end: 2, count: 1 },
        ),
        ("bind range out of bounds", with(&|p| p.binds.clear()), PlanError::SlotTable { segment: 0 }),
        (
            "slot table disagrees with the binds",
            with(&|p| {
                p.binds.clear();
                p.segments[0].binds = 0..0;
            }),
            PlanError::TableMismatch { segment: 0, slot: 0, held: None, table: Some(array) },
        ),
        ("plan 2 first", with(&|p| p.sequence = 2), PlanError::NeedsRebuild { got: 2 }),
    ]
}
