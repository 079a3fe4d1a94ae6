//! The executor conformance suite (`layerbatch_testkit::conformance`): the same plans, built
//! once per scenario with the batcher, run on the mock and on every backend, and after each
//! plan the backend's device counters must equal the mock's on every field the plan
//! determines (the backend-specific `texture_binds`, `bind_group_sets`, `bind_group_creates`
//! and `pipeline_compiles` are left out; any other field, a new one included, is compared).
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use layerbatch::plan::{Instance, ResidentOp, ResourceOp};
use layerbatch::{DeviceCounters, MockDevice};
use layerbatch_testkit::ci;
use layerbatch_testkit::conformance::{self, plan_determined, Executor, SCENARIOS};
use layerbatch_testkit::headless::{DeviceKind, Headless};

/// Runs every scenario on `kind` against the mock; fails listing every plan that differs.
fn conforms(kind: DeviceKind, test: &str) {
    // Opened once up front, for the skip policy; each scenario then opens a fresh device.
    let probe = Headless::new(kind, conformance::TARGET_SIZE);
    if ci::require(probe, test, &format!("{kind:?} device")).is_none() {
        return;
    }
    let mismatches = conformance::compare_with_mock(|budget| Ok(Box::new(conformance::open(kind, budget)?)))
        .unwrap_or_else(|e| panic!("{test}: {e}"));
    let list: Vec<String> = mismatches.iter().map(|m| format!("  {m}")).collect();
    assert!(
        mismatches.is_empty(),
        "{test}: {} plans whose counters differ from the mock's:\n{}",
        list.len(),
        list.join("\n")
    );
}

#[test]
fn gl33_counts_as_the_mock() {
    conforms(DeviceKind::Gl, "gl33_counts_as_the_mock");
}

#[test]
fn gles30_counts_as_the_mock() {
    conforms(DeviceKind::Gles, "gles30_counts_as_the_mock");
}

#[test]
fn wgpu_vulkan_counts_as_the_mock() {
    conforms(DeviceKind::WgpuVulkan, "wgpu_vulkan_counts_as_the_mock");
}

#[test]
fn wgpu_gl_counts_as_the_mock() {
    conforms(DeviceKind::WgpuGl, "wgpu_gl_counts_as_the_mock");
}

/// The mock, the reference, runs every scenario, each exercises what its name says, and its
/// counters follow from the plans: a frame per plan, a draw per segment, each instance's
/// bytes once (`Budget::quad_bytes`).
#[test]
fn the_mock_runs_every_scenario_and_counts_what_the_plans_say() {
    for s in SCENARIOS {
        let (budget, plans) = s.build();
        let mut mock = conformance::mock(&budget);
        let after = conformance::run(&mut mock as &mut dyn Executor, &plans)
            .unwrap_or_else(|(i, e)| panic!("{}: plan {i:?}: {e}", s.name));
        let last = *after.last().expect("plans");
        println!("{}: {} plans, the mock's counters after the last: {last:?}", s.name, plans.len());
        assert!((s.exercises)(&last), "{}: does not exercise what it says: {last:?}", s.name);
        // A draw per segment left by its clip, and each block drawn from uploaded once.
        let mut want = DeviceCounters::ZERO;
        for p in &plans {
            want.frames += 1;
            // Worked out here, not with core's `Viewport::scissor`: a clip leaves something of the
            // target when its rectangle and the target's overlap with a positive area.
            let [tw, th] = conformance::TARGET_SIZE.map(u64::from);
            let leaves_something = |clip: Option<[u32; 4]>| match clip {
                None => true,
                Some([x, y, w, h]) => {
                    let [x, y, w, h] = [x, y, w, h].map(u64::from);
                    x.min(tw) < (x + w).min(tw) && y.min(th) < (y + h).min(th)
                }
            };
            let drawn: Vec<_> = p.segments.iter().filter(|s| leaves_something(p.state(s).clip_px)).collect();
            want.draw_calls += drawn.len() as u64;
            let cap = p.instance_capacity;
            // A resident layer's segments draw from its own buffer; pushed quads after one go
            // back to a block uploaded before it.
            let mut blocks: Vec<u32> =
                drawn.iter().filter(|s| s.resident.is_none()).map(|s| s.instances.start / cap).collect();
            blocks.sort_unstable();
            blocks.dedup();
            for b in blocks {
                want.instance_bytes_written +=
                    p.block_len(b) as u64 * u64::from(p.primitive_bytes(budget.indexed_quads));
            }
            // Each resident instance written once, as the budget stores them.
            for op in &p.ops {
                if let ResourceOp::Resident(ResidentOp::Write { instances, .. }) = op {
                    want.resident_bytes_written += u64::from(instances.end - instances.start)
                        * u64::from(Instance::quad_bytes(budget.indexed_quads));
                }
            }
        }
        let got = plan_determined(mock.counters());
        assert_eq!(
            (got.frames, got.draw_calls, got.instance_bytes_written, got.resident_bytes_written),
            (want.frames, want.draw_calls, want.instance_bytes_written, want.resident_bytes_written),
            "{}",
            s.name
        );
    }
}

/// The suite catches an executor that counts one field wrong: a mock that reports a layer
/// copy too many after every plan differs from the mock in every scenario, by that field.
#[test]
fn a_miscounting_executor_is_caught() {
    struct OffByOne(MockDevice);
    impl Executor for OffByOne {
        fn execute(&mut self, plan: &layerbatch::FramePlan) -> Result<(), String> {
            Executor::execute(&mut self.0, plan)
        }
        fn counters(&self) -> DeviceCounters {
            let mut c = self.0.counters();
            c.layers_copied += c.frames;
            c
        }
    }
    let mismatches = conformance::compare_with_mock(|budget| Ok(Box::new(OffByOne(conformance::mock(budget)))))
        .expect("every plan runs");
    for s in SCENARIOS {
        assert!(mismatches.iter().any(|m| m.scenario == s.name), "{}: the miscount went unnoticed", s.name);
    }
    let m = &mismatches[0];
    let fields = conformance::differing_fields(&m.mock, &m.got);
    assert_eq!(fields.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), ["layers_copied"], "{m}");
}
