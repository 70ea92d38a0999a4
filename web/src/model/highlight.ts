// Tokens of the program language for syntax highlighting. The rules mirror
// the lexer in crates/core/src/program.rs (`lex` and `parse_number`) so the
// colours agree with what the engine will accept: a word the engine would
// reject (a bad number, a stray character) is "invalid" here too.

/** What a run of characters is, for colouring. */
export type TokenKind =
  | "keyword"
  | "type"
  | "number"
  | "name"
  | "punct"
  | "comment"
  /** `#>` lines: lesson narration, shown beside the step rather than run. */
  | "narration"
  /** `#> !pause`, `#> ?predict`, `#> !highlight a b`, `#> !try …`: narration that steers the lesson. */
  | "directive"
  | "invalid"
  | "space";

export interface Token {
  kind: TokenKind;
  text: string;
  /** 1-based column of the first character, counted in characters (code points) as the engine counts. */
  column: number;
}

/** The parser's keyword list (`KEYWORDS` in program.rs). */
export const KEYWORDS: ReadonlySet<string> = new Set(["alloc", "realloc", "free", "checkpoint", "restore", "reset", "repeat", "align"]);
/** The primitive types a size may name (`Prim::parse`). */
export const TYPES: ReadonlySet<string> = new Set(["u8", "u16", "u32", "u64", "u128", "usize"]);

const PUNCT = new Set(["=", "{", "}", "[", "]", ";"]);
// The engine's word characters: ASCII letters, digits and '_' (a leading '-' starts a number).
const WORD = /^[A-Za-z0-9_]$/;
const DECIMAL = /^[0-9_]+$/;
const HEX = /^0[xX][0-9A-Fa-f_]*[0-9A-Fa-f][0-9A-Fa-f_]*$/;
// The directives model/narration.ts acts on.
const DIRECTIVE = /^\s*(?:!pause|\?predict|!highlight(?:\s.*)?|!try\s.*)\s*$/;
// Rust's char::is_whitespace, enough of it for text typed or pasted into a textarea.
const SPACE = /^\s$/u;

function wordKind(word: string): TokenKind {
  const first = word[0] ?? "";
  if (first === "-") return "invalid"; // sizes and counts are never negative
  if (first >= "0" && first <= "9") return DECIMAL.test(word) || HEX.test(word) ? "number" : "invalid";
  if (KEYWORDS.has(word)) return "keyword";
  if (TYPES.has(word)) return "type";
  return "name";
}

/** The tokens of one line, covering it exactly: their texts joined give the line back. */
export function tokenizeLine(line: string): Token[] {
  const chars = Array.from(line);
  const out: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, end: number): void => {
    out.push({ kind, text: chars.slice(i, end).join(""), column: i + 1 });
    i = end;
  };
  while (i < chars.length) {
    const c = chars[i] ?? "";
    let end = i + 1;
    if (c === "#") {
      // Narration is a whole line of its own: `#>` first on the line.
      const lineStart = out.every((t) => t.kind === "space");
      const narration = lineStart && chars[i + 1] === ">";
      const body = chars.slice(i + 2).join("");
      push(narration ? (DIRECTIVE.test(body) ? "directive" : "narration") : "comment", chars.length);
    } else if (SPACE.test(c)) {
      while (end < chars.length && SPACE.test(chars[end] ?? "")) end++;
      push("space", end);
    } else if (PUNCT.has(c)) {
      push("punct", end);
    } else if (WORD.test(c) || c === "-") {
      while (end < chars.length && WORD.test(chars[end] ?? "")) end++;
      const word = chars.slice(i, end).join("");
      push(wordKind(word), end);
    } else {
      push("invalid", end);
    }
  }
  return out;
}

/** The tokens of every line (lines split on "\n", as the textarea holds them). */
export function tokenize(source: string): Token[][] {
  return source.split("\n").map(tokenizeLine);
}

/**
 * Where the error marker goes on a line: the token that starts at or covers
 * `column`, or `"end"` when the column is past the line's last character (the
 * engine's "found the end of the line", whose column is past any comment).
 * Spaces and comments are never marked: an error at a space marks the next
 * token, or the end.
 */
export function errorTokenIndex(tokens: readonly Token[], column: number): number | "end" {
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (!t || t.kind === "space" || t.kind === "comment" || t.kind === "narration" || t.kind === "directive") continue;
    const width = Array.from(t.text).length;
    if (column < t.column + width) return k;
  }
  return "end";
}
