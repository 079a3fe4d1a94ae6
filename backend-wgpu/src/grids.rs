//! Tile grids culled on the GPU ([`GridDraw`](layerbatch_core::plan::GridDraw)): core's culling pass
//! ([`layerbatch_core::shader::grid_wgsl`]) made once with the renderer, and per space of a
//! prepared plan the buffers its grid draws use: a tiles buffer a draw (the instances the pass
//! writes, drawn as a vertex buffer), their indirect arguments and their uniforms. `prepare`
//! records the pass into the renderer's own encoder, which it submits before returning, so
//! the host's pass draws what the pass wrote.

use layerbatch_core::plan::{FramePlan, Instance};
use layerbatch_core::shader::{grid_wgsl, GridParams, GLOBALS_BYTES, GRID_BINDINGS};

use crate::arrays::{own_encoder, Arrays};
use crate::globals::{Globals, Uniform};
use crate::scope::{checked, Late};
use crate::Error;

/// Bytes of one draw's indirect arguments: `vertex_count, instance_count, first_vertex,
/// first_instance`.
pub(crate) const ARGS_BYTES: u64 = 16;

/// The culling pass: its pipeline and bind group layouts.
#[derive(Debug)]
pub(crate) struct GridPass {
    pipeline: wgpu::ComputePipeline,
    globals_layout: wgpu::BindGroupLayout,
    layout: wgpu::BindGroupLayout,
    /// Bytes between two draws' uniforms (the device's uniform offset alignment).
    params_stride: u64,
}

fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform(binding: u32, dynamic: bool, bytes: u64) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: wgpu::BufferSize::new(bytes),
        },
        count: None,
    }
}

impl GridPass {
    /// Compiles the pass (with the renderer, on a budget whose tile grids live on the device).
    pub(crate) fn new(device: &wgpu::Device, late: &Late) -> Result<Self, Error> {
        let params_bytes = std::mem::size_of::<GridParams>() as u64;
        let params_stride =
            params_bytes.next_multiple_of(u64::from(device.limits().min_uniform_buffer_offset_alignment.max(1)));
        checked(
            device,
            late,
            || "creating the tile grid culling pass".to_string(),
            || {
                let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("layerbatch grid globals"),
                    entries: &[uniform(0, true, GLOBALS_BYTES)],
                });
                let [params, quads, cells, tiles, args] = GRID_BINDINGS;
                let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("layerbatch grid"),
                    entries: &[
                        uniform(params, false, params_bytes),
                        storage(quads, true),
                        storage(cells, true),
                        storage(tiles, false),
                        storage(args, false),
                    ],
                });
                let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("layerbatch grid culling"),
                    source: wgpu::ShaderSource::Wgsl(grid_wgsl().into()),
                });
                let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("layerbatch grid culling"),
                    bind_group_layouts: &[Some(&globals_layout), Some(&layout)],
                    immediate_size: 0,
                });
                let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some("layerbatch grid culling"),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some("cs_grid"),
                    compilation_options: Default::default(),
                    cache: None,
                });
                Self { pipeline, globals_layout, layout, params_stride }
            },
        )
    }
}

/// A space's grid buffers, bind groups and scratch, reused plan to plan: a frame that draws
/// the same grids allocates nothing and makes no bind group.
#[derive(Debug, Default)]
pub(crate) struct SpaceGrids {
    /// The draws' uniforms, `params_stride` apart.
    params: Option<wgpu::Buffer>,
    /// The draws' indirect arguments, [`ARGS_BYTES`] each.
    args: Option<wgpu::Buffer>,
    /// Per grid draw, in plan order: the tiles its pass writes.
    tiles: Vec<wgpu::Buffer>,
    /// Per grid draw: its bind group and the buffers it binds (params, quads, cells, tiles,
    /// arguments), made again when one of them changed.
    groups: Vec<([wgpu::Buffer; 5], wgpu::BindGroup)>,
    /// The globals group of the pass, and the uniform buffer it binds.
    globals: Option<(wgpu::Buffer, wgpu::BindGroup)>,
    /// Grid draws of the plan last prepared into the space.
    draws: usize,
    params_bytes: Vec<u8>,
    args_words: Vec<u32>,
    /// Per draw: its globals offset and workgroups.
    dispatches: Vec<(u32, [u32; 2])>,
}

impl SpaceGrids {
    /// Grid draw `k`'s tiles buffer and its arguments buffer with their offset.
    pub(crate) fn draw(&self, k: usize) -> Option<(&wgpu::Buffer, &wgpu::Buffer, u64)> {
        if k >= self.draws {
            return None;
        }
        Some((self.tiles.get(k)?, self.args.as_ref()?, k as u64 * ARGS_BYTES))
    }

