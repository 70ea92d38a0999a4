// A program in the shape crates/record writes for a real run (its header
// comments, `b<size>_<n>` names reused once their block is gone, the
// alignment malloc guarantees, frees and reallocs, no `repeat` folding), of
// any length: the large-file tests use it where a shipped recording is too
// short. It also keeps what it asked for, so a test can check the page's
// numbers against it without running the engine.

export interface Recording {
  text: string;
  ops: number;
  /** Bytes requested by the blocks still live after the last op. */
  requested: number;
  /** Blocks still live after the last op. */
  live: number;
}

/** What malloc guarantees a block of `size` bytes: the largest power of two up to it, at most 16. */
function mallocAlign(size: number): number {
  let align = 1;
  while (align * 2 <= Math.min(size, 16)) align *= 2;
  return align;
}

const SIZES = [8, 16, 24, 32, 40, 48, 64, 72, 96, 128, 136, 208, 256, 512, 1024, 4096] as const;

/** `ops` ops (allocs, frees, reallocs) drawn from `seed`; the same arguments give the same text. */
export function recording(ops: number, seed = 1): Recording {
  // xorshift32: small, fast and the same on every machine.
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  /** Numbers in use by live blocks, per size: a name takes the lowest free one. */
  const taken = new Map<number, Set<number>>();
  const name = (size: number): string => {
    let set = taken.get(size);
    if (!set) taken.set(size, (set = new Set()));
    let n = 1;
    while (set.has(n)) n++;
    set.add(n);
    return `b${size}_${n}`;
  };
  const release = (block: { size: number; name: string }): void => {
    taken.get(block.size)?.delete(Number(block.name.slice(block.name.indexOf("_") + 1)));
  };
  const live: { size: number; name: string }[] = [];
  const lines: string[] = [];
  let requested = 0;
  const counts = { alloc: 0, realloc: 0, free: 0 };
  for (let i = 0; i < ops; i++) {
    const roll = next() % 100;
    // Frees mostly take the newest blocks, as a parser's temporaries do;
    // the live set stays in the hundreds.
    if (live.length > 0 && (roll < 42 || live.length > 600)) {
      const k = next() % 4 === 0 ? next() % live.length : live.length - 1;
      const [block] = live.splice(k, 1);
      if (!block) throw new Error("no block to free");
      lines.push(`free ${block.name}`);
      release(block);
      requested -= block.size;
      counts.free++;
    } else if (live.length > 0 && roll < 47) {
      const k = live.length - 1 - (next() % Math.min(live.length, 8));
      const old = live[k];
      if (!old) throw new Error("no block to resize");
      const size = SIZES[next() % SIZES.length] ?? 8;
      release(old);
      const block = { size, name: name(size) };
      lines.push(`${block.name} = realloc ${old.name} ${size}`);
      live[k] = block;
      requested += size - old.size;
      counts.realloc++;
    } else {
      const size = SIZES[next() % SIZES.length] ?? 8;
      const block = { size, name: name(size) };
      lines.push(`${block.name} = alloc ${size} align ${mallocAlign(size)}`);
      live.push(block);
      requested += size;
      counts.alloc++;
    }
  }
  const header = [
    "# Recorded by bumplab-record 0.1.0 through the LD_PRELOAD shim, from one run of:",
    "#   a generated workload (web/src/test/recording.ts)",
    `# ${ops} ops (repeats expanded): ${counts.alloc} alloc, ${counts.realloc} realloc, ${counts.free} free, 0 reset.`,
    "# malloc-family blocks get what malloc guarantees for their size: the largest power of two up to the size, at most 16.",
    "# Names: b<size>_<n> is the n-th live block of that size; a name is reused once its block is gone.",
    "",
  ];
  return { text: `${header.join("\n")}\n${lines.join("\n")}\n`, ops, requested, live: live.length };
}
