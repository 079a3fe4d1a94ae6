//! wgpu's GL backend guesses a texture's GL target from its layer count: 1 layer is a 2D
//! texture, a multiple of 6 (square) a cube map, whatever the view asks for. The rule lives in
//! core alone (`Limits::avoid_ambiguous_layer_counts`, enforced by the plan validator); the
//! guards here prove arrays are never misread:
//!
//! 1. With the limits from a GL device, core never creates such an array (any admission
//!    sequence, any config).
//! 2. Arrays of exactly 1, 6 and 12 layers sample correctly where the device reads them right
//!    (Vulkan). On wgpu's GL backend a budget that allows them is refused by
//!    `Renderer::new`, and the same textures, planned from the GL device's limits, sample
//!    correctly in arrays of unambiguous sizes.

use crate::common;

use common::{color, draw, solid, Gpu, FORMAT};
use layerbatch_core::plan::{ArrayDesc, ArrayId};
use layerbatch_core::{Batcher, Config, Limits, Quad, TextureDesc, Usage};
use layerbatch_wgpu::{device_limits, limits, Error, Renderer, RendererOptions};

on_both_backends!(layer_counts_1_6_12_sample_correctly);

fn ambiguous(layers: u32) -> bool {
    layers == 1 || layers.is_multiple_of(6)
}

/// Drives a batcher through many admissions, frees, growths and dedicated arrays, and returns
/// every array description any plan created.
fn created_arrays(limits: Limits, config: Config) -> Vec<ArrayDesc> {
    let mut b = Batcher::new(limits, config).unwrap();
    let mut created = Vec::new();
    let mut live = Vec::new();
    fn plan_now(b: &mut Batcher, created: &mut Vec<ArrayDesc>) {
        b.begin_frame();
        created.extend(b.finish().created_arrays().map(|(_, d)| d));
        b.allocator().check_invariants();
    }
    for i in 0..160u32 {
        let (w, h) = [(16, 16), (8, 8), (16, 16), (12, 12), (30, 17)][i as usize % 5];
        let usage = if i % 23 == 0 { Usage::Dynamic } else { Usage::Static };
        let desc = TextureDesc::new(w, h).with_usage(usage);
        live.push(b.textures().register(&desc, &solid(w, h, [1, 2, 3, 4])).unwrap());
        if i % 7 == 3 {
            let t = live.remove(i as usize % live.len());
            b.textures().free(t).unwrap();
        }
        if i % 10 == 9 {
            plan_now(&mut b, &mut created);
        }
    }
    plan_now(&mut b, &mut created);
    created
}

#[test]
fn gl_limits_never_create_ambiguous_arrays() {
    // WebGL2-level limits as wgpu's GL backend reports them; no device needed.
    let gl = limits(wgpu::Backend::Gl, &wgpu::Limits::downlevel_webgl2_defaults());
    assert!(gl.avoid_ambiguous_layer_counts);
    assert!(!limits(wgpu::Backend::Vulkan, &wgpu::Limits::downlevel_webgl2_defaults()).avoid_ambiguous_layer_counts);
    check_never_ambiguous(gl);
}

#[test]
fn gl_device_limits_never_create_ambiguous_arrays() {
    let Some(gpu) = common::gpu(wgpu::Backends::GL, "gl_device_limits_never_create_ambiguous_arrays") else {
        return;
    };
    let l = device_limits(&gpu.device);
    assert!(l.avoid_ambiguous_layer_counts, "{}: the GL backend must set the flag", gpu.adapter);
    check_never_ambiguous(l);
}

/// Regression: with `avoid_ambiguous_layer_counts` and `initial_layers: 1`, core once stepped
/// the ambiguous count 1 down to 0 and could never open a shared array.
#[test]
fn gl_limits_initial_layers_one() {
    let gl = limits(wgpu::Backend::Gl, &wgpu::Limits::downlevel_webgl2_defaults());
    for d in created_arrays(gl, Config::default().with_initial_layers(1)) {
        assert!(!ambiguous(d.layers), "created an array of {} layers", d.layers);
    }
}

