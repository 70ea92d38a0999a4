// LLVM's real BumpPtrAllocatorImpl (the installed llvm/Support/Allocator.h,
// linked against the installed libLLVM), its slabs taken from the simulated
// heap, driven by the programs crates/core/tests/llvm_bump_ptr.rs sends
// (protocol in sim_heap.hpp).
//
// The allocator keeps its slab lists private, so what it holds is read from
// its base allocator: every Allocate/Deallocate the arena makes goes through
// SimSlabs, which the heap records. The bump pointer is read with
// `Allocate(0, Align(1))`: no padding, no bytes, and CurPtr + 0 <= End always
// holds, so it returns CurPtr and changes nothing (not even BytesAllocated).
// A realloc is what a container does with this allocator (it has none):
// allocate the new size, copy, deallocate the old block.
//
// Built with `-m32` (the 4-byte-pointer stand-in for wasm32), there is no
// 32-bit libLLVMSupport to link: BUMPLAB_NO_LIBLLVM then defines here the
// one out-of-line function the header's allocator reaches, SmallVector's
// grow_pod (the slab lists are SmallVectors). It only sizes those lists,
// which the arena keeps outside its slabs, so no address depends on it.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>

#include "llvm/Support/Allocator.h"
#include "sim_heap.hpp"

#ifdef BUMPLAB_NO_LIBLLVM
// LLVM 14's lib/Support/SmallVector.cpp grows a POD vector to at least
// MinSize elements, twice the old capacity plus one if that is more, within
// what Size_T can count; written here from that description.
template <class Size_T>
void llvm::SmallVectorBase<Size_T>::grow_pod(void* FirstEl, size_t MinSize, size_t TSize) {
  constexpr size_t MaxSize = std::numeric_limits<Size_T>::max();
  if (MinSize > MaxSize || this->capacity() == MaxSize) {
    std::printf("error: SmallVector cannot grow past %zu elements\n", MaxSize);
    std::exit(5);
  }
  size_t NewCapacity = std::min(std::max(2 * size_t(this->capacity()) + 1, MinSize), MaxSize);
  void* NewElts = this->BeginX == FirstEl ? std::malloc(NewCapacity * TSize)
                                          : std::realloc(this->BeginX, NewCapacity * TSize);
  if (!NewElts) {
    std::printf("error: out of memory growing a SmallVector\n");
    std::exit(5);
  }
  if (this->BeginX == FirstEl) std::memcpy(NewElts, this->BeginX, this->size() * TSize);
  this->BeginX = NewElts;
  this->Capacity = Size_T(NewCapacity);
}
template class llvm::SmallVectorBase<uint32_t>;
#endif

// The base allocator: what MallocAllocator is to the default BumpPtrAllocator.
struct SimSlabs {
  void* Allocate(size_t Size, size_t Alignment) {
    void* p = sim::heap().alloc(Size, Alignment);
    if (!p) {
      std::printf("error: the simulated heap is out of room\n");
      std::exit(4);
    }
    return p;
  }
  void Deallocate(const void* Ptr, size_t Size, size_t /*Alignment*/) {
    sim::heap().dealloc(const_cast<void*>(Ptr), Size);
  }
};

struct Block {
  void* ptr;
  uint64_t size, align;
};

template <size_t SlabSize>
void run(const sim::Program& prog) {
  sim::Heap& H = sim::heap();
  H.reset();
  {
    // BumpPtrAllocator's own template arguments but for the base allocator
    // and the slab size: the threshold follows the slab size, 128 slabs
    // between doublings.
    llvm::BumpPtrAllocatorImpl<SimSlabs, SlabSize, SlabSize, 128> A;
    std::map<uint64_t, Block> blocks;
    for (const sim::Op& op : prog.ops) {
      bool placed = false;
      uint64_t address = 0;
      int moved = -1;
      switch (op.kind) {
        case 'a': {
          void* p = A.Allocate(op.size, llvm::Align(op.align));
          blocks[op.id] = {p, op.size, op.align};
          placed = true;
          address = sim::launder(p);
          break;
        }
        case 'r': {
          Block old = blocks.at(op.from);
          blocks.erase(op.from);
          void* p = A.Allocate(op.size, llvm::Align(old.align));
          if (old.size && op.size) std::memcpy(p, old.ptr, std::min(old.size, op.size));
          A.Deallocate(old.ptr, old.size, old.align);
          blocks[op.id] = {p, op.size, old.align};
          placed = true;
          address = sim::launder(p);
          moved = sim::launder(p) != sim::launder(old.ptr);
          break;
        }
        case 'f': {
          Block b = blocks.at(op.id);
          blocks.erase(op.id);
          A.Deallocate(b.ptr, b.size, b.align);
          break;
        }
        case 'x':
          blocks.clear();
          A.Reset();
          break;
        default:
          std::printf("error: LLVM's allocator has no op '%c'\n", op.kind);
          std::exit(5);
      }
      uint64_t bump = sim::launder(A.Allocate(0, llvm::Align(1)));
      std::vector<sim::Chunk> chunks;
      for (const sim::Allocation& a : H.live) chunks.push_back({a.id, a.sim, a.size, a.size, a.sim});
      sim::print_op(placed, address, moved, false, bump != 0, bump, chunks);
    }
  }
  std::printf("done\n");
  std::fflush(stdout);
}

int main() {
  sim::Program prog;
  while (sim::read_program(prog)) {
    uint64_t slab = prog.has_capacity ? prog.capacity : 4096;
    switch (slab) {
      case 16: run<16>(prog); break;
      case 32: run<32>(prog); break;
      case 64: run<64>(prog); break;
      case 256: run<256>(prog); break;
      case 1024: run<1024>(prog); break;
      case 4096: run<4096>(prog); break;
      case 16384: run<16384>(prog); break;
      case 65536: run<65536>(prog); break;
      default:
        std::printf("error: no instantiation for a slab size of %llu\n", (unsigned long long)slab);
        std::exit(6);
    }
  }
  return 0;
}
