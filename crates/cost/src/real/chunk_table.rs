//! The real run's chunks, numbered as the model numbers its chunks: the
//! table the crates' adapters read chunk bounds from and the replay places
//! blocks in.

/// The real chunks seen so far: `(start, end, creation index)`. A chunk
/// that disappears (freed) is forgotten, so a later chunk at the same
/// address gets a new index, as the model numbers chunks.
#[derive(Default)]
pub(super) struct ChunkTable {
    live: Vec<(usize, usize, u32)>,
    next: u32,
}

impl ChunkTable {
    pub(super) fn start_of(&self, end: usize) -> Option<usize> {
        self.live.iter().find(|c| c.1 == end).map(|c| c.0)
    }

    pub(super) fn sync(&mut self, now: &[(usize, usize)]) {
        self.live.retain(|c| now.contains(&(c.0, c.1)));
        for &(start, end) in now {
            if !self.live.iter().any(|c| (c.0, c.1) == (start, end)) {
                self.live.push((start, end, self.next));
                self.next += 1;
            }
        }
    }

    /// The chunk holding `size` bytes at `addr`: index, capacity, offset.
    pub(super) fn place(&self, addr: usize, size: usize) -> Option<(u32, u64, u64)> {
        self.live
            .iter()
            .find(|c| c.0 <= addr && addr.saturating_add(size) <= c.1)
            .map(|&(start, end, id)| (id, (end - start) as u64, (addr - start) as u64))
    }
}
