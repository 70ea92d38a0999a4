// The simulated heap (crates/core/src/heap.rs) in C++, for the real C++
// allocators the differential tests run: first fit over a sorted, coalesced
// free list, 16 bytes of bookkeeping before each block, blocks aligned to at
// least 16 and their ends rounded up to 16. The same requests get the same
// simulated addresses as the model's heap; each is backed by the real byte
// `buffer + (address - HEAP_BASE)` of a page-aligned mapping, so real and
// simulated addresses agree modulo every alignment up to 4096.
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
// Heap::new(Target::W64): 4 GiB from HEAP_BASE.
constexpr uint64_t HEAP_TOP = HEAP_BASE + (uint64_t(1) << 32);
// The real bytes behind the simulated ones: mapped lazily, only what is
// touched costs memory.
constexpr uint64_t BUFFER_BYTES = uint64_t(1) << 32;

struct Allocation {
  uint32_t id;
  uint64_t sim;
  uint64_t size;
  uint64_t align;
};

struct Heap {
  std::vector<std::pair<uint64_t, uint64_t>> free_ranges;
  uint32_t next_id = 0;
  std::vector<Allocation> live;
  char* buffer = nullptr;

  Heap() {
    void* m = mmap(nullptr, BUFFER_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      std::fprintf(stderr, "sim_heap: cannot map the buffer\n");
      std::exit(2);
    }
    buffer = static_cast<char*>(m);
    reset();
  }

  void reset() {
    free_ranges.assign(1, {HEAP_BASE, HEAP_TOP});
    next_id = 0;
    live.clear();
  }

  void* real(uint64_t sim) const { return buffer + (sim - HEAP_BASE); }

  // The simulated address of a pointer into the buffer; any other pointer
  // (null, a dangling one) as its own value.
  uint64_t sim(const void* p) const {
    uintptr_t v = reinterpret_cast<uintptr_t>(p);
    uintptr_t b = reinterpret_cast<uintptr_t>(buffer);
    if (v >= b && v < b + BUFFER_BYTES) return v - b + HEAP_BASE;
    return v;
  }

  // Heap::alloc, line for line: nullptr where it returns None.
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
      live.push_back({next_id++, addr, size, align});
      return real(addr);
    }
    return nullptr;
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
