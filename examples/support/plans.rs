//! Hand-made frame plans that exercise parts of the core/backend seam core does not produce
//! yet. Shared by `backend-gl/tests` and `backend-wgpu/tests` (included by path).

use layerbatch_core::{
    ArrayDesc, ArrayId, ArrayOp, Filter, FlushCause, Format, FramePlan, Instance, ResourceOp, Segment, SlotBind,
    TextureId, Wrap,
};

/// A hand-made plan writing a 32x32 red texture at a layer's origin and an 8x8 green one at
/// (16, 8) of the same layer, then drawing the whole layer 1:1 with nearest filtering.
/// Core places every texture at its layer's origin today; the seam already carries the
/// rectangle (`WriteLayer::x_px`, `y_px`), so packing textures into a layer later needs no
/// backend change. This proves the backend honours it.
pub fn offset_write(texture: TextureId) -> FramePlan {
    let array = ArrayId(0);
    let desc = ArrayDesc {
        width_px: 32,
        height_px: 32,
        layers: 2,
        format: Format::Rgba8Unorm,
        mip_levels: 1,
        filter: Filter::Nearest,
        wrap: Wrap::ClampToEdge,
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
    };
    let mut plan = FramePlan {
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
            uv_rect: [0.0, 0.0, 1.0, 1.0],
            color: [255; 4],
            slot_flags_layer: 1 << 16,
        }],
        segments: vec![Segment { instances: 0..1, tier: 1, slots: 0..1, binds: 0..1, cause: FlushCause::EndOfFrame }],
        binds: vec![SlotBind { slot: 0, array }],
        slot_tables: vec![Some(array)],
        instance_capacity: 16,
        ..FramePlan::default()
    };
    plan.totals.frames = 1;
    plan
}
