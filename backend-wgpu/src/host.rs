//! Host textures ([`Usage::Host`](layerbatch_core::Usage::Host)): the host's own
//! `wgpu::Texture`s, handed over with [`Renderer::set_host_texture`] and drawn through the
//! slot ladder. Where core plans views ([`HostAccess::View`]: every backend but GL) a host
//! texture's array is a `D2Array` view of the texture itself: no storage, no copy, and what the
//! host draws into it shows in the same frame. On wgpu's GL backend, where a 2D texture
//! cannot be sampled as an array, core plans copies ([`HostAccess::Copy`]), each a
//! `copy_texture_to_texture` in the renderer's own encoder, run by `prepare`.

use std::collections::HashMap;

use layerbatch_core::execute::HostFill;
use layerbatch_core::plan::{ArrayDesc, ArrayId, HostAccess, PlanError};
use layerbatch_core::TextureId;

use crate::arrays::{copy_info, own_encoder, Array, ArrayOps};
use crate::scope::checked;
use crate::{Error, Renderer};

/// The host's textures, and the host textures' arrays waiting for their view.
#[derive(Debug, Default)]
pub(crate) struct HostTextures {
    /// What the host handed over, by the id of its host texture.
    textures: HashMap<TextureId, wgpu::Texture>,
    /// Views core created and has not filled yet (the fill follows in the same plan).
    unfilled: HashMap<ArrayId, ArrayDesc>,
    /// The arrays that are views, and the host texture each views.
    views: HashMap<ArrayId, TextureId>,
    /// Arrays whose host texture was taken back while they viewed it: sampling them is an
    /// error naming the texture, not a view of a destroyed texture.
    gone: HashMap<ArrayId, TextureId>,
}

impl HostTextures {
    /// The renderer dropped every array (a rebuild, or an error).
    pub(crate) fn drop_arrays(&mut self) {
        self.unfilled.clear();
        self.views.clear();
        self.gone.clear();
    }

    /// The arrays viewing host texture `id`.
    pub(crate) fn viewing(&self, id: TextureId) -> Vec<ArrayId> {
        self.views.iter().filter(|(_, t)| **t == id).map(|(a, _)| *a).collect()
    }

    /// Core created `array`, a view: it is made when the plan fills it.
    pub(crate) fn create_view(&mut self, array: ArrayId, desc: &ArrayDesc) {
        self.unfilled.insert(array, *desc);
    }

    /// Core destroyed `array`.
    pub(crate) fn destroy(&mut self, array: ArrayId) {
        self.unfilled.remove(&array);
        self.views.remove(&array);
        self.gone.remove(&array);
    }

    /// The error for an array the renderer does not hold: a host texture taken back, or the
    /// renderer out of step with core's runner.
    pub(crate) fn missing(&self, array: ArrayId) -> Error {
        match self.gone.get(&array) {
            Some(&texture) => Error::Plan(PlanError::HostTexture {
                texture,
                array,
                reason: "the host took its texture back (remove_host_texture) while the batcher still draws it: free \
                         the texture in the batcher first",
            }),
            None => crate::arrays::out_of_step(array),
        }
    }
}

/// Why the renderer cannot take `texture` as a host texture, if it cannot.
fn unusable(texture: &wgpu::Texture) -> Option<&'static str> {
    let filterable =
        matches!(texture.format().sample_type(None, None), Some(wgpu::TextureSampleType::Float { filterable: true }));
    if texture.dimension() != wgpu::TextureDimension::D2 || texture.depth_or_array_layers() != 1 {
        Some("not a 2D texture of one layer")
    } else if texture.sample_count() != 1 {
        Some("multisampled (resolve it into a texture of one sample first)")
    } else if !filterable {
        Some("its format is not a filterable colour format")
    } else if !texture.usage().contains(wgpu::TextureUsages::TEXTURE_BINDING) {
        Some("its usage lacks TEXTURE_BINDING")
    } else {
        None
    }
}

