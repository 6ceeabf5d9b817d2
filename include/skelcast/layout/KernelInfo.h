/// \file
/// The facts about one kernel that every layout needs, computed once from the
/// skeleton: the loop space, the sequential loops with their trip counts, every
/// memory access with its index expressions classified (affine in the loop
/// variables, computable from them, or dependent on data), and every `comp`
/// block with its execution count per task (GROPHECY's LP_i of equation 17,
/// branch probabilities included).
#pragma once

#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Sample.h"
#include "skelcast/skeleton/Skeleton.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace skelcast::layout {

/// A loop variable: a parallel index (dim >= 0) or a sequential loop index.
struct Var {
  std::string name;
  int dim = -1;      ///< parallel dimension, or -1
  int loop = -1;     ///< index into KernelInfo::loops, or -1
  int64_t lo = 0;    ///< first value (0 when the bound depends on data)
  int64_t step = 1;
  double trip = 1;   ///< number of values (average for data-dependent loops)
};

struct LoopInfo {
  std::string index;
  bool isStream = false;
  bool constTrip = false; ///< trip count known at compile time (unrollable, stageable)
  double trip = 1;        ///< average trip count per execution
  /// The trip count of the task that runs the loop longest: bounds affine in
  /// a parallel index (a triangular loop) evaluated at its first and its last
  /// value; `trip` otherwise (docs/model.md, term `longest`).
  double longestTrip = 1;
  double execs = 1;       ///< executions of the loop per task (outer trips x branch probs)
  /// The parallel dimensions its bounds read (directly, through a subscript or
  /// a scalar binding; every dimension for a name it cannot follow): the
  /// folded tasks of a dimension listed here run the loop one after another.
  std::vector<int> boundDims;
  /// Of those, the ones its start reads: tasks that differ in them run the
  /// loop over different index values (a CSR row's J[j]); the others only
  /// run it longer or shorter over the same values.
  std::vector<int> startDims;
  int parent = -1;        ///< enclosing loop, or -1
  bool inBranch = false;  ///< inside a branch's arm of the kernel's body (at any depth)
  int var = -1;
  std::vector<int> arrays; ///< arrays accessed inside (any depth)
};

/// How one array subscript depends on the loop variables.
struct IndexForm {
  enum class Kind { Affine, Computable, Data };
  Kind kind = Kind::Affine;
  int64_t constant = 0;
  std::vector<int64_t> coef; ///< per Var (Affine only)
  skeleton::Expr expr;       ///< the subscript itself, for exact evaluation
};

/// Whether two subscripts are affine with the same coefficients: they move
/// alike and differ at most in their constants (in[i - 1][j] and in[i][j]).
inline bool sameCoefficients(const IndexForm &a, const IndexForm &b) {
  return a.kind == IndexForm::Kind::Affine && b.kind == IndexForm::Kind::Affine && a.coef == b.coef;
}

struct AccessInfo {
  int array = -1;
  bool isStore = false;
  std::vector<IndexForm> index;
  std::vector<int> loops; ///< enclosing loops, outermost first
  double execs = 1;       ///< executions per task: trips of enclosing loops x branch probs
  int block = -1;         ///< the straight-line block (statement list) it sits in
  int level = 1;          ///< 1 + the level of the loads its index needs from the same block
  /// Bytes a thread's address moves from one iteration of the access's
  /// innermost loop to the next (|sum_d coef_d x stride_d| x loop step x
  /// ElemBytes); -1 when the access is in no loop or a subscript that depends
  /// on it is not affine (docs/model.md, term `walk`).
  double innerStepBytes = -1;
  /// A load that the port keeps in a register across its innermost loop:
  /// its subscripts do not move with the loop, it is not in a branch's arm,
  /// and no store in the loop can write its element but one at its own
  /// subscript (a subscript with the same coefficients and another constant
  /// never does). nvcc, with the arrays `restrict` as emit passes them, loads
  /// it once before the loop; reads of other, maybe equal, elements do not
  /// make it load it again (it stores the element every iteration instead).
  /// Equation 13 counts it once; `rmw` and `mlp` read it (docs/model.md).
  bool heldInRegister = false;
  /// Of a held load: a store in the loop writes its element and every access
  /// of the array in the loop is that element. emit's register (sk_X_reg)
  /// then carries it across a staged loop's stages too; otherwise it is
  /// loaded again each stage, after the barrier (the SASS of staged tiles).
  bool heldWritten = false;
  SourceLoc loc;
  bool hasData() const;
  /// Variables the access depends on (Affine/Computable subscripts).
  std::vector<int> vars() const;
};

/// A statement list: its loads of one level can be in flight together.
struct BlockInfo {
  double execs = 1;   ///< executions per task
  int innermostLoop = -1;
  bool branchArm = false; ///< the then or else body of a branch
};

struct CompInfo {
  int64_t count = 0;
  int64_t fp64 = 0; ///< of count, the FP64 arithmetic instructions (`comp N (fp64:M)`)
  double execs = 1;
  std::vector<int> loops;
  int64_t lit64 = 0; ///< the 64-bit literals they take (`lit64:K`), built with two moves each
  int64_t chain = 0; ///< cycles of the stretch's dependent chain (`chain:C`), 0 where it has none
  int64_t chainWaits = 0; ///< the loads waited for on it (`waits:L`)
};

