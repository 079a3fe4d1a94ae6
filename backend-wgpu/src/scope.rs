//! Error scopes around the renderer's wgpu calls, and the errors a device reports late.
//!
//! Natively (and on wgpu's WebGL backend) a popped error scope's future is complete at once:
//! the error comes back from the call that caused it. On WebGPU the browser answers a popped
//! scope later, asynchronously; such answers are collected in a [`Late`] and reported by the
//! renderer's next `prepare` or by `Renderer::device_errors`.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use crate::Error;

/// What an error scope caught, as an [`Error`] of the renderer.
#[derive(Debug)]
pub(crate) enum What {
    /// [`Error::Device`] naming the operation.
    Device(String),
    /// [`Error::Shader`] of a tier.
    Shader { tier: u32 },
    /// [`Error::Pipeline`] of a tier, `detail` before wgpu's message.
    Pipeline { tier: u32, detail: String },
}

impl What {
    pub(crate) fn error(self, e: &wgpu::Error) -> Error {
        match self {
            What::Device(op) => Error::Device { op, message: e.to_string() },
            What::Shader { tier } => Error::Shader { tier: Some(tier), message: e.to_string() },
            What::Pipeline { tier, detail } => Error::Pipeline { tier, message: format!("{detail}: {e}") },
        }
    }
}

/// The verdict of the scopes around one operation.
pub(crate) enum Verdict {
    /// Known at once: natively always, on the web when the scopes resolved immediately
    /// (wgpu's WebGL backend).
    Now(Option<wgpu::Error>),
    /// The device answers later (WebGPU).
    #[cfg(target_family = "wasm")]
    Later(std::pin::Pin<Box<dyn Future<Output = Option<wgpu::Error>>>>),
}

/// Runs `f` inside validation, out-of-memory and internal error scopes and returns what they
/// caught (the out-of-memory or internal error first: running out of memory leaves invalid
/// objects that the rest of `f` may trip over, so it is the cause and any validation error a
/// consequence).
pub(crate) fn scoped<T>(device: &wgpu::Device, f: impl FnOnce() -> T) -> (T, Verdict) {
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let (v, m, i) = (validation.pop(), memory.pop(), internal.pop());
    #[cfg(not(target_family = "wasm"))]
    {
        // Native error scopes are complete when popped.
        let (v, m, i) = (ready(v).flatten(), ready(m).flatten(), ready(i).flatten());
        (out, Verdict::Now(m.or(i).or(v)))
    }
    #[cfg(target_family = "wasm")]
    {
        let mut all = Box::pin(async move {
            let (v, m, i) = (v.await, m.await, i.await);
            m.or(i).or(v)
        });
        match all.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(e) => (out, Verdict::Now(e)),
            Poll::Pending => (out, Verdict::Later(all)),
        }
    }
}

/// [`scoped`], with an error as [`Error::Device`] naming `op` (built only on failure, or when
/// the device answers later). An answer that comes later goes to `late`, and `Ok` is
/// returned now.
pub(crate) fn checked<T>(
    device: &wgpu::Device,
    late: &Late,
    op: impl FnOnce() -> String,
    f: impl FnOnce() -> T,
) -> Result<T, Error> {
    let (out, verdict) = scoped(device, f);
    match late.settle(verdict, || What::Device(op())) {
        None => Ok(out),
        Some(e) => Err(e),
    }
}

/// The output of a future that is already complete (wgpu's native error scopes are).
#[cfg(not(target_family = "wasm"))]
fn ready<F: Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

/// Errors the device reports after the call that caused them returned (WebGPU's error scopes
/// resolve asynchronously): shared with the tasks awaiting the scopes, so it is `Send` and
/// `Sync` whatever the futures are.
#[derive(Clone, Debug, Default)]
pub(crate) struct Late(Arc<Mutex<LateState>>);

#[derive(Debug, Default)]
// Natively nothing is deferred: `issued` is only counted on the web.
#[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
struct LateState {
    /// The operations whose scopes are not answered yet, by number.
    outstanding: BTreeSet<u64>,
    /// Operations deferred so far: the last number given.
    issued: u64,
    /// The earliest operation (in issue order) that failed so far, with its error.
    first: Option<(u64, Error)>,
    /// Operations up to this number were issued before the last error was reported: the
    /// renderer has been reset since, so their answers are dropped.
    settled_upto: u64,
    /// Woken when every scope is answered.
    waker: Option<Waker>,
}

impl LateState {
    /// The first error, once every operation issued before it has been answered (a later
    /// operation may fail only because of an earlier one, whose answer must come first).
    fn take_first(&mut self) -> Option<Error> {
        let (seq, _) = self.first.as_ref()?;
        if self.outstanding.range(..*seq).next().is_some() {
            return None;
        }
        self.settled_upto = self.issued;
        self.first.take().map(|(_, e)| e)
    }
}

impl Late {
    /// The error of a verdict known now, as `what` names it; one that comes later is awaited
    /// in a task of its own and kept for [`Late::take`] (`None` now). Natively every verdict
    /// is known now.
    pub(crate) fn settle(&self, verdict: Verdict, what: impl FnOnce() -> What) -> Option<Error> {
        match verdict {
            Verdict::Now(e) => e.map(|e| what().error(&e)),
            #[cfg(target_family = "wasm")]
            Verdict::Later(future) => {
                let what = what();
                let seq = {
                    let mut s = self.lock();
                    s.issued += 1;
                    let seq = s.issued;
                    s.outstanding.insert(seq);
                    seq
                };
                let state = Arc::clone(&self.0);
                wasm_bindgen_futures::spawn_local(async move {
                    let caught = future.await;
                    let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
                    s.outstanding.remove(&seq);
                    if let Some(e) = caught.filter(|_| seq > s.settled_upto) {
                        if s.first.as_ref().is_none_or(|(first, _)| seq < *first) {
                            s.first = Some((seq, what.error(&e)));
                        }
                    }
                    if s.outstanding.is_empty() {
                        if let Some(w) = s.waker.take() {
                            w.wake();
                        }
                    }
                });
                None
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LateState> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The first error reported late (in the order of the operations), if every operation
    /// before it has been answered; the others are dropped. Scopes still unanswered stay
    /// counted.
    pub(crate) fn take(&self) -> Option<Error> {
        self.lock().take_first()
    }

    /// Waits until every scope deferred so far has been answered, then [`Late::take`].
    pub(crate) fn settled(&self) -> impl Future<Output = Option<Error>> + '_ {
        std::future::poll_fn(move |cx| {
            let mut s = self.lock();
            if s.outstanding.is_empty() {
                Poll::Ready(s.take_first())
            } else {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        })
    }
}
