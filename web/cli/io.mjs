// The command line's input and output, shared by its commands: how a command
// ends, how a program is read, how a wasm object is let go.
//
// Ending: a command never calls `process.exit` while it has something to
// say. Piped to a slower reader,
// Node writes stdout and stderr asynchronously, and `process.exit` drops
// whatever the pipe has not taken yet (a 148 kB trace arrived as its first
// 64 KiB, with exit status 0). A command throws `exit(code)` instead, from
// wherever it is; `endsByDraining` turns that into `process.exitCode`, and
// Node ends the process once both streams have drained.
//
// Reading: every input is read up to a limit and then refused, standard
// input and named pipes included, whose size is not known before reading.
import { createReadStream, statSync } from "node:fs";

/** Thrown by `exit`: the status the command ends with, once its output has drained. */
export class Exit extends Error {
  constructor(code) {
    super(`exit ${code}`);
    this.code = code;
  }
}

/** Ends the command with status `code` after its output drains. Never returns. */
export function exit(code) {
  throw new Exit(code);
}

/**
 * Makes the process end as `exit(code)` says, once stdout and stderr have
 * drained: a thrown `exit` reaches Node as an uncaught exception (from the
 * module's top level, or any callback), which this handler takes in place of
 * Node's own, which would print it and stop with status 1. Anything else
 * thrown is a bug in the command line: reported on stderr, status 3.
 */
export function endsByDraining() {
  // A reader that stops early (`| head`) closes its pipe: nothing more written
  // there can reach anyone. End quietly, as a tool in a pipeline does, with
  // the status so far, once the other stream has drained what it holds.
  for (const [stream, other] of [
    [process.stdout, process.stderr],
    [process.stderr, process.stdout],
  ]) {
    stream.on("error", (error) => {
      if (error.code !== "EPIPE") throw error;
      other.write("", () => process.exit(process.exitCode ?? 0));
    });
  }
  process.on("uncaughtException", (error) => {
    if (error instanceof Exit) {
      process.exitCode = error.code;
      return;
    }
    process.stderr.write(`bumplab: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)} (this is a bug in Bump Lab)\n`);
    process.exitCode = 3;
  });
}

/**
 * Up to `limit` bytes of `file` (`-`: standard input) as UTF-8 text:
 * `{ ok: true, text }`, or `{ ok: false, size, whole }` when it holds more,
 * `size` its size if known before reading (`whole: true`), else the bytes
 * read when the limit was passed. A regular file over the limit is refused
 * by its size, unread; anything else is read a chunk at a time and left
 * the moment it passes the limit, so a stream without end (`yes | …`,
 * /dev/zero) costs `limit` bytes of memory, not all it would send.
 * Throws what the file system throws (ENOENT, EISDIR, ...).
 */
export async function readCapped(file, limit) {
  if (file !== "-") {
    const stat = statSync(file);
    if (stat.isFile() && stat.size > limit) return { ok: false, size: stat.size, whole: true };
  }
  const stream = file === "-" ? process.stdin : createReadStream(file);
  const chunks = [];
  let bytes = 0;
  try {
    for await (const chunk of stream) {
      bytes += chunk.length;
      if (bytes > limit) return { ok: false, size: bytes, whole: false };
      chunks.push(chunk);
    }
  } finally {
    // Left early, or at the end: either way nothing more is read, and an
    // open standard input no longer keeps the process alive.
    stream.destroy();
  }
  return { ok: true, text: Buffer.concat(chunks, bytes).toString("utf8") };
}

/**
 * `use(resource)`, then `resource.free()`. An error from `free` never hides
 * the error `use` threw: after a trap, a wasm-bindgen object is still marked
 * borrowed and its `free` throws "attempted to take ownership of Rust value
 * while it was borrowed", which a `finally` would report instead of the trap.
 */
export function freeAfter(resource, use) {
  let result;
  try {
    result = use(resource);
  } catch (error) {
    try {
      resource.free();
    } catch {
      // The trap above is the error to report; this one is its echo.
    }
    throw error;
  }
  resource.free();
  return result;
}
