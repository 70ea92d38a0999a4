//! The wasm face of bumplab-core's columnar run: what the page traces
//! with. No real crates, no baseline allocator, no meter: only the engine,
//! so the module stays small and traces at native speed's pace.
//!
//! The page makes a [`TraceRun`], calls [`TraceRun::advance`] in slices
//! that fit a frame until it says the run is over, reads the columns and
//! tables once, and asks [`TraceRun::detail`] for the op on screen. The
//! layout is documented in `docs/trace-format.md` ("Columnar run").

use bumplab_core::program::{parse, Program};
use bumplab_core::run::{
    MAX_RUN_BYTES, META_ALIGN_SHIFT, META_FAILED, META_KIND, META_MOVED, META_PLACED,
    META_STMT_SHIFT, NONE, STMT_REPEAT,
};
use bumplab_core::{presets, Options, PresetId, ProgramError, Run};
use js_sys::Uint32Array;
use wasm_bindgen::prelude::*;

/// A program being traced, or the reason it cannot be.
#[wasm_bindgen]
pub struct TraceRun {
    /// `None` when the program never started (bad input).
    run: Option<Run>,
    /// Why the run stopped, once it has failed.
    error: Option<ProgramError>,
}

#[wasm_bindgen]
impl TraceRun {
    /// Parses `source` for `allocator` on `target` (`capacity` and
    /// `min_align` left out mean the preset's defaults); nothing runs until
    /// [`TraceRun::advance`]. Never throws for bad input: an unknown
    /// allocator or target, or a program that does not parse, makes a run
    /// that has already failed, with the reason in [`TraceRun::error`].
    #[wasm_bindgen(constructor)]
    pub fn new(
        source: &str,
        allocator: &str,
        target: &str,
        capacity: Option<u32>,
        min_align: Option<u32>,
        child: Option<String>,
    ) -> TraceRun {
        bumplab_core::panic_note::keep();
        TraceRun::started(
            request(allocator, target, capacity, min_align, child.as_deref())
                .and_then(|(preset, opts)| Run::new(source, preset, &opts)),
        )
    }

    /// [`TraceRun::new`] for a program [`parse_program`] parsed (in a
    /// worker, say): `words` are its [`ParsedProgram::words`].
    #[wasm_bindgen(js_name = fromProgram)]
    pub fn from_program(
        words: Vec<u32>,
        allocator: &str,
        target: &str,
        capacity: Option<u32>,
        min_align: Option<u32>,
        child: Option<String>,
    ) -> TraceRun {
        bumplab_core::panic_note::keep();
        TraceRun::started(request(allocator, target, capacity, min_align, child.as_deref()).and_then(
            |(preset, opts)| {
                let program = Program::from_words(words).ok_or_else(|| {
                    ProgramError::at(
                        bumplab_core::program::Pos { line: 1, column: 1 },
                        "internal error: the parsed program came back damaged (this is a bug in Bump Lab, not in the program)",
                    )
                })?;
                Run::from_program(program, preset, &opts)
            },
        ))
    }

    /// Runs up to `max_ops` more ops; `true` once the run is over (every op
    /// ran, or one failed: see [`TraceRun::error`]).
    pub fn advance(&mut self, max_ops: u32) -> bool {
        let Some(run) = &mut self.run else {
            return true;
        };
        match run.advance(max_ops) {
            Ok(done) => done,
            Err(e) => {
                self.error = Some(e);
                true
            }
        }
    }

    /// `{"line", "column", "message"}` once the run has failed.
    pub fn error(&self) -> Option<String> {
        self.error
            .as_ref()
            .map(|e| serde_json::to_string(e).expect("an error serialises"))
    }

    /// Ops run so far: the length of every column.
    pub fn executed(&self) -> u32 {
        self.run.as_ref().map_or(0, Run::executed)
    }

    /// Ops the program runs in all, if none fails (0 if it never started).
    pub fn total(&self) -> f64 {
        self.run.as_ref().map_or(0.0, |r| r.total() as f64)
    }

    /// `{version, allocator, target, direction, source, source_path,
    /// stats_every}`, or `null` if the program never started.
    pub fn header(&self) -> String {
        match &self.run {
            Some(run) => serde_json::to_string(&run.header()).expect("a header serialises"),
            None => "null".into(),
        }
    }

