// What the compiler of a Rust caller knows of an op's layout, in words. The
// cost module measures each op with exactly that knowledge (a root compiled
// with the type's constant layout, with an element's constant alignment, or
// with both at run time), so the page says which one an op was wherever it
// shows the op's count: the op's details, the Instructions view and the cost
// chart's bars.

import type { OpKind, Shape } from "../wasm/types";

/** "u64", "[u32]", "layout": the short name under a cost bar. */
export function shapeName(shape: Shape): string {
  switch (shape.kind) {
    case "typed":
      return shape.type;
    case "array":
      return `[${shape.type}]`;
    case "layout":
      return "layout";
  }
}

/** "typed u64", "[u32], size at run time", "run-time layout": a bar's tooltip and accessible name. */
export function shapeTag(shape: Shape): string {
  switch (shape.kind) {
    case "typed":
      return `typed ${shape.type}`;
    case "array":
      return `[${shape.type}], size at run time`;
    case "layout":
      return "run-time layout";
  }
}

/**
 * What the compiler knows and which Rust call has that knowledge, for the
 * op's details: "typed u64: size and alignment known at compile time, as in
 * `bump.alloc(value)`".
 */
export function shapeSentence(shape: Shape, kind: OpKind): string {
  switch (shape.kind) {
    case "typed": {
      const t = shape.type;
      return kind === "free"
        ? `typed ${t}: its layout known at compile time, as when a Box<${t}> is dropped`
        : `typed ${t}: size and alignment known at compile time, as in bump.alloc(value) for a ${t}`;
    }
    case "array": {
      const t = shape.type;
      if (kind === "realloc") return `${t} elements: alignment known at compile time, sizes at run time, as when a Vec<${t}> grows or shrinks`;
      if (kind === "free") return `[${t}]: alignment known at compile time, size at run time, as when a Vec<${t}> is dropped`;
      return `[${t}] slice: alignment known at compile time, size at run time, as in alloc_slice_copy of ${t}s`;
    }
    case "layout":
      return kind === "realloc"
        ? "run-time layout: alignment and sizes known only at run time, as with a Layout built from values"
        : "run-time layout: size and alignment known only at run time, as in alloc_layout(layout) with a layout built from values";
  }
}

/** The Instructions view's note on what the listed code was compiled with. */
export function shapeListingNote(shape: Shape): string {
  switch (shape.kind) {
    case "typed":
      return `Compiled with the ${shape.type}'s layout as a constant: tests and roundings it decides were folded away before this code ran.`;
    case "array":
      return `Compiled with the ${shape.type}'s alignment as a constant and the size as a run-time value.`;
    case "layout":
      return "Compiled with the size and alignment as run-time values: nothing about them was decided at compile time.";
  }
}
