//! Reads the log the C shim (`shim/bumplab_record.c`) writes, one process per
//! file, into [`Call`]s for [`crate::program`].
//!
//! The format is line-based text, so a log can be read with `less`:
//!
//! ```text
//! # bumplab-record shim log 2
//! # pid 4242
//! # exe /usr/bin/jq          the executable's path, '%', control and non-ASCII bytes as %XX
//! a 55d0c0a012a0 24 0       alloc: address (hex), size, alignment (0: malloc's)
//! r 55d0c0a012a0 55d0c0a01300 48    realloc: old address, new address, new size
//! f 55d0c0a01300             free (a free of null is never logged)
//! ! limit 1000000            the shim stopped at its op limit
//! # end                      how the process left: at exit (its exit handlers ran),
//! # end _exit                by _exit or _Exit,
//! # end abort                by abort,
//! # exec /usr/bin/wc         or by an exec, which another log (bumplab-<pid>-2.log) goes on from;
//! # exec-failed              an exec that returned: the log goes on
//! ```
//!
//! A log without an end mark is of a process killed by a signal. Format 1
//! wrote the path unescaped and knew only `# end`; it is still read.

use crate::recorder::Call;

/// How a process left, as the last line of its log says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Left {
    /// `exit` or a return from `main`: its exit handlers ran.
    Exit,
    /// `_exit` or `_Exit`, which run no exit handlers.
    QuickExit,
    /// `abort`.
    Abort,
    /// An exec of this path: the process went on as another program.
    Exec(String),
}

/// One process's log (one image of it: an exec starts another log).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShimLog {
    pub pid: u32,
    /// The executable's path, as `/proc/self/exe` named it.
    pub exe: String,
    pub calls: Vec<Call>,
    /// The op limit the shim stopped at, if it did.
    pub limit: Option<u64>,
    /// The log is complete: the process left by a way the shim saw.
    pub ended: bool,
    /// How it left; `None` when the log has no end mark.
    pub left: Option<Left>,
}

impl ShimLog {
    /// Header lines for the program: which process, and whether the log is
    /// whole.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!("Process: {} (pid {}).", self.exe, self.pid)];
        match &self.left {
            None => notes.push(
                "The log has no end mark: the process was killed by a signal, so up to 64 KiB of its last calls may be missing."
                    .to_string(),
            ),
            Some(Left::Exec(path)) => notes.push(format!(
                "The process then exec'd {path}: the calls after that are another program's."
            )),
            Some(Left::Abort) => notes.push("The process ended in abort().".to_string()),
            Some(Left::Exit | Left::QuickExit) => {}
        }
        notes
    }

    /// How the process left, in a few words: "exited", "exec'd /bin/ls", ...
    pub fn how_it_left(&self) -> String {
        match &self.left {
            None => "no end mark: killed by a signal".to_string(),
            Some(Left::Exit) => "exited".to_string(),
            Some(Left::QuickExit) => "left by _exit".to_string(),
            Some(Left::Abort) => "aborted".to_string(),
            Some(Left::Exec(path)) => format!("exec'd {path}"),
        }
    }
}

fn hex(field: Option<&str>, line: usize) -> Result<u64, String> {
    let f = field.ok_or_else(|| format!("line {line}: missing an address"))?;
    u64::from_str_radix(f, 16).map_err(|_| format!("line {line}: '{f}' is not a hex address"))
}

fn dec(field: Option<&str>, line: usize) -> Result<u64, String> {
    let f = field.ok_or_else(|| format!("line {line}: missing a number"))?;
    f.parse()
        .map_err(|_| format!("line {line}: '{f}' is not a number"))
}

/// A path as the shim writes it (format 2: `%XX` for '%', control and
/// non-ASCII bytes), read back; bytes that are not UTF-8 read as U+FFFD.
pub fn unescape(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses a shim log. An error names the line.
pub fn parse(text: &str) -> Result<ShimLog, String> {
    let mut log = ShimLog::default();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let escaped = match lines.next() {
        Some((_, "# bumplab-record shim log 2")) => true,
        Some((_, "# bumplab-record shim log 1")) => false,
        _ => return Err(
            "not a bumplab-record shim log (the first line is not '# bumplab-record shim log 2')"
                .to_string(),
        ),
    };
    let path = |words: std::str::Split<'_, char>| {
        let raw = words.collect::<Vec<_>>().join(" ");
        if escaped {
            unescape(&raw)
        } else {
            raw
        }
    };
    // The last line of a log cut off mid-write (the process was killed) is
    // left out.
    let torn = (!text.ends_with('\n')).then(|| text.lines().count());
    for (n, line) in lines {
        if Some(n) == torn {
            break;
        }
        let mut f = line.split(' ');
        match f.next() {
            Some("a") => {
                let addr = hex(f.next(), n)?;
                let size = dec(f.next(), n)?;
                let align = dec(f.next(), n)?;
                log.calls.push(Call::Alloc { addr, size, align });
            }
            Some("r") => {
                let old = hex(f.next(), n)?;
                let new = hex(f.next(), n)?;
                let size = dec(f.next(), n)?;
                log.calls.push(Call::Realloc {
                    old,
                    new,
                    size,
                    align: 0,
                });
            }
            Some("f") => log.calls.push(Call::Free {
                addr: hex(f.next(), n)?,
            }),
            Some("!") if f.next() == Some("limit") => log.limit = Some(dec(f.next(), n)?),
            Some("#") => match f.next() {
                Some("pid") => log.pid = dec(f.next(), n)? as u32,
                Some("exe") => log.exe = path(f),
                Some("end") => {
                    log.left = Some(match f.next() {
                        Some("_exit") => Left::QuickExit,
                        Some("abort") => Left::Abort,
                        _ => Left::Exit,
                    });
                }
                Some("exec") => log.left = Some(Left::Exec(path(f))),
                // An exec that returned changed nothing: the log goes on.
                Some("exec-failed") => log.left = None,
                _ => {}
            },
            _ => return Err(format!("line {n}: '{line}' is not a shim log line")),
        }
    }
    log.ended = log.left.is_some();
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_kind_of_line() {
        let log = parse("# bumplab-record shim log 1\n# pid 7\n# exe /usr/bin/my prog\na 10 24 0\na 40 100 64\nr 10 80 48\nf 80\n! limit 4\n# end\n").unwrap();
        assert_eq!(log.pid, 7);
        assert_eq!(log.exe, "/usr/bin/my prog");
        assert_eq!(
            log.calls,
            [
                Call::Alloc {
                    addr: 0x10,
                    size: 24,
                    align: 0
                },
                Call::Alloc {
                    addr: 0x40,
                    size: 100,
                    align: 64
                },
                Call::Realloc {
                    old: 0x10,
                    new: 0x80,
                    size: 48,
                    align: 0
                },
                Call::Free { addr: 0x80 },
            ]
        );
        assert_eq!((log.limit, log.ended), (Some(4), true));
    }

    #[test]
    fn a_torn_last_line_is_left_out_but_a_bad_line_is_an_error() {
        let log = parse("# bumplab-record shim log 1\na 10 24 0\na 2").unwrap();
        assert_eq!(log.calls.len(), 1);
        assert!(!log.ended);
        assert_eq!(
            parse("# bumplab-record shim log 1\nx 1\na 10 24 0\n").unwrap_err(),
            "line 2: 'x 1' is not a shim log line"
        );
        assert!(parse("hello\n").is_err());
    }
}
