//! A persistent vector whose copies share what neither changes, and which
//! counts the bytes its copy-on-write copies.
//!
//! The engine's tables are these, so a snapshot of the engine (what a
//! columnar run keeps every so many ops, to rebuild any op's details) is a
//! few pointers; what it really costs is what the ops after it copy before
//! writing to a part the snapshot shares. [`copied`] counts those bytes, and
//! the run spaces its snapshots by that count (`crate::run`): a program
//! that rewrites its whole live set every few ops gets fewer snapshots, so
//! snapshots never cost more than a set number of bytes per op.
//!
//! A radix trie of 32-way branches over leaves of 32 elements: `get` and
//! `get_mut` walk its depth (4 levels for a million elements), and `push`
//! and `pop` work at the end.

use std::cell::Cell;
use std::rc::Rc;

const BITS: u32 = 5;
const WIDTH: usize = 1 << BITS;
const MASK: usize = WIDTH - 1;
/// What a node costs beyond its elements: its `Rc` counts, the `Vec`'s
/// header and the allocator's own.
const NODE_OVERHEAD: u64 = 32;

thread_local! {
    static COPIED: Cell<u64> = const { Cell::new(0) };
}

/// Bytes copied by copy-on-write so far on this thread (it only grows).
pub fn copied() -> u64 {
    COPIED.with(Cell::get)
}

/// Counts `bytes` copied for a copy-on-write elsewhere (a table that is not
/// a [`PVec`] but shares its records the same way).
pub fn charge(bytes: u64) {
    COPIED.with(|c| c.set(c.get() + bytes));
}

/// `rc`'s value, to change: copied first (and counted) if another copy shares it.
pub fn make_mut<T: Clone>(rc: &mut Rc<T>) -> &mut T {
    if Rc::strong_count(rc) > 1 {
        charge(size_of::<T>() as u64 + NODE_OVERHEAD);
    }
    Rc::make_mut(rc)
}

#[derive(Clone)]
enum Node<T> {
    Branch(Vec<Rc<Node<T>>>),
    Leaf(Vec<T>),
}

impl<T: Clone> Node<T> {
    /// Bytes a copy of this node takes.
    fn bytes(&self) -> u64 {
        NODE_OVERHEAD
            + match self {
                Node::Branch(c) => (c.len() * size_of::<Rc<Node<T>>>()) as u64,
                Node::Leaf(v) => (v.len() * size_of::<T>()) as u64,
            }
    }
}

/// The node in `rc`, to change: copied first (and counted) if shared.
fn node_mut<T: Clone>(rc: &mut Rc<Node<T>>) -> &mut Node<T> {
    if Rc::strong_count(rc) > 1 {
        charge(rc.bytes());
    }
    Rc::make_mut(rc)
}

/// See the module's documentation.
pub struct PVec<T> {
    root: Option<Rc<Node<T>>>,
    len: usize,
    /// Bits of an index the root's branches take: 0 when the root is a leaf.
    shift: u32,
}

impl<T> Clone for PVec<T> {
    fn clone(&self) -> Self {
        PVec {
            root: self.root.clone(),
            len: self.len,
            shift: self.shift,
        }
    }
}

impl<T> Default for PVec<T> {
    fn default() -> Self {
        PVec {
            root: None,
            len: 0,
            shift: 0,
        }
    }
}

impl<T: Clone> PVec<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Elements a trie of this depth holds.
    fn room(&self) -> usize {
        WIDTH << self.shift
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len {
            return None;
        }
        let mut node = self.root.as_deref()?;
        let mut shift = self.shift;
        loop {
            match node {
                Node::Branch(children) => {
                    node = &children[(i >> shift) & MASK];
                    shift -= BITS;
                }
                Node::Leaf(values) => return values.get(i & MASK),
            }
        }
    }

    /// Element `i`, to change; copies (and counts) the nodes on its path
    /// that another copy of the vector shares.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i >= self.len {
            return None;
        }
        let mut node = node_mut(self.root.as_mut()?);
        let mut shift = self.shift;
        loop {
            match node {
                Node::Branch(children) => {
                    node = node_mut(&mut children[(i >> shift) & MASK]);
                    shift -= BITS;
                }
                Node::Leaf(values) => return values.get_mut(i & MASK),
            }
        }
    }

    /// Sets element `i` (which must exist).
    pub fn set(&mut self, i: usize, v: T) {
        *self.get_mut(i).expect("set within the vector") = v;
    }

    pub fn last(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    pub fn push(&mut self, v: T) {
        if self.root.is_none() {
            self.root = Some(Rc::new(Node::Leaf(Vec::with_capacity(WIDTH))));
        } else if self.len == self.room() {
            let old = self.root.take().expect("checked above");
            self.root = Some(Rc::new(Node::Branch(vec![old])));
            self.shift += BITS;
        }
        let i = self.len;
        let mut node = node_mut(self.root.as_mut().expect("made above"));
        let mut shift = self.shift;
        loop {
            match node {
                Node::Branch(children) => {
                    let k = (i >> shift) & MASK;
                    if k == children.len() {
                        children.push(Rc::new(if shift == BITS {
                            Node::Leaf(Vec::with_capacity(WIDTH))
                        } else {
                            Node::Branch(Vec::new())
                        }));
                    }
                    node = node_mut(&mut children[k]);
                    shift -= BITS;
                }
                Node::Leaf(values) => {
                    values.push(v);
                    break;
                }
            }
        }
        self.len += 1;
    }

    pub fn pop(&mut self) -> Option<T> {
        let i = self.len.checked_sub(1)?;
        let v = pop_from(self.root.as_mut()?, i, self.shift);
        self.len = i;
        if self.len == 0 {
            *self = Self::default();
        } else if self.shift > 0 && self.len <= self.room() >> BITS {
            // The root has one child left: it becomes the root.
            if let Some(Node::Branch(children)) = self.root.as_deref() {
                self.root = children.first().cloned();
                self.shift -= BITS;
            }
        }
        Some(v)
    }

    /// Keeps the first `n` elements.
    pub fn truncate(&mut self, n: usize) {
        while self.len > n {
            self.pop();
        }
    }

    /// Inserts `v` at `i`, moving the elements after it up one: costs the
    /// elements after `i`, so it is for the end of a vector.
    pub fn insert(&mut self, i: usize, v: T) {
        assert!(i <= self.len, "insert within the vector");
        let mut carry = v;
        for k in i..self.len {
            let slot = self.get_mut(k).expect("k < len");
            carry = core::mem::replace(slot, carry);
        }
        self.push(carry);
    }

    /// Removes element `i`, moving the elements after it down one: costs
    /// the elements after `i`, as [`PVec::insert`] does.
    pub fn remove(&mut self, i: usize) -> T {
        assert!(i < self.len, "remove within the vector");
        let mut carry = self.pop().expect("len > i");
        for k in (i..self.len).rev() {
            let slot = self.get_mut(k).expect("k < len");
            carry = core::mem::replace(slot, carry);
        }
        carry
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator + '_ {
        (0..self.len).map(move |i| self.get(i).expect("i < len"))
    }

    /// Bytes the vector's nodes hold (shared or not), about.
    pub fn bytes(&self) -> u64 {
        let leaves = self.len.div_ceil(WIDTH) as u64;
        leaves * (NODE_OVERHEAD + (WIDTH * size_of::<T>()) as u64)
            + leaves.div_ceil(WIDTH as u64 - 1)
                * (NODE_OVERHEAD + (WIDTH * size_of::<usize>()) as u64)
    }
}

