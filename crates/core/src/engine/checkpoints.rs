//! Saved checkpoints: a list in the order they were saved (restoring one
//! drops those after it) and, by name, where each is and what dropped the
//! ones that are gone.

use std::rc::Rc;

use crate::persistent::PVec;
use crate::program::{Name, Names, Pos};
use crate::word::Word;

use super::Engine;

/// What dropped a checkpoint: the reset, or the restore of an earlier
/// checkpoint, at `at`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Dropped {
    pub(super) by_restore: Option<Name>,
    pub(super) at: Pos,
}

impl Dropped {
    /// "the reset at 4:1", "restoring 's' at 7:1".
    pub(super) fn describe(&self, names: &Names) -> String {
        let Pos { line, column } = self.at;
        match self.by_restore {
            None => format!("the reset at {line}:{column}"),
            Some(n) => format!("restoring '{}' at {line}:{column}", names.get(n)),
        }
    }
}

impl<W: Word> Engine<W> {
    /// Saves the model's state as checkpoint `name`, replacing one saved
    /// under that name before.
    pub(super) fn save_checkpoint(&mut self, name: Name) {
        let old = self.saved.get(name);
        if old != 0 {
            self.checkpoints[(old - 1) as usize] = None;
            self.holes += 1;
        }
        self.checkpoints
            .push(Some((name, Rc::from(self.model.checkpoint()))));
        self.saved.set(name, self.checkpoints.len() as u32);
        // A loop saving the same name would leave a hole per pass: the list
        // is swept once holes are most of it, so it stays as long as the
        // checkpoints saved.
        if self.holes > 32 && self.holes * 2 > self.checkpoints.len() {
            let mut kept = PVec::new();
            for (n, cp) in self.checkpoints.iter().flatten() {
                kept.push(Some((*n, Rc::clone(cp))));
                self.saved.set(*n, kept.len() as u32);
            }
            self.checkpoints = kept;
            self.holes = 0;
        }
    }

    /// Drops the checkpoints saved after the first `keep`: their bump
    /// pointers point into bytes that are free again.
    pub(super) fn drop_checkpoints(&mut self, keep: usize, why: Dropped) {
        while self.checkpoints.len() > keep {
            match self.checkpoints.pop().flatten() {
                Some((name, _)) => {
                    self.saved.set(name, 0);
                    self.dropped.set(name, Some(why));
                }
                None => self.holes -= 1,
            }
        }
    }
}
