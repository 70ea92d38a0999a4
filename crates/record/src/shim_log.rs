//! Reads the log the C shim (`shim/bumplab_record.c`) writes, one process per
//! file, into [`Call`]s for [`crate::program`].
//!
//! The format is line-based text, so a log can be read with `less`:
//!
//! ```text
//! # bumplab-record shim log 1
//! # pid 4242
//! # exe /usr/bin/jq
//! a 55d0c0a012a0 24 0       alloc: address (hex), size, alignment (0: malloc's)
//! r 55d0c0a012a0 55d0c0a01300 48    realloc: old address, new address, new size
//! f 55d0c0a01300             free (a free of null is never logged)
//! ! limit 1000000            the shim stopped at its op limit
//! # end                      written at exit; missing if the process never ran its exit handlers
//! ```

use crate::recorder::Call;

/// One process's log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShimLog {
    pub pid: u32,
    /// The executable's path, as `/proc/self/exe` named it.
    pub exe: String,
    pub calls: Vec<Call>,
    /// The op limit the shim stopped at, if it did.
    pub limit: Option<u64>,
    /// The process ran its exit handlers, so the log is complete.
    pub ended: bool,
}

impl ShimLog {
    /// Header lines for the program: which process, and whether the log is
    /// whole.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!("Process: {} (pid {}).", self.exe, self.pid)];
        if !self.ended {
            notes.push(
                "The log has no end mark: the process ended without running its exit handlers (_exit, exec or a signal), so up to 64 KiB of its last calls may be missing."
                    .to_string(),
            );
        }
        notes
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

/// Parses a shim log. An error names the line.
pub fn parse(text: &str) -> Result<ShimLog, String> {
    let mut log = ShimLog::default();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, "# bumplab-record shim log 1")) => {}
        _ => return Err(
            "not a bumplab-record shim log (the first line is not '# bumplab-record shim log 1')"
                .to_string(),
        ),
    }
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
                Some("exe") => log.exe = f.collect::<Vec<_>>().join(" "),
                Some("end") => log.ended = true,
                _ => {}
            },
            _ => return Err(format!("line {n}: '{line}' is not a shim log line")),
        }
    }
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
