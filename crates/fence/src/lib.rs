//! The `bumplab` code fence: a program of allocation ops written where a
//! post or a book is written, shown as a live figure where a plugin runs and
//! as the program itself where none does.
//!
//! ````markdown
//! ```bumplab allocator=bumpalo step=2 caption="b lands below a"
//! a = alloc 8
//! b = alloc u64
//! ```
//! ````
//!
//! The fence's body is the program; its info string (after the word
//! `bumplab`) holds the settings as `key=value` words, a value with spaces
//! in double quotes (`\"` and `\\` inside them). This crate is the one
//! parser of that string: the mdBook preprocessor (crates/mdbook) calls it
//! natively, and the markdown-it and remark plugins (web/cli/fence.mjs) call
//! it through the trace wasm module, so the three integrations write the same
//! HTML for the same fence.
//!
//! The HTML is a `<bump-lab>` element (the web component in dist/bump-lab.js)
//! inside a `<div>` that reserves the figure's height, with a link to the
//! same view in the app as the element's fallback: it shows where scripts do
//! not run. It holds no blank line, so a Markdown renderer that reads it
//! back (mdBook does) keeps it one HTML block.

use bumplab_core::engine::request;
use bumplab_core::Run;

/// The height a figure reserves when the fence names none, in CSS pixels:
/// a figure of a few chunks' rows with its caption.
pub const DEFAULT_HEIGHT: u32 = 320;
/// The tallest height a fence may reserve.
pub const MAX_HEIGHT: u32 = 4000;
/// Compare shows two to four columns.
pub const MIN_COMPARE: usize = 2;
pub const MAX_COMPARE: usize = 4;
/// The share link's limits (web/src/share/link.ts).
const MAX_CAPACITY: u64 = 1 << 30;
const MAX_MIN_ALIGN: u64 = 4096;
const MAX_STEP: u64 = 10_000_000;

/// A compare column: an allocator and, where given, its own settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub allocator: String,
    pub target: String,
    pub min_align: Option<u64>,
    pub capacity: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
    Auto,
}

/// What a fence's info string says, each setting checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub allocator: String,
    pub target: String,
    pub capacity: Option<u64>,
    pub min_align: Option<u64>,
    /// The op shown; `None`: the program's last.
    pub step: Option<u64>,
    /// Compare's columns (the first is `allocator`'s), or empty.
    pub compare: Vec<Column>,
    /// A read-only figure (the default) or the interactive player (`live`).
    pub figure: bool,
    pub caption: Option<String>,
    /// The height reserved for the figure, in CSS pixels.
    pub height: u32,
    pub theme: Option<Theme>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            allocator: "bumpalo".into(),
            target: "64".into(),
            capacity: None,
            min_align: None,
            step: None,
            compare: Vec::new(),
            figure: true,
            caption: None,
            height: DEFAULT_HEIGHT,
            theme: None,
        }
    }
}

/// Where a fence is wrong: in its info string (a 1-based column of the
/// string as written after the backticks) or in its body (a 1-based line
/// and column of the program).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenceError {
    Info {
        column: u32,
        message: String,
    },
    Program {
        line: u32,
        column: u32,
        message: String,
    },
}

impl std::fmt::Display for FenceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FenceError::Info { column, message } => {
                write!(f, "info string, column {column}: {message}")
            }
            FenceError::Program {
                line,
                column,
                message,
            } => write!(f, "program line {line}, column {column}: {message}"),
        }
    }
}

/// The fence's language word: an info string whose first word is this is a Bump Lab fence.
pub const LANGUAGE: &str = "bumplab";

/// Whether an info string (as written after the backticks) opens a Bump Lab fence.
pub fn is_bumplab(info: &str) -> bool {
    info.split_whitespace().next() == Some(LANGUAGE)
}

/// The keys a fence takes, for error messages.
const KEYS: &str =
    "allocator, target, capacity, min-align, step, compare, figure, live, caption, height, theme";

/// One `key=value` (or bare `key`) word of the info string, with the column it starts at.
struct Word {
    column: u32,
    key: String,
    value: Option<String>,
    /// Column where the value starts (for its errors).
    value_column: u32,
}

fn info_err(column: u32, message: impl Into<String>) -> FenceError {
    FenceError::Info {
        column,
        message: message.into(),
    }
}

