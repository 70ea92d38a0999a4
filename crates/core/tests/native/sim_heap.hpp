// The simulated heap (crates/core/src/heap.rs) in C++, for the real C++
// allocators the differential tests run: first fit over a sorted, coalesced
// free list, 16 bytes of bookkeeping before each block, blocks aligned to at
// least 16 and their ends rounded up to 16. The same requests get the same
// simulated addresses as the model's heap. Each allocation is backed by real
// bytes of its own: a fresh mapping whose first page starts at the simulated
// address rounded down to 4096, so real and simulated addresses agree modulo
// every alignment up to 4096, and nothing is mapped between allocations (a
// 32-bit build, `g++ -m32`, could not map the simulated heap's 4 GiB whole).
//
// Built for 64 bits, it is Heap::new(Target::W64): 4 GiB from HEAP_BASE; with
// `-m32`, Heap::new(Target::Wasm32): up to 2^32, as the wasm32 model's heap.
//
// Also the line protocol both C++ harnesses speak (see common/native.rs).

#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sim {

constexpr uint64_t HEAP_BASE = 0x10000;
constexpr uint64_t MALLOC_HEADER = 16;
constexpr uint64_t PAGE = 4096;
constexpr uint64_t HEAP_TOP = sizeof(void*) == 8 ? HEAP_BASE + (uint64_t(1) << 32) : uint64_t(1) << 32;

struct Allocation {
  uint32_t id;
  uint64_t sim;
  uint64_t size;
  uint64_t align;
  // The mapping behind it: `mapped` bytes from `map`; the block's first real
  // byte is `map + sim % PAGE`.
  char* map;
  size_t mapped;

  char* real() const { return map + (sim % PAGE); }
};

struct Heap {
  std::vector<std::pair<uint64_t, uint64_t>> free_ranges;
  uint32_t next_id = 0;
  std::vector<Allocation> live;

  Heap() { reset(); }

  void reset() {
    for (const Allocation& a : live) munmap(a.map, a.mapped);
    free_ranges.assign(1, {HEAP_BASE, HEAP_TOP});
    next_id = 0;
    live.clear();
  }

  // The real byte of a simulated address inside (or just past) a live allocation.
  void* real(uint64_t sim) const {
    for (const Allocation& a : live)
      if (sim >= a.sim && sim <= a.sim + a.size) return a.real() + (sim - a.sim);
    std::printf("error: %llu is in no live allocation\n", (unsigned long long)sim);
    std::exit(2);
  }

  // The simulated address of a pointer into (or just past) a live
  // allocation; any other pointer (null, a dangling one) as its own value.
  // A pointer inside a block wins over one just past another.
  uint64_t sim(const void* p) const {
    uintptr_t v = reinterpret_cast<uintptr_t>(p);
    for (int past = 0; past < 2; past++)
      for (const Allocation& a : live) {
        uintptr_t r = reinterpret_cast<uintptr_t>(a.real());
        if (v >= r && (past ? v == r + a.size : v < r + a.size)) return a.sim + (v - r);
      }
    return v;
  }

  // Heap::alloc, line for line: nullptr where it returns None. nullptr too
  // when the process cannot map bytes for it (then it is not taken).
  void* alloc(uint64_t size, uint64_t align) {
    if (align < 16) align = 16;
    for (size_t i = 0; i < free_ranges.size(); i++) {
      uint64_t lo = free_ranges[i].first, hi = free_ranges[i].second;
      uint64_t a;
      if (__builtin_add_overflow(lo + MALLOC_HEADER, align - 1, &a)) return nullptr;
      uint64_t addr = a & ~(align - 1);
      uint64_t end;
      if (__builtin_add_overflow(addr, size, &end)) return nullptr;
      if (__builtin_add_overflow(end, 15, &end)) return nullptr;
      end &= ~uint64_t(15);
      if (end > hi) continue;
      uint64_t want = ((addr % PAGE) + size + PAGE - 1) / PAGE * PAGE;
      if (want > SIZE_MAX) return unbacked(size);
      void* m = mmap(nullptr, size_t(want), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED) return unbacked(size);
      uint64_t taken_from = addr - MALLOC_HEADER;
      bool before = taken_from > lo, after = end < hi;
      if (before && after) {
        free_ranges[i] = {lo, taken_from};
        free_ranges.insert(free_ranges.begin() + i + 1, {end, hi});
      } else if (before) {
        free_ranges[i] = {lo, taken_from};
      } else if (after) {
        free_ranges[i] = {end, hi};
      } else {
        free_ranges.erase(free_ranges.begin() + i);
      }
      live.push_back({next_id++, addr, size, align, static_cast<char*>(m), size_t(want)});
      return live.back().real();
    }
    return nullptr;
  }

