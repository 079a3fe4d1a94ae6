//! The executor conformance suite: every executor runs the same plans and must report the
//! same device counters.
//!
//! Each [`Scenario`] builds a list of plans with a [`Batcher`] of [`limits`] (the weakest
//! device, so that every device can run them), once. Every executor
//! then runs that list from a fresh device: the [`MockDevice`] (the reference), layerbatch-gl
//! on GL 3.3 core and on GLES 3.0 (EGL, llvmpipe here), layerbatch-wgpu on Vulkan (lavapipe
//! here) and on wgpu's GL backend, the last four through [`Headless`] (GL: `Renderer::paint`;
//! wgpu: `Renderer::prepare` and `render`, in `Headless`'s one wgpu draw function). After
//! each plan the executor's `device_total` must equal the mock's on every field the plan
//! determines.
//!
//! **Compared**: the whole [`DeviceCounters`] after [`plan_determined`] has zeroed the fields
//! whose docs make them backend-specific: `bind_group_sets` and `bind_group_creates` (wgpu
//! only) and `pipeline_compiles` (GL links a program per tier, wgpu a pipeline per tier and
//! blend mode). So `frames`, `draw_calls`, `texture_binds`, `texture_bytes_written`,
//! `instance_bytes_written`, `layers_copied`, `arrays_created`, `arrays_destroyed`,
//! `mip_levels_regenerated`, `segments_clipped_away` and `draw_steps` (every step of core's
//! draw walk the executor followed) are compared today, and a counter added to
//! [`DeviceCounters`] is compared as soon as it exists. The mock draws into a target of
//! [`TARGET_SIZE`], as the headless executors do ([`mock`]), so the same clips leave nothing.

use layerbatch_core::{Batcher, Budget, Config, DeviceCounters, FramePlan, Limits, MockDevice};

use crate::headless::{DeviceKind, Headless};

pub mod scenarios;

pub use scenarios::SCENARIOS;

/// A list of plans to run, and what it must exercise.
#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    /// Its name, in messages.
    pub name: &'static str,
    /// The batcher's configuration.
    pub config: fn() -> Config,
    /// Records the plans, in order, each cloned out of the batcher.
    pub plans: fn(&mut Batcher) -> Vec<FramePlan>,
    /// What the mock's counters after the last plan must show, so that the scenario tests
    /// what its name says (e.g. `layers_copied > 0` for a growth).
    pub exercises: fn(&DeviceCounters) -> bool,
}

/// The limits every scenario's batcher is made with: [`Limits::guaranteed_minimum`], with no
/// array of an ambiguous layer count (wgpu's GL backend reads an array of 1 or a multiple of
/// 6 layers as a 2D or cube texture), and 15 texture units: wgpu's GL backend gives every
/// texture of a pipeline one of its 16 units, the vertex stage's motion texture among them
/// (`layerbatch_wgpu::limits`).
pub fn limits() -> Limits {
    Limits::guaranteed_minimum().with_avoid_ambiguous_layer_counts(true).with_max_texture_units(15)
}

impl Scenario {
    /// The budget and the plans of this scenario, on [`limits`].
    ///
    /// # Panics
    /// When the scenario's configuration is refused (a bug in the scenario).
    pub fn build(&self) -> (Budget, Vec<FramePlan>) {
        let mut batcher =
            Batcher::new(limits(), (self.config)()).unwrap_or_else(|e| panic!("{}: config: {e}", self.name));
        let plans = (self.plans)(&mut batcher);
        (batcher.budget().clone(), plans)
    }
}

/// `counters` with the backend-specific fields zeroed: what every executor must agree on.
pub fn plan_determined(counters: DeviceCounters) -> DeviceCounters {
    let mut c = counters;
    c.bind_group_sets = 0;
    c.bind_group_creates = 0;
    c.pipeline_compiles = 0;
    c
}

/// A device that executes plans and reports its counters since creation.
pub trait Executor {
    /// Executes the next plan.
    ///
    /// # Errors
    /// The executor's, as text.
    fn execute(&mut self, plan: &FramePlan) -> Result<(), String>;
    /// `device_total`: every counter since creation.
    fn counters(&self) -> DeviceCounters;
}

impl Executor for MockDevice {
    fn execute(&mut self, plan: &FramePlan) -> Result<(), String> {
        MockDevice::execute(self, plan).map_err(|e| e.to_string())
    }
    fn counters(&self) -> DeviceCounters {
        MockDevice::counters(self)
    }
}

