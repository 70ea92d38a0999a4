import { describe, expect, it } from "vitest";
import { loadTraceModuleSync } from "../wasm/node";
import { config, viewResult } from "../test/runs";
import type { AllocatorInfo } from "../wasm/types";
import { EditorState, Text, type StateCommand, type Transaction } from "@codemirror/state";
import { copyLineDown, history, indentMore, insertNewlineAndIndent, insertTab, undo } from "@codemirror/commands";
import { fakeAllocator } from "../test/allocators";
import { capacityHelp as helpOf, groupAllocators } from "./allocatorMenu";
import { formatError } from "./editor";
import { diagnosticsOf, errorRange } from "./program/diagnostics";
import { typedEdit } from "./program/editor";
import { menuKeyIndex, typeaheadIndex } from "./programMenu";

const info = (name: string, group: string, menuRank = 0): AllocatorInfo => fakeAllocator(name, { group, menuRank });

describe("allocator chooser groups", () => {
  it("groups every preset the engine lists, seed algorithms first", () => {
    const allocators = loadTraceModuleSync().allocators();
    const groups = groupAllocators(allocators);
    expect(groups.map((g) => g.label)).toEqual(["Seed algorithms (one fixed chunk)", "Libraries"]);
    expect(groups[0]?.items.map((a) => a.name)).toEqual(["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align"]);
    expect(groups[1]?.items.map((a) => a.name)).toEqual([
      "bumpalo",
      "bump-scope-up",
      "bump-scope-down",
      "bumper-alloc-buffer",
      "bumper-slab",
      "cpp-arena",
      "blink-alloc",
      "llvm-bump-ptr",
      "pmr-monotonic",
      "zig-arena",
      "zig-fixed-buffer",
    ]);
    expect(groups.flatMap((g) => g.items).length).toBe(allocators.length);
  });

  it("takes each preset's group and place from its row: groups in the engine's order, places within them", () => {
    const groups = groupAllocators([info("b", "Libraries", 1), info("new-thing", "Other"), info("a", "Libraries", 0)]);
    expect(groups.map((g) => [g.label, g.items.map((a) => a.name)])).toEqual([
      ["Libraries", ["a", "b"]],
      ["Other", ["new-thing"]],
    ]);
  });

  it("explains the capacity knob per preset", () => {
    const allocators = loadTraceModuleSync().allocators();
    const capacityHelp = (name: string) => helpOf(name, allocators);
    expect(capacityHelp("fitzgen-down")).toMatch(/fixed chunk/);
    expect(capacityHelp("bumper-alloc-buffer")).toMatch(/buffer/);
    expect(capacityHelp("bumper-slab")).toMatch(/slab/);
    expect(capacityHelp("cpp-arena")).toMatch(/pool/);
    expect(capacityHelp("bumpalo")).toMatch(/first chunk/);
    expect(capacityHelp("blink-alloc")).toMatch(/with_chunk_size/);
    expect(capacityHelp("llvm-bump-ptr")).toMatch(/SlabSize/);
    expect(capacityHelp("pmr-monotonic")).toMatch(/initial_size/);
    expect(capacityHelp("zig-arena")).toMatch(/retain_with_limit/);
    expect(capacityHelp("zig-fixed-buffer")).toMatch(/buffer/);
    expect(capacityHelp("unknown")).toMatch(/default/);
  });
});

describe("error text", () => {
  it("reads line:column: message, as the engine prints it", () => {
    expect(formatError({ line: 7, column: 19, message: "alignment 3 is not allowed" })).toBe("7:19: alignment 3 is not allowed");
  });
});

