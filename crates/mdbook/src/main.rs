//! `mdbook-bumplab`: an mdBook preprocessor for ```` ```bumplab ```` fences.
//!
//! ```toml
//! # book.toml
//! [preprocessor.bumplab]
//! site = "bump-lab/"      # where the book serves Bump Lab's dist/ (relative to the book's root, or a URL)
//! fallback-svg = false    # true: run `bumplab figure` for each fence and show its SVG where scripts do not run
//! figure-command = "bumplab"  # what runs `bumplab figure` (npx bumplab, a path); mdBook itself reads `command`
//! ```
//!
//! mdBook runs the preprocessor as `mdbook-bumplab supports RENDERER`, then
//! with `[context, book]` as JSON on standard input, and reads the book back
//! from standard output. The book is walked as JSON, not through mdBook's
//! own crate: every chapter's `content` is rewritten and everything else is
//! passed through as it came, so the preprocessor builds in seconds and does
//! not depend on one mdBook release's types.

mod markdown;

use serde_json::Value;
use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("supports") {
        // The figures are HTML: other renderers (a PDF, a linter) get the fences as they are.
        return if args.get(1).map(String::as_str) == Some("html") {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    if !args.is_empty() {
        eprintln!("usage: mdbook-bumplab [supports RENDERER] (mdBook runs it; see book.toml's [preprocessor.bumplab])");
        return ExitCode::from(2);
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("mdbook-bumplab: cannot read mdBook's input: {e}");
        return ExitCode::FAILURE;
    }
    match run(&input) {
        Ok((book, warnings)) => {
            for w in &warnings {
                eprintln!("mdbook-bumplab: {w}");
            }
            let mut out = std::io::stdout().lock();
            let written = serde_json::to_writer(&mut out, &book).is_ok() && out.flush().is_ok();
            if !written {
                eprintln!("mdbook-bumplab: cannot write the book back to mdBook");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mdbook-bumplab: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The preprocessor's settings from book.toml.
struct Config {
    site: String,
    fallback_svg: bool,
    command: String,
}

fn config(context: &Value) -> Result<Config, String> {
    let table = context.pointer("/config/preprocessor/bumplab");
    let text = |key: &str, default: &str| -> Result<String, String> {
        match table.and_then(|t| t.get(key)) {
            None => Ok(default.to_string()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(format!(
                "book.toml: preprocessor.bumplab.{key} must be a string, not {other}"
            )),
        }
    };
    let mut site = text("site", "bump-lab/")?;
    if !site.ends_with('/') {
        site.push('/');
    }
    let fallback_svg = match table.and_then(|t| t.get("fallback-svg")) {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "book.toml: preprocessor.bumplab.fallback-svg must be true or false, not {other}"
            ))
        }
    };
    Ok(Config {
        site,
        fallback_svg,
        command: text("figure-command", "bumplab")?,
    })
}

fn run(input: &str) -> Result<(Value, Vec<String>), String> {
    let value: Value =
        serde_json::from_str(input).map_err(|e| format!("mdBook's input is not JSON: {e}"))?;
    let Value::Array(mut pair) = value else {
        return Err("mdBook's input is not [context, book]".into());
    };
    if pair.len() != 2 {
        return Err("mdBook's input is not [context, book]".into());
    }
    let mut book = pair.pop().expect("two items");
    let context = pair.pop().expect("two items");
    let cfg = config(&context)?;
    let mut warnings = Vec::new();
    chapters(&mut book, &mut |chapter| {
        rewrite(chapter, &cfg, &mut warnings)
    })?;
    Ok((book, warnings))
}

/// What is done to each chapter object.
type ChapterFn<'a> = dyn FnMut(&mut serde_json::Map<String, Value>) -> Result<(), String> + 'a;

/// Calls `f` on every chapter object (`{"Chapter": {...}}`'s value) in the book, sub-chapters included.
fn chapters(v: &mut Value, f: &mut ChapterFn<'_>) -> Result<(), String> {
    match v {
        Value::Object(map) => {
            if let Some(Value::Object(chapter)) = map.get_mut("Chapter") {
                f(chapter)?;
            }
            for (_, child) in map.iter_mut() {
                chapters(child, f)?;
            }
        }
        Value::Array(items) => {
            for item in items {
                chapters(item, f)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn rewrite(
    chapter: &mut serde_json::Map<String, Value>,
    cfg: &Config,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    let Some(Value::String(content)) = chapter.get("content") else {
        return Ok(());
    };
    let path = chapter
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let source = chapter
        .get("source_path")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| path.clone());
    let base = relative_base(&cfg.site, &path);
    let mut script = true;
    let rewritten = markdown::replace_fences(content, |fence| {
        let svg = if cfg.fallback_svg {
            match bumplab_fence::check(&fence.info, &fence.body) {
                Ok(f) => match figure_svg(&cfg.command, &f, &base) {
                    Ok(svg) => Some(svg),
                    Err(e) => {
                        warnings.push(format!("{source}:{}: no static figure: {e}", fence.line));
                        None
                    }
                },
                Err(_) => None,
            }
        } else {
            None
        };
        let out = bumplab_fence::Output {
            base: base.clone(),
            script,
            fallback_svg: svg,
        };
        match bumplab_fence::render(&fence.info, &fence.body, &out) {
            Ok(html) => {
                script = false;
                html
            }
            Err((e, html)) => {
                let at = match &e {
                    bumplab_fence::FenceError::Info { column, message } => {
                        format!(
                            "{source}:{}:{}: {message}",
                            fence.line,
                            fence.info_column + column - 1
                        )
                    }
                    bumplab_fence::FenceError::Program {
                        line,
                        column,
                        message,
                    } => {
                        format!(
                            "{source}:{}:{}: {message}",
                            fence.line + *line as usize,
                            fence.indent + column
                        )
                    }
                };
                warnings.push(at);
                html
            }
        }
    });
    chapter.insert("content".into(), Value::String(rewritten));
    Ok(())
}

/// The site's URL as seen from the chapter at `path` ("guide/arena.md"):
/// a relative site gets one `../` per folder, since each chapter's page
/// sits at its own depth.
fn relative_base(site: &str, path: &str) -> String {
    if site.starts_with('/') || site.contains("://") {
        return site.to_string();
    }
    let depth = path.matches('/').count();
    format!("{}{site}", "../".repeat(depth))
}

/// `bumplab figure` run on the fence's program and settings, its SVG on standard output.
fn figure_svg(command: &str, f: &bumplab_fence::Fence, site: &str) -> Result<String, String> {
    let mut words = command.split_whitespace();
    let program = words
        .next()
        .ok_or("preprocessor.bumplab.figure-command is empty")?;
    let s = &f.settings;
    let mut args: Vec<String> = words.map(str::to_string).collect();
    args.extend([
        "figure".into(),
        "-".into(),
        "--allocator".into(),
        s.allocator.clone(),
        "--target".into(),
        s.target.clone(),
    ]);
    args.extend([
        "--step".into(),
        f.step().to_string(),
        "--svg".into(),
        "-".into(),
        "--site".into(),
        site.to_string(),
    ]);
    if let Some(c) = s.capacity {
        args.extend(["--capacity".into(), c.to_string()]);
    }
    if let Some(m) = s.min_align {
        args.extend(["--min-align".into(), m.to_string()]);
    }
    if !s.compare.is_empty() {
        let cols: Vec<String> = s
            .compare
            .iter()
            .map(|c| {
                let d = |n: Option<u64>| n.map_or("-".to_string(), |n| n.to_string());
                format!(
                    "{}:{}:{}:{}",
                    c.allocator,
                    c.target,
                    d(c.min_align),
                    d(c.capacity)
                )
            })
            .collect();
        args.extend(["--compare".into(), cols.join(",")]);
    }
    if let Some(c) = &s.caption {
        args.extend(["--caption".into(), c.clone()]);
    }
    let mut child = Command::new(program)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(f.program.as_bytes())
        .map_err(|e| format!("cannot give `{command}` the program: {e}"))?;
    let out = child
        .wait_with_output()
        .map_err(|e| format!("`{command}` did not finish: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`{command} figure` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("`{command} figure` wrote no UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_site_is_found_from_each_chapter_depth() {
        assert_eq!(relative_base("bump-lab/", "intro.md"), "bump-lab/");
        assert_eq!(relative_base("bump-lab/", "guide/arena.md"), "../bump-lab/");
        assert_eq!(
            relative_base("/static/bl/", "guide/arena.md"),
            "/static/bl/"
        );
    }

    #[test]
    fn every_chapter_is_rewritten_and_the_rest_passed_through() {
        let input = serde_json::json!([
            {"root": "/book", "config": {"preprocessor": {"bumplab": {"site": "bl"}}}, "renderer": "html", "mdbook_version": "0.5.4"},
            {"items": [
                {"Chapter": {"name": "A", "content": "# A\n\n```bumplab step=1\na = alloc 8\n```\n", "path": "a.md", "source_path": "a.md", "sub_items": [
                    {"Chapter": {"name": "B", "content": "```bumplab stp=1\na = alloc 8\n```\n", "path": "x/b.md", "source_path": "x/b.md", "sub_items": []}}
                ]}},
                "Separator"
            ], "__non_exhaustive": null}
        ]);
        let (book, warnings) = run(&input.to_string()).unwrap();
        let a = book
            .pointer("/items/0/Chapter/content")
            .unwrap()
            .as_str()
            .unwrap();
        assert!(
            a.contains("<script type=\"module\" src=\"bl/bump-lab.js\"></script>"),
            "{a}"
        );
        assert!(
            a.contains("<bump-lab program=\"a = alloc 8\" allocator=\"bumpalo\""),
            "{a}"
        );
        let b = book
            .pointer("/items/0/Chapter/sub_items/0/Chapter/content")
            .unwrap()
            .as_str()
            .unwrap();
        assert!(b.contains("unknown setting &#39;stp&#39;"), "{b}");
        assert_eq!(warnings, vec!["x/b.md:1:12: unknown setting 'stp': a fence takes allocator, target, capacity, min-align, step, compare, figure, live, caption, height, theme".to_string()]);
        assert_eq!(book.pointer("/items/1").unwrap(), "Separator");
        assert!(book.get("__non_exhaustive").is_some());
    }
}
