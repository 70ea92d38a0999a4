// An AllocatorInfo for tests that need a preset the engine does not list:
// every field the registry's row gives, empty or neutral unless the test says.

import type { AllocatorInfo } from "../wasm/types";

export function fakeAllocator(name: string, over: Partial<AllocatorInfo> = {}): AllocatorInfo {
  return {
    name,
    direction: "up",
    source: "bump-up",
    description: "",
    minAligns: [],
    children: [],
    family: "core",
    group: "Other",
    menuRank: 0,
    capacity: { kind: "size", means: "size setting", help: "", default: null },
    chunkRecord: "none",
    counterpart: { allocator: "", why: "" },
    real: "",
    ...over,
  };
}
