// The instruction-level side of `npm run bench:native`: reads a callgrind
// output written with `--dump-instr=yes --collect-jumps=yes`, and turns it
// plus the objdump text of the same instructions into a listing: per function
// the instructions executed inside the measured window, each with its
// execution count, and each conditional branch with how often it was taken.
//
// Format notes (callgrind's dump.c): a cost line starts with one field per
// `positions:` entry (`instr line`), each absolute (`0x…`, decimal),
// relative to the last cost line (`+n`, `-n`) or the same (`*`); only cost
// lines move that "last" position. `calls=` is followed by the call site and
// the callee's INCLUSIVE cost (not the caller's own); `jump=` / `jcnd=` carry
// a target position and are followed by the jump's source position, with no
// cost. `jcnd=<taken>/<executions>` counts how often a conditional jump was
// followed; a branch that never jumped has no `jcnd=` line at all.

import { spawnSync } from "node:child_process";

/** Name-compression namespaces: `ob`/`cob` share one table, files another, functions a third. */
const SPACE = { ob: "ob", cob: "ob", fl: "fl", fi: "fl", fe: "fl", cfi: "fl", cfl: "fl", jfi: "fl", fn: "fn", cfn: "fn", jfn: "fn" };

/**
 * Parses a callgrind output file at instruction level.
 * Returns the event names, the file's totals, and every function that has
 * cost lines: `{ object, name, instructions: Map<address, { events, jumps }>,
 * calls: [{ object, name, count, target, site }] }`, in the order they first appear.
 * Throws when the file was not written with `--dump-instr=yes`.
 */
