//! Zig's real std.heap.ArenaAllocator and std.heap.FixedBufferAllocator
//! (the standard library of the Zig that builds this file), driven through
//! std.mem.Allocator (alignedAlloc, realloc, free) by the programs
//! crates/core/tests/zig_arena.rs and zig_fixed_buffer.rs send (protocol in
//! sim_heap.hpp; the program line names the allocator: `arena` or `fba`).
//!
//! Their memory comes from the simulated heap (sim_heap.zig): the arena's
//! buffers through it as the child allocator, the fixed buffer allocated
//! from it once per program. What each holds is read from its own fields,
//! which Zig lets any code read: the arena's `state.used_list` of nodes
//! (`size`, `end_index`), the fixed buffer's `end_index`.

const std = @import("std");
const sim = @import("sim_heap.zig");
const Alignment = std.mem.Alignment;
const Allocator = std.mem.Allocator;

var heap: sim.Heap = .{};

const Block = struct { ptr: usize, len: usize, alignment: u64 };
var blocks: [8192]?Block = undefined;
var saved: [4]usize = undefined;
var prog: sim.Program = .{};
var chunks: [8192]sim.Chunk = undefined;

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
const Done = struct { placed: ?u64 = null, moved: ?bool = null, failed: bool = false };

fn common(a: Allocator, op: sim.Op) ?Done {
    switch (op.kind) {
        'a' => {
            const p = alloc(a, op.size, op.alignment) orelse return .{ .failed = true };
            blocks[op.id] = .{ .ptr = p, .len = op.size, .alignment = op.alignment };
            return .{ .placed = heap.sim(p) };
        },
        'r' => {
            const old = blocks[op.from] orelse sim.fail("realloc of no live block");
            blocks[op.from] = null;
            const p = realloc(a, old, op.size) orelse {
                // error.OutOfMemory: the old block stays as it was.
                blocks[op.from] = old;
                return .{ .failed = true };
            };
            blocks[op.id] = .{ .ptr = p, .len = op.size, .alignment = old.alignment };
            return .{ .placed = heap.sim(p), .moved = p != old.ptr };
        },
        'f' => {
            const b = blocks[op.id] orelse sim.fail("free of no live block");
            blocks[op.id] = null;
            free(a, b);
            return .{};
        },
        else => return null,
    }
}

fn clearBlocks() void {
    for (&blocks) |*b| b.* = null;
}

fn runArena(p: *const sim.Program) void {
    heap.reset();
    clearBlocks();
    var arena = std.heap.ArenaAllocator.init(heap.allocator());
    const a = arena.allocator();
    const NodePtr = @typeInfo(@TypeOf(arena.state.used_list)).optional.child;
    const Node = @typeInfo(NodePtr).pointer.child;
    const node_size: u64 = @sizeOf(Node);
    for (p.ops[0..p.n]) |op| {
        const done = common(a, op) orelse switch (op.kind) {
            'x' => blk: {
                clearBlocks();
                _ = arena.reset(if (p.capacity) |c| .{ .retain_with_limit = c } else .retain_capacity);
                break :blk Done{};
            },
            else => sim.fail("the arena has no such op"),
        };
        for (heap.live[0..heap.n_live], 0..) |l, i| {
            var it = arena.state.used_list;
            const node: *Node = while (it) |n| : (it = n.next) {
                if (heap.sim(@intFromPtr(n)) == l.sim) break n;
            } else sim.fail("a child allocation that is no buffer of the arena");
            const size: u64 = @as(usize, @bitCast(node.size)) & ~@as(usize, 1);
            if (size != l.size) sim.fail("a node whose size is not its allocation's");
            chunks[i] = .{ .id = l.id, .base = l.sim, .size = l.size, .capacity = size - node_size, .start = l.sim + node_size };
        }
        var bump: ?u64 = null;
        if (arena.state.used_list) |first| {
            const start = heap.sim(@intFromPtr(first)) + node_size;
            const len = (@as(usize, @bitCast(first.size)) & ~@as(usize, 1)) - node_size;
            bump = start + @min(first.end_index, len);
        }
        sim.printOp(done.placed, done.moved, done.failed, bump, chunks[0..heap.n_live]);
    }
    arena.deinit();
    sim.out("done\n");
    sim.flush();
}

fn runFixed(p: *const sim.Program) void {
    heap.reset();
    clearBlocks();
    const len: usize = @intCast(p.capacity orelse 4096);
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
                saved[op.id] = fba.end_index;
                break :blk Done{};
            },
            's' => blk: {
                fba.end_index = saved[op.id];
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
            runArena(&prog);
        } else if (std.mem.eql(u8, prog.mode(), "fba")) {
            runFixed(&prog);
        } else sim.fail("unknown allocator: use arena or fba");
    }
}
