//! What the random programs of a run exercised, read from the model's
//! traces (what the allocator did, not what the generator meant to ask
//! for), so a random-program test can require that every path it is there
//! to compare was reached at least once: a generator that drifts into
//! allocating only would otherwise keep passing while comparing little.
//!
//! Every random-program suite feeds each program's trace to one
//! [`Coverage`] and calls [`Coverage::require`] at the end with the paths
//! its preset has. No proptest and nothing native here, so the file can be
//! included (with `#[path]`) by any test crate, the wasm32 suite too.

#![allow(dead_code)]

use std::collections::HashMap;

use bumplab_core::events::ChunkReason;
use bumplab_core::trace::{EventKind, OpKind, Trace};

#[derive(Clone, Debug, Default)]
pub struct Coverage {
    pub programs: u64,
    pub ops: u64,
    /// Chunks an op made (every chunk but one the constructor made, and
    /// never the first chunk of a program): what a full or too small
    /// chunk, or a reset that merges chunks, led to.
    pub new_chunks: u64,
    /// Chunks made for one request larger than a normal next chunk.
    pub oversized: u64,
    pub realloc_moved: u64,
    pub realloc_in_place: u64,
    /// Reallocs to a smaller size than the block had.
    pub shrinks: u64,
    pub frees: u64,
    /// Frees of the newest live block (the one a bump allocator can give
    /// back, if it gives back anything).
    pub frees_of_last: u64,
    pub resets: u64,
    pub checkpoints: u64,
    pub restores: u64,
    /// Restores that gave back bytes or chunks (a restore right after its
    /// checkpoint exercises little).
    pub restores_that_reclaimed: u64,
    /// Allocs and reallocs of zero bytes.
    pub zero_sized: u64,
    /// Allocs and reallocs whose alignment is above 16 (above what a
    /// general-purpose allocator aligns every block to).
    pub big_aligns: u64,
    /// Programs run with a capacity other than the preset's default.
    pub capacities: u64,
    /// Requests that did not fit (a full fixed buffer).
    pub failed: u64,
    /// Anything else a suite counts, by name.
    pub extra: HashMap<&'static str, u64>,
    /// How many programs took each path at least once, by the names
    /// [`Coverage::PATHS`] lists: what [`Coverage::require_shares`] checks,
    /// so that a path is exercised by many programs, not by one.
    pub programs_with: HashMap<&'static str, u64>,
}

impl Coverage {
    /// Counts what `t` did; a chunk is oversized when the model says so
    /// (`ChunkReason::Oversized`, or `CustomSlab` for a request too large
    /// for a slab).
    pub fn record(&mut self, t: &Trace) {
        let before = self.clone();
        self.count(t);
        self.oversized += t
            .chunks
            .iter()
            .filter(|c| matches!(c.reason, ChunkReason::Oversized | ChunkReason::CustomSlab))
            .count() as u64;
        self.tally_paths(&before);
    }

    /// The paths a program may take, as `programs_with` names them.
    pub const PATHS: [&'static str; 10] = [
        "new chunk",
        "oversized",
        "moved realloc",
        "in-place realloc",
        "free of the last block",
        "reset",
        "checkpoint",
        "restore",
        "restore that gave bytes back",
        "failed request",
    ];

    /// Adds one to each path the program just counted took.
    fn tally_paths(&mut self, before: &Coverage) {
        let took = [
            self.new_chunks > before.new_chunks,
            self.oversized > before.oversized,
            self.realloc_moved > before.realloc_moved,
            self.realloc_in_place > before.realloc_in_place,
            self.frees_of_last > before.frees_of_last,
            self.resets > before.resets,
            self.checkpoints > before.checkpoints,
            self.restores > before.restores,
            self.restores_that_reclaimed > before.restores_that_reclaimed,
            self.failed > before.failed,
        ];
        for (path, took) in Self::PATHS.into_iter().zip(took) {
            *self.programs_with.entry(path).or_default() += u64::from(took);
        }
    }

    /// The share of programs, in percent, that took `path`.
    pub fn share(&self, path: &str) -> f64 {
        let n = self.programs_with.get(path).copied().unwrap_or(0);
        100.0 * n as f64 / self.programs.max(1) as f64
    }

    /// Panics unless at least `percent` of the programs took each `path`:
    /// a generator that reaches a path once in a run compares it once.
    pub fn require_shares(&self, what: &str, needs: &[(&str, f64)]) {
        let short: Vec<String> = needs
            .iter()
            .filter(|(path, pct)| self.share(path) < *pct)
            .map(|(path, pct)| format!("{path}: {:.1}% < {pct}%", self.share(path)))
            .collect();
        assert!(
            short.is_empty(),
            "the {what} generator takes these paths in too few of its {} programs: {}; fix \
             the generator (coverage: {})",
            self.programs,
            short.join(", "),
            self.summary(what)
        );
    }