/// Splits the info string into words, quotes understood.
fn words(info: &str, offset: u32) -> Result<Vec<Word>, FenceError> {
    let chars: Vec<char> = info.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let col = |i: usize| offset + (i + 1) as u32;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let mut key = String::new();
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '=' {
            if chars[i] == '"' {
                return Err(info_err(
                    col(i),
                    "a quote may only start a value (key=\"value\")",
                ));
            }
            key.push(chars[i]);
            i += 1;
        }
        if i < chars.len() && chars[i] == '=' {
            i += 1;
            let value_start = i;
            let mut value = String::new();
            if i < chars.len() && chars[i] == '"' {
                i += 1;
                loop {
                    match chars.get(i) {
                        None => {
                            return Err(info_err(
                                col(value_start),
                                "this quoted value has no closing quote",
                            ))
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some('\\') => match chars.get(i + 1) {
                            Some(c @ ('"' | '\\')) => {
                                value.push(*c);
                                i += 2;
                            }
                            _ => {
                                return Err(info_err(
                                    col(i),
                                    "inside quotes a backslash escapes only \" or \\",
                                ))
                            }
                        },
                        Some(c) => {
                            value.push(*c);
                            i += 1;
                        }
                    }
                }
                if i < chars.len() && !chars[i].is_whitespace() {
                    return Err(info_err(col(i), "a space must follow a quoted value"));
                }
            } else {
                while i < chars.len() && !chars[i].is_whitespace() {
                    if chars[i] == '"' {
                        return Err(info_err(
                            col(i),
                            "a value with a quote in it must be quoted as a whole",
                        ));
                    }
                    value.push(chars[i]);
                    i += 1;
                }
            }
            out.push(Word {
                column: col(start),
                key,
                value: Some(value),
                value_column: col(value_start),
            });
        } else {
            out.push(Word {
                column: col(start),
                key,
                value: None,
                value_column: col(i),
            });
        }
    }
    Ok(out)
}

fn whole(w: &Word, v: &str, min: u64, max: u64, what: &str) -> Result<u64, FenceError> {
    let n = if let Some(hex) = v.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok()
    } else if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        v.parse::<u64>().ok()
    } else {
        None
    };
    match n {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(info_err(
            w.value_column,
            format!("{} takes {what} from {min} to {max}, not '{v}'", w.key),
        )),
    }
}

fn power_of_two(w: &Word, v: &str) -> Result<u64, FenceError> {
    let n = whole(w, v, 1, MAX_MIN_ALIGN, "a power of two")?;
    if !n.is_power_of_two() {
        return Err(info_err(
            w.value_column,
            format!("min-align must be a power of two, not {n}"),
        ));
    }
    Ok(n)
}

fn check_target(w: &Word, column: u32, t: &str) -> Result<String, FenceError> {
    match t {
        "64" | "wasm32" => Ok(t.to_string()),
        _ => Err(info_err(
            column,
            format!("{} must be 64 or wasm32, not '{t}'", w.key),
        )),
    }
}

fn check_allocator(column: u32, name: &str) -> Result<String, FenceError> {
    // The engine's own check, so the message lists the allocators it has.
    request(name, "64", None, None, None)
        .map(|_| name.to_string())
        .map_err(|e| info_err(column, e.message))
}

fn flag(w: &Word) -> Result<bool, FenceError> {
    match w.value.as_deref() {
        None | Some("yes" | "true" | "on" | "1") => Ok(true),
        Some("no" | "false" | "off" | "0") => Ok(false),
        Some(v) => Err(info_err(
            w.value_column,
            format!("{} is yes or no, not '{v}'", w.key),
        )),
    }
}

