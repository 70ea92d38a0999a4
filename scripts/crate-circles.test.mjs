// The crates' modules have no import circles, and the finder finds one
// where there is one.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { allCircles, crateCircles } from "./crate-circles.mjs";

describe("module circles in crates/", () => {
  it("has none", () => {
    expect(allCircles()).toEqual([]);
  });

  const dir = mkdtempSync(join(tmpdir(), "crate-circles-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const crate = (files) => {
    const src = mkdtempSync(join(dir, "src-"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(src, path, ".."), { recursive: true });
      writeFileSync(join(src, path), text);
    }
    return src;
  };

  it("finds siblings that use each other, through use lists, inline paths and a parent's child", () => {
    const src = crate({
      "lib.rs": "mod engine;\n",
      "engine/mod.rs": "mod shadow;\nmod translate;\nuse translate::note;\n",
      "engine/shadow.rs": "use super::{Engine, translate::{self, note}};\n",
      "engine/translate.rs": "fn f() { super::shadow::chunk_mut(); }\n",
    });
    expect(crateCircles(src)).toEqual([["engine::translate", "engine::shadow", "engine::translate"]]);
  });

  it("lets a child use its parent, and ignores comments, strings and the test module", () => {
    const src = crate({
      "lib.rs": "pub mod a;\npub mod b;\nuse crate::a::A;\n",
      "a.rs": "use crate::b::B; // use crate::a\n",
      "b.rs": 'use crate::Root;\nconst S: &str = "crate::a::A";\n/* super::a */\n#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n',
    });
    expect(crateCircles(src)).toEqual([]);
  });
});