fn check_never_ambiguous(limits: Limits) {
    let mut total = 0;
    for initial_layers in 1..=13 {
        for max_layers_per_array in [1, 2, 5, 6, 7, 12, 13, 18, 24, 36, 256] {
            let config =
                Config::default().with_initial_layers(initial_layers).with_max_layers_per_array(max_layers_per_array);
            let created = created_arrays(limits, config);
            assert!(!created.is_empty());
            for d in &created {
                assert!(
                    !ambiguous(d.layers),
                    "initial {initial_layers}, cap {max_layers_per_array}: created an array of {} layers",
                    d.layers
                );
            }
            total += created.len();
        }
    }
    assert!(total > 1000, "only {total} arrays checked");
}

/// Arrays of exactly 1, 6 and 12 layers (square layers: the cube guess applies), created by
/// core with the guard off, all sample correctly on Vulkan, allocated exactly as planned. On
/// wgpu's GL backend such a budget is an error at `Renderer::new`, and with the GL device's
/// own limits the same textures sample correctly in arrays core sized unambiguously.
fn layer_counts_1_6_12_sample_correctly(gpu: &Gpu) {
    let unguarded = device_limits(&gpu.device).with_avoid_ambiguous_layer_counts(false);
    // Size classes, not atlas pages: one array per size, layer counts as planned here.
    let config = Config::default().with_initial_layers(6).with_max_layers_per_array(12).with_max_packed_size_px(0);
    let limits = if gpu.backend == wgpu::Backend::Gl {
        let b = Batcher::new(unguarded, config).unwrap();
        let err = Renderer::new(&gpu.device, FORMAT, b.budget(), &RendererOptions::default()).unwrap_err();
        assert!(matches!(err, Error::BudgetNotForDevice { .. }), "{}: {err}", gpu.adapter);
        device_limits(&gpu.device)
    } else {
        unguarded
    };
    let mut b = Batcher::new(limits, config).unwrap();
    let mut r = common::Rig::new(Renderer::new(&gpu.device, FORMAT, b.budget(), &RendererOptions::default()).unwrap());
    let mut ids = Vec::new();
    // Six 16x16 textures: one array of 6 layers.
    for i in 0..6 {
        ids.push(b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, color(i))).unwrap());
    }
    // Twelve 32x32 textures: 6 layers, grown (in place: no plan has brought it to the device)
    // to 12.
    for i in 6..18 {
        ids.push(b.textures().register(&TextureDesc::new(32, 32), &solid(32, 32, color(i))).unwrap());
    }
    // One dynamic texture: its own array of 1 layer.
    ids.push(
        b.textures().register(&TextureDesc::new(16, 16).with_usage(Usage::Dynamic), &solid(16, 16, color(18))).unwrap(),
    );
    b.begin_frame();
    for (i, &id) in ids.iter().enumerate() {
        let (x, y) = ((i % 8) as f32 * 32.0 + 4.0, (i / 8) as f32 * 32.0 + 4.0);
        b.push(&Quad::rect(id, [x, y], [24.0, 24.0])).unwrap();
    }
    b.finish();
    let mut layers: Vec<(ArrayId, u32)> = ids
        .iter()
        .map(|&t| b.placement(t).unwrap().array)
        .map(|a| (a, b.allocator().array(a).unwrap().layers))
        .collect();
    layers.dedup();
    let counts: Vec<u32> = layers.iter().map(|&(_, l)| l).collect();
    if gpu.backend == wgpu::Backend::Gl {
        assert!(!counts.iter().any(|&l| ambiguous(l)), "{}: core made arrays of {counts:?} layers", gpu.adapter);
    } else {
        assert_eq!(counts, [6, 12, 1], "core made arrays of 6, 12 and 1 layers");
    }
    let frame = draw(gpu, &mut r, b.plan());
    for i in 0..ids.len() as u32 {
        let (x, y) = ((i % 8) * 32 + 16, (i / 8) * 32 + 16);
        frame.expect(x, y, color(i as usize), 1, &format!("{}: texture {i}", gpu.adapter));
    }
    for (array, logical) in layers {
        let physical = r.array_texture(array).unwrap().depth_or_array_layers();
        assert_eq!(physical, logical, "{}: the array is allocated exactly as planned", gpu.adapter);
    }
}
