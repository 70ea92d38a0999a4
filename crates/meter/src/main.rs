//! `bumplab-meter IN.wasm -o OUT.wasm [--roots-prefix P] [--slow-substring S | --no-slow]`
//!
//! Rewrites the final wasm module so it counts executed instructions and
//! conditional branches; see the `bumplab_meter` library docs.

use std::process::ExitCode;

use bumplab_meter::{instrument, Options};

const USAGE: &str = "usage: bumplab-meter IN.wasm -o OUT.wasm [--roots-prefix bumplab_measure_] \
[--slow-substring slow | --no-slow]";

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
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or(format!("{flag} needs a value\n{USAGE}"));
        match arg.as_str() {
            "-o" | "--output" => output = Some(value("-o")?),
            "--roots-prefix" => options.roots_prefix = value("--roots-prefix")?,
            "--slow-substring" => options.slow_substring = Some(value("--slow-substring")?),
            "--no-slow" => options.slow_substring = None,
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
    Ok(())
}
