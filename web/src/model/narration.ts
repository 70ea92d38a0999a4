// Lessons are plain programs: `#>` comments narrate the statement below them.
// The engine skips every `#` line as a comment, so a narrated program traces
// exactly like the same program without its narration.
//
//   #> The first block goes at the *end* of the chunk.   <- narration text
//   #>                                                    <- paragraph break
//   #> !pause            autoplay stops after this statement runs
//   #> ?predict          ask where this statement's block lands, before it runs
//   #> !highlight a b    highlight blocks a and b on the map
//   #> !try allocator hinckley-up       a "Try it" button: run on that allocator
//   #> !try compare bump-scope-down     open compare mode beside that allocator
//   #> !try step 5 "see b again"        go to op 5 (a quoted label replaces the default)
//   b = alloc u64
//
// A `#>` line whose text starts with `!` or `?` and a letter is a directive;
// one this parser does not know, or a known one written wrongly, is an error
// reported at its line (narrationErrors) rather than read as text.
//
// Markdown-lite inside the text: *emphasis*, **strong**, `code` and
// [links](https://…). Parsed here into a small AST; the view builds DOM nodes
// from it, so nothing the author wrote is ever interpreted as HTML.

import { lineOf, type TraceView } from "../wasm/traceView";
import { clampStep } from "./step";
import { MAX_COMPARE } from "./limits";

export interface Narration {
  /** Paragraphs separated by a blank line ("\n\n"); lines of one paragraph joined by a space. */
  text: string;
  /** Autoplay stops once this statement has run. */
  pause: boolean;
  /** Ask where this statement's block lands before it runs. */
  predict: boolean;
  /** Block names to highlight while the narration shows. */
  highlight: string[];
  /** "Try it" actions offered while the narration shows, in the order written. */
  tries: TryAction[];
}

/**
 * A detour the narration offers. Allocator names and op numbers are checked
 * against the engine only where they are shown (tryProblem): the parser does
 * not know the allocators.
 */
export type TryAction =
  | { kind: "allocator"; allocator: string; label: string; line: number }
  | { kind: "compare"; allocators: string[]; label: string; line: number }
  | { kind: "step"; step: number; label: string; line: number };

/** A directive the parser could not read, at its 1-based line. */
export interface NarrationError {
  line: number;
  message: string;
}

const NARRATION = /^\s*#>(.*)$/;

const DIRECTIVE = /^[!?][A-Za-z]/;
const KNOWN = "`!pause`, `?predict`, `!highlight`, `!try`";

/** An allocator name as the engine spells them (letters, digits, `-`, `_`, `.`). */
const ALLOCATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Compare mode's other columns, beside the run on screen. */
const MAX_TRY_COMPARE = MAX_COMPARE - 1;

const joinNames = (names: readonly string[]): string =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1] ?? ""}`;

/** `!try KIND ARGS ["label"]`: the action, or what is wrong with it. */
function parseTry(rest: string, line: number): TryAction | string {
  const usage = 'write `!try allocator NAME`, `!try compare NAME …` or `!try step N`, optionally followed by a "label"';
  const quoted = /^(.*?)\s*"([^"]*)"\s*$/.exec(rest);
  const head = (quoted ? (quoted[1] ?? "") : rest).trim();
  const label = quoted ? (quoted[2] ?? "").trim() : null;
  if (label !== null && label === "") return "`!try`'s label is empty";
  if (rest.includes('"') && !quoted) return `\`!try\` has an unclosed quote: ${usage}`;
  const [kind, ...args] = head.split(/\s+/).filter((w) => w.length > 0);
  switch (kind) {
    case "allocator": {
      const [name, ...extra] = args;
      if (name === undefined || extra.length > 0 || !ALLOCATOR_NAME.test(name)) return `\`!try allocator\` takes one allocator name, e.g. \`!try allocator hinckley-up\``;
      return { kind: "allocator", allocator: name, label: label ?? `switch to ${name}`, line };
    }
    case "compare": {
      if (args.length === 0 || args.length > MAX_TRY_COMPARE || !args.every((a) => ALLOCATOR_NAME.test(a))) {
        return `\`!try compare\` takes one to ${MAX_TRY_COMPARE} allocator names, e.g. \`!try compare bump-scope-down\``;
      }
      return { kind: "compare", allocators: args, label: label ?? `compare with ${joinNames(args)}`, line };
    }
    case "step": {
      const [n, ...extra] = args;
      if (n === undefined || extra.length > 0 || !/^[0-9]{1,7}$/.test(n)) return "`!try step` takes one op number, e.g. `!try step 5`";
      const step = Number(n);
      return { kind: "step", step, label: label ?? `go to op ${step}`, line };
    }
    default:
      return `\`!try ${kind ?? ""}\` is not an action: ${usage}`;
  }
}

