//! The program's names, interned: every block and checkpoint name is stored
//! once and statements carry its number. A recording of a million ops
//! reuses a few thousand names, so a statement costs four bytes for its
//! name whatever the name's length, and the engine's tables are indexed by
//! number instead of hashing strings.

/// A name's number: its index in [`Names`], in order of first appearance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(pub u32);

impl Name {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Every name of a program, end to end in one string.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    text: String,
    /// Where each name ends in `text`; name `k` starts where `k - 1` ends.
    ends: Vec<u32>,
    /// Open addressing over name numbers plus one (0: empty slot), kept at
    /// most half full; empty once the program is built (see
    /// [`Names::seal`]), when no name is looked up by its text again.
    slots: Vec<u32>,
}

/// FxHash's multiply-rotate over the name's bytes: names are short, and a
/// table of a program's own names needs no defence against collisions. Its
/// low bits depend only on the names' first bytes (`x1`, `x2`, … share
/// them), so the table is indexed by its top bits ([`slot`]).
fn hash(s: &str) -> u64 {
    let mut h = 0u64;
    for chunk in s.as_bytes().chunks(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    h ^ s.len() as u64
}

/// The slot of a name hashed to `h` in a table of `size` (a power of two)
/// slots: the hash's top bits.
fn slot(h: u64, size: usize) -> usize {
    (h >> (64 - size.trailing_zeros())) as usize
}

impl Names {
    /// How many names there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The text of `name`.
    pub fn get(&self, name: Name) -> &str {
        let k = name.index();
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.text[start..self.ends[k] as usize]
    }

    /// Every name in order of number.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len() as u32).map(|k| self.get(Name(k)))
    }

    /// The number of `s`, given it a new one if it has none yet.
    pub fn intern(&mut self, s: &str) -> Name {
        if self.slots.len() < 2 * (self.ends.len() + 1) {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut at = slot(hash(s), self.slots.len());
        loop {
            match self.slots[at] {
                0 => break,
                k if self.get(Name(k - 1)) == s => return Name(k - 1),
                _ => at = (at + 1) & mask,
            }
        }
        let name = Name(self.ends.len() as u32);
        self.text.push_str(s);
        self.ends.push(self.text.len() as u32);
        self.slots[at] = name.0 + 1;
        name
    }

    /// Doubles the lookup table (at least 64 slots) and places every name again.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        let mut slots = vec![0u32; size];
        let mask = size - 1;
        for k in 0..self.ends.len() as u32 {
            let mut at = slot(hash(self.get(Name(k))), size);
            while slots[at] != 0 {
                at = (at + 1) & mask;
            }
            slots[at] = k + 1;
        }
        self.slots = slots;
    }

    /// Drops the lookup table and spare room: what a run keeps is the names
    /// and their ends, about the names' length plus four bytes each.
    pub fn seal(&mut self) {
        self.slots = Vec::new();
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        self.text.capacity() + 4 * (self.ends.capacity() + self.slots.capacity())
    }

    /// The names end to end and where each ends: what [`Names::from_parts`]
    /// takes back.
    pub fn parts(&self) -> (&str, &[u32]) {
        (&self.text, &self.ends)
    }

    /// Names from [`Names::parts`]; `None` unless `ends` rises within
    /// `text` at character boundaries.
    pub fn from_parts(text: String, ends: Vec<u32>) -> Option<Names> {
        let mut start = 0u32;
        for &end in &ends {
            if end < start || end as usize > text.len() || !text.is_char_boundary(end as usize) {
                return None;
            }
            start = end;
        }
        (start as usize == text.len()).then_some(Names {
            text,
            ends,
            slots: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_seen_again_gets_its_first_number() {
        let mut names = Names::default();
        let a = names.intern("a");
        let b = names.intern("b48_1");
        assert_eq!((a, b), (Name(0), Name(1)));
        assert_eq!(names.intern("a"), a);
        assert_eq!(names.get(b), "b48_1");
        // Past the first table's 32 names, every one still finds its number.
        let many: Vec<Name> = (0..1000).map(|k| names.intern(&format!("x{k}"))).collect();
        for (k, n) in many.iter().enumerate() {
            assert_eq!(names.intern(&format!("x{k}")), *n);
            assert_eq!(names.get(*n), format!("x{k}"));
        }
        assert_eq!(names.len(), 1002);
        assert_eq!(names.iter().nth(1), Some("b48_1"));
    }

    #[test]
    fn names_that_differ_only_at_their_end_spread_over_the_table() {
        // 20,000 names `x0`..`x19999`, as a generated program writes them:
        // each found within a few slots of its hash, not after a long run.
        let mut names = Names::default();
        for k in 0..20_000 {
            names.intern(&format!("x{k}"));
        }
        let size = names.slots.len();
        let mut longest = 0;
        for k in 0..20_000u32 {
            let mut at = slot(hash(names.get(Name(k))), size);
            let mut probes = 0;
            while names.slots[at] != k + 1 {
                at = (at + 1) & (size - 1);
                probes += 1;
            }
            longest = longest.max(probes);
        }
        assert!(longest < 64, "a name took {longest} probes");
    }

    #[test]
    fn parts_give_the_same_names_back_and_bad_parts_are_refused() {
        let mut names = Names::default();
        for s in ["a", "bé", "c_1"] {
            names.intern(s);
        }
        let (text, ends) = names.parts();
        let back = Names::from_parts(text.to_string(), ends.to_vec()).unwrap();
        assert_eq!(back.iter().collect::<Vec<_>>(), ["a", "bé", "c_1"]);
        assert!(Names::from_parts("abc".into(), vec![2, 1]).is_none());
        assert!(Names::from_parts("abc".into(), vec![4]).is_none());
        assert!(Names::from_parts("é".into(), vec![1, 2]).is_none());
        assert!(Names::from_parts("abc".into(), vec![2]).is_none());
    }
}
