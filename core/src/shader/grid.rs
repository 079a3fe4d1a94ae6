//! The tile grids' culling pass ([`GridDraw`](crate::plan::GridDraw)), authored once in WGSL
//! beside the tier programs: a compute shader that tests each cell of a grid draw under the
//! draw state's transform, and writes the quad of each tile that shows, and the count of the
//! indirect draw that draws them.
//!
//! Bindings (the backend makes the buffers; [`GRID_BINDINGS`] names them):
//!
//! | group | binding | what                                                     |
//! |-------|---------|----------------------------------------------------------|
//! | 0     | 0       | `Globals` uniform of the draw's state, dynamic offset     |
//! | 1     | 0       | [`GridParams`] uniform, dynamic offset                    |
//! | 1     | 1       | the layer's quads (`Instance`s), storage, read            |
//! | 1     | 2       | the cells (`u32` tile ids), storage, read                 |
//! | 1     | 3       | the tiles written (`Instance`s), storage, read-write      |
//! | 1     | 4       | indirect draw arguments, 4 `u32` a draw, storage, atomic  |

use bytemuck::{Pod, Zeroable};

use super::GLOBALS_STRUCT;
use crate::plan::{GridDraw, Instance};

/// Cells a workgroup of the culling pass tests, a side: `8 x 8` cells a workgroup, so a
/// draw dispatches `ceil(width / 8) x ceil(height / 8)` workgroups.
pub const GRID_WORKGROUP_SIDE: u32 = 8;

/// The culling pass's bindings in group 1, in order: params, quads, cells, tiles, arguments.
pub const GRID_BINDINGS: [u32; 5] = [0, 1, 2, 3, 4];

/// A grid draw's uniform: its cells, the grid's width, the layer's quads, where its tiles go
/// and which arguments count them.
///
/// ```
/// use layerbatch_core::plan::GridDraw;
/// use layerbatch_core::shader::GridParams;
/// let g = GridDraw { cells: [10, 20, 130, 88], width: 4096, tile_px: 16.0 };
/// let p = GridParams::new(&g, 64, 3);
/// assert_eq!((p.cells, p.shape, p.tile_px[0]), ([10, 20, 130, 88], [4096, 64, 3, 0], 16.0));
/// assert_eq!(std::mem::size_of::<GridParams>(), 48);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GridParams {
    /// `[x0, y0, x1, y1]`, ends exclusive.
    pub cells: [u32; 4],
    /// The grid's width (cells a row), the layer's quads, the draw's arguments index
    /// (`args[4 * index..]`), 0.
    pub shape: [u32; 4],
    /// A cell's side in pixels, then padding.
    pub tile_px: [f32; 4],
}

impl GridParams {
    /// The uniform of `grid` over a layer of `quads` quads, counted in arguments `args`.
    pub fn new(grid: &GridDraw, quads: u32, args: u32) -> Self {
        Self { cells: grid.cells, shape: [grid.width, quads, args, 0], tile_px: [grid.tile_px, 0.0, 0.0, 0.0] }
    }

    /// The workgroups a draw of `grid` dispatches, `[x, y]`.
    pub fn workgroups(grid: &GridDraw) -> [u32; 2] {
        let [x0, y0, x1, y1] = grid.cells;
        [x1.saturating_sub(x0).div_ceil(GRID_WORKGROUP_SIDE), y1.saturating_sub(y0).div_ceil(GRID_WORKGROUP_SIDE)]
    }
}

/// The culling pass's WGSL: entry point `cs_grid`. Each invocation takes one cell; a cell of
/// tile id `k` (0: none; past the layer's quads: none) whose quad, moved to the cell
/// ([`GridDraw::tile_at`]), shows ([`GridDraw::shows`], the same operations) is appended to
/// the tiles written and counted in its draw's `instance_count` (`args[4 * index + 1]`,
/// which the backend sets to 0 before the pass).
///
/// ```
/// let src = layerbatch_core::shader::grid_wgsl();
/// assert!(src.contains("fn cs_grid("));
/// assert!(src.contains("atomicAdd(&args[grid.shape.z * 4u + 1u], 1u)"));
/// ```
pub fn grid_wgsl() -> String {
    let words = Instance::BYTES / 4;
    let [origin, axis_x, axis_y] = [
        std::mem::offset_of!(Instance, origin),
        std::mem::offset_of!(Instance, axis_x),
        std::mem::offset_of!(Instance, axis_y),
    ]
    .map(|o| o / 4);
    let side = GRID_WORKGROUP_SIDE;
    format!(
        r"// layerbatch: tile grid culling.

{GLOBALS_STRUCT}

struct GridParams {{
    cells: vec4<u32>,
    shape: vec4<u32>,
    tile_px: vec4<f32>,
}};

@group(0) @binding(0) var<uniform> globals: Globals;
@group(1) @binding(0) var<uniform> grid: GridParams;
@group(1) @binding(1) var<storage, read> quads: array<u32>;
@group(1) @binding(2) var<storage, read> cells: array<u32>;
@group(1) @binding(3) var<storage, read_write> tiles: array<u32>;
@group(1) @binding(4) var<storage, read_write> args: array<atomic<u32>>;

// An instance's words, and where its origin and axes are (core's Instance layout).
const WORDS: u32 = {words}u;
const ORIGIN: u32 = {origin}u;
const AXIS_X: u32 = {axis_x}u;
const AXIS_Y: u32 = {axis_y}u;

fn lb_pair(at: u32) -> vec2<f32> {{
    return vec2<f32>(bitcast<f32>(quads[at]), bitcast<f32>(quads[at + 1u]));
}}

// A corner through the draw state's transform, in pixels: what vs_main computes.
fn lb_place(q: vec2<f32>) -> vec2<f32> {{
    return globals.linear.xy * q.x + globals.linear.zw * q.y + globals.translate.xy;
}}

@compute @workgroup_size({side}, {side})
fn cs_grid(@builtin(global_invocation_id) id: vec3<u32>) {{
    let x = grid.cells.x + id.x;
    let y = grid.cells.y + id.y;
    if (x >= grid.cells.z || y >= grid.cells.w) {{
        return;
    }}
    let tile = cells[y * grid.shape.x + x];
    if (tile == 0u || tile > grid.shape.y) {{
        return;
    }}
    let base = (tile - 1u) * WORDS;
    let origin = lb_pair(base + ORIGIN) + vec2<f32>(f32(x) * grid.tile_px.x, f32(y) * grid.tile_px.x);
    let ax = lb_pair(base + AXIS_X);
    let ay = lb_pair(base + AXIS_Y);
    let c0 = lb_place(origin);
    let c1 = lb_place(origin + ax);
    let c2 = lb_place(origin + ay);
    let c3 = lb_place(origin + ax + ay);
    let lo = min(min(c0, c1), min(c2, c3));
    let hi = max(max(c0, c1), max(c2, c3));
    let size = globals.viewport_px;
    if (!(lo.x < size.x && hi.x > 0.0 && lo.y < size.y && hi.y > 0.0)) {{
        return;
    }}
    let k = atomicAdd(&args[grid.shape.z * 4u + 1u], 1u);
    let out = k * WORDS;
    for (var w = 0u; w < WORDS; w = w + 1u) {{
        tiles[out + w] = quads[base + w];
    }}
    tiles[out + ORIGIN] = bitcast<u32>(origin.x);
    tiles[out + ORIGIN + 1u] = bitcast<u32>(origin.y);
}}
"
    )
}
