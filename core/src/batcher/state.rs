//! The drawing state saved and restored, as a 2D canvas's: the draw state (blend, clip,
//! transform), the look (effect, its parameters, lit) and the sort key, on a stack that
//! empties when a frame begins or ends.

use super::Batcher;

impl Batcher {
    pub(crate) fn save_state(&mut self) {
        self.recorder.save();
    }

    pub(crate) fn restore_state(&mut self) -> bool {
        let Some(key) = self.recorder.restore() else { return false };
        if key != self.sort_key() {
            self.set_sort_key(key);
        }
        true
    }
}