export function parseCallgrindInstructions(text) {
  let events = null;
  let positions = null;
  let totals = null;
  let summary = null;
  const names = { ob: new Map(), fl: new Map(), fn: new Map() };
  const functions = new Map();
  let ob = "";
  let fn = null;
  let callee = null;
  let calleeOb = null;
  /** What the next position line is: a cost line, a call's site (`calls`), or a jump's source (`jump`). */
  let pending = null;
  let last = null;

  const named = (key, value) => {
    const space = SPACE[key];
    const m = /^\((\d+)\)(?:\s+(.*))?$/.exec(value);
    if (!m) return value;
    if (m[2] !== undefined) names[space].set(m[1], m[2]);
    const name = names[space].get(m[1]);
    if (name === undefined) throw new Error(`callgrind output: ${key}=(${m[1]}) used before it was named`);
    return name;
  };
  const vector = (fields) => {
    const v = {};
    events.forEach((e, i) => {
      v[e] = Number(fields[i] ?? 0);
    });
    return v;
  };
  /** Reads the position fields at the start of `fields`, relative to `last` (which it does not move). */
  const position = (fields) => {
    const pos = [];
    for (let i = 0; i < positions.length; i++) {
      const f = fields[i];
      const before = last?.[i] ?? 0;
      if (f === undefined) throw new Error("callgrind output: a position line with too few fields");
      if (f === "*") pos.push(before);
      else if (f.startsWith("+")) pos.push(before + Number(f.slice(1)));
      else if (f.startsWith("-")) pos.push(before - Number(f.slice(1)));
      else pos.push(Number(f));
      if (!Number.isFinite(pos[i])) throw new Error(`callgrind output: bad position "${f}"`);
    }
    return pos;
  };
  const current = () => {
    if (fn === null) throw new Error("callgrind output: a cost line before any fn=");
    const key = `${ob}\u0000${fn}`;
    let f = functions.get(key);
    if (!f) {
      f = { object: ob, name: fn, instructions: new Map(), calls: [] };
      functions.set(key, f);
    }
    return f;
  };
  const instruction = (f, address) => {
    let i = f.instructions.get(address);
    if (!i) {
      i = { events: Object.fromEntries(events.map((e) => [e, 0])), jumps: [] };
      f.instructions.set(address, i);
    }
    return i;
  };

  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    let m;
    if (pending !== null && /^([+-]?\d+|\*|0x[0-9a-f]+)(\s|$)/i.test(line)) {
      const fields = line.split(/\s+/);
      const site = position(fields);
      if (pending.kind === "jump") {
        const f = current();
        instruction(f, site[0]).jumps.push(pending.jump);
      } else {
        current().calls.push({ ...pending.call, site: site[0] });
      }
      pending = null;
      continue;
    }
    if ((m = /^events:\s*(.*)$/.exec(line))) {
      events = m[1].trim().split(/\s+/);
    } else if ((m = /^positions:\s*(.*)$/.exec(line))) {
      positions = m[1].trim().split(/\s+/);
    } else if ((m = /^totals:\s*(.*)$/.exec(line))) {
      totals = vector(m[1].trim().split(/\s+/));
    } else if ((m = /^summary:\s*(.*)$/.exec(line))) {
      summary = vector(m[1].trim().split(/\s+/));
    } else if ((m = /^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn|jfi|jfn)=(.*)$/.exec(line))) {
      const value = named(m[1], m[2].trim());
      if (m[1] === "ob") ob = value;
      else if (m[1] === "fn") {
        fn = value;
        callee = null;
        calleeOb = null;
      } else if (m[1] === "cob") calleeOb = value;
      else if (m[1] === "cfn") callee = value;
    } else if ((m = /^calls=(\d+)\s+(.*)$/.exec(line))) {
      if (callee === null) throw new Error("callgrind output: calls= without cfn=");
      const target = position(m[2].trim().split(/\s+/));
      pending = { kind: "call", call: { object: calleeOb ?? ob, name: callee, count: Number(m[1]), target: target[0] } };
      calleeOb = null;
    } else if ((m = /^(jump|jcnd)=(\d+)(?:\/(\d+))?\s+(.*)$/.exec(line))) {
      if (positions === null || !positions.includes("instr")) throw new Error("callgrind output without instruction positions: run callgrind with --dump-instr=yes");
      const target = position(m[4].trim().split(/\s+/));
      const conditional = m[1] === "jcnd";
      pending = {
        kind: "jump",
        jump: { conditional, target: target[0], followed: Number(m[2]), executions: conditional ? Number(m[3]) : Number(m[2]) },
      };
    } else if (/^([+-]?\d+|\*|0x[0-9a-f]+)(\s|$)/i.test(line)) {
      if (events === null) throw new Error("not a callgrind output: a cost line before `events:`");
      if (positions === null || !positions.includes("instr")) throw new Error("callgrind output without instruction positions: run callgrind with --dump-instr=yes");
      const fields = line.split(/\s+/);
      const pos = position(fields);
      last = pos;
      const v = vector(fields.slice(positions.length));
      const f = current();
      const i = instruction(f, pos[positions.indexOf("instr")]);
      for (const e of events) i.events[e] += v[e];
    }
    // Other lines (version:, creator:, cmd:, desc:, part:, …) describe the run.
  }
  if (events === null) throw new Error("not a callgrind output: no `events:` line");
  const total = totals ?? summary;
  if (total === null) throw new Error("callgrind output without `totals:` or `summary:`");
  return { events, total, functions: [...functions.values()] };
}

/** Instructions after which control never falls through to the next one. */
const UNCONDITIONAL = /^(?:(?:bnd|notrack)\s+)*(jmp|ret|ud2|hlt)\b/;

/**
 * Where a branch goes when it goes: `jne 3b7f5 <sym+0x35>` -> 0x3b7f5; a
 * rep-prefixed string instruction repeats itself; null for anything else.
 */
export function branchTarget(text, address) {
  if (/^rep/.test(text)) return address;
  const m = /^(?:(?:bnd|notrack)\s+)*j[a-z]*\s+([0-9a-f]+)(\s|$)/.exec(text);
  return m ? parseInt(m[1], 16) : null;
}