    /// The arguments buffer (for a read-back of the instances drawn).
    pub(crate) fn args(&self) -> Option<&wgpu::Buffer> {
        self.args.as_ref()
    }

    /// Grid draws of the plan last prepared into the space.
    pub(crate) fn draws(&self) -> usize {
        self.draws
    }
}

/// A buffer of at least `size` bytes in `slot`, made anew when it holds fewer.
fn ensure(
    (device, late): (&wgpu::Device, &Late),
    slot: &mut Option<wgpu::Buffer>,
    size: u64,
    usage: wgpu::BufferUsages,
    what: &str,
) -> Result<(), Error> {
    if slot.as_ref().is_none_or(|b| b.size() < size) {
        let size = size.max(64).next_power_of_two();
        let made = checked(
            device,
            late,
            || format!("creating the {what} buffer ({size} bytes)"),
            || {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(what),
                    size,
                    usage,
                    mapped_at_creation: false,
                })
            },
        )?;
        *slot = Some(made);
    }
    Ok(())
}

fn out_of_step(what: String) -> Error {
    Error::Device {
        op: what,
        message: "the renderer holds no buffer for it (out of step with core's runner)".to_string(),
    }
}

/// For a plan with grid draws: its buffers in `space`, their uniforms and zeroed counts
/// written (queue writes, before the pass), and the pass recorded into the renderer's own
/// encoder, a dispatch a draw. The plan was validated: every grid draw's layer has cells.
pub(crate) fn prepare(
    (device, queue, late): (&wgpu::Device, &wgpu::Queue, &Late),
    (pass, globals, uniform): (&GridPass, &Globals, &Uniform),
    space: &mut SpaceGrids,
    plan: &FramePlan,
    arrays: &Arrays,
    own: &mut Option<wgpu::CommandEncoder>,
) -> Result<(), Error> {
    let n = plan.segments.iter().filter(|s| s.grid.is_some()).count();
    space.draws = n;
    // Groups hold the buffers they bind: none kept past the plan's draws (a destroyed grid's
    // cells are freed once its passes are done, not held by a cache).
    space.groups.truncate(n);
    space.tiles.truncate(n);
    if n == 0 {
        return Ok(());
    }
    let copy = wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
    let params_usage = wgpu::BufferUsages::UNIFORM | copy;
    ensure((device, late), &mut space.params, n as u64 * pass.params_stride, params_usage, "grid uniforms")?;
    let args_usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT | copy;
    ensure((device, late), &mut space.args, n as u64 * ARGS_BYTES, args_usage, "grid arguments")?;
    let (Some(params_buffer), Some(args_buffer)) = (space.params.clone(), space.args.clone()) else {
        return Err(out_of_step("grid uniforms".to_string()));
    };
    space.params_bytes.clear();
    space.params_bytes.resize(n * pass.params_stride as usize, 0);
    space.args_words.clear();
    space.dispatches.clear();
    let grids = plan.segments.iter().enumerate().filter_map(|(i, s)| s.grid.map(|g| (i, s, g)));
    for (k, (segment, seg, grid)) in grids.enumerate() {
        let resident = seg.resident.ok_or_else(|| out_of_step(format!("grid draw of segment {segment}")))?;
        let quads = arrays.resident(resident).ok_or_else(|| out_of_step(format!("resident layer {resident:?}")))?;
        let cells = arrays.cells(resident).ok_or_else(|| out_of_step(format!("cells of {resident:?}")))?;
        let bytes = grid.cell_count() * u64::from(Instance::BYTES);
        let mut slot = space.tiles.get(k).cloned();
        let tiles_usage = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE;
        ensure((device, late), &mut slot, bytes, tiles_usage, "grid tiles")?;
        let tiles = slot.ok_or_else(|| out_of_step("grid tiles".to_string()))?;
        match space.tiles.get_mut(k) {
            Some(t) => *t = tiles.clone(),
            None => space.tiles.push(tiles.clone()),
        }
        let table = (quads.size() / u64::from(Instance::BYTES)) as u32;
        let at = k * pass.params_stride as usize;
        let p = GridParams::new(&grid, table, k as u32);
        space.params_bytes[at..at + std::mem::size_of::<GridParams>()].copy_from_slice(bytemuck::bytes_of(&p));
        space.args_words.extend_from_slice(&[Instance::VERTICES, 0, 0, 0]);
        let bound = [params_buffer.clone(), quads.clone(), cells.clone(), tiles, args_buffer.clone()];
        if space.groups.get(k).is_none_or(|(held, _)| *held != bound) {
            let group = bind_group(device, pass, &bound, at as u64);
            match space.groups.get_mut(k) {
                Some(g) => *g = (bound, group),
                None => space.groups.push((bound, group)),
            }
        }
        space.dispatches.push((globals.offset(plan, seg.state), GridParams::workgroups(&grid)));
    }
    if space.globals.as_ref().is_none_or(|(b, _)| b != uniform.buffer()) {
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("layerbatch grid globals"),
            layout: &pass.globals_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: uniform.buffer(),
                    offset: 0,
                    size: wgpu::BufferSize::new(GLOBALS_BYTES),
                }),
            }],
        });
        space.globals = Some((uniform.buffer().clone(), group));
    }
    let globals_group = space.globals.as_ref().map(|(_, g)| g).ok_or_else(|| out_of_step("grid globals".into()))?;
    checked(
        device,
        late,
        || format!("culling {n} tile grid draws"),
        || {
            queue.write_buffer(&params_buffer, 0, &space.params_bytes);
            queue.write_buffer(&args_buffer, 0, bytemuck::cast_slice(&space.args_words));
            let encoder = own_encoder(device, own);
            let desc = wgpu::ComputePassDescriptor { label: Some("layerbatch grid culling"), timestamp_writes: None };
            let mut cpass = encoder.begin_compute_pass(&desc);
            cpass.set_pipeline(&pass.pipeline);
            for ((_, group), (offset, [x, y])) in space.groups.iter().zip(&space.dispatches) {
                cpass.set_bind_group(0, globals_group, &[*offset]);
                cpass.set_bind_group(1, group, &[]);
                cpass.dispatch_workgroups(*x, *y, 1);
            }
        },
    )
}

