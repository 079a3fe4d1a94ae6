//! The slot samplers: one per (filter, wrap, mipmapped), twelve in all, made once in
//! `Renderer::new`. Each slot of a bind group is sampled through the one matching the array
//! bound there, like a GL texture unit.

use layerbatch_core::{ArrayDesc, Filter, Wrap};

use crate::scope::{checked, Late};
use crate::Error;

/// Samplers made: 2 filters x 3 wraps x with or without mip levels.
const KINDS: usize = 12;

/// The (filter, wrap, mipmapped) of each sampler, in [`sampler_index`] order.
const SAMPLER_KINDS: [(Filter, Wrap, bool); KINDS] = {
    const FILTERS: [Filter; 2] = [Filter::Nearest, Filter::Linear];
    const WRAPS: [Wrap; 3] = [Wrap::ClampToEdge, Wrap::Repeat, Wrap::MirroredRepeat];
    let mut kinds = [(Filter::Nearest, Wrap::ClampToEdge, false); KINDS];
    let mut i = 0;
    while i < KINDS {
        kinds[i] = (FILTERS[(i / 3) % 2], WRAPS[i % 3], i >= 6);
        i += 1;
    }
    kinds
};

/// Index into [`SAMPLER_KINDS`] (and [`Samplers`]) of an array's sampler.
const fn sampler_index(filter: Filter, wrap: Wrap, mipmapped: bool) -> usize {
    let f = match filter {
        Filter::Nearest => 0,
        Filter::Linear => 3,
    };
    let w = match wrap {
        Wrap::ClampToEdge => 0,
        Wrap::Repeat => 1,
        Wrap::MirroredRepeat => 2,
    };
    if mipmapped {
        6 + f + w
    } else {
        f + w
    }
}

/// Every slot sampler, indexed by [`sampler_index`].
#[derive(Debug)]
pub(crate) struct Samplers(Vec<wgpu::Sampler>);

impl Samplers {
    /// Makes the twelve samplers, inside error scopes.
    pub(crate) fn new(device: &wgpu::Device, late: &Late) -> Result<Self, Error> {
        checked(
            device,
            late,
            || "creating the samplers".to_string(),
            || {
                Self(
                    SAMPLER_KINDS
                        .iter()
                        .map(|&(filter, wrap, mips)| create_sampler(device, filter, wrap, mips))
                        .collect(),
                )
            },
        )
    }

    /// The sampler of arrays like `desc`: its filter, its wrap, and whether it has mip levels.
    pub(crate) fn for_array(&self, desc: &ArrayDesc) -> &wgpu::Sampler {
        &self.0[sampler_index(desc.filter, desc.wrap, desc.mip_levels > 1)]
    }

    /// A sampler for a slot nothing samples (it holds the placeholder).
    pub(crate) fn any(&self) -> &wgpu::Sampler {
        &self.0[0]
    }
}

/// The sampler of arrays with `filter` and `wrap`, as GL samples such a texture: with mip
/// levels, `Linear` is bilinear within a level and linear between levels (trilinear) and
/// `Nearest` the nearest texel of the nearest level; without, the mipmap filter is `Nearest`
/// (GL's `LINEAR` / `NEAREST` minification). The pixels are the same either way with one
/// level, but a software rasterizer pays for a linear mipmap filter whether or not there are
/// levels to blend: in Chromium's SwiftShader the stress scene (64 textures, 20,000 sprites)
/// took 759 ms a frame on WebGL2 and 770 ms on WebGPU with it, 524 and 536 ms without
/// (layerbatch-gl, which never had it: 509 and 504 ms in the same two runs).
fn create_sampler(device: &wgpu::Device, filter: Filter, wrap: Wrap, mipmapped: bool) -> wgpu::Sampler {
    let address = match wrap {
        Wrap::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        Wrap::Repeat => wgpu::AddressMode::Repeat,
        Wrap::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
    };
    let (texel, mip) = match filter {
        Filter::Nearest => (wgpu::FilterMode::Nearest, wgpu::MipmapFilterMode::Nearest),
        Filter::Linear if mipmapped => (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Linear),
        Filter::Linear => (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Nearest),
    };
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("layerbatch sampler"),
        address_mode_u: address,
        address_mode_v: address,
        address_mode_w: wgpu::AddressMode::ClampToEdge,
        mag_filter: texel,
        min_filter: texel,
        mipmap_filter: mip,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sampler_kind_sits_at_its_index() {
        for (i, &(filter, wrap, mipmapped)) in SAMPLER_KINDS.iter().enumerate() {
            assert_eq!(sampler_index(filter, wrap, mipmapped), i, "{filter:?} {wrap:?} mipmapped {mipmapped}");
        }
    }
}