    /// The chunks made so far, as the full trace's `chunks`.
    pub fn chunks(&self) -> String {
        let chunks = self.run.as_ref().map(Run::chunks).unwrap_or_default();
        serde_json::to_string(&chunks).expect("chunks serialise")
    }

    /// A copy of column `which` (`meta`, `chunk`, `offset`, `size`,
    /// `padding`, `dead_at`, `gone_at`); empty for any other name. Copied
    /// straight out of this module's memory into a JavaScript array: a
    /// copy made here first would grow the memory by a column (4 MB a
    /// million ops), and wasm memory never shrinks.
    pub fn column(&self, which: &str) -> Uint32Array {
        let column = self.run.as_ref().and_then(|r| r.columns().by_name(which));
        Uint32Array::from(column.unwrap_or_default())
    }

    /// Each statement's line (repeats included: an op's `meta` holds its
    /// statement's index).
    #[wasm_bindgen(js_name = stmtLines)]
    pub fn stmt_lines(&self) -> Uint32Array {
        self.stmt_table(|r| Box::new(r.stmt_lines()))
    }

    /// Each statement's column.
    #[wasm_bindgen(js_name = stmtColumns)]
    pub fn stmt_columns(&self) -> Uint32Array {
        self.stmt_table(|r| Box::new(r.stmt_columns()))
    }

    /// Each statement's kind and name: `kind | (name + 1) << 3`, the kind
    /// as `meta` codes it, the name by its index in [`TraceRun::names`] (0
    /// above the kind for none); a repeat is 7.
    #[wasm_bindgen(js_name = stmtKinds)]
    pub fn stmt_kinds(&self) -> Uint32Array {
        self.stmt_table(|r| Box::new(r.stmt_kinds_and_names()))
    }

    /// The program's block and checkpoint names, one a line.
    pub fn names(&self) -> String {
        let Some(run) = &self.run else {
            return String::new();
        };
        let names: Vec<&str> = run.program().names().iter().collect();
        names.join("\n")
    }

    /// Bytes the run holds in the module's memory, about (its columns,
    /// program, engine tables and snapshots).
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes(&self) -> f64 {
        self.run.as_ref().map_or(0.0, |r| r.memory_bytes() as f64)
    }

    /// Ops an op's detail re-runs at most (from the snapshot before it).
    #[wasm_bindgen(js_name = longestRerun)]
    pub fn longest_rerun(&self) -> u32 {
        self.run.as_ref().map_or(0, Run::longest_rerun)
    }

    /// The stats samples, 9 numbers each: requested, used, padding,
    /// metadata, leaked, copied, unused, chunks, utilisation.
    #[wasm_bindgen(js_name = statsSamples)]
    pub fn stats_samples(&self) -> Vec<f64> {
        let samples = self.run.as_ref().map_or(&[][..], Run::stats_samples);
        samples
            .iter()
            .flat_map(|s| {
                [
                    s.requested as f64,
                    s.used as f64,
                    s.padding as f64,
                    s.metadata as f64,
                    s.leaked as f64,
                    s.copied as f64,
                    s.unused as f64,
                    f64::from(s.chunks),
                    s.utilisation,
                ]
            })
            .collect()
    }

    /// `{"op": Op, "chunks_used": [{"id", "lo", "hi"}]}` for op `i`, the op
    /// exactly as the full JSON trace has it; `null` if op `i` has not run.
    pub fn detail(&self, i: u32) -> String {
        match self.run.as_ref().and_then(|r| r.detail(i)) {
            Some(d) => serde_json::to_string(&d).expect("a detail serialises"),
            None => "null".into(),
        }
    }
}

/// Heap bytes a run takes per op at its first op, about: its seven `u32`
/// columns, allocated then, and a little of the tables that follow them.
const HEAP_BYTES_PER_OP: u64 = 30;

