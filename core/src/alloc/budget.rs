//! The byte budget: what the allocator holds against it (live arrays, arrays retired by the
//! pending plan, and device buffers such as resident layers), and the checks every admission,
//! growth and buffer goes through.

use super::Allocator;
use crate::texture::Format;
use crate::TextureError;

impl Allocator {
    /// Bytes the device may hold now: live arrays and the pending plan's retired ones.
    pub(super) fn held_bytes(&self) -> u64 {
        self.allocated_bytes + self.retired_bytes + self.buffer_bytes
    }

    /// Holds `bytes` of device buffers (a resident layer) against the budget, beside the
    /// arrays: textures admitted later see them held.
    ///
    /// # Errors
    /// `(held, budget)` bytes when they do not fit; nothing is held then.
    pub(crate) fn hold_buffer(&mut self, bytes: u64) -> Result<(), (u64, u64)> {
        if !self.fits(bytes) {
            return Err((self.held_bytes(), self.budget_bytes));
        }
        self.buffer_bytes += bytes;
        self.peak_bytes = self.peak_bytes.max(self.held_bytes());
        Ok(())
    }

    /// Gives back `bytes` held by [`Allocator::hold_buffer`].
    pub(crate) fn release_buffer(&mut self, bytes: u64) {
        self.buffer_bytes = self.buffer_bytes.saturating_sub(bytes);
    }

    /// Bytes of device buffers held against the budget: the resident layers'
    /// ([`crate::TextureStore::resident_bytes`]).
    pub fn buffer_bytes(&self) -> u64 {
        self.buffer_bytes
    }

    /// Whether `bytes` more fit the budget. Byte counts saturate at `u64::MAX` instead of
    /// wrapping; a real count is a multiple of 4, so `u64::MAX` means "overflowed" and never fits.
    pub(super) fn fits(&self, bytes: u64) -> bool {
        bytes != u64::MAX && self.held_bytes().checked_add(bytes).is_some_and(|t| t <= self.budget_bytes)
    }

    /// [`TextureError::BudgetExhausted`] unless `bytes` more fit the budget now.
    pub(crate) fn check(&self, bytes: u64, format: Format) -> Result<(), TextureError> {
        if !self.fits(bytes) {
            return Err(self.exhausted(bytes, format));
        }
        Ok(())
    }

    /// The budget error for `requested_bytes` more, with every term the check used.
    pub(super) fn exhausted(&self, requested_bytes: u64, format: Format) -> TextureError {
        TextureError::BudgetExhausted {
            format,
            requested_bytes,
            allocated_bytes: self.allocated_bytes,
            retired_bytes: self.retired_bytes,
            budget_bytes: self.budget_bytes,
        }
    }
}
