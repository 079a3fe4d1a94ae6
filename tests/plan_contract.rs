//! One validator: the same hand-made bad plans (out-of-range slot, write past the layer,
//! unknown array, wrong order, repeat, ...) are refused with the same `PlanError` by the mock
//! device, layerbatch-gl (GL 3.3 core and GLES 3.0 on llvmpipe) and layerbatch-wgpu (Vulkan on
//! lavapipe and wgpu's GL backend), before anything touches the device: the good plan fed
//! after them draws right.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::{DeviceKind, DrawError};
use layerbatch::{Batcher, Config, FramePlan, Limits, MockDevice, PlanError, TextureDesc};
use layerbatch_testkit::{headless, plans};

/// What one executor answered to each plan, in order: the bad plans, the good one, a repeat of
/// it, and plan 3 after plan 1.
fn answers(mut run: impl FnMut(&FramePlan) -> Result<(), PlanError>, limits: Limits) -> Vec<Result<(), PlanError>> {
    let mut batcher = Batcher::new(limits, Config::default()).expect("budget");
    let texture = batcher.textures().register(&TextureDesc::new(1, 1), &[0; 4]).expect("texture");
    let budget = batcher.budget().clone();
    let mut out = Vec::new();
    for (name, plan, expected) in plans::bad_plans(texture, &budget) {
        let got = run(&plan);
        assert_eq!(got, Err(expected), "{name}");
        out.push(got);
    }
    let good = plans::offset_write(texture, &budget);
    out.push(run(&good));
    out.push(run(&good));
    let mut gap = good.clone();
    gap.sequence = 3;
    gap.ops.clear();
    gap.upload_bytes.clear();
    out.push(run(&gap));
    out
}

fn expected_tail() -> [Result<(), PlanError>; 3] {
    [Ok(()), Err(PlanError::Sequence { expected: 2, got: 1 }), Err(PlanError::Sequence { expected: 2, got: 3 })]
}

#[test]
fn mock_refuses_bad_plans_with_the_validator_errors() {
    let limits = Limits::guaranteed_minimum();
    let budget = Batcher::new(limits, Config::default()).unwrap().budget().clone();
    let mut device = MockDevice::new(&budget);
    let got = answers(|plan| device.execute(plan), limits);
    assert_eq!(got[got.len() - 3..], expected_tail());
}

#[test]
fn every_executor_refuses_bad_plans_with_the_same_error() {
    let limits = Limits::guaranteed_minimum();
    let budget = Batcher::new(limits, Config::default()).unwrap().budget().clone();
    let mut mock = MockDevice::new(&budget);
    let reference = answers(|plan| mock.execute(plan), limits);
    for kind in [DeviceKind::Gl, DeviceKind::Gles, DeviceKind::WgpuVulkan, DeviceKind::WgpuGl] {
        let test = "every_executor_refuses_bad_plans_with_the_same_error";
        let Some(mut dev) = headless::open_for_test(kind, [32, 32], test) else { continue };
        let limits = dev.limits();
        let budget = Batcher::new(limits, Config::default()).unwrap().budget().clone();
        dev.init(&budget).expect("renderer");
        let mut pixels = None;
        let got = answers(
            |plan| {
                let r = match dev.draw(plan) {
                    Ok(()) => Ok(()),
                    Err(DrawError::Plan(e)) => Err(e),
                    Err(DrawError::Other(e)) => panic!("{kind:?}: not a plan error: {e}"),
                };
                if r.is_ok() {
                    pixels = Some(dev.read());
                }
                r
            },
            limits,
        );
        assert_eq!(got, reference, "{kind:?} ({}) answers differently from the mock", dev.adapter());
        // The good plan, fed after every refused one, drew right: nothing was half-applied.
        let px = pixels.expect("the good plan drew");
        for y in 0..32usize {
            for x in 0..32usize {
                let green = (16..24).contains(&x) && (8..16).contains(&y);
                let want = if green { [0, 255, 0, 255] } else { [255, 0, 0, 255] };
                assert_eq!(px[(y * 32 + x) * 4..][..4], want, "{kind:?}: pixel ({x}, {y})");
            }
        }
        println!("{kind:?} ({}): {} plans answered like the mock", dev.adapter(), got.len());
    }
}