/**
 * A directive line's effect, an error message, or null when the line is
 * narration text.
 */
function directive(body: string, line: number): ((n: Pending) => void) | string | null {
  const trimmed = body.trim();
  if (!DIRECTIVE.test(trimmed)) return null;
  const [word = "", ...rest] = trimmed.split(/\s+/);
  const args = trimmed.slice(word.length).trim();
  switch (word) {
    case "!pause":
    case "?predict":
      if (rest.length > 0) return `\`${word}\` takes nothing after it`;
      return word === "!pause" ? (n) => (n.pause = true) : (n) => (n.predict = true);
    case "!highlight": {
      const names = args.split(/[\s,]+/).filter((s) => s.length > 0);
      if (names.length === 0) return "`!highlight` names the blocks to mark, e.g. `!highlight a b`";
      return (n) => {
        for (const name of names) if (!n.highlight.includes(name)) n.highlight.push(name);
      };
    }
    case "!try": {
      const action = parseTry(args, line);
      return typeof action === "string" ? action : (n) => n.tries.push(action);
    }
    default:
      return `unknown directive \`${word}\`: a narration directive is one of ${KNOWN}`;
  }
}

/**
 * Whether the line holds an op statement: something left once its comment,
 * `repeat N {` openers and `}` closers are taken away. Narration before a
 * `repeat` line or a `}` therefore goes to the next statement that runs.
 */