/// Grows the wasm memory once for a run of `ops` ops, before it starts.
/// The allocator would otherwise grow it 64 kB at a time as the run's tables
/// grow, and in V8 each growth of a memory past 64 MB costs about as much as
/// the ops it serves: a million ops ran four times slower after their first
/// half. The block asked for here is freed at once, so the run's tables are
/// then carved from memory the module already has (and a later run reuses
/// it: wasm memory never shrinks).
fn reserve_heap(ops: u64) {
    let bytes = ops.saturating_mul(HEAP_BYTES_PER_OP);
    let Ok(bytes) = usize::try_from(bytes) else {
        return;
    };
    let mut block = Vec::<u8>::new();
    // Too much to reserve: the run grows the memory as it goes instead.
    if block.try_reserve_exact(bytes).is_ok() {
        // The optimiser removes an allocation nothing reads.
        std::hint::black_box(block.as_mut_ptr());
    }
}

/// Values a statement table copies into its JavaScript array at a time: the
/// whole table is never built in wasm memory (4 MB for a million-line
/// recording), only this much of it.
const STMT_PIECE: usize = 16 * 1024;

impl TraceRun {
    /// One `u32` per statement of the program, from `values`, in a
    /// JavaScript array filled a piece at a time.
    fn stmt_table<'r>(
        &'r self,
        values: impl Fn(&'r Run) -> Box<dyn Iterator<Item = u32> + 'r>,
    ) -> Uint32Array {
        let Some(run) = &self.run else {
            return Uint32Array::new_with_length(0);
        };
        let len = run.program().len();
        let out = Uint32Array::new_with_length(
            u32::try_from(len).expect("a program fits in u32 statements"),
        );
        let mut piece = Vec::with_capacity(STMT_PIECE.min(len));
        let mut at = 0u32;
        let mut flush = |piece: &mut Vec<u32>| {
            let end = at + piece.len() as u32;
            out.subarray(at, end).copy_from(piece);
            at = end;
            piece.clear();
        };
        for value in values(run) {
            piece.push(value);
            if piece.len() == STMT_PIECE {
                flush(&mut piece);
            }
        }
        flush(&mut piece);
        out
    }

    fn started(run: Result<Run, ProgramError>) -> TraceRun {
        match run {
            Ok(run) => {
                reserve_heap(run.total());
                TraceRun {
                    run: Some(run),
                    error: None,
                }
            }
            Err(e) => TraceRun {
                run: None,
                error: Some(e),
            },
        }
    }
}

fn request(
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
    child: Option<&str>,
) -> Result<(PresetId, Options), ProgramError> {
    bumplab_core::engine::request(
        allocator,
        target,
        capacity.map(u64::from),
        min_align.map(u64::from),
        child,
    )
}

/// A program parsed apart from its run ([`parse_program`]): its words, or
/// what is wrong with it.
#[wasm_bindgen]
pub struct ParsedProgram {
    words: Option<Vec<u32>>,
    error: Option<ProgramError>,
}

#[wasm_bindgen]
impl ParsedProgram {
    /// The program as words for [`TraceRun::from_program`] (taken: a
    /// second call gives none); empty if it did not parse.
    pub fn words(&mut self) -> Vec<u32> {
        self.words.take().unwrap_or_default()
    }

    /// `{"line", "column", "message", "more"}` if it did not parse.
    pub fn error(&self) -> Option<String> {
        self.error
            .as_ref()
            .map(|e| serde_json::to_string(e).expect("an error serialises"))
    }

    /// Statements parsed (repeats included).
    pub fn statements(&self) -> u32 {
        self.words
            .as_ref()
            .map_or(0, |w| w.get(1).copied().unwrap_or(0))
    }
}

/// Parses `source` into words a [`TraceRun`] in another instance of this
/// module can run ([`TraceRun::from_program`]): a page parses a long program
/// in a worker, and its own instance never holds the text.
#[wasm_bindgen(js_name = parseProgram)]
pub fn parse_program(source: &str) -> ParsedProgram {
    bumplab_core::panic_note::keep();
    match parse(source) {
        Ok(program) => ParsedProgram {
            words: Some(program.into_words()),
            error: None,
        },
        Err(e) => ParsedProgram {
            words: None,
            error: Some(e),
        },
    }
}

/// The preset registry's rows, as JSON (`bumplab_core::presets::Row`).
#[wasm_bindgen(js_name = listAllocators)]
pub fn list_allocators() -> String {
    serde_json::to_string(&presets::list()).expect("the list always serialises")
}

