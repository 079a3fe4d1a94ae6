//! Pass kinds: one renderer draws the same plan into passes of several kinds (the format of
//! `Renderer::new`, an HDR float format, 4x MSAA with a depth attachment) with the same pixels;
//! each kind's pipelines are made by its first plan, counted in that frame's
//! `pipeline_compiles` and never again; a kind whose pipelines the device refuses is an
//! error that applies nothing and leaves the other kinds drawing.

use crate::common;

use common::{color, setup, solid, Frame, Gpu, CLEAR, FORMAT, SIZE};
use layerbatch_core::{Batcher, Config, FramePlan, Quad, TextureDesc, TextureId};
use layerbatch_wgpu::{Error, PassKind, PreparedPlan, Renderer};

on_both_backends!(
    every_kind_draws_the_same_pixels,
    a_refused_kind_applies_nothing,
    a_changed_kind_is_drawn_after_its_next_prepare
);

const HDR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Three textures of distinct colours.
fn textures(b: &mut Batcher) -> Vec<TextureId> {
    (0..3)
        .map(|i| b.textures().register(&TextureDesc::new(8, 8), &solid(8, 8, color(i * 30 + 7))).expect("register"))
        .collect()
}

/// A plan of opaque and translucent sprites over `ids`, on whole pixels (so MSAA covers each
/// pixel wholly or not at all and resolves to the single-sample colour).
fn scene(b: &mut Batcher, ids: &[TextureId]) -> FramePlan {
    b.begin_frame();
    for (i, &id) in ids.iter().enumerate() {
        let at = 20.0 + 60.0 * i as f32;
        b.push(&Quad::rect(id, [at, at], [80.0, 64.0])).unwrap();
    }
    // Half-transparent white (premultiplied) over two of them.
    b.push(&Quad::rect(ids[0], [40.0, 40.0], [120.0, 120.0]).with_color([128, 128, 128, 128])).unwrap();
    b.finish().clone()
}

/// The kinds of the test: MSAA with a depth attachment layerbatch does not test, and HDR.
fn msaa() -> PassKind {
    PassKind::new(FORMAT)
        .with_multisample(wgpu::MultisampleState { count: 4, ..Default::default() })
        .with_depth_stencil(Some(PassKind::untested_depth(DEPTH)))
}

fn texture(gpu: &Gpu, format: wgpu::TextureFormat, samples: u32, usage: wgpu::TextureUsages) -> wgpu::Texture {
    gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("pass kind attachment"),
        size: wgpu::Extent3d { width: SIZE, height: SIZE, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: samples,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | usage,
        view_formats: &[],
    })
}

/// Renders `prepared` into a fresh pass of its kind, cleared to [`CLEAR`] (resolved when
/// multisampled), and reads it back as RGBA8.
fn render(gpu: &Gpu, renderer: &Renderer, prepared: &PreparedPlan) -> Frame {
    let kind = prepared.pass_kind();
    let resolved = texture(gpu, kind.format, 1, wgpu::TextureUsages::COPY_SRC);
    let samples = kind.multisample.count;
    let msaa = (samples > 1).then(|| texture(gpu, kind.format, samples, wgpu::TextureUsages::empty()));
    let depth = kind.depth_stencil.as_ref().map(|d| texture(gpu, d.format, samples, wgpu::TextureUsages::empty()));
    let view = |t: &wgpu::Texture| t.create_view(&Default::default());
    let (resolved_view, msaa_view, depth_view) = (view(&resolved), msaa.as_ref().map(view), depth.as_ref().map(view));
    let [r, g, b, a] = CLEAR.map(|v| f64::from(v) / 255.0);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("pass kind"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: msaa_view.as_ref().unwrap_or(&resolved_view),
                depth_slice: None,
                resolve_target: msaa_view.as_ref().map(|_| &resolved_view),
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: depth_view.as_ref().map(|view| wgpu::RenderPassDepthStencilAttachment {
                view,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Discard }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        renderer.render(prepared, &mut pass).expect("own prepared plan");
    }
    gpu.queue.submit([encoder.finish()]);
    let pixels = match kind.format {
        HDR => read_half_floats(gpu, &resolved),
        _ => common::gpu::read_texture(&gpu.device, &gpu.queue, &resolved),
    };
    Frame { width: SIZE, height: SIZE, pixels }
}

/// Reads an `Rgba16Float` texture back, each channel rounded to 8 bits.
fn read_half_floats(gpu: &Gpu, texture: &wgpu::Texture) -> Vec<u8> {
    let row = (SIZE * 8).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("half-float readback"),
        size: u64::from(row * SIZE),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(row), rows_per_image: Some(SIZE) },
        },
        texture.size(),
    );
    gpu.queue.submit([encoder.finish()]);
    buffer.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("map readback"));
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    let mapped = buffer.slice(..).get_mapped_range().expect("mapped range");
    let mut out = Vec::with_capacity((SIZE * SIZE * 4) as usize);
    for line in mapped.chunks_exact(row as usize) {
        for half in line[..(SIZE * 8) as usize].chunks_exact(2) {
            let v = half_to_f32(u16::from_le_bytes([half[0], half[1]]));
            out.push((v.clamp(0.0, 1.0) * 255.0).round() as u8);
        }
    }
    out
}

