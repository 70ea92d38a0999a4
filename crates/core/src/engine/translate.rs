//! What a model reported, turned into trace events: its micro-steps grouped
//! into the events they explain, and its chunk events kept in the engine's
//! chunk table as well.

use std::rc::Rc;

use crate::events::{ChunkReason, ModelEvent};
use crate::persistent::PVec;
use crate::probe::{Recorded, Recorder};
use crate::text;
use crate::trace::{ChunkInfo, Event, EventKind, NamedValue, StepOut};
use crate::word::Word;

use super::shadow::{chunk_mut, ChunkRec, Tally};
use super::Engine;

impl<W: Word> Engine<W> {
    /// Turns what the model reported into trace events, and keeps the chunk table.
    pub(super) fn translate(&mut self, rec: Recorder, op: Option<u32>, out: &mut Vec<Event>) {
        let mut run: Vec<StepOut> = Vec::new();
        let flush = |run: &mut Vec<StepOut>, out: &mut Vec<Event>| {
            if run.is_empty() {
                return;
            }
            let last = run.last().expect("not empty");
            let (kind, text) = if last.outcome == "fail" || last.outcome == "overflow" {
                (
                    EventKind::NoRoom,
                    "the capacity check failed: no room in this chunk".to_string(),
                )
            } else if last.marker == "bump" {
                (
                    EventKind::Bump,
                    "the capacity check passed: the bump pointer moves".to_string(),
                )
            } else {
                (EventKind::Steps, last.label.to_string())
            };
            out.push(Event {
                kind,
                text,
                steps: core::mem::take(run),
            });
        };
        for item in rec.log {
            match item {
                Recorded::Step(m) => {
                    let failed = m.step.outcome == "fail" || m.step.outcome == "overflow";
                    run.push(StepOut {
                        id: m.step.name(),
                        marker: m.step.marker,
                        outcome: m.step.outcome,
                        label: m.step.label,
                        file: m.step.source,
                        line: m.step.line(),
                        values: m
                            .names
                            .iter()
                            .zip(m.values)
                            .map(|(&name, value)| NamedValue { name, value })
                            .collect(),
                    });
                    // A failed check ends its run: it is an event of its own,
                    // whatever the model does next.
                    if failed {
                        flush(&mut run, out);
                    }
                }
                Recorded::Event(e) => {
                    flush(&mut run, out);
                    out.extend(self.chunk_event(e, op));
                }
            }
        }
        flush(&mut run, out);
    }

    pub(super) fn chunk_event(&mut self, e: ModelEvent<u64>, op: Option<u32>) -> Option<Event> {
        match e {
            ModelEvent::NewChunk {
                chunk: c,
                reason,
                requested,
            } => {
                debug_assert_eq!(
                    c.id as usize,
                    self.chunks.len(),
                    "chunk ids are handed out in order"
                );
                self.chunks.push(Rc::new(ChunkRec {
                    info: ChunkInfo {
                        id: c.id,
                        base: c.base,
                        size: c.size,
                        start: c.start,
                        capacity: c.capacity,
                        header: c.header,
                        footer: c.footer,
                        reason,
                        requested,
                        created_by: op,
                        freed_by: None,
                    },
                    holding: PVec::new(),
                    empty: PVec::new(),
                    live: true,
                    tally: Tally::default(),
                }));
                self.live.push(c.id);
                let why = match reason {
                    ChunkReason::First => "the first chunk",
                    ChunkReason::Full => "the current chunk is full",
                    ChunkReason::Oversized => "the request is larger than the next chunk would be",
                    ChunkReason::Slab => "a new slab",
                    ChunkReason::CustomSlab => {
                        "the request is too big for a slab: it gets one of its own"
                    }
                };
                self.detail.then(|| {
                    Event::new(
                        EventKind::NewChunk,
                        format!(
                            "new chunk {}: {} usable at {:#x} ({why}; {} needed)",
                            c.id,
                            text::bytes(c.capacity),
                            c.start,
                            text::bytes(requested)
                        ),
                    )
                })
            }
            ModelEvent::ChunkFreed { id } => {
                let rec = chunk_mut(&mut self.chunks, id as usize);
                rec.live = false;
                rec.info.freed_by = op;
                self.live.retain(|&l| l != id);
                self.detail.then(|| {
                    Event::new(
                        EventKind::ChunkFreed,
                        format!("chunk {id} goes back to the base allocator"),
                    )
                })
            }
            ModelEvent::ChunkReused { id } => self.detail.then(|| {
                Event::new(
                    EventKind::ChunkReused,
                    format!("chunk {id}, kept from before, is current again"),
                )
            }),
            ModelEvent::Copied { bytes } => {
                self.copied += bytes;
                self.detail.then(|| {
                    Event::new(EventKind::Copied, format!("{} copied", text::bytes(bytes)))
                })
            }
            ModelEvent::Note(text) => self
                .detail
                .then(|| Event::new(EventKind::Note, text.to_string())),
        }
    }
}