/// Removes element `i`, the last, under `rc`, dropping nodes left empty.
fn pop_from<T: Clone>(rc: &mut Rc<Node<T>>, i: usize, shift: u32) -> T {
    match node_mut(rc) {
        Node::Leaf(values) => values.pop().expect("the last element is here"),
        Node::Branch(children) => {
            let k = (i >> shift) & MASK;
            let v = pop_from(&mut children[k], i, shift - BITS);
            if i & ((1 << shift) - 1) == 0 {
                // That was the child's only element.
                children.pop();
            }
            v
        }
    }
}

impl<T: Clone + core::fmt::Debug> core::fmt::Debug for PVec<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Clone> core::ops::Index<usize> for PVec<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("index within the vector")
    }
}

impl<T: Clone> core::ops::IndexMut<usize> for PVec<T> {
    /// Copies (and counts) the shared nodes on the path, as [`PVec::get_mut`].
    fn index_mut(&mut self, i: usize) -> &mut T {
        self.get_mut(i).expect("index within the vector")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_a_vec_through_pushes_pops_sets_inserts_and_removes() {
        let mut p = PVec::new();
        let mut v = Vec::new();
        // splitmix-style steps: deterministic and varied.
        let mut x = 12345u64;
        for round in 0..40_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (x >> 33) as usize;
            match r % 10 {
                0..=4 => {
                    p.push(round);
                    v.push(round);
                }
                5 | 6 if !v.is_empty() => {
                    assert_eq!(p.pop(), v.pop());
                }
                7 if !v.is_empty() => {
                    let i = r % v.len();
                    p.set(i, round);
                    v[i] = round;
                }
                8 if !v.is_empty() => {
                    let i = v.len() - 1 - r % v.len().min(40);
                    assert_eq!(p.remove(i), v.remove(i));
                }
                9 => {
                    let i = v.len() - r % (v.len().min(40) + 1);
                    p.insert(i, round);
                    v.insert(i, round);
                }
                _ => {}
            }
            assert_eq!(p.len(), v.len());
            if round % 997 == 0 {
                assert!(p.iter().eq(v.iter()));
            }
        }
        assert!(p.iter().eq(v.iter()));
        while let Some(x) = v.pop() {
            assert_eq!(p.pop(), Some(x));
        }
        assert!(p.is_empty() && p.pop().is_none());
    }

    #[test]
    fn a_copy_keeps_its_values_and_writes_after_it_count_the_path_they_copy() {
        let mut p = PVec::new();
        for k in 0..10_000u64 {
            p.push(k);
        }
        let snapshot = p.clone();
        let before = copied();
        p.set(5000, 0);
        // A leaf of 32 u64s and the two branches above it: a full one, and
        // the root's 10 (for 10,000 elements, 1,024 a branch).
        let one_write = copied() - before;
        let ptr = size_of::<usize>() as u64;
        assert_eq!(one_write, (32 * 8 + 32) + (32 * ptr + 32) + (10 * ptr + 32));
        // Writing the same leaf again copies nothing more.
        p.set(5001, 0);
        assert_eq!(copied() - before, one_write);
        assert_eq!(snapshot.get(5000), Some(&5000));
        assert_eq!(p.get(5000), Some(&0));
        // Nothing shared: no copies at all.
        drop(snapshot);
        let before = copied();
        p.set(9, 1);
        p.push(1);
        assert_eq!(copied(), before);
    }
}