    /// Counts what `t` did, for a preset whose model gives no chunk an
    /// oversized reason: `oversized(t, i)` says whether the chunk op `i`
    /// made was made for one request larger than a normal next chunk.
    pub fn record_with(&mut self, t: &Trace, oversized: impl Fn(&Trace, usize) -> bool) {
        let before = self.clone();
        self.count(t);
        for (i, op) in t.ops.iter().enumerate() {
            let made = op.events.iter().any(|e| e.kind == EventKind::NewChunk);
            if made && oversized(t, i) {
                self.oversized += 1;
            }
        }
        self.tally_paths(&before);
    }

    fn count(&mut self, t: &Trace) {
        self.programs += 1;
        self.ops += t.ops.len() as u64;
        self.capacities += u64::from(t.program.capacity.is_some());
        self.new_chunks += t
            .chunks
            .iter()
            .filter(|c| c.created_by.is_some() && c.id > 0)
            .count() as u64;
        // The live blocks, by the op that placed them, to tell a free of the
        // newest one.
        let mut live: Vec<u32> = Vec::new();
        for op in &t.ops {
            match op.kind {
                OpKind::Free => {
                    let newest = live.iter().max().copied();
                    self.frees_of_last +=
                        u64::from(op.target_op.is_some() && op.target_op == newest);
                    live.retain(|&b| Some(b) != op.target_op);
                }
                OpKind::Realloc => live.retain(|&b| Some(b) != op.target_op),
                OpKind::Reset => live.clear(),
                _ => {}
            }
            live.retain(|b| !op.reclaimed.contains(b));
            if matches!(op.kind, OpKind::Alloc | OpKind::Realloc) && !op.failed {
                live.push(op.index);
            }
        }
        for op in &t.ops {
            self.failed += u64::from(op.failed);
            let placed = matches!(op.kind, OpKind::Alloc | OpKind::Realloc);
            if placed {
                self.zero_sized += u64::from(op.size == Some(0));
                self.big_aligns += u64::from(op.align.is_some_and(|a| a > 16));
            }
            match op.kind {
                OpKind::Realloc if !op.failed => {
                    match op.moved {
                        Some(true) => self.realloc_moved += 1,
                        Some(false) => self.realloc_in_place += 1,
                        None => {}
                    }
                    let old = op.target_op.and_then(|o| t.ops[o as usize].size);
                    self.shrinks += u64::from(old.is_some_and(|old| op.size < Some(old)));
                }
                OpKind::Free => self.frees += 1,
                OpKind::Reset => self.resets += 1,
                OpKind::Checkpoint => self.checkpoints += 1,
                OpKind::Restore => {
                    self.restores += 1;
                    let gave_back = !op.reclaimed.is_empty()
                        || op.events.iter().any(|e| e.kind == EventKind::ChunkFreed);
                    self.restores_that_reclaimed += u64::from(gave_back);
                }
                _ => {}
            }
        }
    }

    /// Adds one to the suite's own count `what`.
    pub fn bump(&mut self, what: &'static str) {
        self.add_to(what, 1);
    }

    /// Adds `n` to the suite's own count `what`.
    pub fn add_to(&mut self, what: &'static str, n: u64) {
        *self.extra.entry(what).or_default() += n;
    }

    /// The suite's own count `what` (0 if never counted).
    pub fn get(&self, what: &str) -> u64 {
        self.extra.get(what).copied().unwrap_or(0)
    }

    /// Panics unless every `(path, count)` in `needs` is at least 1, naming
    /// the suite (`what`), each path never reached and how many programs
    /// ran: a failure means the generator must be fixed, not the bound.
    /// Paths read as objects of "never produced": "an in-place realloc".
    pub fn require(&self, what: &str, needs: &[(&str, u64)]) {
        let missing: Vec<&str> = needs.iter().filter(|n| n.1 == 0).map(|n| n.0).collect();
        assert!(
            missing.is_empty(),
            "the {what} generator never produced {} in {} programs; fix the generator \
             (coverage: {})",
            missing.join(", nor "),
            self.programs,
            self.summary(what)
        );
    }

    /// One line for the test's output: what was compared.
    pub fn summary(&self, what: &str) -> String {
        let mut extra: Vec<_> = self.extra.iter().collect();
        extra.sort();
        format!(
            "{what}: {} programs, {} ops; {} new chunks ({} oversized), {} moved and {} \
             in-place reallocs ({} shrinks), {} frees ({} of the last block), {} resets, \
             {} checkpoints / {} restores ({} gave bytes back), {} zero-sized, {} aligned \
             above 16, {} with a chosen capacity, {} failed{}; programs taking each path: {}",
            self.programs,
            self.ops,
            self.new_chunks,
            self.oversized,
            self.realloc_moved,
            self.realloc_in_place,
            self.shrinks,
            self.frees,
            self.frees_of_last,
            self.resets,
            self.checkpoints,
            self.restores,
            self.restores_that_reclaimed,
            self.zero_sized,
            self.big_aligns,
            self.capacities,
            self.failed,
            if extra.is_empty() {
                String::new()
            } else {
                format!("; {extra:?}")
            },
            Self::PATHS
                .iter()
                .map(|p| format!("{p} {:.0}%", self.share(p)))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}
