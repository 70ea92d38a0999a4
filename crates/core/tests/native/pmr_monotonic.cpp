// libstdc++'s real std::pmr::monotonic_buffer_resource (the installed GCC
// <memory_resource>, its slow path in libstdc++.so), its buffers taken from
// the simulated heap through an upstream memory_resource, driven by the
// programs crates/core/tests/pmr_monotonic.rs sends (protocol in
// sim_heap.hpp).
//
// What the shared library does cannot be read here, so it is observed:
// - the upstream resource records every buffer's size and alignment;
// - each buffer's last two words are checked to be the resource's record
//   of it (its size with log2 of its alignment in the low bits, then the
//   previous buffer's record), so the usable bytes are those before them;
// - the resource's own fields are read from the object: libstdc++ lays out
//   _M_current_buf, _M_avail, _M_next_bufsiz, _M_upstream, ... after the
//   vtable pointer. The harness checks that layout (the word where
//   _M_upstream should be holds the upstream resource) before trusting it.
// A realloc is what a container does: allocate, copy, deallocate the old.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory_resource>

#include "sim_heap.hpp"

struct SimUpstream : std::pmr::memory_resource {
  void* do_allocate(size_t bytes, size_t align) override {
    void* p = sim::heap().alloc(bytes, align);
    if (!p) {
      std::printf("error: the simulated heap is out of room\n");
      std::exit(4);
    }
    return p;
  }
  void do_deallocate(void* p, size_t bytes, size_t align) override {
    // Freed with the size and alignment it was allocated with.
    for (const sim::Allocation& a : sim::heap().live)
      if (a.sim == sim::heap().sim(p) && a.align != (align < 16 ? 16 : align)) {
        std::printf("error: buffer freed with alignment %zu, allocated with %llu\n", align,
                    (unsigned long long)a.align);
        std::exit(7);
      }
    sim::heap().dealloc(p, bytes);
  }
  bool do_is_equal(const memory_resource& other) const noexcept override { return this == &other; }
};

// The resource's fields, by libstdc++'s layout (checked in `fields`).
struct Fields {
  uintptr_t current, avail, next_bufsiz;
};

static Fields fields(const std::pmr::monotonic_buffer_resource& r, const SimUpstream& up) {
  static_assert(sizeof(std::pmr::monotonic_buffer_resource) == 8 * sizeof(void*),
                "libstdc++'s monotonic_buffer_resource: vptr and seven fields");
  uintptr_t w[8];
  std::memcpy(w, static_cast<const void*>(&r), sizeof w);
  if (w[4] != reinterpret_cast<uintptr_t>(&up)) {
    std::printf("error: _M_upstream is not where libstdc++ 12 keeps it\n");
    std::exit(8);
  }
  return {w[1], w[2], w[3]};
}

struct Block {
  void* ptr;
  uint64_t size, align;
};

static void run(const sim::Program& prog) {
  sim::Heap& H = sim::heap();
  H.reset();
  SimUpstream up;
  {
    std::pmr::monotonic_buffer_resource r =
        prog.has_capacity ? std::pmr::monotonic_buffer_resource(prog.capacity, &up)
                          : std::pmr::monotonic_buffer_resource(&up);
    std::map<uint64_t, Block> blocks;
    for (const sim::Op& op : prog.ops) {
      bool placed = false;
      uint64_t address = 0;
      int moved = -1;
      switch (op.kind) {
        case 'a': {
          void* p = r.allocate(op.size, op.align);
          blocks[op.id] = {p, op.size, op.align};
          placed = true;
          address = sim::launder(p);
          break;
        }
        case 'r': {
          Block old = blocks.at(op.from);
          blocks.erase(op.from);
          void* p = r.allocate(op.size, old.align);
          if (old.size && op.size) std::memcpy(p, old.ptr, std::min(old.size, op.size));
          r.deallocate(old.ptr, old.size, old.align);
          blocks[op.id] = {p, op.size, old.align};
          placed = true;
          address = sim::launder(p);
          moved = address != sim::launder(old.ptr);
          break;
        }
        case 'f': {
          Block b = blocks.at(op.id);
          blocks.erase(op.id);
          r.deallocate(b.ptr, b.size, b.align);
          break;
        }
        case 'x':
          blocks.clear();
          r.release();
          break;
        default:
          std::printf("error: monotonic_buffer_resource has no op '%c'\n", op.kind);
          std::exit(5);
      }
      std::vector<sim::Chunk> chunks;
      for (const sim::Allocation& a : H.live) {
        // The record at the buffer's end: size | log2(alignment), then a link.
        uintptr_t record[2];
        std::memcpy(record, static_cast<char*>(H.real(a.sim)) + a.size - sizeof record, sizeof record);
        if (record[0] != (a.size | uint64_t(__builtin_ctzll(a.align)))) {
          std::printf("error: buffer %u's last words are not its record (%llx, size %llu align %llu)\n",
                      a.id, (unsigned long long)record[0], (unsigned long long)a.size,
                      (unsigned long long)a.align);
          std::exit(9);
        }
        chunks.push_back({a.id, a.sim, a.size, a.size - sizeof record, a.sim});
      }
      Fields f = fields(r, up);
      uint64_t bump = H.sim(reinterpret_cast<void*>(f.current));
      sim::print_op(placed, address, moved, false, f.current != 0, bump, chunks);
    }
  }
  std::printf("done\n");
  std::fflush(stdout);
}

int main() {
  sim::Program prog;
  while (sim::read_program(prog)) run(prog);
  return 0;
}
