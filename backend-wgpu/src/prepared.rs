//! [`PreparedPlan`]: what one plan needs between `prepare` and `render`, held by the host.
//!
//! A prepared plan keeps a few *spaces*, each an instance space (vertex buffers) and a globals
//! uniform with its bind group. `render` marks the space it draws from in flight until the
//! GPU has run the host's submit of that pass, or until the pass's encoder is dropped
//! unsubmitted; `prepare` writes only into a space not in flight, adding one when all are.
//! Queue writes run at the next submit, before its command buffers, the last write to a range
//! winning: since no space rendered into an unsubmitted pass is written again, every pass
//! draws the plan it rendered, however prepares and passes interleave before a submit.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use layerbatch_core::Viewport;

use crate::draws::{Command, Drawn};
use crate::globals::Uniform;
use crate::instances::SpaceBuffers;
use crate::PassKind;

/// Spaces of one prepared plan past which a warning says that the host neither submits nor
/// drops the passes it renders into.
const SPACES_WARNING: usize = 16;

/// The last renderer tag given.
static LAST_TAG: AtomicU64 = AtomicU64::new(0);

/// A tag for a new renderer, unique in the process.
pub(crate) fn new_renderer_tag() -> u64 {
    LAST_TAG.fetch_add(1, Ordering::Relaxed) + 1
}

/// One space: a plan's instance buffers and globals uniform, and how many recorded passes
/// that are not done yet draw from it.
#[derive(Debug, Default)]
pub(crate) struct Space {
    in_flight: Arc<AtomicU32>,
    pub(crate) buffers: SpaceBuffers,
    /// Made by the first plan prepared into the space.
    pub(crate) globals: Option<Uniform>,
    /// The buffers of the plan's tile grid draws ([`crate::grids`]).
    pub(crate) grids: crate::grids::SpaceGrids,
}

/// Takes a space out of flight when dropped. The closure given to `on_submitted_work_done`
/// owns it, so the count goes down when wgpu calls that closure (the GPU ran the submit) and
/// also when wgpu drops it uncalled (the encoder holding the pass was dropped unsubmitted).
struct InFlight(Arc<AtomicU32>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Release);
    }
}

/// The plan `render` draws: the space it was prepared into and where it draws.
#[derive(Clone, Copy, Debug)]
struct Held {
    space: usize,
    vp: Viewport,
    /// The renderer's epoch at `prepare` (see [`PreparedPlan::drawn`]).
    epoch: u64,
}

/// What one plan needs between [`Renderer::prepare`](crate::Renderer::prepare) and
/// [`Renderer::render`](crate::Renderer::render), held by the host: its instances, its globals
/// uniform (its viewport and draw states), its pass commands and its viewport, in a few
/// spaces reused from prepare to prepare.
///
/// Made by [`Renderer::create_prepared`](crate::Renderer::create_prepared) (no GPU object until
/// its first `prepare`); use one per plan that is drawn in a frame (one per egui callback,
/// say), and keep it from frame to frame. It works only with the renderer that made it: the
/// other renderers refuse it with [`Error::ForeignPrepared`](crate::Error::ForeignPrepared).
///
/// Preparing it again is always safe, even before the host has submitted a pass that rendered
/// it: that pass keeps drawing the plan it rendered (see [Plans and passes](crate#plans-and-passes)).
/// It holds at most one space per pass it was rendered into that the GPU has not finished
/// (and that was not dropped), plus one: two or three when it is prepared, rendered and
/// submitted every frame under a surface's usual latency.
///
/// Before its first successful `prepare`, after a failed one, after a plan drawn into a
/// render target, and after a device error reported late (WebGPU), `render` draws nothing
/// with it.
#[derive(Debug)]
pub struct PreparedPlan {
    /// The tag of the renderer that made it.
    made_by: u64,
    /// The kind of pass it is prepared for.
    kind: PassKind,
    spaces: Vec<Space>,
    held: Option<Held>,
    /// The held plan's pass commands (reused: no allocation per frame).
    commands: Vec<Command>,
    /// The largest first instance block prepared so far: a space's first buffer grows
    /// toward it.
    peak_block_bytes: u64,
}

impl PreparedPlan {
    /// An empty prepared plan of the renderer tagged `made_by`, for passes of kind `kind`.
    pub(crate) fn new(made_by: u64, kind: PassKind) -> Self {
        Self { made_by, kind, spaces: Vec::new(), held: None, commands: Vec::new(), peak_block_bytes: 0 }
    }

    /// The kind of pass it is prepared for, and rendered into.
    pub fn pass_kind(&self) -> &PassKind {
        &self.kind
    }

    /// Prepares it for passes of kind `kind` from its next `prepare` on (a camera whose
    /// target format or sample count changed): until then it draws nothing, since the plan it
    /// holds was prepared for the old kind. Nothing happens when the kind is the same.
    pub fn set_pass_kind(&mut self, kind: PassKind) {
        if kind != self.kind {
            self.kind = kind;
            self.release();
        }
    }

    /// The tag of the renderer that made it ([`Renderer::tag`](crate::Renderer::tag)).
    pub fn renderer_tag(&self) -> u64 {
        self.made_by
    }

    /// Whether [`Renderer::render`](crate::Renderer::render) draws something: its last
    /// `prepare` succeeded, with a plan for the host's passes (not one drawn into a render
    /// target), and no device error reported late has reset the renderer since.
    pub fn holds_plan(&self) -> bool {
        self.held.is_some()
    }

