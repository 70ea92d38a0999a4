//! The simulated heap (crates/core/src/heap.rs) in Zig, as a child
//! allocator for the real Zig allocators the differential tests run, and
//! the line protocol the harnesses speak (see sim_heap.hpp for its
//! grammar), for Linux (64-bit) and for wasm32-wasi (run under Node's
//! node:wasi by scripts/wasi-run.mjs).
//!
//! First fit over a sorted, coalesced free list; 16 bytes of bookkeeping
//! before each block; blocks aligned to at least 16, their ends rounded up
//! to 16. The same requests get the same simulated addresses as the
//! model's heap: built for 64 bits it is Heap::new(Target::W64), 4 GiB from
//! heap_base; for wasm32, Heap::new(Target::Wasm32), up to 2^32. Each
//! allocation is backed by real bytes of its own, whose first page starts
//! at the simulated address rounded down to 4096, so real and simulated
//! addresses agree modulo every alignment up to 4096 (a wasm32 module could
//! not hold the simulated heap's whole span). It never resizes in place (as
//! `std.mem.Allocator.noResize`): the model's simulated heap has no resize.

const std = @import("std");
const builtin = @import("builtin");
const linux = std.os.linux;
const wasi = std.os.wasi;
const Allocator = std.mem.Allocator;
const Alignment = std.mem.Alignment;

const is_wasm = builtin.cpu.arch.isWasm();

pub const heap_base: u64 = 0x10000;
const malloc_header: u64 = 16;
const page: u64 = 4096;
const heap_top: u64 = if (@sizeOf(usize) == 8) heap_base + (1 << 32) else 1 << 32;

const Range = struct { lo: u64, hi: u64 };
/// A live allocation: its simulated address and size, and the real bytes
/// behind it (`mapped` bytes from `map`; the block starts `sim % page` in).
pub const Allocation = struct {
    id: u32,
    sim: u64,
    size: u64,
    map: usize = 0,
    mapped: usize = 0,

    pub fn realStart(a: Allocation) usize {
        return a.map + @as(usize, @intCast(a.sim % page));
    }
};

const max_ranges = 8192;
const max_live = 8192;

/// Real bytes for an allocation: a mapping of its own on Linux; on wasm32,
/// the next pages of linear memory (a harness instance runs one program,
/// so they are never given back).
const Backing = struct {
    /// wasm32: the first byte not yet handed out.
    top: usize = 0,

    fn get(b: *Backing, len: usize) ?usize {
        if (is_wasm) {
            const wasm_page = 64 * 1024;
            if (b.top == 0) b.top = @wasmMemorySize(0) * wasm_page;
            const start = std.mem.alignForward(usize, b.top, page);
            const end = std.math.add(usize, start, len) catch return null;
            const have = @wasmMemorySize(0) * wasm_page;
            if (end > have) {
                const more = (end - have + wasm_page - 1) / wasm_page;
                if (@wasmMemoryGrow(0, more) < 0) return null;
            }
            b.top = end;
            return start;
        }
        const rc = linux.mmap(null, len, .{ .READ = true, .WRITE = true }, .{
            .TYPE = .PRIVATE,
            .ANONYMOUS = true,
            .NORESERVE = true,
        }, -1, 0);
        if (rc > std.math.maxInt(usize) - 4096) return null;
        return rc;
    }

    fn put(b: *Backing, map: usize, len: usize) void {
        _ = b;
        if (!is_wasm) _ = linux.munmap(@ptrFromInt(map), len);
    }
};