/// The settings an info string holds (`bumplab` and what follows it).
pub fn parse_info(info: &str) -> Result<Settings, FenceError> {
    let trimmed = info.trim_start();
    let lead = (info.chars().count() - trimmed.chars().count()) as u32;
    let Some(rest) = trimmed.strip_prefix(LANGUAGE) else {
        return Err(info_err(
            lead + 1,
            format!("a Bump Lab fence's info string starts with `{LANGUAGE}`"),
        ));
    };
    if rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
        return Err(info_err(
            lead + 1,
            format!("a Bump Lab fence's info string starts with the word `{LANGUAGE}`"),
        ));
    }
    let offset = lead + LANGUAGE.len() as u32;
    let mut s = Settings::default();
    let mut seen: Vec<String> = Vec::new();
    let mut compare_words: Option<(u32, String)> = None;
    for w in words(rest, offset)? {
        if seen.contains(&w.key) {
            return Err(info_err(w.column, format!("{} is given twice", w.key)));
        }
        seen.push(w.key.clone());
        let needs = |w: &Word| -> Result<String, FenceError> {
            w.value
                .clone()
                .ok_or_else(|| info_err(w.column, format!("{} needs a value ({}=…)", w.key, w.key)))
        };
        match w.key.as_str() {
            "allocator" => s.allocator = check_allocator(w.value_column, &needs(&w)?)?,
            "target" => s.target = check_target(&w, w.value_column, &needs(&w)?)?,
            "capacity" => {
                s.capacity = Some(whole(
                    &w,
                    &needs(&w)?,
                    1,
                    MAX_CAPACITY,
                    "a whole number of bytes",
                )?)
            }
            "min-align" => s.min_align = Some(power_of_two(&w, &needs(&w)?)?),
            "step" => s.step = Some(whole(&w, &needs(&w)?, 0, MAX_STEP, "an op number")?),
            "compare" => compare_words = Some((w.value_column, needs(&w)?)),
            "figure" => s.figure = flag(&w)?,
            "live" => s.figure = !flag(&w)?,
            "caption" => {
                let c = needs(&w)?;
                s.caption = (!c.trim().is_empty()).then(|| c.trim().to_string());
            }
            "height" => {
                s.height =
                    whole(&w, &needs(&w)?, 80, MAX_HEIGHT as u64, "a height in pixels")? as u32
            }
            "theme" => {
                s.theme = Some(match needs(&w)?.as_str() {
                    "light" => Theme::Light,
                    "dark" => Theme::Dark,
                    "auto" => Theme::Auto,
                    other => {
                        return Err(info_err(
                            w.value_column,
                            format!("theme is light, dark or auto, not '{other}'"),
                        ))
                    }
                })
            }
            "" => return Err(info_err(w.column, "a setting needs a name before its '='")),
            other => {
                return Err(info_err(
                    w.column,
                    format!("unknown setting '{other}': a fence takes {KEYS}"),
                ))
            }
        }
    }
    if let Some((column, text)) = compare_words {
        s.compare = parse_compare(column, &text, &s)?;
        if let Some(first) = s.compare.first() {
            if !seen.iter().any(|k| k == "allocator") {
                s.allocator = first.allocator.clone();
            }
        }
    }
    Ok(s)
}

/// `bumpalo,bump-scope-up:wasm32:8:4096`: each column an allocator and,
/// after colons, its target, minimum alignment and capacity (`-` or nothing
/// for the fence's own).
fn parse_compare(column: u32, text: &str, s: &Settings) -> Result<Vec<Column>, FenceError> {
    let mut out = Vec::new();
    let mut at = column;
    let cols: Vec<&str> = text.split(',').collect();
    if cols.len() < MIN_COMPARE || cols.len() > MAX_COMPARE {
        return Err(info_err(
            column,
            format!(
                "compare lists {MIN_COMPARE} to {MAX_COMPARE} allocators, comma-separated, not {}",
                cols.len()
            ),
        ));
    }
    for col in cols {
        let fields: Vec<&str> = col.split(':').collect();
        if fields.len() > 4 {
            return Err(info_err(
                at,
                "a compare column is allocator[:target[:min-align[:capacity]]]",
            ));
        }
        let field = |i: usize| {
            fields
                .get(i)
                .copied()
                .filter(|f| !f.is_empty() && *f != "-")
        };
        let allocator = check_allocator(at, fields[0])?;
        let w = Word {
            column: at,
            key: "compare".into(),
            value: None,
            value_column: at,
        };
        let target = match field(1) {
            Some(t) => check_target(&w, at, t)?,
            None => s.target.clone(),
        };
        let min_align = field(2).map(|m| power_of_two(&w, m)).transpose()?;
        let capacity = field(3)
            .map(|c| whole(&w, c, 1, MAX_CAPACITY, "a capacity"))
            .transpose()?;
        out.push(Column {
            allocator,
            target,
            min_align,
            capacity,
        });
        at += col.chars().count() as u32 + 1;
    }
    Ok(out)
}

/// A checked fence: its settings, its program and how many ops it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    pub settings: Settings,
    pub program: String,
    /// Ops the program executes (repeats expanded).
    pub ops: u64,
}

impl Fence {
    /// The op the figure shows: the fence's step, else the program's last.
    pub fn step(&self) -> u64 {
        self.settings.step.unwrap_or(self.ops).min(self.ops)
    }
}

