//! What core may plan for a wgpu device ([`limits`], [`device_limits`]), and whether a device
//! can run a budget ([`check_device`]).

use layerbatch_core::plan::Instance;
use layerbatch_core::{Budget, FormatFamilies, FormatFamily, Limits};

use crate::pipelines::INSTANCE_ATTRIBUTES;
use crate::Error;

/// Core's [`Limits`] for a wgpu device of `backend` with `device_limits` (use the *device's*
/// limits, [`wgpu::Device::limits`], not the adapter's: a device may be requested with less).
///
/// - `max_texture_units`: `max_sampled_textures_per_shader_stage`, and no more than
///   `max_samplers_per_shader_stage`: each slot is sampled through a sampler of its own (and
///   on wgpu's GL backend is one combined GL texture unit). The vertex stage samples one
///   texture, a moving layer's motions: on [`wgpu::Backend::Gl`], which numbers every texture
///   of a pipeline on its 16 units whatever the stage (wgpu-hal 30's `MAX_TEXTURE_SLOTS`),
///   one unit less.
/// - `max_samplers`, `max_array_layers`, `max_texture_size_px`: the matching wgpu limits.
/// - `avoid_ambiguous_layer_counts`: `true` on [`wgpu::Backend::Gl`], which guesses a texture's
///   type from its layer count (1 layer = 2D, a multiple of 6 = cube).
/// - `max_buffer_bytes`: `max_buffer_size`, so that core's instance capacity fits one vertex
///   buffer.
/// - `max_storage_binding_bytes`: `max_storage_buffer_binding_size` where the device runs the
///   tile grids' culling pass (a compute pass with 4 storage buffers, writing indirect
///   draws' arguments): every backend but [`wgpu::Backend::Gl`], with compute workgroups of
///   at least 64 invocations. 0 elsewhere (`downlevel_webgl2_defaults` has no compute).
/// - `host_texture_views`: `true` but on [`wgpu::Backend::Gl`], where a 2D texture is a
///   `GL_TEXTURE_2D` that no `sampler2DArray` samples: a host texture is viewed as a one-layer
///   `D2Array` elsewhere, and copied into an array of its own there.
/// - `staged_motion_writes`: `true`. The renderer copies motions into a mapped buffer with
///   core's check ([`layerbatch_core::copy_checked`]) and from there into the motion texture
///   on the GPU, so a frame reads the host's motions once.
/// - `compressed_copies`: `false` on [`wgpu::Backend::Gl`], whose texture copies (wgpu-hal 30)
///   attach the source to a framebuffer and `glCopyTexSubImage3D` from it, which no
///   compressed texture can be: a copy of one leaves zeros. Core then never grows or repacks
///   a compressed array the device holds.
///
/// ```
/// let l = layerbatch_wgpu::limits(wgpu::Backend::Gl, &wgpu::Limits::downlevel_webgl2_defaults());
/// assert_eq!((l.max_texture_units, l.max_array_layers), (15, 256));
/// assert_eq!(l.max_buffer_bytes, 256 << 20);
/// assert!(l.avoid_ambiguous_layer_counts && !l.compressed_copies);
/// assert_eq!(l.max_storage_binding_bytes, 0); // no grid culling on GL
/// let v = layerbatch_wgpu::limits(wgpu::Backend::Vulkan, &wgpu::Limits::default());
/// assert_eq!(v.max_storage_binding_bytes, 128 << 20);
/// ```
pub fn limits(backend: wgpu::Backend, device_limits: &wgpu::Limits) -> Limits {
    let units = device_limits.max_sampled_textures_per_shader_stage.min(device_limits.max_samplers_per_shader_stage);
    // wgpu's GL backend gives each texture of a pipeline a unit of its own: the slots' and
    // the motion texture's together.
    let units = if backend == wgpu::Backend::Gl { units.saturating_sub(1) } else { units };
    Limits::new(units, device_limits.max_texture_array_layers, device_limits.max_texture_dimension_2d)
        .with_max_samplers(device_limits.max_samplers_per_shader_stage)
        .with_avoid_ambiguous_layer_counts(backend == wgpu::Backend::Gl)
        .with_max_buffer_bytes(device_limits.max_buffer_size)
        .with_compressed_copies(backend != wgpu::Backend::Gl)
        .with_max_storage_binding_bytes(storage_binding_bytes(backend, device_limits))
        .with_staged_motion_writes(true)
        .with_host_texture_views(backend != wgpu::Backend::Gl)
}

/// The largest storage binding of the grid culling pass, or 0 where it cannot run.
fn storage_binding_bytes(backend: wgpu::Backend, l: &wgpu::Limits) -> u64 {
    let compute = backend != wgpu::Backend::Gl
        && l.max_compute_workgroups_per_dimension > 0
        && l.max_compute_invocations_per_workgroup >= 64
        && l.max_storage_buffers_per_shader_stage >= 4;
    if compute {
        l.max_storage_buffer_binding_size
    } else {
        0
    }
}

/// [`limits`] for `device`: its backend and the limits it was created with, and
/// `software_rasterizer` when its adapter is a CPU one ([`wgpu::DeviceType::Cpu`]: lavapipe,
/// llvmpipe and SwiftShader behind wgpu's GL backend, SwiftShader behind a browser's WebGPU).
///
/// `format_families` are the compressed families whose feature the device was created with
/// ([`format_families`]).
pub fn device_limits(device: &wgpu::Device) -> Limits {
    let info = device.adapter_info();
    limits(info.backend, &device.limits())
        .with_software_rasterizer(info.device_type == wgpu::DeviceType::Cpu)
        .with_format_families(format_families(device.features()))
}

