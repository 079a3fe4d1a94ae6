//! Where a frame's time goes, by phase: the stress example's attribution.
//!
//! A frame is timed in six phases on the CPU, one after the other, and the device's own time
//! beside them:
//!
//! | phase | what runs |
//! |---|---|
//! | `scene` | the scene's own step (moving the sprites): the host's logic, not layerbatch's |
//! | `push` | `begin_frame` and every `push` |
//! | `finish` | `Batcher::finish`: the plan |
//! | `backend` | GL `Renderer::paint` (ops, draw walk, uploads, every GL call); wgpu `Renderer::prepare` |
//! | `submit` | GL `glFlush`; wgpu `render` into a pass and `Queue::submit` |
//! | `wait` | GL `glFinish`; wgpu a blocking `Device::poll`: until the device is done |
//! | `gpu` | the device's timer (GL `GL_TIME_ELAPSED`, wgpu `TIMESTAMP_QUERY`), when it has one |
//!
//! Each phase keeps its samples with the run's warm-up apart ([`Samples`]), so its figures are
//! over the same measured frames as the frame time.

use crate::stats::{Samples, Summary};

/// One frame's time by phase, milliseconds (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FramePhases {
    /// The scene's step.
    pub scene_ms: f64,
    /// `begin_frame` and the pushes.
    pub push_ms: f64,
    /// `finish`.
    pub finish_ms: f64,
    /// The backend's paint or prepare.
    pub backend_ms: f64,
    /// Handing the work to the device.
    pub submit_ms: f64,
    /// Waiting for the device.
    pub wait_ms: f64,
    /// The device's timer, when it has one.
    pub gpu_ms: Option<f64>,
}

/// The phases of a run's frames, the first `warmup` apart.
#[derive(Clone, Debug)]
pub struct PhaseRecorder {
    phases: [Samples; 7],
}

/// The figures of one phase over the measured frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct PhaseFigures {
    /// Median, milliseconds.
    pub median_ms: f64,
    /// 95th percentile (nearest rank), milliseconds.
    pub p95_ms: f64,
    /// Mean, milliseconds.
    pub mean_ms: f64,
}

impl From<Summary> for PhaseFigures {
    fn from(s: Summary) -> Self {
        Self { median_ms: s.median, p95_ms: s.p95, mean_ms: s.mean }
    }
}

/// Every phase's figures, as a report prints them.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct PhaseReport {
    /// The scene's step.
    pub scene: PhaseFigures,
    /// `begin_frame` and the pushes.
    pub push: PhaseFigures,
    /// `finish`.
    pub finish: PhaseFigures,
    /// The backend's paint or prepare.
    pub backend: PhaseFigures,
    /// Handing the work to the device.
    pub submit: PhaseFigures,
    /// Waiting for the device.
    pub wait: PhaseFigures,
    /// The device's timer; `None` without one.
    pub gpu: Option<PhaseFigures>,
}

impl PhaseReport {
    /// The rows of a table: a name and the phase's figures.
    pub fn rows(&self) -> Vec<(&'static str, PhaseFigures)> {
        let mut rows = vec![
            ("scene step (host logic)", self.scene),
            ("push", self.push),
            ("finish", self.finish),
            ("backend paint/prepare", self.backend),
            ("submit", self.submit),
            ("wait for the device", self.wait),
        ];
        if let Some(gpu) = self.gpu {
            rows.push(("GPU time (device timer)", gpu));
        }
        rows
    }

    /// The medians of push, finish, backend and submit: layerbatch's CPU time a frame, from
    /// `push` to work submitted, without the host's logic and the device's time.
    pub fn cpu_median_ms(&self) -> f64 {
        self.push.median_ms + self.finish.median_ms + self.backend.median_ms + self.submit.median_ms
    }

    /// Prints the table the examples end with: each phase's median and 95th percentile, then
    /// layerbatch's CPU time. `note` follows the heading (what the scene phase is, say).
    pub fn print(&self, note: &str) {
        println!("  where a frame's time goes (median / p95 ms{note}):");
        for (name, f) in self.rows() {
            println!("    {name:<30} {:>20}", format!("{:.3} / {:.3}", f.median_ms, f.p95_ms));
        }
        println!("    layerbatch CPU (push..submit)  {:.3} ms", self.cpu_median_ms());
    }
}

impl PhaseRecorder {
    /// No frames yet; the first `warmup` recorded are warm-up.
    pub fn new(warmup: u64) -> Self {
        Self { phases: std::array::from_fn(|_| Samples::new(warmup as usize)) }
    }

    /// Records one frame's phases.
    pub fn record(&mut self, p: &FramePhases) {
        let values = [p.scene_ms, p.push_ms, p.finish_ms, p.backend_ms, p.submit_ms, p.wait_ms];
        for (samples, v) in self.phases.iter_mut().zip(values) {
            samples.push(v);
        }
        if let Some(gpu) = p.gpu_ms {
            self.phases[6].push(gpu);
        }
    }

    /// The figures over the measured frames (the warm-up's if none was measured).
    pub fn report(&self) -> PhaseReport {
        let figures = |s: &Samples| -> PhaseFigures {
            if s.measured().is_empty() {
                Summary::of(s.warmup()).into()
            } else {
                s.summary().into()
            }
        };
        let [scene, push, finish, backend, submit, wait, gpu] = &self.phases;
        let has_gpu = !gpu.measured().is_empty() || !gpu.warmup().is_empty();
        PhaseReport {
            scene: figures(scene),
            push: figures(push),
            finish: figures(finish),
            backend: figures(backend),
            submit: figures(submit),
            wait: figures(wait),
            gpu: has_gpu.then(|| figures(gpu)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_figured_over_the_measured_frames() {
        let mut r = PhaseRecorder::new(1);
        let frame = |k: f64| FramePhases {
            scene_ms: k,
            push_ms: 2.0 * k,
            finish_ms: 0.5,
            backend_ms: 3.0 * k,
            submit_ms: 0.25,
            wait_ms: 10.0,
            gpu_ms: Some(k),
        };
        r.record(&frame(100.0)); // warm-up
        for k in [1.0, 2.0, 3.0] {
            r.record(&frame(k));
        }
        let rep = r.report();
        assert_eq!(rep.scene.median_ms, 2.0);
        assert_eq!(rep.push.median_ms, 4.0);
        assert_eq!(rep.backend.p95_ms, 9.0);
        assert_eq!(rep.gpu.map(|g| g.mean_ms), Some(2.0));
        assert_eq!(rep.cpu_median_ms(), 4.0 + 0.5 + 6.0 + 0.25);
        assert_eq!(rep.rows().len(), 7);
        let without = PhaseRecorder::new(0);
        assert_eq!(without.report().gpu, None);
    }
}