/// Parses the info string and checks the program on every column's allocator.
pub fn check(info: &str, body: &str) -> Result<Fence, FenceError> {
    let settings = parse_info(info)?;
    let program = body.strip_suffix('\n').unwrap_or(body).to_string();
    let mut runs: Vec<(String, String, Option<u64>, Option<u64>)> = vec![(
        settings.allocator.clone(),
        settings.target.clone(),
        settings.capacity,
        settings.min_align,
    )];
    for c in &settings.compare {
        runs.push((
            c.allocator.clone(),
            c.target.clone(),
            c.capacity,
            c.min_align,
        ));
    }
    let mut ops = 0;
    for (allocator, target, capacity, min_align) in runs {
        let (preset, opts) = request(&allocator, &target, capacity, min_align, None)
            .map_err(|e| info_err(1, e.message))?;
        // A setting the preset refuses fails the empty program too: the
        // settings' error, not the program's.
        if let Err(e) = Run::new("", preset, &opts) {
            return Err(info_err(1, format!("{allocator}: {}", e.message)));
        }
        match Run::new(&program, preset, &opts) {
            Ok(run) => ops = run.total(),
            Err(e) => {
                return Err(FenceError::Program {
                    line: e.line,
                    column: e.column,
                    message: e.message,
                })
            }
        }
    }
    Ok(Fence {
        settings,
        program,
        ops,
    })
}

/// How the HTML refers to the built site (dist/: bump-lab.js, index.html).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// The site's URL with a trailing slash, absolute or relative to the page.
    pub base: String,
    /// Whether to write the `<script type="module">` that loads bump-lab.js
    /// (once per page: the caller says when).
    pub script: bool,
    /// A static figure (an SVG file's text) to show inside the link where
    /// scripts do not run.
    pub fallback_svg: Option<String>,
}

/// Text escaped for an HTML attribute or element, newlines as character
/// references (the HTML holds no line break of the program, so no blank
/// line), braces too (a Vue template would read `{{` as an expression).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' => out.push_str("&#10;"),
            '\r' => {}
            '\t' => out.push_str("&#9;"),
            '{' => out.push_str("&#123;"),
            '}' => out.push_str("&#125;"),
            c => out.push(c),
        }
    }
    out
}

/// A value as the share link's short form writes it (web/src/share/link.ts
/// `encodeValue`): percent-encoded, a space as `+`, and `= : , ; / @ [ ]`
/// left as they are so the link stays readable.
pub fn link_value(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b' ' => out.push('+'),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => out.push(b as char),
            b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')' => out.push(b as char),
            b'=' | b':' | b',' | b';' | b'/' | b'@' | b'[' | b']' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn dash(n: Option<u64>) -> String {
    n.map_or_else(|| "-".to_string(), |n| n.to_string())
}

/// The child allocator `allocator` runs over, for a preset that takes one:
/// its default, as the fence's checks ran it. A link or compare column
/// writes it out, since one without it means the child the preset had
/// before the setting existed (web/src/share/link.ts, CHILD_PRESETS).
fn default_child(allocator: &str) -> Option<&'static str> {
    bumplab_core::PresetId::parse(allocator)
        .and_then(|p| p.children().first().copied())
        .map(|c| c.name())
}

/// A compare column as links and the element write it.
fn column_text(c: &Column) -> String {
    let mut text = format!(
        "{}:{}:{}:{}",
        c.allocator,
        c.target,
        dash(c.min_align),
        dash(c.capacity)
    );
    if let Some(child) = default_child(&c.allocator) {
        text.push(':');
        text.push_str(child);
    }
    text
}

/// The share link's short form for the fence's view (`v1?a=…&p=…&end`),
/// which the app and the element read as they read any link.
pub fn share_hash(f: &Fence) -> String {
    let s = &f.settings;
    let mut parts = vec![
        format!("a={}", link_value(&s.allocator)),
        format!("t={}", s.target),
    ];
    if let Some(c) = s.capacity {
        parts.push(format!("c={c}"));
    }
    if let Some(m) = s.min_align {
        parts.push(format!("m={m}"));
    }
    if let Some(child) = default_child(&s.allocator) {
        parts.push(format!("h={child}"));
    }
    parts.push(format!("s={}", f.step()));
    if !s.compare.is_empty() {
        let cols: Vec<String> = s
            .compare
            .iter()
            .map(|c| link_value(&column_text(c)))
            .collect();
        parts.push(format!("x={}", cols.join(",")));
    }
    parts.push(format!("p={}", link_value(&f.program)));
    parts.push("end".into());
    format!("v1?{}", parts.join("&"))
}

fn target_name(t: &str) -> &str {
    if t == "64" {
        "64-bit"
    } else {
        t
    }
}

