//! Host textures on a [`Headless`] device, as a host makes and draws them: a texture of the
//! host's own (a `wgpu::Texture`, a GL texture name), filled by the host, handed to the
//! renderer for a [`Usage::Host`](layerbatch_core::Usage::Host) texture, written again
//! between frames, and taken back.

use layerbatch_core::TextureId;
use layerbatch_gl::glow;

use crate::egl::host_texture as gl_tex;
use crate::headless::Headless;

/// A texture the host owns on the device.
#[derive(Debug)]
pub enum HostTexture {
    /// A GL texture name.
    Gl(glow::Texture),
    /// A wgpu texture.
    Wgpu(wgpu::Texture),
}

/// Which way the host's pixels run, as given to [`Headless::make_host_texture`].
pub use layerbatch_gl::HostRows;

impl Headless {
    /// Makes a host texture of `size` (RGBA8, or RGBA8 sRGB), fills it with `pixels` (rows as
    /// `rows` says: on wgpu, which has no bottom-first textures, always top first) and hands
    /// it to the renderer for `id`.
    ///
    /// # Errors
    /// When the device or the renderer refuses it.
    pub fn make_host_texture(
        &mut self,
        id: TextureId,
        size: [u32; 2],
        srgb: bool,
        pixels: &[u8],
        rows: HostRows,
    ) -> Result<HostTexture, String> {
        match self {
            Headless::Gl(g) => {
                let t = gl_tex::create(&g.gl, size, srgb, pixels)?;
                let r = g.renderer.as_mut().ok_or("init first")?;
                r.set_host_texture(id, t, rows);
                Ok(HostTexture::Gl(t))
            }
            Headless::Wgpu(w) => {
                let format = if srgb { wgpu::TextureFormat::Rgba8UnormSrgb } else { wgpu::TextureFormat::Rgba8Unorm };
                let t = w.device.create_texture(&wgpu::TextureDescriptor {
                    label: Some("the host's texture"),
                    size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::TEXTURE_BINDING
                        | wgpu::TextureUsages::COPY_DST
                        | wgpu::TextureUsages::COPY_SRC
                        | wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                });
                let t = HostTexture::Wgpu(t);
                self.write_host_texture(&t, size, pixels);
                let Headless::Wgpu(w) = self else { unreachable!("matched above") };
                let (r, _) = w.renderer.as_mut().ok_or("init first")?;
                let HostTexture::Wgpu(texture) = &t else { unreachable!("made above") };
                r.set_host_texture(id, texture).map_err(|e| e.to_string())?;
                Ok(t)
            }
        }
    }

    /// The host draws new `pixels` into its texture (`size`, rows as it was made with): a
    /// sub-image write on GL, a queue write on wgpu (it lands before the next submission).
    pub fn write_host_texture(&mut self, t: &HostTexture, size: [u32; 2], pixels: &[u8]) {
        match (self, t) {
            (Headless::Gl(g), HostTexture::Gl(t)) => gl_tex::write(&g.gl, *t, size, pixels),
            (Headless::Wgpu(w), HostTexture::Wgpu(t)) => w.queue.write_texture(
                t.as_image_copy(),
                pixels,
                wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(size[0] * 4), rows_per_image: None },
                wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
            ),
            _ => panic!("a host texture of another device"),
        }
    }

    /// The host takes its texture for `id` back from the renderer and destroys it.
    pub fn destroy_host_texture(&mut self, id: TextureId, t: HostTexture) {
        match (self, t) {
            (Headless::Gl(g), HostTexture::Gl(t)) => {
                if let Some(r) = g.renderer.as_mut() {
                    r.remove_host_texture(id);
                }
                gl_tex::delete(&g.gl, t);
            }
            (Headless::Wgpu(w), HostTexture::Wgpu(t)) => {
                if let Some((r, _)) = w.renderer.as_mut() {
                    r.remove_host_texture(id);
                }
                t.destroy();
            }
            _ => panic!("a host texture of another device"),
        }
    }
}