/**
 * The listing of one measured cell from a parsed callgrind output.
 * `disassembly(object, addresses)` returns a Map from each address to
 * `{ text, next }` (the instruction's text and the address after it).
 * `entry` is the name the cell's entry function goes by; `aliases` the other
 * names callgrind may give it (identical functions merged by the linker).
 * Functions come entry first, then callees depth-first in call-site order.
 * Throws when the instructions' counts do not add up to the totals.
 */
export function buildListing(parsed, { entry, aliases = [], disassembly }) {
  const { total } = parsed;
  const live = parsed.functions.filter((f) => [...f.instructions.values()].some((i) => i.events.Ir > 0));
  const key = (object, name) => `${object}\u0000${name}`;
  const byKey = new Map(live.map((f) => [key(f.object, f.name), f]));
  const root = live.find((f) => f.name === entry || aliases.includes(f.name));
  if (!root) throw new Error(`the entry ${entry} executed nothing`);
  const order = [];
  const seen = new Set();
  const visit = (f) => {
    const k = key(f.object, f.name);
    if (seen.has(k)) return;
    seen.add(k);
    order.push(f);
    for (const c of [...f.calls].sort((a, b) => a.site - b.site)) {
      const g = byKey.get(key(c.object, c.name));
      if (g) visit(g);
    }
  };
  visit(root);
  for (const f of live) visit(f);

  // Addresses some call enters: control can arrive there from outside the function.
  const entered = new Set(parsed.functions.flatMap((f) => f.calls.map((c) => `${c.object}\u0000${c.target}`)));
  const functions = order.map((f) => {
    const addresses = [...f.instructions.keys()].filter((a) => f.instructions.get(a).events.Ir > 0).sort((a, b) => a - b);
    const texts = disassembly(f.object, addresses);
    const countAt = (a) => f.instructions.get(a)?.events.Ir ?? 0;
    const at = (address) => {
      const d = texts.get(address);
      if (!d) throw new Error(`${f.name}: no instruction at 0x${address.toString(16)} in ${f.object}`);
      return d;
    };
    // Where control can come from, per address, inside the measured window:
    // the executed instructions that fall through to it or jump to it (a
    // direct jump's own target, or any target callgrind saw a jump take).
    const preds = new Map();
    const from = (to, address) => {
      if (to === null) return;
      const s = preds.get(to) ?? new Set();
      s.add(address);
      preds.set(to, s);
    };
    for (const address of addresses) {
      const d = at(address);
      if (!UNCONDITIONAL.test(d.text)) from(d.next, address);
      from(branchTarget(d.text, address), address);
      for (const j of f.instructions.get(address).jumps) from(j.target, address);
    }
    const onlyFrom = (to, address) => !entered.has(`${f.object}\u0000${to}`) && [...(preds.get(to) ?? [])].every((p) => p === address);
    let ir = 0;
    let bc = 0;
    const instructions = addresses.map((address) => {
      const ins = f.instructions.get(address);
      const d = at(address);
      const count = ins.events.Ir;
      const branches = ins.events.Bc ?? 0;
      ir += count;
      bc += branches;
      const row = { address, text: d.text, count };
      if (branches > 0) {
        // callgrind's jcnd= counts also follow jumps made outside the window
        // (a memcpy that setup called too), so the outcome comes from the
        // window's own counts: the side that only this branch leads to was
        // reached exactly as often as the branch went that way.
        const where = `${f.name} 0x${address.toString(16)} (${d.text})`;
        const target = branchTarget(d.text, address);
        if (target === null || d.next === null || target === d.next) throw new Error(`${where}: a conditional branch without a distinct target`);
        let taken;
        if (onlyFrom(d.next, address)) taken = branches - countAt(d.next);
        else if (onlyFrom(target, address)) taken = countAt(target);
        else throw new Error(`${where}: both of its successors are reached from elsewhere too, so its outcome cannot be told from the counts`);
        if (taken < 0 || taken > branches || taken > countAt(target) || branches - taken > countAt(d.next)) {
          throw new Error(`${where}: taken ${taken} of ${branches} does not fit the counts of its successors`);
        }
        row.taken = taken;
        row.notTaken = branches - taken;
      }
      return row;
    });
    // objdump names the entry's address after any one of its aliases
    // (`<bumplab_bench__other_case+0x1a>`): in this cell's listing it is the entry.
    for (const row of instructions) {
      for (const other of aliases) {
        if (other !== entry) row.text = row.text.replaceAll(`<${other}+`, `<${entry}+`).replaceAll(`<${other}>`, `<${entry}>`);
      }
    }
    const name = f === root ? entry : f.name;
    return { name, ...(f === root && f.name !== entry ? { alias: f.name } : {}), object: f.object, ir, bc, instructions };
  });
  const listing = { ir: total.Ir, bc: total.Bc ?? 0, functions };
  checkListing(listing);
  return listing;
}

