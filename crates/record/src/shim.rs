//! Builds the C shim (`shim/bumplab_record.c`) with the machine's C compiler.
//!
//! The shim is compiled from source where it runs, not shipped as a binary:
//! it must match the machine's C library, and a preloaded library built
//! elsewhere is one more thing to trust.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shim's source, as shipped in this crate.
pub const SOURCE: &str = include_str!("../shim/bumplab_record.c");

/// The library's file name.
pub const LIBRARY: &str = "libbumplab_record.so";

/// The C compiler: `$CC`, else `cc`.
pub fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "cc".to_string())
}

/// Compiles the shim into `dir/libbumplab_record.so` (writing its source
/// there first) and returns the library's path. `extra` flags go after the
/// defaults (the tests add `-Werror`). The error says what to install when
/// there is no compiler, and shows the compiler's output when it fails.
pub fn build(dir: &Path, extra: &[&str]) -> Result<PathBuf, String> {
    build_with(&compiler(), dir, extra)
}

/// [`build`] with the compiler `cc`.
pub fn build_with(cc: &str, dir: &Path, extra: &[&str]) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let source = dir.join("bumplab_record.c");
    std::fs::write(&source, SOURCE)
        .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    let library = dir.join(LIBRARY);
    let out = Command::new(cc)
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra"])
        .args(extra)
        .arg("-o")
        .arg(&library)
        .arg(&source)
        .args(["-ldl", "-pthread"])
        .output()
        .map_err(|e| {
            format!(
                "cannot run the C compiler '{cc}' ({e}): the C shim is built from source. Install one (Debian: apt-get install gcc) or set CC"
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "'{cc}' could not build the shim ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(library)
}