pub const Heap = struct {
    free_ranges: [max_ranges]Range = undefined,
    n_free: usize = 0,
    live: [max_live]Allocation = undefined,
    n_live: usize = 0,
    next_id: u32 = 0,
    backing: Backing = .{},

    pub fn init(h: *Heap) void {
        h.n_live = 0;
        h.reset();
    }

    pub fn reset(h: *Heap) void {
        for (h.live[0..h.n_live]) |a| h.backing.put(a.map, a.mapped);
        h.free_ranges[0] = .{ .lo = heap_base, .hi = heap_top };
        h.n_free = 1;
        h.n_live = 0;
        h.next_id = 0;
    }

    /// The real byte of a simulated address inside (or just past) a live allocation.
    pub fn real(h: *const Heap, at: u64) [*]u8 {
        for (h.live[0..h.n_live]) |a| {
            if (at >= a.sim and at <= a.sim + a.size) return @ptrFromInt(a.realStart() + @as(usize, @intCast(at - a.sim)));
        }
        fail("an address in no live allocation");
    }

    /// The simulated address of a pointer into (or just past) a live
    /// allocation; any other pointer (a dangling one) as its own value. A
    /// pointer inside a block wins over one just past another.
    pub fn sim(h: *const Heap, p: usize) u64 {
        for ([_]bool{ false, true }) |past| {
            for (h.live[0..h.n_live]) |a| {
                const r = a.realStart();
                const size: usize = @intCast(a.size);
                const hit = if (past) p == r + size else p >= r and p < r + size;
                if (hit) return a.sim + (p - r);
            }
        }
        return p;
    }

    /// Heap::alloc, line for line: null where it returns None.
    pub fn alloc(h: *Heap, size: u64, align_in: u64) ?[*]u8 {
        const alignment = @max(align_in, 16);
        var i: usize = 0;
        while (i < h.n_free) : (i += 1) {
            const lo = h.free_ranges[i].lo;
            const hi = h.free_ranges[i].hi;
            const a = @addWithOverflow(lo + malloc_header, alignment - 1);
            if (a[1] != 0) return null;
            const addr = a[0] & ~(alignment - 1);
            const e1 = @addWithOverflow(addr, size);
            if (e1[1] != 0) return null;
            const e2 = @addWithOverflow(e1[0], 15);
            if (e2[1] != 0) return null;
            const end = e2[0] & ~@as(u64, 15);
            if (end > hi) continue;
            // The simulated heap has room; this process must have the bytes
            // too, or the harness cannot say what the real allocator does.
            const want = ((addr % page) + size + page - 1) / page * page;
            if (want > std.math.maxInt(usize)) fail("the simulated heap has room, but this process cannot back it");
            const map = h.backing.get(@intCast(want)) orelse fail("the simulated heap has room, but this process cannot back it");
            const taken_from = addr - malloc_header;
            const before = taken_from > lo;
            const after = end < hi;
            if (before and after) {
                h.insertRange(i + 1, .{ .lo = end, .hi = hi });
                h.free_ranges[i] = .{ .lo = lo, .hi = taken_from };
            } else if (before) {
                h.free_ranges[i] = .{ .lo = lo, .hi = taken_from };
            } else if (after) {
                h.free_ranges[i] = .{ .lo = end, .hi = hi };
            } else {
                h.removeRange(i);
            }
            if (h.n_live == max_live) fail("too many live allocations");
            h.live[h.n_live] = .{ .id = h.next_id, .sim = addr, .size = size, .map = map, .mapped = @intCast(want) };
            h.n_live += 1;
            h.next_id += 1;
            return @ptrFromInt(h.live[h.n_live - 1].realStart());
        }
        return null;
    }

    /// Heap::free, checking the block is one of ours with this size.
    pub fn free(h: *Heap, p: usize, size: u64) void {
        const addr = h.sim(p);
        var k: usize = 0;
        while (k < h.n_live and h.live[k].sim != addr) k += 1;
        if (k == h.n_live or h.live[k].size != size) fail("freeing what is not a live block of that size");
        h.backing.put(h.live[k].map, h.live[k].mapped);
        while (k + 1 < h.n_live) : (k += 1) h.live[k] = h.live[k + 1];
        h.n_live -= 1;
        const lo = addr - malloc_header;
        const hi = (addr + size + 15) & ~@as(u64, 15);
        var i: usize = 0;
        while (i < h.n_free and h.free_ranges[i].lo < lo) i += 1;
        h.insertRange(i, .{ .lo = lo, .hi = hi });
        if (i + 1 < h.n_free and h.free_ranges[i].hi == h.free_ranges[i + 1].lo) {
            h.free_ranges[i].hi = h.free_ranges[i + 1].hi;
            h.removeRange(i + 1);
        }
        if (i > 0 and h.free_ranges[i - 1].hi == h.free_ranges[i].lo) {
            h.free_ranges[i - 1].hi = h.free_ranges[i].hi;
            h.removeRange(i);
        }
    }

    fn insertRange(h: *Heap, at: usize, r: Range) void {
        if (h.n_free == max_ranges) fail("too many free ranges");
        var j = h.n_free;
        while (j > at) : (j -= 1) h.free_ranges[j] = h.free_ranges[j - 1];
        h.free_ranges[at] = r;
        h.n_free += 1;
    }

    fn removeRange(h: *Heap, at: usize) void {
        var j = at;
        while (j + 1 < h.n_free) : (j += 1) h.free_ranges[j] = h.free_ranges[j + 1];
        h.n_free -= 1;
    }

    /// The heap as a `std.mem.Allocator` that never resizes in place.
    pub fn allocator(h: *Heap) Allocator {
        return .{
            .ptr = h,
            .vtable = &.{
                .alloc = vtAlloc,
                .resize = Allocator.noResize,
                .remap = Allocator.noRemap,
                .free = vtFree,
            },
        };
    }

    fn vtAlloc(ctx: *anyopaque, len: usize, alignment: Alignment, ret_addr: usize) ?[*]u8 {
        _ = ret_addr;
        const h: *Heap = @ptrCast(@alignCast(ctx));
        return h.alloc(len, alignment.toByteUnits());
    }

    fn vtFree(ctx: *anyopaque, memory: []u8, alignment: Alignment, ret_addr: usize) void {
        _ = alignment;
        _ = ret_addr;
        const h: *Heap = @ptrCast(@alignCast(ctx));
        h.free(@intFromPtr(memory.ptr), memory.len);
    }
};