/** Sums a listing's instruction counts and conditional-branch executions. */
export function listingSums(listing) {
  let ir = 0;
  let bc = 0;
  for (const f of listing.functions) {
    for (const i of f.instructions) {
      ir += i.count;
      if (i.taken !== undefined) bc += i.taken + i.notTaken;
    }
  }
  return { ir, bc };
}

/** Throws unless the listing's counts add up to its cell's Ir and Bc. */
export function checkListing(listing, where = "listing") {
  const s = listingSums(listing);
  if (s.ir !== listing.ir || s.bc !== listing.bc) {
    throw new Error(`${where}: the instructions add up to ${s.ir} / ${s.bc}, the cell is ${listing.ir} / ${listing.bc}`);
  }
}

/** Rust legacy symbols keep a `::h<16 hex>` hash after demangling: noise in a listing. */
const HASH = /::h[0-9a-f]{16}/g;
/**
 * `<__nss_database_lookup@GLIBC_2.2.5+0xa70>`: in a stripped shared library
 * objdump names an address after the nearest exported symbol before it,
 * usually another function: misleading, so dropped (the address stays).
 */
const NEAREST_EXPORT = / <[^<>]*@[^<>]*\+0x[0-9a-f]+>/g;

/** Parses `objdump -d --no-show-raw-insn` output: address -> { text, next }. */
export function parseObjdump(text) {
  const rows = [];
  for (const line of text.split("\n")) {
    const m = /^\s*([0-9a-f]+):\t(.*)$/.exec(line);
    if (!m) continue;
    rows.push({ address: parseInt(m[1], 16), text: m[2].replace(HASH, "").replace(NEAREST_EXPORT, "").replace(/\s+/g, " ").trim() });
  }
  const out = new Map();
  rows.forEach((r, i) => out.set(r.address, { text: r.text, next: rows[i + 1]?.address ?? null }));
  return out;
}

/**
 * A `disassembly(object, addresses)` for buildListing that runs objdump over
 * each requested address range once (cached), demangling symbol names.
 */
export function objdumpDisassembler() {
  const cache = new Map();
  return (object, addresses) => {
    if (addresses.length === 0) return new Map();
    const start = addresses[0];
    // The longest x86-64 instruction is 15 bytes; a little past the last one gives its `next`.
    const stop = addresses[addresses.length - 1] + 32;
    const k = `${object}\u0000${start}\u0000${stop}`;
    let map = cache.get(k);
    if (!map) {
      const r = spawnSync(
        "objdump",
        ["-d", "-C", "--no-show-raw-insn", `--start-address=0x${start.toString(16)}`, `--stop-address=0x${stop.toString(16)}`, object],
        { encoding: "utf8", maxBuffer: 256 << 20 },
      );
      if (r.error || r.status !== 0) throw new Error(`objdump of ${object} failed: ${r.stderr ?? r.error}`);
      map = parseObjdump(r.stdout);
      cache.set(k, map);
    }
    return map;
  };
}
