//! The slot state the plans' binds describe, and the bind groups of it, cached across frames
//! by (tier, array held in each slot).
//!
//! A group binds what the slots hold, not only what its segment samples: a later segment
//! without binds keeps it, and may sample a slot the first did not. An array destroyed (or
//! grown or shrunk from) leaves the cache and the slots at once ([`BindGroups::release`]).
//! Each slot is bound with its array's view and the sampler of its filters and wraps
//! ([`Samplers`]); an empty slot gets a placeholder texture, so every group is complete.

use std::collections::HashMap;

use wgpu::util::DeviceExt as _;

use layerbatch_core::plan::{ArrayId, SlotBind};
use layerbatch_core::MAX_SLOTS_PER_DRAW;

use crate::arrays::Arrays;
use crate::pipelines::Pipelines;
use crate::samplers::Samplers;
use crate::scope::{checked, Late};
use crate::Error;
use layerbatch_core::shader;

/// Bind groups kept in the cache beyond those the current plan uses.
const MAX_CACHED_GROUPS: usize = 256;
/// An empty slot in a bind-group key.
const NO_ARRAY: u32 = u32::MAX;

/// A bind group's identity: the tier, and the array each of its slots holds.
type GroupKey = (u32, [u32; MAX_SLOTS_PER_DRAW as usize]);

#[derive(Debug)]
struct CachedGroup {
    group: wgpu::BindGroup,
    /// Tells groups apart when recording: a segment sets its group only when it differs.
    serial: u64,
    /// The plan that used it last, by [`BindGroups::begin_plan`]'s clock.
    last_used: u64,
}

/// A group resolved for a segment.
#[derive(Debug)]
pub(crate) struct Resolved {
    pub(crate) group: wgpu::BindGroup,
    pub(crate) serial: u64,
    /// It was created for this segment (for `bind_group_creates`).
    pub(crate) created: bool,
}

/// The slots, the cache, and the placeholder bound in empty slots.
#[derive(Debug)]
pub(crate) struct BindGroups {
    /// The array each slot holds, as the plans' binds left it (the validator's view, mirrored).
    slots: Vec<Option<ArrayId>>,
    cache: HashMap<GroupKey, CachedGroup>,
    next_serial: u64,
    /// Plans executed past the validator, successfully or not: the cache's clock.
    clock: u64,
    /// Bound in slots a segment does not sample, so that every bind group is complete.
    placeholder: wgpu::TextureView,
    /// Each slot's sampler follows its array's `Sampler`.
    samplers: Samplers,
    /// Lit pipelines: each slot's normal-map sibling is bound beside it.
    lit: bool,
}

