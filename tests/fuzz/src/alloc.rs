//! A counting global allocator: live bytes, and the peak since the last [`start_input`], over
//! [`std::alloc::System`]. An input that takes more than the hard limit above its start is
//! stopped at once ([`crate::runner::memory_blowup`] reports it, then the process aborts), so a
//! blow-up never takes the machine down with it.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// The counting allocator; `main.rs` installs it as the `#[global_allocator]`.
#[derive(Debug)]
pub struct Counting;

static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);
/// Live bytes when the current input started.
static BASE: AtomicU64 = AtomicU64::new(0);
/// Bytes above `BASE` at which the process stops (`u64::MAX`: never).
static HARD_LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);
/// Set once the limit was hit, so the report's own allocations pass.
static REPORTING: AtomicBool = AtomicBool::new(false);

/// Sets the bytes above an input's start at which the process is stopped.
pub fn set_hard_limit(bytes: u64) {
    HARD_LIMIT.store(bytes, Relaxed);
}

/// Starts measuring an input: its peak is counted from the bytes live now.
pub fn start_input() {
    let live = LIVE.load(Relaxed);
    BASE.store(live, Relaxed);
    PEAK.store(live, Relaxed);
}

/// The most bytes live above the input's start since [`start_input`].
pub fn input_peak() -> u64 {
    PEAK.load(Relaxed).saturating_sub(BASE.load(Relaxed))
}

/// Bytes live now.
pub fn live() -> u64 {
    LIVE.load(Relaxed)
}

fn grew(size: usize) {
    let live = LIVE.fetch_add(size as u64, Relaxed) + size as u64;
    PEAK.fetch_max(live, Relaxed);
    let over = live.saturating_sub(BASE.load(Relaxed));
    if over > HARD_LIMIT.load(Relaxed) && !REPORTING.swap(true, Relaxed) {
        crate::runner::memory_blowup(over, size);
        std::process::abort();
    }
}

fn shrank(size: usize) {
    LIVE.fetch_sub(size as u64, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's layout and pointer unchanged,
// which upholds `GlobalAlloc`'s contract; the counting around it only touches atomics (and,
// once, the report, whose allocations come back here with `REPORTING` set and pass).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires (non-zero size).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator (so from `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` with `layout`; `new_size` is the caller's, non-zero.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        p
    }
}
