//! Zig's real std.heap.ArenaAllocator and std.heap.FixedBufferAllocator
//! (the standard library of the Zig that builds this file), driven through
//! std.mem.Allocator (alignedAlloc, realloc, free) by the programs
//! crates/core/tests/zig_arena.rs and zig_fixed_buffer.rs send (protocol in
//! sim_heap.hpp; the program line names the allocator: `arena` over the
//! simulated heap, `arena-page` over std.heap.page_allocator, or `fba`).
//! Built for Linux (64-bit) and for wasm32-wasi.
//!
//! The fixed buffer and the `arena` child's buffers come from the simulated
//! heap (sim_heap.zig). The `arena-page` child is the real page_allocator
//! (PageAllocator's mmap on Linux; on wasm32 the size-class allocator over
//! memory.grow), seen through a wrapper that forwards every call and
//! records each buffer: the size the arena asked for and what the child
//! reserved for it, the largest size page_allocator's own `resize` grants
//! in place (asked of it with growing sizes, which changes nothing: on
//! Linux, growing within the pages mapped needs no system call and growing
//! past them is refused without one, as the stack grows down; on wasm32
//! `resize` only compares size classes). A buffer is a chunk as long as
//! its reservation stays the same; one the child unmaps the tail of (a
//! reset's shrink) is a new chunk at the same address.
//!
//! What each allocator holds is read from its own fields, which Zig lets
//! any code read: the arena's `state.used_list` of nodes (`size`,
//! `end_index`), the fixed buffer's `end_index`. Checkpoints: the fixed
//! buffer's are the Zig idiom (save and store back `end_index`); the
//! arena's are the playground's emulation, done here on the real arena's
//! fields as the model documents it: the buffers made since go back to the
//! child, newest first, the saved buffer is first in `used_list` again and
//! its `end_index` is the saved one.

const std = @import("std");
const sim = @import("sim_heap.zig");
const Alignment = std.mem.Alignment;
const Allocator = std.mem.Allocator;

var heap: sim.Heap = .{};

/// A buffer the arena holds from page_allocator.
const Rec = struct { id: u32, base: usize, len: usize, reserved: usize };
var recs: [8192]Rec = undefined;
var n_recs: usize = 0;
var next_rec_id: u32 = 0;
const page_child = std.heap.page_allocator;

/// The largest length page_allocator's resize grants this buffer in place.
fn reservation(base: usize, len: usize, alignment: Alignment) usize {
    const p: [*]u8 = @ptrFromInt(base);
    const limit = std.math.maxInt(usize) / 4;
    var ok = len;
    var bad: usize = limit;
    var step: usize = 1;
    while (ok + step < limit) : (step *= 2) {
        if (!page_child.rawResize(p[0..len], alignment, ok + step, 0)) {
            bad = ok + step;
            break;
        }
        ok += step;
    }
    while (bad - ok > 1) {
        const mid = ok + (bad - ok) / 2;
        if (page_child.rawResize(p[0..len], alignment, mid, 0)) ok = mid else bad = mid;
    }
    return ok;
}

fn findRec(base: usize) *Rec {
    for (recs[0..n_recs]) |*r| if (r.base == base) return r;
    sim.fail("a buffer page_allocator did not hand out");
}

fn pgAlloc(ctx: *anyopaque, len: usize, alignment: Alignment, ra: usize) ?[*]u8 {
    _ = ctx;
    const p = page_child.rawAlloc(len, alignment, ra) orelse return null;
    if (n_recs == recs.len) sim.fail("too many buffers");
    recs[n_recs] = .{ .id = next_rec_id, .base = @intFromPtr(p), .len = len, .reserved = reservation(@intFromPtr(p), len, alignment) };
    n_recs += 1;
    next_rec_id += 1;
    return p;
}

fn pgResize(ctx: *anyopaque, memory: []u8, alignment: Alignment, new_len: usize, ra: usize) bool {
    _ = ctx;
    if (!page_child.rawResize(memory, alignment, new_len, ra)) return false;
    const r = findRec(@intFromPtr(memory.ptr));
    r.len = new_len;
    const reserved = reservation(r.base, new_len, alignment);
    if (reserved != r.reserved) {
        r.reserved = reserved;
        r.id = next_rec_id;
        next_rec_id += 1;
    }
    return true;
}

fn pgRemap(ctx: *anyopaque, memory: []u8, alignment: Alignment, new_len: usize, ra: usize) ?[*]u8 {
    return if (pgResize(ctx, memory, alignment, new_len, ra)) memory.ptr else null;
}