function isStatementLine(line: string): boolean {
  // The language has no strings, so `#` always starts a comment.
  let code = line.replace(/#.*$/, "");
  code = code.replace(/\}/g, " ");
  for (;;) {
    const next = code.replace(/^\s*repeat\s+\S+\s*\{/, "");
    if (next === code) break;
    code = next;
  }
  return code.trim().length > 0;
}

interface Pending {
  paragraphs: string[];
  /** Lines of the paragraph being written. */
  current: string[];
  pause: boolean;
  predict: boolean;
  highlight: string[];
  tries: TryAction[];
  /** Whether any `#>` line was seen. */
  any: boolean;
}

function emptyPending(): Pending {
  return { paragraphs: [], current: [], pause: false, predict: false, highlight: [], tries: [], any: false };
}

function closeParagraph(p: Pending): void {
  if (p.current.length > 0) p.paragraphs.push(p.current.join(" "));
  p.current = [];
}

function toNarration(p: Pending): Narration {
  closeParagraph(p);
  return { text: p.paragraphs.join("\n\n"), pause: p.pause, predict: p.predict, highlight: [...p.highlight], tries: [...p.tries] };
}

/** Folds a later narration into an earlier one (trailing narration onto the last statement). */
function merge(into: Narration, more: Narration): Narration {
  const text = [into.text, more.text].filter((t) => t.length > 0).join("\n\n");
  const highlight = [...into.highlight];
  for (const name of more.highlight) if (!highlight.includes(name)) highlight.push(name);
  return { text, pause: into.pause || more.pause, predict: into.predict || more.predict, highlight, tries: [...into.tries, ...more.tries] };
}

/**
 * The narration of each statement, keyed by the statement's 1-based line.
 * A `#>` block attaches to the next statement line, across blank lines,
 * plain comments, `repeat N {` and `}`. A `#>` block after the last statement
 * (a lesson's closing words) is added to the last statement's narration, so
 * it shows at the final step; with no statement at all there is nothing to
 * attach it to and it is dropped.
 */
export function parseNarration(source: string): ReadonlyMap<number, Narration> {
  return readNarration(source).narrations;
}

let lastRead: { source: string; narrations: ReadonlyMap<number, Narration>; errors: readonly NarrationError[] } | null = null;

/**
 * Both halves of a program's narration: each statement's, and the directives
 * that could not be read. Renders ask again for the same program (a recorded
 * one is hundreds of kB), so the last answer is kept; it is shared, hence
 * read-only.
 */
function readNarration(source: string): { narrations: ReadonlyMap<number, Narration>; errors: readonly NarrationError[] } {
  if (lastRead?.source !== source) lastRead = { source, ...readNarrationNow(source) };
  return lastRead;
}

function readNarrationNow(source: string): { narrations: Map<number, Narration>; errors: NarrationError[] } {
  const out = new Map<number, Narration>();
  const errors: NarrationError[] = [];
  // Without a `#>` there is nothing to read: a recording of a million lines
  // is searched once instead of split and matched line by line on the
  // page's thread (a quarter of a second).
  if (!source.includes("#>")) return { narrations: out, errors };
  const lines = source.split(/\r\n|\r|\n/);
  let pending = emptyPending();
  let lastStatement: number | undefined;
  lines.forEach((line, i) => {
    const m = NARRATION.exec(line);
    if (m) {
      pending.any = true;
      const body = m[1] ?? "";
      const apply = directive(body, i + 1);
      if (typeof apply === "string") {
        errors.push({ line: i + 1, message: apply });
      } else if (apply) {
        apply(pending);
      } else if (body.trim() === "") {
        closeParagraph(pending);
      } else {
        pending.current.push(body.trim());
      }
      return;
    }
    // Any other line ends the paragraph: only consecutive `#>` lines join.
    closeParagraph(pending);
    if (!isStatementLine(line)) return;
    const lineNo = i + 1;
    lastStatement = lineNo;
    if (pending.any) out.set(lineNo, toNarration(pending));
    pending = emptyPending();
  });
  if (pending.any && lastStatement !== undefined) {
    const trailing = toNarration(pending);
    const existing = out.get(lastStatement);
    out.set(lastStatement, existing ? merge(existing, trailing) : trailing);
  }
  return { narrations: out, errors };
}

/** The directives of `source` that could not be read, each at its line. */
export function narrationErrors(source: string): readonly NarrationError[] {
  return readNarration(source).errors;
}

/** What the page knows to check a Try-it action against. */
export interface TryContext {
  allocators: ReadonlySet<string>;
  /** The program's op count: `!try step` goes to 0 .. this. */
  ops: number;
}

/** Why a Try-it action cannot be offered in this run (an unknown allocator, an op past the end), or null. */
export function tryProblem(action: TryAction, ctx: TryContext): string | null {
  const unknown = (name: string): string => `\`!try\` names no allocator the engine has: \`${name}\``;
  switch (action.kind) {
    case "allocator":
      return ctx.allocators.has(action.allocator) ? null : unknown(action.allocator);
    case "compare": {
      const bad = action.allocators.find((a) => !ctx.allocators.has(a));
      return bad === undefined ? null : unknown(bad);
    }
    case "step":
      return action.step <= ctx.ops ? null : `\`!try step ${action.step}\`: the program runs ${ctx.ops} op${ctx.ops === 1 ? "" : "s"}`;
  }
}

// ---- Which narration a step shows ---------------------------------------------

/**
 * The narration shown at `step`: that of the statement whose op produced the
 * step (ops[step - 1]); null at step 0 and for statements without one.
 */
export function narrationAt(trace: TraceView, step: number, narrations: ReadonlyMap<number, Narration>): Narration | null {
  const s = clampStep(trace, step);
  return s > 0 ? (narrations.get(lineOf(trace, s - 1)) ?? null) : null;
}

/** Whether the next op (ops[step]) carries `?predict`: the question is asked before it runs. */
export function predictsNext(trace: TraceView, step: number, narrations: ReadonlyMap<number, Narration>): boolean {
  const s = clampStep(trace, step);
  return s < trace.length && narrations.get(lineOf(trace, s))?.predict === true;
}

/** Whether autoplay stops at `step`: its narration says `!pause`, or the next op asks a question first. */
export function pausesAt(trace: TraceView, step: number, narrations: ReadonlyMap<number, Narration>): boolean {
  return narrationAt(trace, step, narrations)?.pause === true || predictsNext(trace, step, narrations);
}

// ---- Markdown-lite -------------------------------------------------------------

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "em"; children: Inline[] }
  | { kind: "strong"; children: Inline[] }
  | { kind: "link"; href: string; children: Inline[] };