/// IEEE 754 binary16 to f32 (finite values; the test's are in 0..=1).
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((h >> 10) & 0x1f);
    let mantissa = f32::from(h & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        _ => (1.0 + mantissa / 1024.0) * 2f32.powi(exponent - 15),
    }
}

/// Panics unless `a` and `b` agree within `tol` on every pixel.
#[track_caller]
fn assert_same(a: &Frame, b: &Frame, tol: u8, what: &str) {
    let mut worst = (0, 0, 0);
    for (i, (x, y)) in a.pixels.iter().zip(&b.pixels).enumerate() {
        let d = x.abs_diff(*y);
        if d > worst.0 {
            worst = (d, (i / 4) as u32 % SIZE, (i / 4) as u32 / SIZE);
        }
    }
    assert!(worst.0 <= tol, "{what}: off by {} at ({}, {}) (tolerance {tol})", worst.0, worst.1, worst.2);
}

fn every_kind_draws_the_same_pixels(gpu: &Gpu) {
    let (mut b, mut rig) = setup(gpu, Config::default());
    let per_kind = rig.pipelines_per_kind() as u64;
    assert_eq!(rig.stats().device_total.pipeline_compiles, per_kind, "Renderer::new makes its own kind only");
    let ids = textures(&mut b);
    let plan = scene(&mut b, &ids);
    let mut plain = rig.create_prepared();
    let mut hdr = rig.create_prepared_for(PassKind::new(HDR));
    let mut multisampled = rig.create_prepared_for(msaa());
    let (device, queue) = (&gpu.device, &gpu.queue);

    // Frame 1: Renderer::new's kind compiles nothing; each new kind compiles its pipelines once.
    rig.renderer.prepare(device, queue, &mut plain, &plan, [SIZE, SIZE]).unwrap();
    assert_eq!(rig.stats().device_frame.pipeline_compiles, 0, "the creation kind");
    let want = render(gpu, &rig.renderer, &plain);
    want.expect(30, 30, color(7), 0, "the first sprite");
    for (prepared, what) in [(&mut hdr, "HDR"), (&mut multisampled, "4x MSAA with depth")] {
        rig.renderer.prepare(device, queue, prepared, &scene(&mut b, &ids), [SIZE, SIZE]).unwrap();
        assert_eq!(rig.stats().device_frame.pipeline_compiles, per_kind, "{what}: its first frame makes its pipelines");
        let got = render(gpu, &rig.renderer, prepared);
        // Rgba16Float keeps more than 8 bits: rounding the 8-bit target's blend may differ by 1.
        assert_same(&got, &want, 1, what);
        assert_eq!(rig.stats().device_frame.draw_calls, 1, "{what}: one draw");
    }
    assert_eq!(rig.pass_kinds(), 3);

    // A kind made ahead (`make_pass_kind`): in the totals at once, in the next frame's counters,
    // and not again by its first plan.
    let srgb = PassKind::new(wgpu::TextureFormat::Rgba8UnormSrgb);
    let total = rig.stats().device_total.pipeline_compiles;
    assert_eq!(rig.make_pass_kind(device, &srgb).unwrap(), per_kind);
    assert_eq!(rig.make_pass_kind(device, &srgb).unwrap(), 0, "made once");
    assert_eq!(rig.stats().device_total.pipeline_compiles, total + per_kind);
    let mut ahead = rig.create_prepared_for(srgb);
    rig.renderer.prepare(device, queue, &mut ahead, &scene(&mut b, &ids), [SIZE, SIZE]).unwrap();
    assert_eq!(rig.stats().device_frame.pipeline_compiles, per_kind, "counted in the next frame");
    assert_eq!(rig.stats().device_total.pipeline_compiles, total + per_kind, "and only once in the totals");

    // Frame 2: every kind again, all prepared before one submit: nothing compiled.
    for prepared in [&mut plain, &mut hdr, &mut multisampled] {
        rig.renderer.prepare(device, queue, prepared, &scene(&mut b, &ids), [SIZE, SIZE]).unwrap();
        assert_eq!(rig.stats().device_frame.pipeline_compiles, 0, "kinds made once");
    }
    for (prepared, what) in [(&plain, "plain"), (&hdr, "HDR"), (&multisampled, "MSAA")] {
        assert_same(&render(gpu, &rig.renderer, prepared), &want, 1, &format!("{what}, frame 2"));
    }
    let total = rig.stats().device_total.pipeline_compiles;
    assert_eq!(total, 4 * per_kind, "four kinds, each made once");
}

