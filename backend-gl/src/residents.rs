//! Resident layers' vertex buffers: one GL buffer each, made at its size
//! (`glBufferData`, `STATIC_DRAW`), written by ranges (`glBufferSubData`) and drawn from like
//! an instance block. Writing binds `GL_ARRAY_BUFFER`, which the paint saved.
#![allow(unsafe_code)]

use std::collections::HashMap;

use glow::HasContext;
use layerbatch_core::plan::{Instance, ResidentWrite};
use layerbatch_core::ResidentId;

use crate::error::{check_gl, Error};

/// The resident layer buffers of one context.
#[derive(Debug, Default)]
pub(crate) struct ResidentBuffers {
    buffers: HashMap<ResidentId, glow::Buffer>,
    /// Vertex bytes of an indexed write (four records an instance), kept write to write.
    scratch: Vec<u8>,
}

impl ResidentBuffers {
    /// The buffer of `resident`, if held.
    pub(crate) fn get(&self, resident: ResidentId) -> Option<glow::Buffer> {
        self.buffers.get(&resident).copied()
    }

    /// Makes `resident`'s buffer: `instances` instances of [`Instance::quad_bytes`]`(indexed)`.
    pub(crate) fn create(
        &mut self,
        gl: &glow::Context,
        resident: ResidentId,
        instances: u32,
        indexed: bool,
    ) -> Result<(), Error> {
        let bytes = u64::from(instances) * u64::from(Instance::quad_bytes(indexed));
        let op = || format!("create resident layer {resident:?} ({instances} instances, {bytes} bytes)");
        let len = i32::try_from(bytes).map_err(|_| Error::gl(op(), glow::OUT_OF_MEMORY))?;
        // SAFETY: a new buffer of ours, bound to ARRAY_BUFFER (saved by the paint) and given
        // a store of `len` bytes; deleted again if GL reports an error.
        unsafe {
            let buffer = gl.create_buffer().map_err(|message| Error::create_object("resident buffer", message))?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(buffer));
            gl.buffer_data_size(glow::ARRAY_BUFFER, len, glow::STATIC_DRAW);
            if let Err(e) = check_gl(gl, op) {
                gl.delete_buffer(buffer);
                return Err(e);
            }
            if let Some(old) = self.buffers.insert(resident, buffer) {
                gl.delete_buffer(old);
            }
        }
        Ok(())
    }

    /// Writes instances into a resident's buffer (its vertex records, four an instance when
    /// indexed).
    pub(crate) fn write(&mut self, gl: &glow::Context, write: &ResidentWrite<'_>) -> Result<(), Error> {
        let resident = write.resident;
        let op = || format!("write resident layer {resident:?} at instance {}", write.first);
        let buffer = self.get(resident).ok_or_else(|| Error::gl(op(), glow::INVALID_OPERATION))?;
        let offset = i32::try_from(write.offset_bytes()).map_err(|_| Error::gl(op(), glow::INVALID_VALUE))?;
        let bytes: &[u8] = if write.indexed {
            self.scratch.clear();
            self.scratch.resize(write.bytes(), 0);
            write.write_into(&mut self.scratch);
            &self.scratch
        } else {
            bytemuck::cast_slice(write.instances)
        };
        // SAFETY: our live buffer bound to ARRAY_BUFFER (saved by the paint); the validator
        // kept the range inside the store made for the resident's instances.
        unsafe {
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(buffer));
            gl.buffer_sub_data_u8_slice(glow::ARRAY_BUFFER, offset, bytes);
        }
        Ok(())
    }

    /// Deletes `resident`'s buffer.
    pub(crate) fn destroy(&mut self, gl: &glow::Context, resident: ResidentId) {
        if let Some(buffer) = self.buffers.remove(&resident) {
            // SAFETY: our buffer; GL frees it once draws using it are done.
            unsafe { gl.delete_buffer(buffer) };
        }
    }

    /// Deletes every buffer (a rebuild plan, an error, the renderer dropped).
    pub(crate) fn drop_all(&mut self, gl: &glow::Context) {
        for (_, buffer) in self.buffers.drain() {
            // SAFETY: our buffers.
            unsafe { gl.delete_buffer(buffer) };
        }
    }
}