/// The figure's title: every allocator it shows, and the op.
pub fn title(f: &Fence) -> String {
    let s = &f.settings;
    let who = if s.compare.is_empty() {
        format!("{} on {}", s.allocator, target_name(&s.target))
    } else {
        s.compare
            .iter()
            .map(|c| c.allocator.as_str())
            .collect::<Vec<_>>()
            .join(" vs ")
    };
    format!("Bump Lab: {who}, op {} of {}", f.step(), f.ops)
}

/// The `<bump-lab>` element a fence stands for, before it is written out:
/// the remark plugin writes it as MDX's JSX where raw HTML is not allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    /// Attributes in order; `None` for a boolean attribute.
    pub attributes: Vec<(String, Option<String>)>,
    /// The fallback link: the same view in the app.
    pub href: String,
    /// The fallback link's text.
    pub text: String,
    /// The reserved height, in CSS pixels.
    pub height: u32,
    /// The figure's title (every allocator it shows, and the op).
    pub title: String,
}

/// The element for a checked fence; `base` is the site's URL with a trailing slash.
pub fn element(f: &Fence, base: &str) -> Element {
    let s = &f.settings;
    let mut a: Vec<(String, Option<String>)> = vec![
        ("program".into(), Some(f.program.clone())),
        ("allocator".into(), Some(s.allocator.clone())),
        ("target".into(), Some(s.target.clone())),
        ("step".into(), Some(f.step().to_string())),
    ];
    if let Some(c) = s.capacity {
        a.push(("capacity".into(), Some(c.to_string())));
    }
    if let Some(m) = s.min_align {
        a.push(("min-align".into(), Some(m.to_string())));
    }
    if !s.compare.is_empty() {
        let cols: Vec<String> = s.compare.iter().map(column_text).collect();
        a.push(("compare".into(), Some(cols.join(","))));
    }
    if s.figure {
        a.push(("figure".into(), None));
    }
    if let Some(c) = &s.caption {
        a.push(("caption".into(), Some(c.clone())));
    }
    if let Some(t) = s.theme {
        let name = match t {
            Theme::Light => "light",
            Theme::Dark => "dark",
            Theme::Auto => "auto",
        };
        a.push(("theme".into(), Some(name.into())));
    }
    let title = title(f);
    a.push((
        "aria-label".into(),
        Some(s.caption.clone().unwrap_or_else(|| title.clone())),
    ));
    let text = match &s.caption {
        Some(c) => format!("{c} ({title}: open the live figure)"),
        None => format!("{title}: open the live figure"),
    };
    Element {
        attributes: a,
        href: format!("{base}index.html#{}", share_hash(f)),
        text,
        height: s.height,
        title,
    }
}

/// The fence as HTML: the reserved box, the element, and its fallback link.
pub fn html(f: &Fence, out: &Output) -> String {
    let e = element(f, &out.base);
    let attrs: Vec<String> = e
        .attributes
        .iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k}=\"{}\"", escape(v)),
            None => k.clone(),
        })
        .collect();
    let fallback = match &out.fallback_svg {
        // The static figure, as an image: its ids and styles stay its own.
        Some(svg) => format!(
            "<img src=\"data:image/svg+xml;base64,{}\" alt=\"{}\" style=\"max-width:100%;height:auto\"><br>",
            base64(svg.as_bytes()),
            escape(&e.title)
        ),
        None => String::new(),
    };
    let mut html = format!(
        "<div class=\"bumplab-figure\" style=\"min-height:{}px\">\n",
        e.height
    );
    if out.script {
        html.push_str(&format!(
            "<script type=\"module\" src=\"{}bump-lab.js\"></script>\n",
            escape(&out.base)
        ));
    }
    html.push_str(&format!(
        "<bump-lab {} style=\"display:block;min-height:{}px\"><a href=\"{}\">{}{}</a></bump-lab>\n</div>\n",
        attrs.join(" "),
        e.height,
        escape(&e.href),
        fallback,
        escape(&e.text)
    ));
    html
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// An error as HTML: the message, and the program as code (still readable).
pub fn error_html(error: &FenceError, body: &str) -> String {
    format!(
        "<div class=\"bumplab-fence-error\" role=\"note\">\n<p><strong>Bump Lab fence:</strong> {}</p>\n<pre><code>{}</code></pre>\n</div>\n",
        escape(&error.to_string()),
        escape(body.strip_suffix('\n').unwrap_or(body))
    )
}

/// The fence's HTML, or the error's.
pub fn render(info: &str, body: &str, out: &Output) -> Result<String, (FenceError, String)> {
    match check(info, body) {
        Ok(f) => Ok(html(&f, out)),
        Err(e) => {
            let html = error_html(&e, body);
            Err((e, html))
        }
    }
}

#[cfg(test)]
mod tests;