fn a_refused_kind_applies_nothing(gpu: &Gpu) {
    let (mut b, mut rig) = setup(gpu, Config::default());
    let ids = textures(&mut b);
    let plan = scene(&mut b, &ids);
    // Three samples: no device has them, and wgpu's validation refuses the pipeline.
    let bad = PassKind::new(FORMAT).with_multisample(wgpu::MultisampleState { count: 3, ..Default::default() });
    let mut refused = rig.create_prepared_for(bad.clone());
    let errors = common::record_uncaptured(&gpu.device);
    // Asked ahead of any plan, as a host that meets a new camera does.
    let err = rig.make_pass_kind(&gpu.device, &bad).unwrap_err();
    assert!(matches!(err, Error::Pipeline { .. }), "{err}");
    assert_eq!(rig.pass_kinds(), 1);
    let err = rig.renderer.prepare(&gpu.device, &gpu.queue, &mut refused, &plan, [SIZE, SIZE]).unwrap_err();
    assert!(matches!(err, Error::Pipeline { .. }), "{err}");
    assert!(err.to_string().contains("3 samples"), "the error names the kind: {err}");
    common::assert_no_uncaptured(&errors, "a refused pass kind");
    assert!(!refused.holds_plan());
    assert_eq!((rig.pass_kinds(), rig.array_count()), (1, 0), "no kind kept, no op applied");
    // The same plan, unapplied, still draws in the renderer's own kind.
    let mut plain = rig.create_prepared();
    rig.renderer.prepare(&gpu.device, &gpu.queue, &mut plain, &plan, [SIZE, SIZE]).unwrap();
    let frame = render(gpu, &rig.renderer, &plain);
    frame.expect(30, 30, color(7), 0, "the first sprite");
}

fn a_changed_kind_is_drawn_after_its_next_prepare(gpu: &Gpu) {
    let (mut b, mut rig) = setup(gpu, Config::default());
    let ids = textures(&mut b);
    let plan = scene(&mut b, &ids);
    let mut camera = rig.create_prepared();
    rig.renderer.prepare(&gpu.device, &gpu.queue, &mut camera, &plan, [SIZE, SIZE]).unwrap();
    let want = render(gpu, &rig.renderer, &camera);
    // The camera turns HDR: the plan held was prepared for the old kind and is not drawn.
    camera.set_pass_kind(PassKind::new(HDR));
    assert!(!camera.holds_plan());
    rig.renderer.prepare(&gpu.device, &gpu.queue, &mut camera, &scene(&mut b, &ids), [SIZE, SIZE]).unwrap();
    assert_same(&render(gpu, &rig.renderer, &camera), &want, 1, "after the change");
}