describe("every error", () => {
  it("marks one column a line, the first error's, from the engine's list of every bad line", () => {
    const r = viewResult(config("a = alloc\nb = alloc 8\nfree\nrepeat x {\n  c = alloc @\n}", "bumpalo"));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect([r.error, ...(r.error.more ?? [])].map(formatError)).toEqual([
      "1:10: expected a size (bytes, a type like u64, or [u32; 17]), found the end of the line",
      "3:5: expected the name of a block to free, found the end of the line",
      "4:8: expected a repeat count, found 'x'",
      "5:13: unexpected character '@': names are letters, digits and _, numbers are decimal or 0x hex, and # starts a comment",
    ]);
    // Each error is a diagnostic over the token it points at, or a point at the line's end past it.
    const doc = Text.of("a = alloc\nb = alloc 8\nfree\nrepeat x {\n  c = alloc @\n}".split("\n"));
    const marked = diagnosticsOf(doc, [r.error, ...(r.error.more ?? [])]).map((d) => [doc.lineAt(d.from).number, doc.sliceString(d.from, d.to), d.from]);
    expect(marked).toEqual([
      [1, "", 9],
      [3, "", 26],
      [4, "x", 34],
      [5, "@", 50],
    ]);
  });

  it("finds an error's place counting characters as the engine does", () => {
    const doc = Text.of(["a = alloc 8", "free b", "é = 1 ü x"]);
    expect(errorRange(doc, { line: 1, column: 1, message: "" })).toEqual({ from: 0, to: 1 });
    expect(doc.sliceString(errorRange(doc, { line: 2, column: 6, message: "" }).from)).toBe("b\né = 1 ü x");
    // Past the line's end: the end of the line; past the last line: the last line.
    expect(errorRange(doc, { line: 2, column: 40, message: "" })).toEqual({ from: 18, to: 18 });
    expect(errorRange(doc, { line: 9, column: 9, message: "" })).toEqual({ from: 27, to: 28 });
    // An astral character is one column but two UTF-16 units.
    const astral = Text.of(["a \u{1F600} b"]);
    expect(errorRange(astral, { line: 1, column: 5, message: "" })).toEqual({ from: 5, to: 6 });
  });
});

describe("Programs menu keys", () => {
  it("moves down and up with wrap-around, and to the ends with Home and End", () => {
    expect(menuKeyIndex("ArrowDown", 0, 4)).toBe(1);
    expect(menuKeyIndex("ArrowDown", 3, 4)).toBe(0);
    expect(menuKeyIndex("ArrowUp", 0, 4)).toBe(3);
    expect(menuKeyIndex("ArrowUp", 2, 4)).toBe(1);
    expect(menuKeyIndex("Home", 2, 4)).toBe(0);
    expect(menuKeyIndex("End", 0, 4)).toBe(3);
  });

  it("starts from the top when nothing is focused yet (-1) and ignores other keys", () => {
    expect(menuKeyIndex("ArrowDown", -1, 4)).toBe(0);
    expect(menuKeyIndex("ArrowUp", -1, 4)).toBe(3);
    expect(menuKeyIndex("Enter", 1, 4)).toBeNull();
    expect(menuKeyIndex("ArrowDown", 0, 0)).toBeNull();
  });

  it("type-ahead finds the next title with that first letter, wrapping, any case", () => {
    const titles = ["A few blocks", "Alignment padding", "String building", "Random mix…"];
    expect(typeaheadIndex(titles, 0, "a")).toBe(1);
    expect(typeaheadIndex(titles, 1, "A")).toBe(0);
    expect(typeaheadIndex(titles, 0, "s")).toBe(2);
    expect(typeaheadIndex(titles, 2, "s")).toBe(2);
    expect(typeaheadIndex(titles, 0, "z")).toBeNull();
  });
});

describe("which edits are keys", () => {
  /** The transaction a command makes on `a = alloc 8` with the caret at its end. */
  const by = (command: StateCommand): Transaction => {
    const state = EditorState.create({ doc: "a = alloc 8", selection: { anchor: 11 }, extensions: [history()] });
    let made: Transaction | null = null;
    expect(command({ state, dispatch: (tr) => (made = tr) })).toBe(true);
    if (!made) throw new Error("the command made no transaction");
    return made;
  };
  const typed = (userEvent?: string): Transaction => EditorState.create({ doc: "a" }).update({ changes: { from: 1, insert: "b" }, userEvent });

  it("counts a typed character, Enter, Tab, Backspace, an indent and a copied line as keys, after which more may come", () => {
    expect(typedEdit(typed("input.type"))).toBe(true);
    expect(typedEdit(by(insertNewlineAndIndent))).toBe(true);
    expect(typedEdit(by(insertTab))).toBe(true);
    // Backspace and Delete need a view; their edits are "delete.backward" and "delete.forward".
    expect(typedEdit(typed("delete.backward"))).toBe(true);
    expect(typedEdit(typed("delete.forward"))).toBe(true);
    expect(typedEdit(by(indentMore))).toBe(true);
    expect(typedEdit(by(copyLineDown))).toBe(true);
  });

  it("counts a paste, a drop, an undo and a program set from outside as the whole edit", () => {
    expect(typedEdit(typed("input.paste"))).toBe(false);
    expect(typedEdit(typed("input.drop"))).toBe(false);
    expect(typedEdit(typed())).toBe(false);
    const edited = by(insertNewlineAndIndent).state;
    let undone: Transaction | null = null;
    expect(undo({ state: edited, dispatch: (tr) => (undone = tr) })).toBe(true);
    expect(undone && typedEdit(undone)).toBe(false);
  });
});
