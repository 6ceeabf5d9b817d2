/// \file
/// Instruction counts read from compiled GPU code (docs/skeletonizer.md,
/// "Counts from a compiler"): the PTX that clang's NVPTX backend writes, or
/// the SASS that `cuobjdump -sass` prints of nvcc's cubin. Each instruction
/// falls in one class (FP32, FP64, integer/address, load/store, control); the
/// loops are found by their back edges (a branch to an earlier label or
/// address), and the code of one kernel splits into the bodies of its
/// innermost loops and what lies outside every loop. Text in, counts out: no
/// process is started here.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace skelcast::toolchain {

enum class InsnClass { Fp32, Fp64, Integer, Memory, Control };
constexpr size_t kInsnClasses = 5;
const char *insnClassName(InsnClass c);

/// Instructions of one stretch of code, per class.
struct ClassCounts {
  std::array<int64_t, kInsnClasses> n{};
  int64_t &operator[](InsnClass c) { return n[static_cast<size_t>(c)]; }
  int64_t operator[](InsnClass c) const { return n[static_cast<size_t>(c)]; }
  int64_t total() const;
  /// Everything but loads and stores: what a skeleton's `comp` counts.
  int64_t nonMemory() const { return total() - (*this)[InsnClass::Memory]; }
};

/// The body of a loop that holds no other loop, from its header label (or
/// address) to its back edge, as the compiler left it (unrolled or not).
struct LoopBody {
  std::string header; ///< the label (PTX) or address (SASS) the back edge jumps to
  ClassCounts counts;
};

/// One kernel's code, split by loops.
struct CodeCounts {
  std::vector<LoopBody> innermost; ///< in code order
  ClassCounts outside;             ///< instructions in no loop at all
  int64_t loops = 0;               ///< all loops, innermost or not
  /// Calls that stay calls (PTX `call` to a function without a body here, such
  /// as a math function clang cannot inline without libdevice): their work is
  /// not in the counts, so the counts must not be used.
  std::vector<std::string> calls;
};

/// The first `.entry` of a PTX module. Throws std::runtime_error when there is none.
CodeCounts countPtx(const std::string &ptx);
/// The first `Function :` of `cuobjdump -sass` output (the padding after the
/// last EXIT, a branch to itself and NOPs, is not counted). Throws
/// std::runtime_error when there is none.
CodeCounts countSass(const std::string &sass);

/// The global loads of a kernel's SASS and the waits that end their groups
/// (docs/model.md, `mlp`): a load (LDG) writes its destination registers, the
/// first instruction that reads one of them waits for it and for every load
/// before it, and a wait for a load issued after the previous wait ends a group
/// (every load since that wait was in flight together). Straight-line order: a
/// loop's body counts once, as written. validation/sass_load_groups.py walks
/// the same way and prints loads a group, where the model takes registers.
struct SassLoadGroups {
  int64_t loads = 0;     ///< LDG instructions
  int64_t registers = 0; ///< the registers they fill (LDG.64 two, LDG.128 four)
  int64_t groups = 0;    ///< waits that end a group
  /// registers / groups: the registers of loads in flight per wait; 0 when
  /// no load is waited for.
  double registersPerGroup() const;
};
/// The first `Function :` of `cuobjdump -sass` output; throws
/// std::runtime_error when there is none.
SassLoadGroups countSassLoadGroups(const std::string &sass);

/// Registers and static shared memory per thread / block that ptxas
/// allocated for a kernel, as `cuobjdump -res-usage` or `ptxas -v` print them.
struct ResourceUsage {
  int registers = 0;
  int64_t sharedBytes = 0;
  /// Local memory a thread uses (`ptxas -v`'s "bytes stack frame"; `STACK:` of
  /// cuobjdump) and the bytes of the spill stores and loads in its code (only
  /// `ptxas -v` says; 0 otherwise).
  int64_t stackFrameBytes = 0, spillStoreBytes = 0, spillLoadBytes = 0;
};
/// The first function's `REG:` and `SHARED:` in `cuobjdump -res-usage` output, or
/// `Used N registers` and `N bytes smem` of `ptxas -v`; throws std::runtime_error
/// when neither is there.
ResourceUsage parseResourceUsage(const std::string &text);

} // namespace skelcast::toolchain