    /// Spaces held (each an instance space and a globals uniform): one more than the passes
    /// in flight that draw from it, at most.
    pub fn spaces(&self) -> usize {
        self.spaces.len()
    }

    /// Spaces in flight: rendered into passes the GPU has not finished (or that were not
    /// dropped) yet, as wgpu last reported (on a submit or a device poll).
    pub fn spaces_in_flight(&self) -> usize {
        self.spaces.iter().filter(|s| s.in_flight.load(Ordering::Acquire) > 0).count()
    }

    /// Instance vertex buffers held, over all spaces: in each, one per block of
    /// [`FramePlan::instance_capacity`](layerbatch_core::FramePlan::instance_capacity) of the
    /// largest plan prepared into it, each no larger than the device's `max_buffer_size`.
    pub fn instance_buffers(&self) -> usize {
        self.spaces.iter().map(|s| s.buffers.len()).sum()
    }

    /// Bytes of the instance vertex buffers held, over all spaces.
    pub fn instance_buffer_bytes(&self) -> u64 {
        self.spaces.iter().map(|s| s.buffers.bytes()).sum()
    }

    /// Globals uniforms held (each with its bind group): one per space prepared into.
    pub fn globals_uniforms(&self) -> usize {
        self.spaces.iter().filter(|s| s.globals.is_some()).count()
    }

    /// A space no pass in flight draws from, added when all are in flight.
    pub(crate) fn free_space(&mut self) -> usize {
        if let Some(i) = self.spaces.iter().position(|s| s.in_flight.load(Ordering::Acquire) == 0) {
            return i;
        }
        self.spaces.push(Space::default());
        if self.spaces.len() == SPACES_WARNING {
            log::warn!(
                "layerbatch-wgpu: a PreparedPlan holds {SPACES_WARNING} spaces: the passes it was rendered into are \
                 neither submitted nor dropped (or the device is never polled)"
            );
        }
        self.spaces.len() - 1
    }

    /// Draws nothing from now on, until a plan is held again.
    pub(crate) fn release(&mut self) {
        self.held = None;
        self.commands.clear();
    }

    /// Space `space` (from [`PreparedPlan::free_space`]), the command list and the peak first
    /// block, for `prepare` to fill.
    pub(crate) fn parts(&mut self, space: usize) -> Option<(&mut Space, &mut Vec<Command>, &mut u64)> {
        let Self { spaces, commands, peak_block_bytes, .. } = self;
        spaces.get_mut(space).map(|s| (s, commands, peak_block_bytes))
    }

    /// The commands just translated into `space` are the plan `render` draws, in `vp`; `epoch` is
    /// the renderer's.
    pub(crate) fn hold(&mut self, space: usize, vp: Viewport, epoch: u64) {
        self.held = Some(Held { space, vp, epoch });
    }

    /// What is drawn from `space` with `vp`: the commands translated into it (the held plan's,
    /// or a render-target plan's being drawn by `prepare`).
    /// The grid buffers of the space of the plan `render` draws.
    pub(crate) fn held_grids(&self) -> Option<&crate::grids::SpaceGrids> {
        let held = self.held.as_ref()?;
        Some(&self.spaces.get(held.space)?.grids)
    }

    pub(crate) fn drawn_from<'a>(&'a self, space: usize, vp: &'a Viewport) -> Option<Drawn<'a>> {
        let globals = self.spaces.get(space)?.globals.as_ref()?.group();
        Some(Drawn { commands: &self.commands, vp, globals })
    }

    /// The held plan, if it was prepared in the renderer's `epoch` (a device error reported
    /// late starts a new epoch: plans prepared before it may use what failed), and its space.
    pub(crate) fn drawn(&self, epoch: u64) -> Option<(Drawn<'_>, usize)> {
        let held = self.held.as_ref().filter(|h| h.epoch == epoch)?;
        Some((self.drawn_from(held.space, &held.vp)?, held.space))
    }

    /// Marks `space` in flight, for a pass that draws from it; the closure ends that when it
    /// is called or dropped (give it to `on_submitted_work_done`).
    pub(crate) fn in_flight(&self, space: usize) -> Option<impl FnOnce() + Send + 'static> {
        let count = Arc::clone(&self.spaces.get(space)?.in_flight);
        count.fetch_add(1, Ordering::Relaxed);
        let guard = InFlight(count);
        Some(move || drop(guard))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prepared_plan_is_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<PreparedPlan>();
    }

    #[test]
    fn a_space_leaves_flight_when_its_closure_is_called_or_dropped() {
        let mut p = PreparedPlan::new(1, PassKind::new(wgpu::TextureFormat::Rgba8Unorm));
        assert_eq!(p.free_space(), 0);
        let called = p.in_flight(0).unwrap();
        let dropped = p.in_flight(0).unwrap();
        assert_eq!(p.spaces_in_flight(), 1);
        assert_eq!(p.free_space(), 1, "both passes draw from space 0: a new one");
        called();
        assert_eq!(p.free_space(), 1, "space 0 is still drawn by the other pass, space 1 is free");
        drop(dropped);
        assert_eq!((p.free_space(), p.spaces(), p.spaces_in_flight()), (0, 2, 0));
    }
}