impl Renderer {
    /// Hands the renderer the host's texture for host texture `id` (registered with
    /// [`Usage::Host`](layerbatch_core::Usage::Host), of this texture's size), or a new
    /// texture for it (the host re-created its render target): the next plan that makes or
    /// fills `id`'s array uses it, and an array already viewing `id` views the new texture at
    /// once (its cached bind groups dropped) when the size is the same. Call it before the
    /// `prepare` of the plan that registers `id`, and again whenever the host replaces the
    /// texture (handing over the same texture again costs a lookup). The renderer holds a clone
    /// (wgpu counts references): dropping the host's handle
    /// is safe; `wgpu::Texture::destroy` is not, while the batcher draws it (call
    /// [`Renderer::remove_host_texture`] and free it in the batcher first).
    ///
    /// The texture: 2D, one layer, one sample, a filterable colour format, with
    /// `TEXTURE_BINDING` (and `COPY_SRC` on wgpu's GL backend, which copies it: there its
    /// format must be the one registered, sRGB or not). It is sampled as its format says:
    /// an `…Srgb` texture decodes to linear, as the batcher's own sRGB textures do.
    ///
    /// # Errors
    /// [`Error::HostTexture`] when the texture is none of those; nothing changes then.
    pub fn set_host_texture(&mut self, id: TextureId, texture: &wgpu::Texture) -> Result<(), Error> {
        if let Some(reason) = unusable(texture) {
            return Err(Error::HostTexture { texture: id, reason });
        }
        // The same texture again (a host that hands its textures over every frame): nothing
        // changes, and the cached bind groups stay.
        if self.arrays.host.textures.get(&id) == Some(texture) {
            return Ok(());
        }
        let size = [texture.width(), texture.height()];
        for array in self.arrays.host.viewing(id) {
            let same_size = self.arrays.get(array).is_some_and(|a| [a.desc.width_px, a.desc.height_px] == size);
            if same_size {
                let view = d2_array_view(texture);
                self.arrays.replace_view(array, texture.clone(), view);
                self.groups.release(array);
            }
        }
        self.arrays.host.textures.insert(id, texture.clone());
        Ok(())
    }

    /// The host takes back its texture for host texture `id` (to destroy it): the renderer
    /// drops its clone and its views of it. A plan that still draws `id` fails in `prepare`
    /// with [`PlanError::HostTexture`] naming it (then `restore`, as after any error), never
    /// a view of a destroyed texture. Free `id` in the batcher first to draw on undisturbed.
    pub fn remove_host_texture(&mut self, id: TextureId) {
        self.arrays.host.textures.remove(&id);
        for array in self.arrays.host.viewing(id) {
            self.arrays.drop_view(array);
            self.groups.release(array);
            self.arrays.host.views.remove(&array);
            self.arrays.host.gone.insert(array, id);
        }
    }

    /// Host textures the renderer holds ([`Renderer::set_host_texture`]).
    pub fn host_texture_count(&self) -> usize {
        self.arrays.host.textures.len()
    }
}

/// The one-layer `D2Array` view of a host's 2D texture.
fn d2_array_view(texture: &wgpu::Texture) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("layerbatch host texture"),
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        base_array_layer: 0,
        array_layer_count: Some(1),
        base_mip_level: 0,
        mip_level_count: Some(1),
        ..Default::default()
    })
}

impl ArrayOps<'_> {
    /// [`layerbatch_core::execute::Executor::host_contents`]: the view made, or the copy recorded.
    pub(crate) fn fill_host(&mut self, fill: &HostFill) -> Result<(), Error> {
        let (texture, array) = (fill.texture, fill.array);
        let refuse = |reason| Error::Plan(PlanError::HostTexture { texture, array, reason });
        let host = self.arrays.host.textures.get(&texture).ok_or(refuse(
            "the renderer holds no texture of the host's for it: hand it over with set_host_texture before the plan \
             that registers it",
        ))?;
        if [host.width(), host.height()] != fill.size_px {
            return Err(refuse("the host's texture is not the size the batcher was told (resize it there first)"));
        }
        let host = host.clone();
        match fill.access {
            HostAccess::View => {
                let desc = self.arrays.host.unfilled.remove(&array).ok_or_else(|| crate::arrays::out_of_step(array))?;
                let (device, late) = (self.device(), self.late());
                let view =
                    checked(device, late, || format!("viewing host texture {texture:?}"), || d2_array_view(&host))?;
                self.arrays.host.views.insert(array, texture);
                self.arrays.insert_view(array, Array { texture: host, view, desc });
                Ok(())
            }
            HostAccess::Copy => {
                if !host.usage().contains(wgpu::TextureUsages::COPY_SRC) {
                    return Err(refuse("its usage lacks COPY_SRC, which this device copies it with"));
                }
                let dst = self.arrays.get(array).ok_or_else(|| crate::arrays::out_of_step(array))?.texture.clone();
                if host.format().remove_srgb_suffix() != dst.format().remove_srgb_suffix() {
                    return Err(refuse("its format is not the array's (a copy keeps the bytes as they are)"));
                }
                let (device, late) = (self.device(), self.late());
                self.before_gpu_copy()?;
                let encoder = own_encoder(device, self.own());
                let [w, h] = fill.size_px;
                checked(
                    device,
                    late,
                    || format!("copying host texture {texture:?} into array {array:?}"),
                    || {
                        encoder.copy_texture_to_texture(
                            copy_info(&host, 0, [0, 0, 0]),
                            copy_info(&dst, 0, [0, 0, 0]),
                            wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
                        )
                    },
                )
            }
        }
    }
}