impl BindGroups {
    /// `slots` empty slots, an empty cache, the placeholder texture and the samplers.
    pub(crate) fn new(device: &wgpu::Device, late: &Late, slots: u32, lit: bool) -> Result<Self, Error> {
        let samplers = Samplers::new(device, late)?;
        let placeholder = checked(
            device,
            late,
            || "creating the placeholder texture".to_string(),
            || {
                // Two layers: never a layer count wgpu's GL backend misreads.
                device
                    .create_texture(&wgpu::TextureDescriptor {
                        label: Some("layerbatch placeholder"),
                        size: wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 2 },
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: wgpu::TextureDimension::D2,
                        format: wgpu::TextureFormat::Rgba8Unorm,
                        usage: wgpu::TextureUsages::TEXTURE_BINDING,
                        view_formats: &[],
                    })
                    .create_view(&wgpu::TextureViewDescriptor {
                        label: Some("layerbatch placeholder"),
                        dimension: Some(wgpu::TextureViewDimension::D2Array),
                        ..Default::default()
                    })
            },
        )?;
        Ok(Self {
            slots: vec![None; slots as usize],
            cache: HashMap::new(),
            next_serial: 0,
            clock: 0,
            placeholder,
            samplers,
            lit,
        })
    }

    /// Bind groups in the cache.
    pub(crate) fn len(&self) -> usize {
        self.cache.len()
    }

    /// Drops every cached group and slot binding: the arrays were all dropped.
    pub(crate) fn forget_all(&mut self) {
        self.cache.clear();
        self.slots.iter_mut().for_each(|s| *s = None);
    }

    /// Forgets a destroyed (or grown- or shrunk-from) array: its cached groups and the slots
    /// holding it, as the validator does.
    pub(crate) fn release(&mut self, array: ArrayId) {
        self.cache.retain(|(_, ids), _| !ids.contains(&array.0));
        for s in self.slots.iter_mut().filter(|s| **s == Some(array)) {
            *s = None;
        }
    }

    /// A plan is being executed: advances the cache's clock.
    pub(crate) fn begin_plan(&mut self) {
        self.clock += 1;
    }

    /// A draw walk starts: no slot holds anything (core's walk binds what each draw samples).
    pub(crate) fn clear_slots(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }

    /// A bind of the draw walk: the slot holds the array from now on.
    pub(crate) fn bind(&mut self, bind: &SlotBind) {
        if let Some(slot) = self.slots.get_mut(bind.slot as usize) {
            *slot = Some(bind.array);
        }
    }

    /// The group of the first `tier` slots as they are held now (tier number `tier_index`),
    /// `exclude` (a render target being drawn into) bound as the placeholder: from the cache,
    /// or created and cached.
    pub(crate) fn resolve(
        &mut self,
        device: &wgpu::Device,
        late: &Late,
        pipelines: &Pipelines,
        arrays: &Arrays,
        (tier_index, tier): (usize, u32),
        exclude: Option<ArrayId>,
    ) -> Result<Resolved, Error> {
        let mut key: GroupKey = (tier, [NO_ARRAY; MAX_SLOTS_PER_DRAW as usize]);
        for (k, held) in key.1.iter_mut().zip(self.slots.iter().take(tier as usize)) {
            if let Some(a) = held.filter(|a| Some(*a) != exclude) {
                *k = a.0;
            }
        }
        let mut created = false;
        if !self.cache.contains_key(&key) {
            for &id in key.1.iter().take(tier as usize).filter(|&&a| a != NO_ARRAY) {
                let a = arrays.get(ArrayId(id)).ok_or_else(|| arrays.missing(ArrayId(id)))?;
                self.samplers.ensure(device, late, &a.desc)?;
            }
            let group = self.create(device, late, pipelines.slot_layout(tier_index), arrays, tier, exclude)?;
            self.next_serial += 1;
            self.cache.insert(key, CachedGroup { group, serial: self.next_serial, last_used: 0 });
            created = true;
        }
        let cached = self.cache.get_mut(&key).ok_or_else(|| Error::Device {
            op: format!("creating a bind group for slot tier {tier}"),
            message: "the cache lost it".to_string(),
        })?;
        cached.last_used = self.clock;
        Ok(Resolved { group: cached.group.clone(), serial: cached.serial, created })
    }

    /// After a plan's segments: a cache grown past [`MAX_CACHED_GROUPS`] keeps only the groups
    /// that plan used.
    pub(crate) fn trim(&mut self) {
        if self.cache.len() > MAX_CACHED_GROUPS {
            let clock = self.clock;
            self.cache.retain(|_, g| g.last_used == clock);
        }
    }

    /// The bind group of `tier` slots as they are held now: per slot, the array's view and the
    /// sampler of its `Sampler` (the placeholder and any sampler for an empty slot).
    fn create(
        &self,
        device: &wgpu::Device,
        late: &Late,
        layout: &wgpu::BindGroupLayout,
        arrays: &Arrays,
        tier: u32,
        exclude: Option<ArrayId>,
    ) -> Result<wgpu::BindGroup, Error> {
        let held = &self.slots[..(tier as usize).min(self.slots.len())];
        // The layers' sizes, for the vertex stage: an empty slot's is 1 x 1.
        let size_of = |a: &Option<ArrayId>| {
            let a = a.filter(|a| Some(*a) != exclude).and_then(|id| arrays.get(id));
            a.map_or([1, 1], |a| [a.desc.width_px, a.desc.height_px])
        };
        let sizes = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("layerbatch slot sizes"),
            contents: &shader::slot_sizes(tier, held.iter().map(size_of)),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let mut entries = Vec::with_capacity(4 * held.len() + 1);
        entries.push(wgpu::BindGroupEntry { binding: shader::SLOT_SIZES_BINDING, resource: sizes.as_entire_binding() });
        for (i, a) in held.iter().enumerate() {
            let (view, sampler_of, normals) = match a.filter(|a| Some(*a) != exclude) {
                Some(id) => {
                    let a = arrays.get(id).ok_or_else(|| arrays.missing(id))?;
                    // The sibling, or the array itself where it has none: then no quad of it
                    // has FLAG_NORMAL_MAP (the validator), so nothing samples it as normals.
                    let normals = arrays.get(id.normal_map()).map_or(&a.view, |n| &n.view);
                    let sampler = self.samplers.for_array(&a.desc).ok_or_else(|| Error::Device {
                        op: format!("binding array {}", id.0),
                        message: "its sampler was not made before its bind group".to_string(),
                    })?;
                    (&a.view, sampler, normals)
                }
                None => (&self.placeholder, self.samplers.any(), &self.placeholder),
            };
            let i = i as u32;
            // A view at `texture` and its sampler at `sampler`.
            let pair = |texture, sampler, view| {
                [
                    wgpu::BindGroupEntry { binding: texture, resource: wgpu::BindingResource::TextureView(view) },
                    wgpu::BindGroupEntry { binding: sampler, resource: wgpu::BindingResource::Sampler(sampler_of) },
                ]
            };
            entries.extend(pair(shader::texture_binding(i), shader::sampler_binding(i), view));
            if self.lit {
                entries.extend(pair(shader::normal_texture_binding(i), shader::normal_sampler_binding(i), normals));
            }
        }
        checked(
            device,
            late,
            || format!("creating a bind group for slot tier {tier}"),
            || {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("layerbatch slots"),
                    layout,
                    entries: &entries,
                })
            },
        )
    }
}