/** The link targets rendered as links: absolute http(s) URLs, nothing else. */
export function safeHref(url: string): string | null {
  if (!/^https?:\/\/[^\s<>"'`]+$/i.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

const ESCAPABLE = new Set(["\\", "*", "`", "[", "]", "(", ")"]);

/** Where the closing `marker` of an emphasis opened at `from` is, or -1. */
function findClose(s: string, from: number, marker: string): number {
  let j = from;
  for (;;) {
    j = s.indexOf(marker, j);
    if (j < 0) return -1;
    // A closer follows a non-space, and a single `*` is not half of a `**`.
    const before = s[j - 1] ?? " ";
    const partOfDouble = marker === "*" && (s[j + 1] === "*" || before === "*");
    if (j > from && !/\s/.test(before) && !partOfDouble) return j;
    j += marker.length;
  }
}

function parseInlineFrom(s: string, allowLinks: boolean): Inline[] {
  const out: Inline[] = [];
  let text = "";
  const flush = (): void => {
    if (text.length > 0) out.push({ kind: "text", text });
    text = "";
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    const next = s[i + 1];
    if (c === "\\" && next !== undefined && ESCAPABLE.has(next)) {
      text += next;
      i += 2;
      continue;
    }
    if (c === "`") {
      const end = s.indexOf("`", i + 1);
      if (end > i + 1) {
        flush();
        out.push({ kind: "code", text: s.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    if (c === "*") {
      const marker = next === "*" ? "**" : "*";
      const open = i + marker.length;
      // An opener is followed by a non-space (so `2 * 3` stays text).
      if (open < s.length && !/\s/.test(s[open] as string)) {
        const end = findClose(s, open, marker);
        if (end > open) {
          flush();
          const children = parseInlineFrom(s.slice(open, end), allowLinks);
          out.push(marker === "**" ? { kind: "strong", children } : { kind: "em", children });
          i = end + marker.length;
          continue;
        }
      }
    }
    if (c === "[" && allowLinks) {
      const m = /^\[([^\]]+)\]\(([^)\s]*)\)/.exec(s.slice(i));
      if (m) {
        const href = safeHref(m[2] ?? "");
        if (href !== null) {
          flush();
          out.push({ kind: "link", href, children: parseInlineFrom(m[1] ?? "", false) });
          i += m[0].length;
          continue;
        }
      }
    }
    text += c;
    i += 1;
  }
  flush();
  return out;
}

/** One paragraph's inline markup. Anything that is not the subset stays text. */
export function parseInline(text: string): Inline[] {
  return parseInlineFrom(text, true);
}

/** A narration's paragraphs, each parsed into inline nodes. */
export function parseParagraphs(text: string): Inline[][] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0)
    .map(parseInline);
}

/** The plain text of inline nodes (what a screen reader or a test reads). */
export function inlineText(nodes: readonly Inline[]): string {
  return nodes.map((n) => ("text" in n ? n.text : inlineText(n.children))).join("");
}
