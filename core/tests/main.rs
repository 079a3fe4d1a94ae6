//! layerbatch-core's integration tests: the public API on the mock device.
//!
//! One test binary for the crate (each file a module): every module links the same graph once.

mod loading;
mod module_graph;
mod resize_soak;
mod review_regressions;
mod shapes;
