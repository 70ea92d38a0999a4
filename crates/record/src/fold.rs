//! Folds runs of statements that repeat exactly into `repeat N { ... }`.
//!
//! A recorded loop that allocates and frees the same sizes each time writes
//! the same lines each time (block names come back once their blocks are
//! gone), so its text is a run of one period repeated. Folding it keeps the
//! program small and shows the loop to the reader. A folded program expands to
//! exactly the statements it was folded from: nothing is approximated.
//!
//! Lines and folded runs are interned as numbers, so comparing two candidate
//! periods is comparing slices of `u32`. A pass walks the sequence left to
//! right and, at each position, takes the period whose repetition saves the
//! most lines; the body of a new `repeat` is folded in turn, and passes repeat
//! until nothing changes, which finds loops inside loops.

use std::collections::HashMap;

/// The language's limit on nested `repeat`s (bumplab-core's
/// `MAX_REPEAT_DEPTH`).
pub const MAX_DEPTH: u32 = 8;

/// The longest loop body looked for, in items: bounds the work per position
/// (each candidate period costs one comparison where nothing repeats).
const MAX_PERIOD: usize = 1024;

#[derive(Clone, PartialEq, Eq, Hash)]
enum Node {
    Line(u32),
    Repeat { count: u64, body: Vec<u32> },
}

struct Table {
    nodes: Vec<Node>,
    ids: HashMap<Node, u32>,
    /// Lines of text each node prints as (a repeat adds its two brace lines).
    lines: Vec<u64>,
    /// How deep the repeats inside each node nest (a line: 0).
    nesting: Vec<u32>,
}

impl Table {
    fn intern(&mut self, node: Node) -> u32 {
        if let Some(&id) = self.ids.get(&node) {
            return id;
        }
        let (lines, nesting) = match &node {
            Node::Line(_) => (1, 0),
            Node::Repeat { body, .. } => (
                2 + body.iter().map(|&b| self.lines[b as usize]).sum::<u64>(),
                1 + body
                    .iter()
                    .map(|&b| self.nesting[b as usize])
                    .max()
                    .unwrap_or(0),
            ),
        };
        let id = self.nodes.len() as u32;
        self.nodes.push(node.clone());
        self.ids.insert(node, id);
        self.lines.push(lines);
        self.nesting.push(nesting);
        id
    }

    /// One pass over `seq` at nesting `depth` (0: the program's top level).
    fn pass(&mut self, seq: &[u32], depth: u32) -> Vec<u32> {
        // next[i]: the next position holding the same item as i. A period
        // can only start a repetition where its first item comes back, so
        // following this chain skips every period that cannot.
        let mut next = vec![usize::MAX; seq.len()];
        let mut seen: HashMap<u32, usize> = HashMap::new();
        for (i, &item) in seq.iter().enumerate().rev() {
            if let Some(j) = seen.insert(item, i) {
                next[i] = j;
            }
        }
        let mut out = Vec::with_capacity(seq.len());
        let mut i = 0;
        while i < seq.len() {
            match self.best_run(seq, &next, i, depth) {
                Some((period, count)) => {
                    let body = self.fold(&seq[i..i + period], depth + 1);
                    out.push(self.intern(Node::Repeat { count, body }));
                    i += period * count as usize;
                }
                None => {
                    out.push(seq[i]);
                    i += 1;
                }
            }
        }
        out
    }

    /// The (period, count) of the repetition starting at `i` that saves the
    /// most lines, if any saves at least one and may nest here.
    fn best_run(&self, seq: &[u32], next: &[usize], i: usize, depth: u32) -> Option<(usize, u64)> {
        let longest = ((seq.len() - i) / 2).min(MAX_PERIOD);
        let mut best: Option<(usize, u64)> = None;
        let mut best_saved = 0u64;
        let mut j = next[i];
        while j != usize::MAX && j - i <= longest {
            let period = j - i;
            j = next[j];
            let body = &seq[i..i + period];
            let mut count = 1u64;
            let mut at = i + period;
            while at + period <= seq.len() && seq[at..at + period] == *body {
                count += 1;
                at += period;
            }
            if count < 2 {
                continue;
            }
            let nesting = 1 + body
                .iter()
                .map(|&b| self.nesting[b as usize])
                .max()
                .unwrap_or(0);
            if depth + nesting > MAX_DEPTH {
                continue;
            }
            let body_lines: u64 = body.iter().map(|&b| self.lines[b as usize]).sum();
            // Folding prints the body once plus `repeat N {` and `}`.
            let saved = (count - 1) * body_lines;
            if saved > 2 && saved - 2 > best_saved {
                best_saved = saved - 2;
                best = Some((period, count));
            }
        }
        best
    }