// No `sourceText` here, unlike the cost module: the texts are about a
// sixth of this module's gzip, and the page fetches the one it shows
// (web/src/engine/sourceTexts.ts). Step lines need no text (core's build.rs).

/// The repository path of source file `name`, for the code view's title.
#[wasm_bindgen(js_name = sourcePath)]
pub fn source_path(name: &str) -> Option<String> {
    bumplab_core::source::Source::parse(name).map(|s| s.path().to_string())
}

/// The message of the panic that trapped the last call, once. Release
/// builds abort on panic, a trap the caller sees as a thrown
/// `WebAssembly.RuntimeError`; after one the instance's state is whatever
/// the panic left, so the caller should make a new instance.
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> Option<String> {
    bumplab_core::panic_note::take()
}

/// How the `meta` column packs an op, and the columns' "none": `[kind mask,
/// failed bit, moved bit, placed bit, alignment shift, statement shift,
/// none, a repeat's kind in `stmtKinds`]`. The page reads the columns with its own copy of these and checks
/// it against this once, when it loads the module.
#[wasm_bindgen(js_name = columnLayout)]
pub fn column_layout() -> Vec<u32> {
    vec![
        META_KIND,
        META_FAILED,
        META_MOVED,
        META_PLACED,
        META_ALIGN_SHIFT,
        META_STMT_SHIFT,
        NONE,
        STMT_REPEAT,
    ]
}

/// The most memory one run may take (`MAX_RUN_BYTES`): a run past it stops
/// with an error saying so.
#[wasm_bindgen(js_name = maxRunBytes)]
pub fn max_run_bytes() -> f64 {
    MAX_RUN_BYTES as f64
}

/// The most ops whose costs the cost module measures (its full trace's
/// cap): the page says so for longer runs without loading that module.
#[wasm_bindgen(js_name = maxCostedOps)]
pub fn max_costed_ops() -> u32 {
    bumplab_core::engine::MAX_FULL_TRACE_OPS as u32
}

/// The preset families this build runs (`bumplab_core::presets::Family`, in
/// their JSON spelling): the page fetches the build for the family of the
/// preset it shows, and the other one only when a preset of that family is
/// shown too.
#[wasm_bindgen(js_name = builtFamilies)]
pub fn built_families() -> Vec<String> {
    let mut out = Vec::new();
    if cfg!(feature = "core-presets") {
        out.push("core".to_string());
    }
    if cfg!(feature = "more-arenas") {
        out.push("more-arenas".to_string());
    }
    out
}

/// A `bumplab` code fence (its info string and body) as the HTML the
/// Markdown plugins write, as JSON: `{"html", "element"}` for a good fence,
/// where `element` is the `<bump-lab>` element's parts (attributes in order,
/// a `null` value for a boolean one; the fallback link's `href` and `text`;
/// the reserved `height`), or `{"html", "error"}` with the error's `kind`
/// (`info` or `program`), position and message, and HTML that says it
/// above the program. `base` is where the site (dist/) is served, with a
/// trailing slash; `script` adds the `<script>` that loads bump-lab.js.
#[cfg(feature = "fence")]
#[wasm_bindgen(js_name = fenceHtml)]
pub fn fence_html(info: &str, body: &str, base: &str, script: bool) -> String {
    use bumplab_fence::{FenceError, Output};
    use serde_json::json;
    let out = Output {
        base: base.to_string(),
        script,
        fallback_svg: None,
    };
    let value = match bumplab_fence::check(info, body) {
        Ok(f) => {
            let e = bumplab_fence::element(&f, base);
            json!({
                "html": bumplab_fence::html(&f, &out),
                "element": {
                    "attributes": e.attributes,
                    "href": e.href,
                    "text": e.text,
                    "height": e.height,
                    "title": e.title,
                },
            })
        }
        Err(error) => {
            let err = match &error {
                FenceError::Info { column, message } => {
                    json!({"kind": "info", "line": 0, "column": column, "message": message})
                }
                FenceError::Program {
                    line,
                    column,
                    message,
                } => json!({"kind": "program", "line": line, "column": column, "message": message}),
            };
            json!({"html": bumplab_fence::error_html(&error, body), "error": err})
        }
    };
    value.to_string()
}