  // The simulated heap had room but this process cannot map it: not an
  // answer the model could give, so the harness stops and says so.
  void* unbacked(uint64_t size) {
    std::printf("error: the simulated heap has room for %llu bytes, but this process cannot map them\n",
                (unsigned long long)size);
    std::exit(2);
  }

  // Heap::free, checking the block is one of ours with this size.
  void dealloc(void* p, uint64_t size) {
    uint64_t addr = sim(p);
    size_t k = 0;
    while (k < live.size() && live[k].sim != addr) k++;
    if (k == live.size() || live[k].size != size) {
      std::printf("error freeing %llu (%llu bytes): not a live block of that size\n",
                  (unsigned long long)addr, (unsigned long long)size);
      std::exit(3);
    }
    munmap(live[k].map, live[k].mapped);
    live.erase(live.begin() + k);
    uint64_t lo = addr - MALLOC_HEADER;
    uint64_t hi = (addr + size + 15) & ~uint64_t(15);
    size_t i = 0;
    while (i < free_ranges.size() && free_ranges[i].first < lo) i++;
    free_ranges.insert(free_ranges.begin() + i, {lo, hi});
    if (i + 1 < free_ranges.size() && free_ranges[i].second == free_ranges[i + 1].first) {
      free_ranges[i].second = free_ranges[i + 1].second;
      free_ranges.erase(free_ranges.begin() + i + 1);
    }
    if (i > 0 && free_ranges[i - 1].second == free_ranges[i].first) {
      free_ranges[i - 1].second = free_ranges[i].second;
      free_ranges.erase(free_ranges.begin() + i);
    }
  }
};

inline Heap& heap() {
  static Heap h;
  return h;
}

// A pointer's value, hidden from the optimiser: the allocators under test
// declare their results non-null, yet LLVM's returns null for a zero-sized
// request before its first slab, and the harness must print what it got.
inline uint64_t launder(const void* p) {
  uintptr_t v;
  std::memcpy(&v, &p, sizeof v);
  asm volatile("" : "+r"(v));
  return heap().sim(reinterpret_cast<const void*>(v));
}

// ---------------------------------------------------------------------------
// The protocol. A program is
//   program <capacity or ->
//   a <id> <size> <align>     allocate; block <id>
//   r <id> <from> <size>      realloc block <from> into block <id>
//   f <id>                    free
//   x                         reset
//   end
// and the harness answers one line per op,
//   <address or -> <moved 0|1|-> <failed 0|1> <bump or -> <n> (<id> <base> <size> <capacity> <start>)*n
// in simulated addresses, then `done`.

struct Op {
  char kind;
  uint64_t id = 0, from = 0, size = 0, align = 1;
};

struct Program {
  bool has_capacity = false;
  uint64_t capacity = 0;
  std::vector<Op> ops;
};

// Reads the next program; false at the end of the input.
inline bool read_program(Program& p) {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.rfind("program", 0) != 0) continue;
    std::istringstream head(line.substr(7));
    std::string cap;
    head >> cap;
    p.has_capacity = cap != "-";
    p.capacity = p.has_capacity ? std::stoull(cap) : 0;
    p.ops.clear();
    while (std::getline(std::cin, line) && line != "end") {
      std::istringstream in(line);
      Op op;
      in >> op.kind;
      switch (op.kind) {
        case 'a': in >> op.id >> op.size >> op.align; break;
        case 'r': in >> op.id >> op.from >> op.size; break;
        case 'f': in >> op.id; break;
        default: break;
      }
      p.ops.push_back(op);
    }
    return true;
  }
  return false;
}

struct Chunk {
  uint32_t id;
  uint64_t base, size, capacity, start;
};

inline void print_op(bool placed, uint64_t address, int moved, bool failed, bool has_bump,
                     uint64_t bump, const std::vector<Chunk>& chunks) {
  std::ostringstream out;
  if (placed) out << address; else out << '-';
  out << ' ' << (moved < 0 ? "-" : moved ? "1" : "0") << ' ' << (failed ? 1 : 0) << ' ';
  if (has_bump) out << bump; else out << '-';
  out << ' ' << chunks.size();
  for (const Chunk& c : chunks)
    out << ' ' << c.id << ' ' << c.base << ' ' << c.size << ' ' << c.capacity << ' ' << c.start;
  std::cout << out.str() << '\n';
}

}  // namespace sim