impl Executor for Headless {
    fn execute(&mut self, plan: &FramePlan) -> Result<(), String> {
        self.draw(plan).map_err(|e| e.to_string())
    }
    fn counters(&self) -> DeviceCounters {
        self.stats().device_total
    }
}

/// The size of the headless executors' target.
pub const TARGET_SIZE: [u32; 2] = [64, 64];

/// The reference executor for `budget`: a [`MockDevice`] drawing into a [`TARGET_SIZE`]
/// target, like the headless executors.
pub fn mock(budget: &Budget) -> MockDevice {
    let mut mock = MockDevice::new(budget);
    mock.set_viewport(TARGET_SIZE);
    mock
}

/// Opens a headless executor of `kind` with a renderer for `budget`.
///
/// # Errors
/// When there is no such device, or the renderer cannot be made.
pub fn open(kind: DeviceKind, budget: &Budget) -> Result<Headless, String> {
    let mut dev = Headless::new(kind, TARGET_SIZE)?;
    dev.init(budget)?;
    Ok(dev)
}

/// Runs `plans` on `exec` and returns [`plan_determined`] of its counters after each.
///
/// # Errors
/// The first plan the executor refused: its index and the error; or `None` and the counters
/// when the executor counted plan-determined work before the first plan.
pub fn run(exec: &mut dyn Executor, plans: &[FramePlan]) -> Result<Vec<DeviceCounters>, (Option<usize>, String)> {
    let created = plan_determined(exec.counters());
    if created != DeviceCounters::ZERO {
        return Err((None, format!("plan-determined work counted at creation: {created:?}")));
    }
    plans
        .iter()
        .enumerate()
        .map(|(i, plan)| {
            exec.execute(plan).map_err(|e| (Some(i), e))?;
            Ok(plan_determined(exec.counters()))
        })
        .collect()
}

/// One plan after which an executor's counters differ from the mock's.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The scenario.
    pub scenario: &'static str,
    /// The plan's index in the scenario.
    pub plan: usize,
    /// The mock's counters after it ([`plan_determined`]).
    pub mock: DeviceCounters,
    /// The executor's.
    pub got: DeviceCounters,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} plan {}:", self.scenario, self.plan)?;
        for (name, mock, got) in differing_fields(&self.mock, &self.got) {
            write!(f, " {name} mock {mock} got {got};")?;
        }
        Ok(())
    }
}

/// The fields of two counters that differ, by name: read from their `Debug` text, so a new
/// field is named without a line here.
pub fn differing_fields(a: &DeviceCounters, b: &DeviceCounters) -> Vec<(String, String, String)> {
    let fields = |c: &DeviceCounters| -> Vec<(String, String)> {
        let text = format!("{c:?}");
        let inner = text.split_once('{').map_or("", |(_, rest)| rest.trim_end_matches('}'));
        inner
            .split(',')
            .filter_map(|kv| kv.split_once(':'))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect()
    };
    fields(a)
        .into_iter()
        .zip(fields(b))
        .filter(|((_, x), (_, y))| x != y)
        .map(|((name, x), (_, y))| (name, x, y))
        .collect()
}

/// Runs every scenario of [`SCENARIOS`] on the mock and on `open`'s executor, and lists
/// where the executor's counters differ from the mock's.
///
/// # Errors
/// A scenario the executor refused a plan of: the scenario, the plan and the error.
pub fn compare_with_mock(
    mut open: impl FnMut(&Budget) -> Result<Box<dyn Executor>, String>,
) -> Result<Vec<Mismatch>, String> {
    let mut mismatches = Vec::new();
    for s in SCENARIOS {
        let (budget, plans) = s.build();
        let mock =
            run(&mut mock(&budget), &plans).map_err(|(i, e)| format!("{}: the mock, plan {i:?}: {e}", s.name))?;
        let mut exec = open(&budget).map_err(|e| format!("{}: {e}", s.name))?;
        let got = run(exec.as_mut(), &plans).map_err(|(i, e)| format!("{}: plan {i:?}: {e}", s.name))?;
        for (plan, (mock, got)) in mock.into_iter().zip(got).enumerate() {
            if mock != got {
                mismatches.push(Mismatch { scenario: s.name, plan, mock, got });
            }
        }
    }
    Ok(mismatches)
}