struct ArrayInfo {
  std::string name;
  int elemBytes = 4;
  std::vector<int64_t> extents;
  std::vector<int64_t> strides; ///< row-major, in elements
  double elements = 0;
  std::optional<skeleton::SampleData> sample;
  /// In a program (model::analyzeProgram): the bytes of the arrays the kernels
  /// touch from the last earlier kernel that used this array through this one,
  /// the array's reuse distance; < 0 when no earlier kernel uses it.
  double programReuseBytes = -1;
};

/// How the kernel is launched, which the `residency` and `launch` terms read
/// (docs/model.md, section 7): once, from a cold L2 (a projection's default);
/// repeated over the same arrays, each launch timed alone (the hand-written
/// validation programs), so its arrays may still be in L2 from the last one;
/// or repeated back to back in one stream (`emit`'s programs), each launch
/// also queued behind the last.
enum class LaunchTiming { Once, RepeatedAlone, BackToBack };
inline constexpr LaunchTiming kLaunchTimings[] = {LaunchTiming::Once, LaunchTiming::RepeatedAlone,
                                                  LaunchTiming::BackToBack};
/// A LaunchTiming's name in measurement records and `explain --timing`:
/// "once", "alone", "back_to_back".
const char *launchTimingName(LaunchTiming t);
/// The LaunchTiming of one of those names; nullopt for any other text.
std::optional<LaunchTiming> launchTimingNamed(const std::string &name);

struct KernelInfo {
  std::string name;
  std::string file;
  std::vector<std::string> dimNames;
  std::vector<int64_t> dimLo, dimSize; ///< per parallel dimension
  double loopSpace = 1;                ///< number of tasks
  std::vector<Var> vars;               ///< parallel dims first, then loops in pre-order
  std::vector<LoopInfo> loops;
  std::vector<AccessInfo> accesses;
  std::vector<CompInfo> comps;
  std::vector<BlockInfo> blocks;
  std::vector<ArrayInfo> arrays;
  std::map<std::string, skeleton::Expr> bindings; ///< scalar name -> value expression
  skeleton::MacroTable macros;
  /// The arrays the file declares (arrays holds only the kernel's): the
  /// registers term counts a base pointer for each of them.
  size_t declaredArrays = 0;
  /// The kernel's scalar reductions (`reduce(op: s)`): the size of each
  /// one's element (its target's type, float when undeclared), in order.
  std::vector<int> reductionBytes;
  LaunchTiming timing = LaunchTiming::Once;

  int arrayIndex(const std::string &name) const;
  int loopIndex(const std::string &name) const;
  int varIndex(const std::string &name) const;
};

/// What analyzeKernel needs of the whole file, computed once for all its
/// kernels: the macros' values and where each array is declared.
struct FileContext {
  skeleton::MacroTable macros;
  std::unordered_map<std::string, size_t> arrayPositions; ///< name -> index in file.arrays
};
FileContext fileContext(const skeleton::SkeletonFile &file);

/// Analyse kernel `k` of `file` (already checked by the parser). KernelInfo::arrays
/// holds the arrays the kernel names, in declaration order.
KernelInfo analyzeKernel(const skeleton::SkeletonFile &file, size_t k);

/// The same for `kernel`, named `name`, which need not be one of `file`'s (a
/// fused kernel): its arrays and macros are `file`'s, read through `ctx`.
KernelInfo analyzeKernel(const skeleton::SkeletonFile &file, const skeleton::Kernel &kernel,
                         const std::string &name, const FileContext &ctx);

/// Evaluate a subscript for given variable values; nullopt when it needs data
/// that no sample provides. Sample values repeat cyclically past the sample's end.
std::optional<int64_t> evalIndex(const KernelInfo &ki, const skeleton::Expr &e,
                                 const std::vector<int64_t> &varValues);

/// evalIndex with the names resolved once (macros to their values, variables
/// to their slots, bindings inlined): the same values, for enumerations over
/// many points (a footprint of subscripts with `/` or `%`).
class CompiledIndex {
public:
  CompiledIndex(const KernelInfo &ki, const skeleton::Expr &e);
  std::optional<int64_t> operator()(const std::vector<int64_t> &varValues) const {
    return eval(root_, varValues);
  }
  /// The same value, recomputing only the parts that depend on a variable
  /// whose bit (1 << slot; slots from 64 share the last bit) is set in
  /// `changed`: the rest keep their value from the previous call. For an
  /// enumeration that moves one variable at a time; the first call passes ~0.
  std::optional<int64_t> update(const std::vector<int64_t> &varValues, uint64_t changed);
  /// A variable slot's bit for `update`.
  static uint64_t bit(size_t slot) { return uint64_t{1} << std::min<size_t>(slot, 63); }
  /// How many parts of the subscript `update` recomputes when the variables of `bits` move.
  size_t partsDependingOn(uint64_t bits) const;

private:
  struct Node {
    enum class Kind { Lit, Var, Unknown, Neg, Binary, Direct } kind = Kind::Unknown;
    int64_t value = 0; ///< Lit: the value; Var: the slot
    char op = 0;
    int a = -1, b = -1;
    const skeleton::Expr *expr = nullptr; ///< Direct: evaluated by evalIndex (an array element)
    uint64_t deps = 0; ///< the bits of the variables it depends on (Direct: all)
  };
  int build(const skeleton::Expr &e, int depth);
  std::optional<int64_t> eval(int n, const std::vector<int64_t> &varValues) const;
  const KernelInfo *ki_;
  std::vector<Node> nodes_; ///< children before their parents
  int root_ = 0;
  std::vector<int64_t> last_; ///< update: each node's value at the previous call
  std::vector<char> known_;   ///< update: whether it had one (not nullopt)
};

} // namespace skelcast::layout
