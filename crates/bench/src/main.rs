//! Native x86-64 reference benchmark for Bump Lab.
//!
//! `bumplab-bench --list` prints one line per entry function:
//! `<case>\t<library>\t<symbol>\t<min_align>`. `bumplab-bench <case> <library>` runs
//! that entry once, after its setup; the driver
//! (`scripts/bench-native.mjs`, `npm run bench:native`) runs it under
//! callgrind collecting only inside `<symbol>`. `bumplab-bench --all` runs
//! every entry once (a smoke test).

mod cases;
mod libs;

use std::process::ExitCode;

use cases::ENTRIES;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--list" => {
            for e in ENTRIES {
                println!("{}\t{}\t{}\t{}", e.case, e.lib, e.symbol, e.min_align);
            }
            ExitCode::SUCCESS
        }
        [flag] if flag == "--all" => {
            for e in ENTRIES {
                (e.run)();
            }
            ExitCode::SUCCESS
        }
        [case, lib] => match ENTRIES.iter().find(|e| e.case == case && e.lib == lib) {
            Some(e) => {
                (e.run)();
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("no entry for case {case:?} and library {lib:?} (see --list)");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: bumplab-bench --list | --all | <case> <library>");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ENTRIES;

    /// Every setup and entry runs without failing, and the names are unique.
    #[test]
    fn every_entry_runs() {
        let mut symbols: Vec<&str> = ENTRIES.iter().map(|e| e.symbol).collect();
        symbols.sort_unstable();
        symbols.dedup();
        assert_eq!(symbols.len(), ENTRIES.len());
        for e in ENTRIES {
            (e.run)();
        }
    }
}
