//! Finding ```` ```bumplab ```` fences in a chapter's Markdown, as
//! CommonMark reads fences: an opening run of three or more backticks or
//! tildes indented at most three spaces, closed by a run of the same
//! character at least as long. Every other fence is stepped over whole, so
//! a fence shown as an example inside a longer one stays an example.

/// A Bump Lab fence found in the text.
pub struct Found {
    /// Its info string, as written after the backticks.
    pub info: String,
    /// Its body, the opening fence's indentation taken off each line.
    pub body: String,
    /// 1-based line of the opening fence in the chapter.
    pub line: usize,
    /// 1-based column where the info string starts on that line.
    pub info_column: u32,
    /// The opening fence's indentation (its body's lines lose as much).
    pub indent: u32,
}

struct Open {
    indent: usize,
    ch: char,
    len: usize,
    info: String,
    info_column: usize,
}

fn opening(line: &str) -> Option<Open> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.chars().take_while(|c| *c == ch).count();
    if len < 3 {
        return None;
    }
    let after = &rest[len..];
    if ch == '`' && after.contains('`') {
        return None;
    }
    let info = after.trim();
    let info_column = indent + len + (after.len() - after.trim_start().len()) + 1;
    Some(Open {
        indent,
        ch,
        len,
        info: info.to_string(),
        info_column,
    })
}

fn closes(line: &str, open: &Open) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let rest = line[indent..].trim_end();
    rest.len() >= open.len && rest.chars().all(|c| c == open.ch)
}

/// The text with each Bump Lab fence replaced by `html(fence)`, set apart by blank lines.
pub fn replace_fences(text: &str, mut html: impl FnMut(&Found) -> String) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end_matches(['\n', '\r']);
        let Some(open) = opening(line) else {
            out.push_str(lines[i]);
            i += 1;
            continue;
        };
        let start = i;
        let mut end = i + 1;
        while end < lines.len() && !closes(lines[end].trim_end_matches(['\n', '\r']), &open) {
            end += 1;
        }
        // An unclosed fence runs to the end of the chapter, as CommonMark has it.
        let after = (end + 1).min(lines.len());
        if !bumplab_fence::is_bumplab(&open.info) {
            for l in &lines[start..after] {
                out.push_str(l);
            }
            i = after;
            continue;
        }
        let body: String = lines[start + 1..end.min(lines.len())]
            .iter()
            .map(|l| {
                let spaces = l.len() - l.trim_start_matches(' ').len();
                &l[spaces.min(open.indent)..]
            })
            .map(|l| l.trim_end_matches(['\n', '\r']).to_string() + "\n")
            .collect();
        let found = Found {
            info: open.info.clone(),
            body,
            line: start + 1,
            info_column: open.info_column as u32,
            indent: open.indent as u32,
        };
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
        }
        out.push_str(&html(&found));
        out.push('\n');
        i = after;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fences(text: &str) -> Vec<(String, String, usize, u32)> {
        let mut seen = Vec::new();
        replace_fences(text, |f| {
            seen.push((f.info.clone(), f.body.clone(), f.line, f.info_column));
            String::new()
        });
        seen
    }

    #[test]
    fn fences_are_found_as_commonmark_reads_them() {
        let text = "# T\n\n  ```bumplab step=1\n  a = alloc 8\n   b = alloc 8\n  ```\n\n~~~~ bumplab\nc = alloc 1\n~~~~~\n";
        assert_eq!(
            fences(text),
            vec![
                (
                    "bumplab step=1".into(),
                    "a = alloc 8\n b = alloc 8\n".into(),
                    3,
                    6
                ),
                ("bumplab".into(), "c = alloc 1\n".into(), 8, 6),
            ]
        );
    }

    #[test]
    fn a_fence_inside_another_and_other_languages_are_left_alone() {
        let text = "````markdown\n```bumplab\na = alloc 8\n```\n````\n\n```rust\nlet x = 1;\n```\n    ```bumplab\n";
        assert!(fences(text).is_empty());
        assert_eq!(replace_fences(text, |_| "X".into()), text);
    }

    #[test]
    fn the_html_replaces_the_fence_as_a_block_of_its_own() {
        let out = replace_fences("Text\n```bumplab\na = alloc 8\n```\nMore\n", |_| {
            "<div>\n</div>\n".into()
        });
        assert_eq!(out, "Text\n\n<div>\n</div>\n\nMore\n");
        // Unclosed: to the end.
        assert_eq!(fences("```bumplab\na = alloc 8\n").len(), 1);
    }
}