// ---------------------------------------------------------------------------
// The protocol.

pub fn fail(msg: []const u8) noreturn {
    out("error: ");
    out(msg);
    out("\n");
    flush();
    exit(3);
}

fn exit(code: u8) noreturn {
    if (is_wasm) wasi.proc_exit(code);
    linux.exit(code);
}

/// read(2) of stdin: bytes read, 0 at the end, null on an error.
fn readStdin(buf: []u8) ?usize {
    if (is_wasm) {
        var iov = [_]wasi.iovec_t{.{ .base = buf.ptr, .len = buf.len }};
        var n: usize = 0;
        if (wasi.fd_read(0, &iov, 1, &n) != .SUCCESS) return null;
        return n;
    }
    const rc = linux.read(0, buf.ptr, buf.len);
    if (rc > std.math.maxInt(usize) - 4096) return null;
    return rc;
}

/// write(2) to stdout: bytes written, null on an error.
fn writeStdout(bytes: []const u8) ?usize {
    if (is_wasm) {
        var iov = [_]wasi.ciovec_t{.{ .base = bytes.ptr, .len = bytes.len }};
        var n: usize = 0;
        if (wasi.fd_write(1, &iov, 1, &n) != .SUCCESS) return null;
        return n;
    }
    const rc = linux.write(1, bytes.ptr, bytes.len);
    if (rc > std.math.maxInt(usize) - 4096) return null;
    return rc;
}

var in_buf: [1 << 16]u8 = undefined;
var in_start: usize = 0;
var in_end: usize = 0;

/// The next line of stdin without its newline, or null at the end.
pub fn readLine(line: []u8) ?[]u8 {
    var n: usize = 0;
    while (true) {
        if (in_start == in_end) {
            const rc = readStdin(&in_buf) orelse 0;
            if (rc == 0) {
                return if (n > 0) line[0..n] else null;
            }
            in_start = 0;
            in_end = rc;
        }
        const c = in_buf[in_start];
        in_start += 1;
        if (c == '\n') return line[0..n];
        if (n < line.len) {
            line[n] = c;
            n += 1;
        }
    }
}

