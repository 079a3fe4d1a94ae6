//! A GPU timer on a GL context: `GL_TIME_ELAPSED` queries (core in GL 3.3, the
//! `EXT_disjoint_timer_query` extension on GLES), for the stress example's attribution.

use glow::HasContext;
use layerbatch_gl::glow;

/// One `GL_TIME_ELAPSED` query object, begun and ended around a frame's commands.
#[derive(Debug)]
pub struct GpuTimer {
    query: glow::Query,
}

impl GpuTimer {
    /// A timer on `gl`, or `None` when the context has no elapsed-time queries (GLES without
    /// `GL_EXT_disjoint_timer_query`).
    pub fn new(gl: &glow::Context, gles: bool) -> Option<Self> {
        if gles && !gl.supported_extensions().contains("GL_EXT_disjoint_timer_query") {
            return None;
        }
        // SAFETY: creates a query object on the current context.
        let query = unsafe { gl.create_query() }.ok()?;
        Some(Self { query })
    }

    /// Starts timing the commands issued from now on.
    pub fn begin(&self, gl: &glow::Context) {
        // SAFETY: our query object; no other elapsed-time query is active (begin and end pair).
        unsafe { gl.begin_query(glow::TIME_ELAPSED, self.query) };
    }

    /// Stops timing.
    pub fn end(&self, gl: &glow::Context) {
        // SAFETY: ends the elapsed-time query `begin` started.
        unsafe { gl.end_query(glow::TIME_ELAPSED) };
    }

    /// The GPU time between `begin` and `end`, in milliseconds, waiting for it (call after
    /// `glFinish` and it is there).
    pub fn elapsed_ms(&self, gl: &glow::Context) -> f64 {
        // SAFETY: the query ended; reading its result waits until it is available.
        let ns = unsafe { gl.get_query_parameter_u64(self.query, glow::QUERY_RESULT) };
        ns as f64 / 1e6
    }

    /// Deletes the query object.
    pub fn delete(self, gl: &glow::Context) {
        // SAFETY: our query object, deleted once (consumed).
        unsafe { gl.delete_query(self.query) };
    }
}
