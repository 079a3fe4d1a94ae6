//! Tile grids culled on the GPU ([`GridDraw`]): core's culling pass
//! ([`layerbatch_core::shader::grid_wgsl`]) made once with the renderer, and per space of a
//! prepared plan the buffers its grid draws use: a tiles buffer a draw (the instances the pass
//! writes, drawn as a vertex buffer), their indirect arguments and their uniforms. `prepare`
//! records the pass into the renderer's own encoder, which it submits before returning, so
//! the host's pass draws what the pass wrote.

use layerbatch_core::plan::{FramePlan, GridDraw, Instance};
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

/// A space's grid buffers, reused plan to plan.
#[derive(Debug, Default)]
pub(crate) struct SpaceGrids {
    /// The draws' uniforms, `params_stride` apart.
    params: Option<wgpu::Buffer>,
    /// The draws' indirect arguments, [`ARGS_BYTES`] each.
    args: Option<wgpu::Buffer>,
    /// Per grid draw, in plan order: the tiles its pass writes.
    tiles: Vec<wgpu::Buffer>,
}

impl SpaceGrids {
    /// Grid draw `k`'s tiles buffer and its arguments buffer with their offset.
    pub(crate) fn draw(&self, k: usize) -> Option<(&wgpu::Buffer, &wgpu::Buffer, u64)> {
        Some((self.tiles.get(k)?, self.args.as_ref()?, k as u64 * ARGS_BYTES))
    }

    /// The arguments buffer (for a read-back of the instances drawn).
    pub(crate) fn args(&self) -> Option<&wgpu::Buffer> {
        self.args.as_ref()
    }

    /// Grid draws of the plan last prepared into the space.
    pub(crate) fn draws(&self) -> usize {
        self.tiles.len()
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
    let draws: Vec<(usize, GridDraw)> =
        plan.segments.iter().enumerate().filter_map(|(i, s)| s.grid.map(|g| (i, g))).collect();
    if draws.is_empty() {
        return Ok(());
    }
    let out_of_step = |what: String| Error::Device {
        op: what,
        message: "the renderer holds no buffer for it (out of step with core's runner)".to_string(),
    };
    let n = draws.len() as u64;
    let copy = wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
    ensure(
        (device, late),
        &mut space.params,
        n * pass.params_stride,
        wgpu::BufferUsages::UNIFORM | copy,
        "grid uniforms",
    )?;
    let args_usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT | copy;
    ensure((device, late), &mut space.args, n * ARGS_BYTES, args_usage, "grid arguments")?;
    space.tiles.truncate(draws.len());
    let mut params = vec![0u8; (n * pass.params_stride) as usize];
    let mut args = Vec::with_capacity(draws.len() * 4);
    let mut groups = Vec::with_capacity(draws.len());
    for (k, &(segment, grid)) in draws.iter().enumerate() {
        let seg = &plan.segments[segment];
        let resident = seg.resident.ok_or_else(|| out_of_step(format!("grid draw of segment {segment}")))?;
        let quads = arrays.resident(resident).ok_or_else(|| out_of_step(format!("resident layer {resident:?}")))?;
        let cells = arrays.cells(resident).ok_or_else(|| out_of_step(format!("cells of {resident:?}")))?;
        let bytes = grid.cell_count() * u64::from(Instance::BYTES);
        let mut slot = space.tiles.get(k).cloned();
        ensure(
            (device, late),
            &mut slot,
            bytes,
            wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE,
            "grid tiles",
        )?;
        let tiles = slot.ok_or_else(|| out_of_step("grid tiles".to_string()))?;
        match space.tiles.get_mut(k) {
            Some(t) => *t = tiles.clone(),
            None => space.tiles.push(tiles.clone()),
        }
        let table = (quads.size() / u64::from(Instance::BYTES)) as u32;
        let at = k * pass.params_stride as usize;
        let p = GridParams::new(&grid, table, k as u32);
        params[at..at + std::mem::size_of::<GridParams>()].copy_from_slice(bytemuck::bytes_of(&p));
        args.extend_from_slice(&[Instance::VERTICES, 0, 0, 0]);
        let (params_buffer, args_buffer) = (space.params.as_ref(), space.args.as_ref());
        let (params_buffer, args_buffer) =
            params_buffer.zip(args_buffer).ok_or_else(|| out_of_step("grid uniforms".to_string()))?;
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("layerbatch grid"),
            layout: &pass.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: GRID_BINDINGS[0],
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: params_buffer,
                        offset: at as u64,
                        size: wgpu::BufferSize::new(std::mem::size_of::<GridParams>() as u64),
                    }),
                },
                wgpu::BindGroupEntry { binding: GRID_BINDINGS[1], resource: quads.as_entire_binding() },
                wgpu::BindGroupEntry { binding: GRID_BINDINGS[2], resource: cells.as_entire_binding() },
                wgpu::BindGroupEntry { binding: GRID_BINDINGS[3], resource: tiles.as_entire_binding() },
                wgpu::BindGroupEntry { binding: GRID_BINDINGS[4], resource: args_buffer.as_entire_binding() },
            ],
        });
        groups.push((group, globals.offset(plan, seg.state), GridParams::workgroups(&grid)));
    }
    let (Some(params_buffer), Some(args_buffer)) = (space.params.as_ref(), space.args.as_ref()) else {
        return Err(out_of_step("grid uniforms".to_string()));
    };
    let globals_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
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
    checked(
        device,
        late,
        || format!("culling {} tile grid draws", draws.len()),
        || {
            queue.write_buffer(params_buffer, 0, &params);
            queue.write_buffer(args_buffer, 0, bytemuck::cast_slice(&args));
            let encoder = own_encoder(device, own);
            let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("layerbatch grid culling"),
                timestamp_writes: None,
            });
            cpass.set_pipeline(&pass.pipeline);
            for (group, offset, [x, y]) in &groups {
                cpass.set_bind_group(0, &globals_group, &[*offset]);
                cpass.set_bind_group(1, group, &[]);
                cpass.dispatch_workgroups(*x, *y, 1);
            }
        },
    )
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