/// The format families of a device with `features`: BC with `TEXTURE_COMPRESSION_BC`, ETC2/EAC
/// with `TEXTURE_COMPRESSION_ETC2`, ASTC with `TEXTURE_COMPRESSION_ASTC` (the features the
/// *device* was requested with: an adapter's go unused until the host asks for them).
///
/// ```
/// use layerbatch_core::FormatFamily;
/// let f = layerbatch_wgpu::format_families(wgpu::Features::TEXTURE_COMPRESSION_BC);
/// assert!(f.contains(FormatFamily::Bc) && !f.contains(FormatFamily::Etc2));
/// ```
pub fn format_families(features: wgpu::Features) -> FormatFamilies {
    let mut families = FormatFamilies::RGBA8;
    for (feature, family) in [
        (wgpu::Features::TEXTURE_COMPRESSION_BC, FormatFamily::Bc),
        (wgpu::Features::TEXTURE_COMPRESSION_ETC2, FormatFamily::Etc2),
        (wgpu::Features::TEXTURE_COMPRESSION_ASTC, FormatFamily::Astc),
    ] {
        if features.contains(feature) {
            families = families.with(family);
        }
    }
    families
}

/// Checks that `device` can run `budget` before anything is created: core's own check of an
/// edited budget first ([`Error::EditedBudget`]), then the device's limits ([`Error::BudgetAboveDevice`])
/// and, on wgpu's GL backend, the layer counts ([`Error::BudgetNotForDevice`]).
pub(crate) fn check_device(device: &wgpu::Device, budget: &Budget) -> Result<(), Error> {
    // A budget edited past what `Budget::new` makes would index past the slot tables.
    budget.check().map_err(Error::EditedBudget)?;
    let dl = device.limits();
    let check = |what, needed: u32, allowed: u32| {
        if needed > allowed {
            Err(Error::BudgetAboveDevice { what, needed, allowed })
        } else {
            Ok(())
        }
    };
    // With lights, each slot's normal-map sibling is a texture and a sampler more.
    let lit = budget.max_lights > 0;
    let samplers = if lit { 2 * budget.slots } else { budget.slots };
    // The ramp is one texture more, read without a sampler.
    let textures = samplers + u32::from(budget.ramp());
    check("max_sampled_textures_per_shader_stage", textures, dl.max_sampled_textures_per_shader_stage)?;
    if device.adapter_info().backend == wgpu::Backend::Gl {
        // One unit a texture of the pipeline, whatever the stage: the motion texture too.
        let units = dl.max_sampled_textures_per_shader_stage;
        check("texture units of wgpu's GL backend (the slots' and the motion texture)", textures + 1, units)?;
    }
    // One sampler per slot.
    check("max_samplers_per_shader_stage", samplers, dl.max_samplers_per_shader_stage)?;
    // Globals, slots, motion.
    check("max_bind_groups", 3, dl.max_bind_groups)?;
    // The slot sizes come after every slot's and normal map's bindings.
    let bindings = layerbatch_core::shader::SLOT_SIZES_BINDING + 1;
    check("max_bindings_per_bind_group", bindings, dl.max_bindings_per_bind_group)?;
    // The vertex stage's globals, slot sizes and motion draw; the fragment stage's lights.
    check("max_uniform_buffers_per_shader_stage", 3, dl.max_uniform_buffers_per_shader_stage)?;
    check("max_vertex_attributes", INSTANCE_ATTRIBUTES.len() as u32, dl.max_vertex_attributes)?;
    check("max_vertex_buffer_array_stride", Instance::BYTES, dl.max_vertex_buffer_array_stride)?;
    // The globals' and the motion draws'.
    check("max_dynamic_uniform_buffers_per_pipeline_layout", 2, dl.max_dynamic_uniform_buffers_per_pipeline_layout)?;
    // A block's vertices fill at most one buffer; indices take less (6 x 4 bytes a quad).
    let max_instances = (dl.max_buffer_size / u64::from(budget.quad_bytes())).min(u64::from(u32::MAX)) as u32;
    check("max_buffer_size / Budget::quad_bytes (quads per buffer)", budget.instance_capacity, max_instances)?;
    if budget.max_cell_bytes > 0 {
        // The grid culling pass: a tile grid's cells in one storage binding, and four
        // storage buffers (quads, cells, tiles, arguments).
        let cells = u32::try_from(budget.max_cell_bytes).unwrap_or(u32::MAX);
        let bound = u32::try_from(dl.max_storage_buffer_binding_size).unwrap_or(u32::MAX);
        check("max_storage_buffer_binding_size (Budget::max_cell_bytes)", cells, bound)?;
        check(
            "max_storage_buffers_per_shader_stage (the grid culling pass)",
            4,
            dl.max_storage_buffers_per_shader_stage,
        )?;
    }
    // wgpu's GL backend picks the GL texture target from the layer count (1 layer is a 2D
    // texture, a multiple of 6 a cube), whatever the view says. Core avoids those counts
    // when the budget says so; a budget that does not would draw wrong, silently.
    if device.adapter_info().backend == wgpu::Backend::Gl && !budget.avoid_ambiguous_layer_counts {
        return Err(Error::BudgetNotForDevice {
            reason: "wgpu's GL backend reads an array of 1 layer or a multiple of 6 layers as a 2D or cube \
                     texture, and this budget allows such arrays (avoid_ambiguous_layer_counts is off)"
                .to_string(),
        });
    }
    Ok(())
}