fn pgFree(ctx: *anyopaque, memory: []u8, alignment: Alignment, ra: usize) void {
    _ = ctx;
    const r = findRec(@intFromPtr(memory.ptr));
    if (r.len != memory.len) sim.fail("a buffer freed with another length than it has");
    r.* = recs[n_recs - 1];
    n_recs -= 1;
    page_child.rawFree(memory, alignment, ra);
}

const recording_page_child: Allocator = .{
    .ptr = undefined,
    .vtable = &.{ .alloc = pgAlloc, .resize = pgResize, .remap = pgRemap, .free = pgFree },
};

const Block = struct { ptr: usize, len: usize, alignment: u64 };
var blocks: [8192]?Block = undefined;
var saved: [4]usize = undefined;
var prog: sim.Program = .{};
var chunks: [8192]sim.Chunk = undefined;

/// A number of the program as a usize (a wasm32 harness is sent none larger).
fn usz(v: u64) usize {
    if (v > std.math.maxInt(usize)) sim.fail("a number larger than this target's usize");
    return @intCast(v);
}

fn alloc(a: Allocator, n: usize, alignment: u64) ?usize {
    switch (alignment) {
        inline 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 => |al| {
            const s = a.alignedAlloc(u8, comptime Alignment.fromByteUnits(al), n) catch return null;
            return @intFromPtr(s.ptr);
        },
        else => sim.fail("an alignment the harness does not know"),
    }
}

fn realloc(a: Allocator, b: Block, new_len: usize) ?usize {
    switch (b.alignment) {
        inline 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 => |al| {
            const p: [*]align(al) u8 = @ptrFromInt(b.ptr);
            const s = a.realloc(p[0..b.len], new_len) catch return null;
            return @intFromPtr(s.ptr);
        },
        else => sim.fail("an alignment the harness does not know"),
    }
}

fn free(a: Allocator, b: Block) void {
    switch (b.alignment) {
        inline 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 => |al| {
            const p: [*]align(al) u8 = @ptrFromInt(b.ptr);
            a.free(p[0..b.len]);
        },
        else => sim.fail("an alignment the harness does not know"),
    }
}

/// One op through `a`; what it placed (simulated address), whether a
/// realloc moved, whether it failed.
const Done = struct { placed: ?u64 = null, real: ?u64 = null, moved: ?bool = null, failed: bool = false };

fn common(a: Allocator, op: sim.Op) ?Done {
    switch (op.kind) {
        'a' => {
            const p = alloc(a, usz(op.size), op.alignment) orelse return .{ .failed = true };
            blocks[usz(op.id)] = .{ .ptr = p, .len = usz(op.size), .alignment = op.alignment };
            return .{ .placed = heap.sim(p), .real = p };
        },
        'r' => {
            const old = blocks[usz(op.from)] orelse sim.fail("realloc of no live block");
            blocks[usz(op.from)] = null;
            const p = realloc(a, old, usz(op.size)) orelse {
                // error.OutOfMemory: the old block stays as it was.
                blocks[usz(op.from)] = old;
                return .{ .failed = true };
            };
            blocks[usz(op.id)] = .{ .ptr = p, .len = usz(op.size), .alignment = old.alignment };
            return .{ .placed = heap.sim(p), .real = p, .moved = p != old.ptr };
        },
        'f' => {
            const b = blocks[usz(op.id)] orelse sim.fail("free of no live block");
            blocks[usz(op.id)] = null;
            free(a, b);
            return .{};
        },
        else => return null,
    }
}

fn clearBlocks() void {
    for (&blocks) |*b| b.* = null;
}

