//! Host textures in the page ([`layerbatch_testkit::host_scene`]): textures the page owns on
//! the device (a WebGL2 texture, a wgpu texture), more of them than the 4 slots, drawn against
//! the CPU reference with tolerance 0. WebGPU views them (0 bytes copied); WebGL2, through
//! layerbatch-gl or wgpu's WebGL2 backend, copies each on the GPU, counted; a change the page
//! draws and announces shows in the next frame, copied once.

use layerbatch::{Batcher, TextureId};
use layerbatch_gl::glow::{self, HasContext};
use layerbatch_gl::HostRows;
use layerbatch_testkit::host_scene::{self as scene, pattern, push_frame, reference, COUNT, SIDE, SIZE};

use super::{open, Checked, Fail};
use crate::device::{Backend, Device};

/// A texture of the page's own, on the device's context.
enum Owned {
    Gl(glow::Texture),
    Wgpu(wgpu::Texture),
}

/// On one path: three frames (all made, three changed, none changed), each exact.
pub async fn host_textures(backend: Backend) -> Checked {
    let (mut dev, b) = open(backend, SIZE, scene::config()).await?;
    let checked = check_on(&mut dev, b).await;
    // Closed whatever happened: Chromium keeps 16 WebGL2 contexts at most.
    dev.close();
    checked
}

async fn check_on(dev: &mut Device, mut b: Batcher) -> Checked {
    let views = b.budget().host_texture_views;
    ensure!(views == matches!(dev, Device::Wgpu(w) if w.webgpu), "host_texture_views {views} on this path");
    let ids: Vec<TextureId> = (0..COUNT)
        .map(|_| b.textures().register(&scene::desc(), &[]))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("register: {e}"))?;
    let mut versions = vec![0u8; COUNT];
    let mut owned = Vec::with_capacity(COUNT);
    for (k, &id) in ids.iter().enumerate() {
        owned.push(make(dev, id, &pattern(k, 0))?);
    }
    let bytes = u64::from(SIDE * SIDE * 4);
    let mut report = Vec::new();
    for (frame, changed) in [(1, &[][..]), (2, &[1usize, 3, 8][..]), (3, &[][..])] {
        for &k in changed {
            versions[k] = 1;
            write(dev, &owned[k], &pattern(k, 1));
            b.textures().host_changed(ids[k]).map_err(|e| format!("host_changed: {e}"))?;
        }
        push_frame(&mut b, &ids)?;
        dev.draw(b.finish()).await?;
        let px = dev.read().await?;
        let want = reference(&versions);
        let differing = px.iter().zip(&want).filter(|(a, b)| a != b).count();
        let worst = px.iter().zip(&want).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
        ensure!(differing == 0, "frame {frame}: {differing} channels differ from the reference (worst {worst})");
        let d = dev.stats().device_frame;
        let copies = match (views, frame) {
            (true, _) | (false, 3) => 0,
            (false, 1) => COUNT as u64,
            (false, _) => changed.len() as u64,
        };
        let made = if views && frame == 1 { COUNT as u64 } else { 0 };
        ensure!(
            (d.host_views, d.host_copies, d.host_copy_bytes) == (made, copies, copies * bytes),
            "frame {frame}: host_views {}, host_copies {}, host_copy_bytes {}",
            d.host_views,
            d.host_copies,
            d.host_copy_bytes
        );
        ensure!(d.draw_calls > 1 && d.texture_bytes_written == 0, "frame {frame}: {d:?}");
        report.push(format!("frame {frame}: {} draws, {} bytes copied", d.draw_calls, d.host_copy_bytes));
    }
    Ok(format!("{COUNT} host textures over 4 slots, exact: {} ({})", report.join("; "), dev.adapter()))
}

/// Makes the page's texture for `id`, fills it with `px` and hands it to the renderer.
fn make(dev: &mut Device, id: TextureId, px: &[u8]) -> Result<Owned, Fail> {
    match dev {
        Device::Gl(g) => {
            // SAFETY: a new texture on the page's context, bound on unit 0, storage of the
            // scene's size from `px` (that size's RGBA8), unbound after.
            let t = unsafe {
                let t = g.gl.create_texture().map_err(|e| format!("texture: {e}"))?;
                g.gl.active_texture(glow::TEXTURE0);
                g.gl.bind_texture(glow::TEXTURE_2D, Some(t));
                g.gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 0);
                g.gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
                g.gl.tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    glow::RGBA8 as i32,
                    SIDE as i32,
                    SIDE as i32,
                    0,
                    glow::RGBA,
                    glow::UNSIGNED_BYTE,
                    glow::PixelUnpackData::Slice(Some(px)),
                );
                g.gl.bind_texture(glow::TEXTURE_2D, None);
                t
            };
            let r = g.renderer.as_mut().ok_or("init first")?;
            r.set_host_texture(id, t, HostRows::TopFirst);
            Ok(Owned::Gl(t))
        }
        Device::Wgpu(w) => {
            let t = w.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("the page's texture"),
                size: wgpu::Extent3d { width: SIDE, height: SIDE, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_DST
                    | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            });
            let owned = Owned::Wgpu(t);
            write(dev, &owned, px);
            let (Device::Wgpu(w), Owned::Wgpu(t)) = (dev, &owned) else { unreachable!("matched above") };
            let r = w.renderer.as_mut().ok_or("init first")?;
            r.set_host_texture(id, t).map_err(|e| format!("set_host_texture: {e}"))?;
            Ok(owned)
        }
    }
}

/// The page draws new pixels into its texture.
fn write(dev: &Device, t: &Owned, px: &[u8]) {
    match (dev, t) {
        // SAFETY: the page's live texture of the scene's size, written whole from `px`.
        (Device::Gl(g), Owned::Gl(t)) => unsafe {
            g.gl.active_texture(glow::TEXTURE0);
            g.gl.bind_texture(glow::TEXTURE_2D, Some(*t));
            g.gl.tex_sub_image_2d(
                glow::TEXTURE_2D,
                0,
                0,
                0,
                SIDE as i32,
                SIDE as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(px)),
            );
            g.gl.bind_texture(glow::TEXTURE_2D, None);
        },
        (Device::Wgpu(w), Owned::Wgpu(t)) => w.queue.write_texture(
            t.as_image_copy(),
            px,
            wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(SIDE * 4), rows_per_image: None },
            wgpu::Extent3d { width: SIDE, height: SIDE, depth_or_array_layers: 1 },
        ),
        _ => {}
    }
}
