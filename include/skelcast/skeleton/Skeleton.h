/// \file
/// The code-skeleton IR: what GROPHECY's projection works on (SC'11, section 5).
///
/// A SkeletonFile holds macros, arrays (element type, extents, sample hints) and
/// kernels; a kernel is a `parallel_for` loop space whose body is a tree of
/// statements: `comp N`, `ld`/`st` of array elements, scalar bindings, `stream`
/// and `for` loops, and branches with probabilities. The IR keeps macro names and
/// comments so that printing it gives back the file in canonical form; every
/// node carries its source position for diagnostics. All types are plain values
/// (copyable, comparable); the parser builds them, the frontend builds them from
/// Clang's AST, later stages only read them.
#pragma once

#include "skelcast/support/Diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skelcast::skeleton {

/// Element types of the language with their sizes in bytes.
enum class ElemType { Char, Short, Int, Long, Float, Double };
int elemBytes(ElemType t);
const char *elemTypeName(ElemType t);
std::optional<ElemType> parseElemType(const std::string &name);

/// An integer expression: literal, name, unary minus, binary operator, or an
/// array element (`M[i][n]`) used as a value (an indirect index).
struct Expr {
  enum class Kind { IntLit, Name, Neg, Binary, Access };
  Kind kind = Kind::IntLit;
  int64_t value = 0;         ///< IntLit
  std::string name;          ///< Name, or the array of an Access
  char op = 0;               ///< Binary: one of + - * / %
  std::vector<Expr> args;    ///< Neg: 1, Binary: 2, Access: the indices
  SourceLoc loc;

  static Expr lit(int64_t v, SourceLoc loc = {});
  static Expr ref(std::string name, SourceLoc loc = {});
  static Expr neg(Expr e, SourceLoc loc = {}); ///< of a literal: the negated literal
  static Expr binary(char op, Expr l, Expr r, SourceLoc loc = {});
  static Expr access(std::string array, std::vector<Expr> idx, SourceLoc loc = {});

  /// Structural equality; positions are ignored.
  bool operator==(const Expr &o) const;
  bool operator!=(const Expr &o) const { return !(*this == o); }
};

/// Comments attached to an item: the ones on lines before it, and one after it
/// on its own last line. Stored with their delimiters (`// x`, `/* x */`).
struct Comments {
  std::vector<std::string> leading;
  std::string trailing;
  bool operator==(const Comments &o) const {
    return leading == o.leading && trailing == o.trailing;
  }
};

/// `ld A[i][k]` or `st C[i][j]`: one global-memory access.
struct MemAccess {
  bool isStore = false;
  std::string array;
  std::vector<Expr> index; ///< one per dimension of the array
  bool operator==(const MemAccess &o) const {
    return isStore == o.isStore && array == o.array && index == o.index;
  }
};

struct Stmt;

/// `stream k = lo:hi[:step] [(hint:N)] { ... }` or `for n = lo:hi { ... }`.
struct Loop {
  bool isStream = false; ///< streaming loop (stageable) vs small `for` loop
  std::string index;
  Expr lo, hi;
  std::optional<Expr> step;       ///< absent means 1
  std::optional<int64_t> tripHint; ///< average trip count when bounds are data-dependent
  std::vector<Stmt> body;
  std::vector<std::string> closingComments; ///< comments before the closing brace
  bool operator==(const Loop &o) const;
};

/// `if (p=0.25) { ... } else { ... }`.
struct Branch {
  double prob = 0.5;
  std::vector<Stmt> thenBody, elseBody;
  bool hasElse = false;
  std::vector<std::string> thenClosingComments, elseClosingComments;
  bool operator==(const Branch &o) const;
};

/// One statement of a kernel body.
struct Stmt {
  enum class Kind { Comp, Mem, Bind, Loop, Branch };
  Kind kind = Kind::Comp;
  int64_t comp = 0;          ///< Comp: the instruction count
  int64_t fp64 = 0;          ///< Comp: how many of them are FP64 arithmetic, `(fp64:M)`
  /// Comp: the distinct 64-bit literals its FP64 instructions take whose low
  /// word is not 0: ptxas builds each with two moves, `(fp64:M, lit64:K)`;
  /// not in the count N (the layout decides how often they are built)
  int64_t lit64 = 0;
  /// Comp: the cycles the dependent chain of the stretch takes a warp that
  /// issues alone, its loads' waits apart, where it holds a correctly rounded division or square root
  /// (whose slow-path branch keeps the warp from starting later work early),
  /// `(chain:C)`; 0 otherwise (docs/skeleton-language.md, docs/model.md `chain`)
  int64_t chain = 0;
  /// Comp: the loads waited for on that chain, `(chain:C, waits:L)`: each
  /// waits its access's latency, which the layout decides (not in C)
  int64_t chainWaits = 0;
  MemAccess mem;             ///< Mem
  std::string bindName;      ///< Bind: `name = value`
  Expr bindValue;            ///< Bind
  skeleton::Loop loop;       ///< Loop
  skeleton::Branch branch;   ///< Branch
  Comments comments;
  SourceLoc loc;
  bool operator==(const Stmt &o) const;
};