var out_buf: [1 << 16]u8 = undefined;
var out_len: usize = 0;

pub fn out(s: []const u8) void {
    for (s) |c| {
        if (out_len == out_buf.len) flush();
        out_buf[out_len] = c;
        out_len += 1;
    }
}

pub fn outNum(v: u64) void {
    var b: [24]u8 = undefined;
    const s = std.fmt.bufPrint(&b, "{d}", .{v}) catch unreachable;
    out(s);
}

pub fn flush() void {
    var done: usize = 0;
    while (done < out_len) {
        const rc = writeStdout(out_buf[done..out_len]) orelse exit(4);
        done += rc;
    }
    out_len = 0;
}

pub const Op = struct { kind: u8, id: u64 = 0, from: u64 = 0, size: u64 = 0, alignment: u64 = 1 };

pub const Program = struct {
    capacity: ?u64 = null,
    /// The program line's third word: which allocator (harnesses with one ignore it).
    mode_buf: [16]u8 = undefined,
    mode_len: usize = 0,
    ops: [4096]Op = undefined,
    n: usize = 0,

    pub fn mode(p: *const Program) []const u8 {
        return p.mode_buf[0..p.mode_len];
    }
};

fn nextField(it: *std.mem.TokenIterator(u8, .scalar)) u64 {
    const t = it.next() orelse fail("short line");
    return std.fmt.parseInt(u64, t, 10) catch fail("not a number");
}

/// Reads the next program; false at the end of the input.
pub fn readProgram(p: *Program) bool {
    var line_buf: [256]u8 = undefined;
    while (readLine(&line_buf)) |line| {
        if (!std.mem.startsWith(u8, line, "program")) continue;
        var head = std.mem.tokenizeScalar(u8, line[7..], ' ');
        const cap = head.next() orelse fail("program without a capacity");
        p.capacity = if (std.mem.eql(u8, cap, "-")) null else std.fmt.parseInt(u64, cap, 10) catch fail("bad capacity");
        const m = head.next() orelse "";
        p.mode_len = @min(m.len, p.mode_buf.len);
        @memcpy(p.mode_buf[0..p.mode_len], m[0..p.mode_len]);
        p.n = 0;
        while (readLine(&line_buf)) |l| {
            if (std.mem.eql(u8, l, "end")) return true;
            var it = std.mem.tokenizeScalar(u8, l, ' ');
            const k = (it.next() orelse fail("empty op"))[0];
            var op: Op = .{ .kind = k };
            switch (k) {
                'a' => {
                    op.id = nextField(&it);
                    op.size = nextField(&it);
                    op.alignment = nextField(&it);
                },
                'r' => {
                    op.id = nextField(&it);
                    op.from = nextField(&it);
                    op.size = nextField(&it);
                },
                'f', 'c', 's' => op.id = nextField(&it),
                else => {},
            }
            if (p.n == p.ops.len) fail("program too long");
            p.ops[p.n] = op;
            p.n += 1;
        }
        return true;
    }
    return false;
}

pub const Chunk = struct { id: u32, base: u64, size: u64, capacity: u64, start: u64 };

pub fn printOp(placed: ?u64, moved: ?bool, failed: bool, bump: ?u64, chunks: []const Chunk) void {
    if (placed) |a| outNum(a) else out("-");
    out(" ");
    if (moved) |m| out(if (m) "1" else "0") else out("-");
    out(if (failed) " 1 " else " 0 ");
    if (bump) |b| outNum(b) else out("-");
    out(" ");
    outNum(chunks.len);
    for (chunks) |c| {
        out(" ");
        outNum(c.id);
        out(" ");
        outNum(c.base);
        out(" ");
        outNum(c.size);
        out(" ");
        outNum(c.capacity);
        out(" ");
        outNum(c.start);
    }
    out("\n");
    // Each op's line leaves at once: if the next op panics, the test
    // still reads how far the program got.
    flush();
}