    /// Folds `seq` until a pass changes nothing.
    fn fold(&mut self, seq: &[u32], depth: u32) -> Vec<u32> {
        let mut seq = seq.to_vec();
        loop {
            let next = self.pass(&seq, depth);
            if next.len() == seq.len() {
                return next;
            }
            seq = next;
        }
    }

    fn render(&self, id: u32, indent: usize, lines: &[String], out: &mut String) {
        match &self.nodes[id as usize] {
            Node::Line(l) => {
                push_indent(out, indent);
                out.push_str(&lines[*l as usize]);
                out.push('\n');
            }
            Node::Repeat { count, body } => {
                push_indent(out, indent);
                out.push_str(&format!("repeat {count} {{\n"));
                for &b in body {
                    self.render(b, indent + 1, lines, out);
                }
                push_indent(out, indent);
                out.push_str("}\n");
            }
        }
    }
}

fn push_indent(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push_str("  ");
    }
}

/// The statements `lines` (one op each, in order) as program text, with runs
/// that repeat exactly folded into `repeat` blocks nested at most
/// [`MAX_DEPTH`] deep. Each line ends with a newline.
pub fn fold(lines: &[String]) -> String {
    let mut table = Table {
        nodes: Vec::new(),
        ids: HashMap::new(),
        lines: Vec::new(),
        nesting: Vec::new(),
    };
    // Equal lines share a number, so equal runs compare equal.
    let mut line_ids: HashMap<&str, u32> = HashMap::new();
    let mut unique: Vec<String> = Vec::new();
    let seq: Vec<u32> = lines
        .iter()
        .map(|l| {
            let n = *line_ids.entry(l.as_str()).or_insert_with(|| {
                unique.push(l.clone());
                unique.len() as u32 - 1
            });
            table.intern(Node::Line(n))
        })
        .collect();
    let folded = table.fold(&seq, 0);
    let mut out = String::new();
    for id in folded {
        table.render(id, 0, &unique, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_run_of_one_line_folds_to_one_repeat() {
        assert_eq!(fold(&lines("x x x x x")), "repeat 5 {\n  x\n}\n");
    }

    #[test]
    fn folds_only_when_the_text_gets_shorter() {
        // Twice a two-line body: 4 lines either way, so it stays unfolded.
        assert_eq!(fold(&lines("a b a b")), "a\nb\na\nb\n");
        assert_eq!(fold(&lines("a b a b a b")), "repeat 3 {\n  a\n  b\n}\n");
    }

    #[test]
    fn finds_loops_inside_loops() {
        let one = "a b b b b c";
        let text = fold(&lines(&[one; 3].join(" ")));
        assert_eq!(text, "repeat 3 {\n  a\n  repeat 4 {\n    b\n  }\n  c\n}\n");
    }

    #[test]
    fn keeps_what_does_not_repeat_around_a_run() {
        assert_eq!(
            fold(&lines("s x y x y x y t")),
            "s\nrepeat 3 {\n  x\n  y\n}\nt\n"
        );
    }

    /// Expands folded text back into its lines (the tests' own reading of
    /// the three shapes `fold` prints).
    fn expand(text: &str) -> Vec<String> {
        fn block<'a>(it: &mut impl Iterator<Item = &'a str>, out: &mut Vec<String>) {
            while let Some(line) = it.next() {
                let line = line.trim();
                if line == "}" {
                    return;
                }
                if let Some(n) = line
                    .strip_prefix("repeat ")
                    .and_then(|r| r.strip_suffix(" {"))
                {
                    let mut body = Vec::new();
                    block(it, &mut body);
                    for _ in 0..n.parse::<u64>().unwrap() {
                        out.extend(body.iter().cloned());
                    }
                } else {
                    out.push(line.to_string());
                }
            }
        }
        let mut out = Vec::new();
        block(&mut text.lines(), &mut out);
        out
    }

    #[test]
    fn nests_at_most_eight_deep_and_expands_to_what_it_folded() {
        // Level k wraps three copies of level k-1 in its own two lines, so
        // folding everything would nest ten repeats deep.
        let mut level = vec!["x".to_string()];
        for k in 1..=9 {
            let mut next = vec![format!("open{k}")];
            for _ in 0..3 {
                next.extend(level.iter().cloned());
            }
            next.push(format!("close{k}"));
            level = next;
        }
        let all: Vec<String> = (0..3).flat_map(|_| level.iter().cloned()).collect();
        let text = fold(&all);
        let depth = text
            .lines()
            .filter(|l| l.trim_start().starts_with("repeat"))
            .map(|l| (l.len() - l.trim_start().len()) / 2 + 1)
            .max();
        assert_eq!(depth, Some(MAX_DEPTH as usize), "{text}");
        assert_eq!(expand(&text), all);
        assert!(text.lines().count() < 100, "{} lines", text.lines().count());
    }
}