/// `#define NAME expr`.
struct Macro {
  std::string name;
  Expr value;
  Comments comments;
  SourceLoc loc;
  bool operator==(const Macro &o) const {
    return name == o.name && value == o.value && comments == o.comments;
  }
};

/// What the host provides and needs of an array (docs/skeleton-language.md,
/// "Programs"): `in` it provides, `out` it reads back, `inout` both.
enum class HostMark { None, In, Out, InOut };
const char *hostMarkName(HostMark m);

/// `[in|out|inout] float A[N][K]`, optionally `: hints<sample="file">`.
struct Array {
  HostMark mark = HostMark::None;
  ElemType type = ElemType::Float;
  std::string name;
  std::vector<Expr> extents;
  std::optional<std::string> sampleFile; ///< as written, relative to the skeleton file
  Comments comments;
  SourceLoc loc;
  bool operator==(const Array &o) const {
    return mark == o.mark && type == o.type && name == o.name && extents == o.extents &&
           sampleFile == o.sampleFile && comments == o.comments;
  }
};

/// One dimension of a loop space: `N` (0 to N) or `lo:hi`.
struct ParallelDim {
  std::optional<Expr> lo; ///< absent means 0
  Expr hi;
  bool operator==(const ParallelDim &o) const { return lo == o.lo && hi == o.hi; }
};

/// The combining operators of a scalar reduction.
enum class ReduceOp { Add, Mul, Min, Max };
const char *reduceOpName(ReduceOp op); ///< "+", "*", "min", "max"
std::optional<ReduceOp> parseReduceOp(const std::string &text);

/// `reduce(op: s)` after a kernel's index names: every task combines a value
/// into the scalar `s` with `op` (docs/skeleton-language.md, "Reductions").
/// A port keeps each thread's partial in a register, combines a block's
/// partials in shared memory and adds one atomic per block to `s`'s single
/// global element (docs/model.md, the `reduction` term). `s` is a declared
/// one-element array (its type the reduction's) or, undeclared, a float that
/// stays on the device.
struct Reduction {
  ReduceOp op = ReduceOp::Add;
  std::string target;
  SourceLoc loc; ///< where the target's name is written
  bool operator==(const Reduction &o) const { return op == o.op && target == o.target; }
};

/// `parallel_for [name](D1, ..., Dn) : i1, ..., in [reduce(op: s, ...)...] { body }`, 1 <= n <= 3.
struct Kernel {
  std::string name; ///< may be empty in the text; kernelName() gives the used name
  std::vector<ParallelDim> dims;
  std::vector<std::string> indices;
  std::vector<Reduction> reductions; ///< in the order written
  std::vector<Stmt> body;
  std::vector<std::string> closingComments;
  Comments comments;
  SourceLoc loc;
  bool operator==(const Kernel &o) const;
};

/// `k` with every use of the name `name` (an indexed repeat's index) in its
/// loop space, bounds, subscripts and bindings replaced by the literal `value`:
/// the kernel one launch of an indexed repeat runs.
Kernel bindIndex(const Kernel &k, const std::string &name, int64_t value);

/// One `ld` or `st` of a statement list.
struct MemTouch {
  std::string array;
  bool isStore = false;
};

/// The loads and stores of a statement list, in statement order (a loop's body
/// once, a branch's then-arm before its else-arm): what the program's dataflow
/// and the skeletonizer's host mapping read of a kernel.
std::vector<MemTouch> memTouches(const std::vector<Stmt> &body);

struct SkeletonFile;

/// A kernel's loads and stores for the program's dataflow: memTouches of its
/// body, then for each reduction into a declared array a load and a store of
/// it (the combination reads the value the host put there and writes the sum).
std::vector<MemTouch> kernelTouches(const SkeletonFile &f, const Kernel &k);

