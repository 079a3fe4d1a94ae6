//! The slot samplers: one per distinct (sampler, mipmapped) of the arrays bound so far, made on
//! the first bind of such an array and kept (at most 2 x 2 x 3 x 3 x 3 = 108 kinds, a few in
//! practice). Each slot of a bind group is sampled through the one matching the array bound
//! there, like a GL texture unit.

use std::collections::HashMap;

use layerbatch_core::plan::ArrayDesc;
use layerbatch_core::{Filter, Sampler, Wrap};

use crate::scope::{checked, Late};
use crate::Error;

/// What picks a sampler: the array's [`Sampler`], its mipmap filter set to `Nearest` when it
/// has one level (see [`create_sampler`]).
type SamplerKey = Sampler;

/// The key of arrays like `desc`.
fn key(desc: &ArrayDesc) -> SamplerKey {
    match desc.mip_levels > 1 {
        true => desc.sampler,
        false => desc.sampler.with_mipmap_filter(Filter::Nearest),
    }
}

/// Every slot sampler made so far, and one for slots nothing samples.
#[derive(Debug)]
pub(crate) struct Samplers {
    made: HashMap<SamplerKey, wgpu::Sampler>,
    any: wgpu::Sampler,
}

impl Samplers {
    /// The sampler for empty slots (linear, clamped), inside error scopes.
    pub(crate) fn new(device: &wgpu::Device, late: &Late) -> Result<Self, Error> {
        let any_key = key_of(Sampler::default());
        let any = checked(
            device,
            late,
            || "creating the placeholder sampler".to_string(),
            || create_sampler(device, any_key),
        )?;
        Ok(Self { made: HashMap::from([(any_key, any.clone())]), any })
    }

    /// Makes the sampler of arrays like `desc` unless it exists.
    pub(crate) fn ensure(&mut self, device: &wgpu::Device, late: &Late, desc: &ArrayDesc) -> Result<(), Error> {
        let key = key(desc);
        if let std::collections::hash_map::Entry::Vacant(slot) = self.made.entry(key) {
            let what = || format!("creating the sampler {key:?}");
            slot.insert(checked(device, late, what, || create_sampler(device, key))?);
        }
        Ok(())
    }

    /// The sampler of arrays like `desc` ([`Samplers::ensure`] made it), or `None`.
    pub(crate) fn for_array(&self, desc: &ArrayDesc) -> Option<&wgpu::Sampler> {
        self.made.get(&key(desc))
    }

    /// A sampler for a slot nothing samples (it holds the placeholder).
    pub(crate) fn any(&self) -> &wgpu::Sampler {
        &self.any
    }
}

/// The key of a one-level array sampled through `sampler`.
fn key_of(sampler: Sampler) -> SamplerKey {
    sampler.with_mipmap_filter(Filter::Nearest)
}

/// The sampler `key`, as GL samples such a texture. With one level the mipmap filter is
/// `Nearest` (GL's `LINEAR` / `NEAREST` minification): the pixels are the same either way, but
/// a software rasterizer pays for a linear mipmap filter whether or not there are levels to
/// blend: in Chromium's SwiftShader the stress scene (64 textures, 20,000 sprites) took 759 ms
/// a frame on WebGL2 and 770 ms on WebGPU with it, 524 and 536 ms without (layerbatch-gl,
/// which never had it: 509 and 504 ms in the same two runs).
fn create_sampler(device: &wgpu::Device, key: SamplerKey) -> wgpu::Sampler {
    let address = |wrap| match wrap {
        Wrap::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        Wrap::Repeat => wgpu::AddressMode::Repeat,
        Wrap::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
    };
    let filter = |filter| match filter {
        Filter::Nearest => wgpu::FilterMode::Nearest,
        Filter::Linear => wgpu::FilterMode::Linear,
    };
    let mipmap_filter = match key.mipmap_filter {
        Filter::Nearest => wgpu::MipmapFilterMode::Nearest,
        Filter::Linear => wgpu::MipmapFilterMode::Linear,
    };
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("layerbatch sampler"),
        address_mode_u: address(key.wrap_u),
        address_mode_v: address(key.wrap_v),
        address_mode_w: wgpu::AddressMode::ClampToEdge,
        mag_filter: filter(key.mag_filter),
        min_filter: filter(key.min_filter),
        mipmap_filter,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use layerbatch_core::Format;

    fn desc(sampler: Sampler, mip_levels: u32) -> ArrayDesc {
        ArrayDesc {
            width_px: 4,
            height_px: 4,
            layers: 1,
            format: Format::Rgba8Unorm,
            mip_levels,
            sampler,
            render_target: false,
            normal_map: false,
            host: None,
        }
    }

    /// One-level arrays share a sampler whatever their mipmap filter; every other setting
    /// picks its own.
    #[test]
    fn sampler_keys_ignore_only_a_mipmap_filter_without_levels() {
        let linear = Sampler::default();
        let nearest_mips = linear.with_mipmap_filter(Filter::Nearest);
        assert_eq!(key(&desc(linear, 1)), key(&desc(nearest_mips, 1)));
        assert_eq!(key(&desc(linear, 1)), key_of(linear));
        assert_ne!(key(&desc(linear, 3)), key(&desc(nearest_mips, 3)));
        let variants = [
            linear.with_mag_filter(Filter::Nearest),
            linear.with_min_filter(Filter::Nearest),
            linear.with_wrap_u(Wrap::Repeat),
            linear.with_wrap_v(Wrap::MirroredRepeat),
        ];
        for v in variants {
            assert_ne!(key(&desc(v, 1)), key(&desc(linear, 1)), "{v:?}");
        }
    }
}