fn runArena(p: *const sim.Program, over_pages: bool) void {
    heap.reset();
    clearBlocks();
    n_recs = 0;
    next_rec_id = 0;
    var arena = std.heap.ArenaAllocator.init(if (over_pages) recording_page_child else heap.allocator());
    const a = arena.allocator();
    const NodePtr = @typeInfo(@TypeOf(arena.state.used_list)).optional.child;
    const Node = @typeInfo(NodePtr).pointer.child;
    const node_size: u64 = @sizeOf(Node);
    const Saved = struct { node: ?NodePtr, end_index: usize };
    var saved_at: [4]Saved = undefined;
    for (p.ops[0..p.n]) |op| {
        const done = common(a, op) orelse switch (op.kind) {
            'x' => blk: {
                clearBlocks();
                _ = arena.reset(if (p.capacity) |c| .{ .retain_with_limit = usz(c) } else .retain_capacity);
                break :blk Done{};
            },
            'c' => blk: {
                const first = arena.state.used_list;
                saved_at[usz(op.id)] = .{ .node = first, .end_index = if (first) |f| f.end_index else 0 };
                break :blk Done{};
            },
            's' => blk: {
                const to = saved_at[usz(op.id)];
                while (arena.state.used_list) |n| {
                    if (to.node != null and n == to.node.?) break;
                    arena.state.used_list = n.next;
                    const len = @as(usize, @bitCast(n.size)) & ~@as(usize, 1);
                    arena.child_allocator.rawFree(@as([*]u8, @ptrCast(n))[0..len], .of(Node), 0);
                }
                if (to.node != null and arena.state.used_list == null) sim.fail("restore to a buffer the arena no longer has");
                if (arena.state.used_list) |n| n.end_index = to.end_index;
                break :blk Done{};
            },
            else => sim.fail("the arena has no such op"),
        };
        var n_chunks: usize = 0;
        var it = arena.state.used_list;
        while (it) |node| : (it = node.next) {
            const size: u64 = @as(usize, @bitCast(node.size)) & ~@as(usize, 1);
            const base = @intFromPtr(node);
            if (over_pages) {
                const r = findRec(base);
                if (r.len != size) sim.fail("a node whose size is not what the arena asked of its child");
                chunks[n_chunks] = .{ .id = r.id, .base = base, .size = r.reserved, .capacity = r.reserved - node_size, .start = base + node_size };
            } else {
                const at = heap.sim(base);
                const l = for (heap.live[0..heap.n_live]) |l| {
                    if (l.sim == at) break l;
                } else sim.fail("a buffer of the arena that is no child allocation");
                if (size != l.size) sim.fail("a node whose size is not its allocation's");
                chunks[n_chunks] = .{ .id = l.id, .base = l.sim, .size = l.size, .capacity = size - node_size, .start = l.sim + node_size };
            }
            n_chunks += 1;
        }
        const live_children = if (over_pages) n_recs else heap.n_live;
        if (n_chunks != live_children) sim.fail("a child allocation that is no buffer of the arena");
        std.mem.sort(sim.Chunk, chunks[0..n_chunks], {}, struct {
            fn lt(_: void, x: sim.Chunk, y: sim.Chunk) bool {
                return x.id < y.id;
            }
        }.lt);
        var bump: ?u64 = null;
        if (arena.state.used_list) |first| {
            const base = @intFromPtr(first);
            const start = (if (over_pages) base else heap.sim(base)) + node_size;
            const len = (@as(usize, @bitCast(first.size)) & ~@as(usize, 1)) - node_size;
            bump = start + @min(first.end_index, len);
        }
        const placed = if (over_pages) done.real else done.placed;
        sim.printOp(placed, done.moved, done.failed, bump, chunks[0..n_chunks]);
    }
    arena.deinit();
    sim.out("done\n");
    sim.flush();
}

fn runFixed(p: *const sim.Program) void {
    heap.reset();
    clearBlocks();
    const len: usize = usz(p.capacity orelse 4096);
    const buf = heap.alloc(len, 16) orelse sim.fail("no room for the buffer");
    const base = heap.sim(@intFromPtr(buf));
    var fba = std.heap.FixedBufferAllocator.init(buf[0..len]);
    const a = fba.allocator();
    for (p.ops[0..p.n]) |op| {
        const done = common(a, op) orelse switch (op.kind) {
            'x' => blk: {
                clearBlocks();
                fba.reset();
                break :blk Done{};
            },
            // The Zig idiom for scoping a fixed buffer: save and store back end_index.
            'c' => blk: {
                saved[usz(op.id)] = fba.end_index;
                break :blk Done{};
            },
            's' => blk: {
                fba.end_index = saved[usz(op.id)];
                break :blk Done{};
            },
            else => sim.fail("the fixed buffer allocator has no such op"),
        };
        const chunk = [_]sim.Chunk{.{ .id = 0, .base = base, .size = len, .capacity = len, .start = base }};
        sim.printOp(done.placed, done.moved, done.failed, base + fba.end_index, &chunk);
    }
    heap.free(@intFromPtr(buf), len);
    sim.out("done\n");
    sim.flush();
}

pub fn main() void {
    heap.init();
    while (sim.readProgram(&prog)) {
        if (std.mem.eql(u8, prog.mode(), "arena")) {
            runArena(&prog, false);
        } else if (std.mem.eql(u8, prog.mode(), "arena-page")) {
            runArena(&prog, true);
        } else if (std.mem.eql(u8, prog.mode(), "fba")) {
            runFixed(&prog);
        } else sim.fail("unknown allocator: use arena, arena-page or fba");
    }
}