/// The element type of a reduction: its target array's, float when undeclared.
ElemType reductionType(const SkeletonFile &f, const Reduction &r);

/// `host reads a, b` or `host writes c` between kernels: host code that reads
/// the arrays (it needs the device's values) or updates some of their elements
/// (it needs the device's values, and the device needs the host's afterwards).
/// docs/skeleton-language.md, "Programs"; the transfers it causes: docs/model.md,
/// section 9.
struct HostStep {
  bool writes = false;
  std::vector<std::string> arrays;
  std::vector<SourceLoc> arrayLocs; ///< where each name is written
  size_t beforeKernel = 0;          ///< it runs after kernels [0, beforeKernel) of the file
  int repeat = -1;                  ///< the repeat whose body holds it, -1 for none
  Comments comments;
  SourceLoc loc;
  bool operator==(const HostStep &o) const {
    return writes == o.writes && arrays == o.arrays && beforeKernel == o.beforeKernel &&
           repeat == o.repeat && comments == o.comments;
  }
};

/// `repeat T { ... }` or `repeat k = lo:hi[:step] { ... }`: the body's kernels
/// and host steps run in order, T times (time steps), or once per value of the
/// index k (a sequential host loop: k = lo, lo + step, ... while k < hi).
///
/// An *indexed* repeat makes `k` visible to the kernels of its body: in their
/// loop-space bounds (`parallel_for f(k + 1:N) : i`, affine in k), in stream
/// and for bounds, in subscripts and scalar bindings. Each launch is the
/// kernel with k replaced by its value (bindIndex); a launch whose loop space
/// is empty is skipped (docs/model.md, section 9, "Launches of an indexed
/// repeat"). To build one (the frontend's floyd-warshall `for k` loop):
///
///   Repeat r;
///   r.index = "k";
///   r.lo = Expr::lit(0);
///   r.hi = Expr::ref("N");
///   r.kernels = {2};            // f.kernels[2] uses Expr::ref("k")
///   f.repeats.push_back(r);     // and f.order gets {Item::Kind::Repeat, ...}
///
/// One level: a repeat's body holds no repeat.
struct Repeat {
  Expr count;                    ///< `repeat T`: T; unused (a literal 0) when indexed
  std::string index;             ///< indexed: the host loop's index; empty for `repeat T`
  Expr lo, hi;                   ///< indexed: the index's first value and its bound (excluded)
  std::optional<Expr> step;      ///< indexed: absent means 1
  SourceLoc indexLoc;            ///< indexed: where the index is written
  std::vector<size_t> kernels;   ///< indices into SkeletonFile::kernels, in order
  std::vector<size_t> hostSteps; ///< indices into SkeletonFile::hostSteps, in order
  std::vector<std::string> closingComments;
  Comments comments;
  SourceLoc loc;
  bool indexed() const { return !index.empty(); }
  bool operator==(const Repeat &o) const {
    return count == o.count && index == o.index && lo == o.lo && hi == o.hi && step == o.step &&
           kernels == o.kernels && hostSteps == o.hostSteps &&
           closingComments == o.closingComments && comments == o.comments;
  }
};

/// A top-level item in file order.
struct Item {
  enum class Kind { Macro, Array, Kernel, Repeat, Host };
  Kind kind;
  size_t index; ///< into SkeletonFile::macros / arrays / kernels / repeats / hostSteps
  bool operator==(const Item &o) const { return kind == o.kind && index == o.index; }
};

/// A whole `.skel` file.
struct SkeletonFile {
  std::string path; ///< the file it came from ("<stdin>", "<string>" allowed)
  std::vector<Macro> macros;
  std::vector<Array> arrays;
  std::vector<Kernel> kernels;              ///< every kernel in program order
  std::vector<Repeat> repeats;
  std::vector<HostStep> hostSteps;          ///< top-level ones and those of repeats
  std::vector<Item> order;                  ///< items in file order, for printing
  std::vector<std::string> closingComments; ///< comments after the last item

  const Array *findArray(const std::string &name) const;
  const Macro *findMacro(const std::string &name) const;
  /// The kernel's name if written, else "kernel<N>" (N counted from 0).
  std::string kernelName(size_t k) const;

  /// The repeat whose body holds kernel `k`, or nullptr.
  const Repeat *repeatOf(size_t k) const;

  /// Structural equality (paths and positions ignored).
  bool operator==(const SkeletonFile &o) const;
};

} // namespace skelcast::skeleton
