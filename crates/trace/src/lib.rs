//! The wasm face of bumplab-core's columnar run: what the page traces
//! with. No real crates, no baseline allocator, no meter: only the engine,
//! so the module stays small and traces at native speed's pace.
//!
//! The page makes a [`TraceRun`], calls [`TraceRun::advance`] in slices
//! that fit a frame until it says the run is over, reads the columns and
//! tables once, and asks [`TraceRun::detail`] for the op on screen. The
//! layout is documented in `docs/trace-format.md` ("Columnar run").

use bumplab_core::run::{
    META_ALIGN_SHIFT, META_FAILED, META_KIND, META_MOVED, META_PLACED, META_STMT_SHIFT, NONE,
};
use bumplab_core::{presets, ProgramError, Run};
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
        match start(source, allocator, target, capacity, min_align, child) {
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

    /// `{version, allocator, target, direction, source, source_path, stmts,
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
    /// `padding`, `dead_at`, `gone_at`); empty for any other name.
    pub fn column(&self, which: &str) -> Vec<u32> {
        self.run
            .as_ref()
            .and_then(|r| r.columns().by_name(which))
            .map(<[u32]>::to_vec)
            .unwrap_or_default()
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

/// Heap bytes a run takes per op once its columns are allocated (they are
/// when it starts), about: the engine's block and chunk tables and the
/// snapshots' share (a million ops of the benchmark's program take 72 MB
/// beyond their 28 MB of columns).
const HEAP_BYTES_PER_OP: u64 = 76;

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

fn start(
    source: &str,
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
    child: Option<String>,
) -> Result<Run, ProgramError> {
    let (preset, opts) = bumplab_core::engine::request(
        allocator,
        target,
        capacity.map(u64::from),
        min_align.map(u64::from),
        child.as_deref(),
    )?;
    Run::new(source, preset, &opts)
}

/// The allocators, as JSON `[{name, direction, source, description, min_aligns}]`.
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
/// none]`. The page reads the columns with its own copy of these and checks
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
    ]
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
