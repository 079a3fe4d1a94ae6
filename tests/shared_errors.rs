//! The backends name the same failures alike: an edited budget, a budget from a device with
//! more slots, and a plan out of sequence come back from layerbatch-gl (GL 3.3, llvmpipe) and
//! layerbatch-wgpu (lavapipe) as the same variant with the same fields (`EditedBudget` with
//! core's error, `BudgetAboveDevice` naming the budget's need, `Plan` with core's error).
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use std::sync::Arc;

use layerbatch::{Batcher, Budget, Config, Limits};
use layerbatch_testkit::{ci, egl, hello};

const TEST: &str = "the_backends_return_the_same_errors_for_the_same_failures";

#[test]
fn the_backends_return_the_same_errors_for_the_same_failures() {
    let egl = match egl::surfaceless(false) {
        Ok(egl) => egl,
        Err(e) => return ci::skip(TEST, &e),
    };
    let (device, queue) = match hello::wgpu_headless() {
        Ok(dq) => dq,
        Err(e) => return ci::skip(TEST, &e.to_string()),
    };
    let gl = Arc::new(egl.gl);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let gl_new = |b: &Budget| layerbatch_gl::Renderer::new(gl.clone(), b);
    let wgpu_new = |b: &Budget| layerbatch_wgpu::Renderer::new(&device, format, b, &Default::default());

    // An edited budget: both wrap core's own error, equal.
    let mut edited = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
    edited.tiers = vec![1, 3, edited.slots];
    let core = edited.check().unwrap_err();
    match (gl_new(&edited).unwrap_err(), wgpu_new(&edited).unwrap_err()) {
        (layerbatch_gl::Error::EditedBudget(a), layerbatch_wgpu::Error::EditedBudget(b)) => {
            assert_eq!((&a, &b), (&core, &core));
        }
        other => panic!("expected EditedBudget from both, got {other:?}"),
    }

    // A budget from limits of a bigger device: 32 slots, each with a normal-map sibling
    // (lights), more textures than either device here binds in one draw. Both name the limit,
    // what the budget needs and what the device allows.
    let bigger = Limits::desktop().with_max_texture_units(128).with_max_samplers(128);
    let big = Budget::new(&bigger, &Config::default().with_max_slots(32).with_lights(8)).unwrap();
    assert_eq!(big.slots, 32);
    match (gl_new(&big).unwrap_err(), wgpu_new(&big).unwrap_err()) {
        (
            layerbatch_gl::Error::BudgetAboveDevice { what: p, needed: a, allowed: x },
            layerbatch_wgpu::Error::BudgetAboveDevice { what: q, needed: b, allowed: y },
        ) => {
            assert!(x < a && y < b, "{p}: {a} > {x}; {q}: {b} > {y}");
            println!("GL: {p}: needs {a}, allows {x}; wgpu: {q}: needs {b}, allows {y}");
        }
        other => panic!("expected BudgetAboveDevice from both, got {other:?}"),
    }

    // A plan out of sequence (the second of two plans painted first): both refuse it with
    // core's validator's error, equal.
    let limits = Limits::guaranteed_minimum();
    let mut batcher = Batcher::new(limits, Config::default()).unwrap();
    let mut gl_renderer = gl_new(batcher.budget()).unwrap();
    let mut wgpu_renderer = wgpu_new(batcher.budget()).unwrap();
    batcher.begin_frame();
    let _first = batcher.finish().clone();
    batcher.begin_frame();
    let second = batcher.finish().clone();
    let gl_err = gl_renderer.paint(&second, &layerbatch_gl::Target::bound([8, 8])).unwrap_err();
    let mut prepared = wgpu_renderer.create_prepared();
    let wgpu_err = wgpu_renderer.prepare(&device, &queue, &mut prepared, &second, [8, 8]).unwrap_err();
    match (gl_err, wgpu_err) {
        (layerbatch_gl::Error::Plan(a), layerbatch_wgpu::Error::Plan(b)) => assert_eq!(a, b),
        other => panic!("expected Plan from both, got {other:?}"),
    }
    gl_renderer.destroy();
}
