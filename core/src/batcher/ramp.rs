//! The ramp: palettes that effects declared with [`crate::Effect::with_ramp`] read through
//! `lb_ramp`, written by the host a row at a time and carried to the device by plans.

use super::Batcher;
use crate::effect::{RampError, RAMP_ROWS, RAMP_WIDTH_PX};
use crate::plan::RampWrite;

/// The ramp's CPU copy (always kept: it is [`RAMP_ROWS`] KiB) and the rows the next plan
/// writes.
#[derive(Debug, Default)]
pub(super) struct Ramp {
    /// `RAMP_ROWS` rows of `RAMP_WIDTH_PX` straight RGBA8 texels; empty without a ramp.
    texels: Vec<u8>,
    /// Rows the host has written (restored after a device loss).
    written: Vec<bool>,
    /// Rows written since the last plan.
    pending: Vec<bool>,
}

const ROW_BYTES: usize = RAMP_WIDTH_PX as usize * 4;

impl Ramp {
    /// The ramp of a batcher that has one (all transparent black), or none.
    pub(super) fn new(has_ramp: bool) -> Self {
        if !has_ramp {
            return Self::default();
        }
        let rows = RAMP_ROWS as usize;
        Self { texels: vec![0; rows * ROW_BYTES], written: vec![false; rows], pending: vec![false; rows] }
    }

    /// Every row the host wrote goes to the device again with the next plan.
    pub(super) fn requeue(&mut self) {
        self.pending.copy_from_slice(&self.written);
    }
}

impl Batcher {
    pub(crate) fn write_ramp_row(&mut self, row: u8, colors: &[[u8; 4]]) -> Result<(), RampError> {
        if !self.budget.ramp() {
            return Err(RampError::NoRamp { effects: self.budget.effects.len() });
        }
        if colors.is_empty() || colors.len() > RAMP_WIDTH_PX as usize {
            return Err(RampError::Colors { row, colors: colors.len(), max: RAMP_WIDTH_PX });
        }
        let at = usize::from(row) * ROW_BYTES;
        for (dst, c) in self.ramp.texels[at..].chunks_exact_mut(4).zip(colors) {
            dst.copy_from_slice(c);
        }
        self.ramp.written[usize::from(row)] = true;
        self.ramp.pending[usize::from(row)] = true;
        Ok(())
    }

    pub(crate) fn ramp_row(&self, row: u8) -> Option<&[u8]> {
        let at = usize::from(row) * ROW_BYTES;
        self.ramp.texels.get(at..at + ROW_BYTES)
    }

    /// Puts the rows written since the last plan into the plan being finished, their bytes
    /// after the layer writes' in `upload_bytes`; returns how many.
    pub(super) fn plan_ramp(&mut self) -> u64 {
        self.plan.ramp_writes.clear();
        let Ramp { texels, pending, .. } = &mut self.ramp;
        for (row, p) in pending.iter_mut().enumerate().filter(|(_, p)| **p) {
            *p = false;
            let start = self.upload_bytes.len();
            self.upload_bytes.extend_from_slice(&texels[row * ROW_BYTES..(row + 1) * ROW_BYTES]);
            self.plan.ramp_writes.push(RampWrite { row: row as u8, bytes: start..self.upload_bytes.len() });
        }
        self.plan.ramp_writes.len() as u64
    }
}
