//! `bumplab-meter IN.wasm -o OUT.wasm [--roots-prefix P] [--slow-substring S | --no-slow]
//! [--listing LISTING.json [--debug-wasm DEBUG.wasm]]`
//!
//! Rewrites the final wasm module so it counts executed instructions and
//! conditional branches; see the `bumplab_meter` library docs. `--listing`
//! also writes the instrumented functions' operators as text (see
//! `bumplab_meter::listing`), with their source lines when `--debug-wasm`
//! names cargo's own output of the same build (with line tables; paths are
//! made relative to the current directory, the repository).

use std::process::ExitCode;

use bumplab_meter::{instrument, Options};

const USAGE: &str = "usage: bumplab-meter IN.wasm -o OUT.wasm [--roots-prefix bumplab_measure_] \
[--slow-substring slow | --no-slow] [--listing LISTING.json [--debug-wasm DEBUG.wasm]]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bumplab-meter: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let mut options = Options::default();
    let mut input = None;
    let mut output = None;
    let mut listing = None;
    let mut debug_wasm = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or(format!("{flag} needs a value\n{USAGE}"));
        match arg.as_str() {
            "-o" | "--output" => output = Some(value("-o")?),
            "--roots-prefix" => options.roots_prefix = value("--roots-prefix")?,
            "--slow-substring" => options.slow_substring = Some(value("--slow-substring")?),
            "--no-slow" => options.slow_substring = None,
            "--listing" => listing = Some(value("--listing")?),
            "--debug-wasm" => debug_wasm = Some(value("--debug-wasm")?),
            "-h" | "--help" => {
                println!("{USAGE}\n\ncost model: {}", bumplab_meter::COST_MODEL);
                return Ok(());
            }
            _ if arg.starts_with('-') => return Err(format!("unknown option {arg}\n{USAGE}")),
            _ if input.is_none() => input = Some(arg),
            _ => return Err(format!("more than one input\n{USAGE}")),
        }
    }
    if options
        .slow_substring
        .as_deref()
        .is_some_and(|s| s.split('|').any(str::is_empty))
    {
        return Err(
            "--slow-substring must not be empty or have an empty `|` part (it would match \
             every function); use --no-slow"
                .into(),
        );
    }
    let (Some(input), Some(output)) = (input, output) else {
        return Err(USAGE.to_string());
    };
    let wasm = std::fs::read(&input).map_err(|e| format!("cannot read {input}: {e}"))?;
    let result = instrument(&wasm, &options).map_err(|e| format!("{input}: {e}"))?;
    std::fs::write(&output, &result.wasm).map_err(|e| format!("cannot write {output}: {e}"))?;
    eprintln!("bumplab-meter: {input} -> {output}: {}", result.report);
    if let Some(path) = listing {
        let lines = match &debug_wasm {
            None => None,
            Some(debug) => {
                let bytes =
                    std::fs::read(debug).map_err(|e| format!("cannot read {debug}: {e}"))?;
                let root = std::env::current_dir().map_err(|e| e.to_string())?;
                let table = bumplab_meter::line_table(&bytes, &wasm, &root)
                    .map_err(|e| format!("{debug}: {e}"))?;
                eprintln!("bumplab-meter: {}", table.report);
                Some(table)
            }
        };
        let json = bumplab_meter::listing(&wasm, &result.report.instrumented, lines.as_ref())
            .map_err(|e| format!("{input}: {e}"))?;
        std::fs::write(&path, &json).map_err(|e| format!("cannot write {path}: {e}"))?;
        eprintln!("bumplab-meter: listing -> {path}: {} bytes", json.len());
    } else if debug_wasm.is_some() {
        return Err(format!("--debug-wasm goes with --listing\n{USAGE}"));
    }
    Ok(())
}