/// The group of one grid draw: `[params, quads, cells, tiles, args]`, its uniform at
/// `params_at`.
fn bind_group(device: &wgpu::Device, pass: &GridPass, bound: &[wgpu::Buffer; 5], params_at: u64) -> wgpu::BindGroup {
    let [params, quads, cells, tiles, args] = bound;
    let [b_params, b_quads, b_cells, b_tiles, b_args] = GRID_BINDINGS;
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("layerbatch grid"),
        layout: &pass.layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: b_params,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: params,
                    offset: params_at,
                    size: wgpu::BufferSize::new(std::mem::size_of::<GridParams>() as u64),
                }),
            },
            wgpu::BindGroupEntry { binding: b_quads, resource: quads.as_entire_binding() },
            wgpu::BindGroupEntry { binding: b_cells, resource: cells.as_entire_binding() },
            wgpu::BindGroupEntry { binding: b_tiles, resource: tiles.as_entire_binding() },
            wgpu::BindGroupEntry { binding: b_args, resource: args.as_entire_binding() },
        ],
    })
}

/// The instances each grid draw of the plan `space` holds drew (its indirect arguments'
/// counts), read back from the device: a copy, a submit and a wait.
pub(crate) fn read_counts(
    (device, queue): (&wgpu::Device, &wgpu::Queue),
    space: &SpaceGrids,
) -> Result<Vec<u32>, Error> {
    let Some(args) = space.args() else { return Ok(Vec::new()) };
    let bytes = space.draws() as u64 * ARGS_BYTES;
    if bytes == 0 {
        return Ok(Vec::new());
    }
    let read = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("layerbatch grid counts"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder =
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("layerbatch grid counts") });
    encoder.copy_buffer_to_buffer(args, 0, &read, 0, bytes);
    queue.submit([encoder.finish()]);
    let slice = read.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    let failed = |message: String| Error::Device { op: "reading the grid draws' counts".to_string(), message };
    device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| failed(e.to_string()))?;
    rx.recv().map_err(|e| failed(e.to_string()))?.map_err(|e| failed(e.to_string()))?;
    let words: Vec<u32> = {
        let view = slice.get_mapped_range().map_err(|e| failed(e.to_string()))?;
        bytemuck::cast_slice(&view).to_vec()
    };
    read.unmap();
    Ok(words.chunks(4).map(|a| a[1]).collect())
}

#[cfg(test)]
mod tests {
    /// The pass's WGSL is valid without a device: naga parses and validates it (a reserved
    /// word or a type error fails here, not at a host's `Renderer::new`).
    #[test]
    fn the_culling_pass_parses_and_validates() {
        let source = layerbatch_core::shader::grid_wgsl();
        let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
        let mut validator =
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default());
        validator.validate(&module).unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
        assert!(module.entry_points.iter().any(|e| e.name == "cs_grid" && e.stage == naga::ShaderStage::Compute));
    }
}
