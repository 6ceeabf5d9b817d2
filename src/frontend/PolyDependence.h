/// \file
/// An exact test of loop-carried dependences on isl (the integer set library
/// Polly and PPCG build on), without Clang: the input is a plain description
/// of a loop nest (`PolyNest`) that the skeletonizer fills from the AST, the
/// output says for each loop whether its iterations are independent, and if
/// not, which pair of accesses is to blame. docs/dependence.md describes the
/// method and the examples the unit tests check.
///
/// \code
///   PolyNest nest;                                   // for (i = 0; i < n; ++i)
///   nest.params.push_back({"n"});                    //   a[i] = a[i - 1] + b[i];
///   int i = nest.addLoop(-1, {"i", {0}, {PolyAffine::var("n")}});
///   nest.addStatement(i, {{PolyAccess::read("a", {PolyAffine::var("i") - 1}),
///                          PolyAccess::read("b", {PolyAffine::var("i")}),
///                          PolyAccess::write("a", {PolyAffine::var("i")})}});
///   PolyResult r = analyzeDependences(nest);
///   // r.loops[i].verdict == LoopVerdict::Sequential, r.loops[i].reason ==
///   // "the iterations are not independent: 'a[i]' (written) and 'a[i - 1]' (read)"
/// \endcode
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// sum(coef[name] * name) + constant, over loop indices and parameters named
/// as in the source. An index name means the innermost enclosing loop of that
/// name; any other name must be a parameter of the nest.
struct PolyAffine {
  std::map<std::string, int64_t> coef;
  int64_t constant = 0;

  PolyAffine() = default;
  PolyAffine(int64_t c) : constant(c) {} // NOLINT: `{0}` and `n - 1` read naturally
  static PolyAffine var(const std::string &name, int64_t k = 1);
  /// "2*i + n - 1" (what a message shows when the caller gives no source text).
  std::string str() const;
};
PolyAffine operator+(PolyAffine a, const PolyAffine &b);
PolyAffine operator-(PolyAffine a, const PolyAffine &b);
PolyAffine operator*(int64_t k, PolyAffine a);

/// A symbolic size. Its known value, or bounds, narrow what the answer covers:
/// with `n >= 1` the test proves independence for every n >= 1.
struct PolyParam {
  std::string name;
  std::optional<int64_t> value;
  std::optional<int64_t> min, max;
};

/// One array access of a statement. A scalar is a 0-dimensional array (no
/// subscripts). A subscript that is not affine (loaded from data, divided,
/// multiplied by an unknown) is nullopt: the access may touch any element
/// along that dimension, and a dependence that needs it is "unknown".
struct PolyAccess {
  std::string array;
  bool isWrite = false;
  std::vector<std::optional<PolyAffine>> subscripts;
  /// Why a subscript is not affine ("'idx[i]' is loaded from data"), for messages.
  std::string nonAffineReason;
  /// The update of a reduction `s op= e` (both its read and its write of s):
  /// "+", "*", "min", ... Dependences between reduction accesses of the same
  /// operator and array are reported as a reduction, not as blocking.
  std::string reductionOp;
  /// The access as written in the source ("a[i+1]"); generated when empty.
  std::string text;

  static PolyAccess read(std::string array, std::vector<std::optional<PolyAffine>> subs = {});
  static PolyAccess write(std::string array, std::vector<std::optional<PolyAffine>> subs = {});
  /// This access as a reduction update with operator `op`.
  PolyAccess reduction(std::string op) &&;
  /// This access with a subscript that is not affine, and why.
  PolyAccess because(std::string reason) &&;
  std::string display() const; ///< `text`, or a[i + 1] made from the subscripts
};

/// `for (index = max(lower...); index < min(upper...); index += step)`, or
/// `<=` with `inclusiveUpper`. Bounds are affine over the indices of enclosing
/// loops and parameters; an empty `upper` is an unbounded loop (a trip count
/// from data). A loop counting down is described by its mirror (index' = -index).
struct PolyLoop {
  std::string index;
  std::vector<PolyAffine> lower;
  std::vector<PolyAffine> upper;
  bool inclusiveUpper = false;
  int64_t step = 1; ///< >= 1; with step > 1, `lower` has exactly one form

  int parent = -1; ///< set by PolyNest::addLoop
  int order = 0;   ///< set by PolyNest::addLoop: textual position
};

/// A statement, in the body of loop `loop` (-1: outside every loop).
/// Accesses are listed in evaluation order (reads of `a[i] = b[i] + c` before
/// the write); the order does not change the answer, only which pair a
/// message names first.
/// A statement that relaxes its own element W toward a candidate value made
/// of addends: `W = min(W, P + Q)` (the ternary, `fmin` and `if (P + Q < W)
/// W = P + Q;` forms; `max` likewise). Where an addend P reads W itself, the
/// write is min(W, W + Q), which leaves W unchanged while Q >= 0 (Q <= 0 for
/// max): Floyd-Warshall's `path[i][k]` at j = k, with Q = `path[k][k]`.
struct PolyRelaxation {
  std::string op;  ///< "min" or "max"
  int write = -1;  ///< the access (of the statement) that writes W
  /// each addend that is an array read: its access, and the other addends' text
  /// ("" when it is the only one: min(W, W) is W whatever the values)
  std::vector<std::pair<int, std::string>> addends;
};

struct PolyStmt {
  std::vector<PolyAccess> accesses;
  std::optional<PolyRelaxation> relaxation;
  /// Under a branch: its writes may not happen (they do not kill earlier
  /// values, which matters for privatization only).
  bool conditional = false;
  std::string text; ///< for messages, optional

  int loop = -1; ///< set by PolyNest::addStatement
  int order = 0; ///< set by PolyNest::addStatement: textual position
};

/// Array `name` is array `base` shifted by `offset` elements, per dimension:
/// after `float *xx = flat + 4;`, `xx[k]` is `flat[k + 4]`, written
/// {"xx", "flat", {4}}. Offsets may use parameters (`xx = flat + n`); missing
/// dimensions are 0; aliases may chain. Arrays not related here are taken not
/// to overlap: the caller must establish that (restrict, distinct
/// declarations) or keep its conservative rules.
struct PolyAlias {
  std::string name;
  std::string base;
  std::vector<PolyAffine> offset;
};

/// A loop nest (or a sequence of nests) in the polyhedral model. Loops and
/// statements are added in textual order (a pre-order walk of the source):
/// the order among the children of one loop is the execution order.
struct PolyNest {
  std::vector<PolyParam> params;
  /// Further facts on the parameters, each `form >= 0` (`m - n >= 0`).
  std::vector<PolyAffine> assumptions;
  std::vector<PolyAlias> aliases;
  std::vector<PolyLoop> loops;
  std::vector<PolyStmt> stmts;
  /// The extents of an array's dimensions after the first, where known
  /// (`double b[n][m]` with m = 100: {100}). A subscript that may leave its
  /// dimension's range reaches a neighbouring row (`b[i][j-1]` at j = 0 is
  /// `b[i-1][m-1]`): every access of that array is then taken in its
  /// row-major place, one flattened subscript, so isl sees the overlap.
  std::map<std::string, std::vector<int64_t>> innerExtents;

  /// Adds `loop` inside loop `parent` (-1: at top level); returns its id.
  int addLoop(int parent, PolyLoop loop);
  /// Adds `stmt` inside loop `loop` (-1: at top level); returns its id.
  int addStatement(int loop, PolyStmt stmt);
};

/// Where an array's elements live: `base[subscript + offset]`.
struct PolyArrayBase {
  std::string base;
  std::vector<PolyAffine> offset;
};
/// Follows `nest.aliases` from `array` to the array that is no alias, adding up
/// the offsets (an array that is no alias is its own base); nullopt on a cycle.
std::optional<PolyArrayBase> resolveArray(const PolyNest &nest, const std::string &array);

enum class DepKind { Flow, Anti, Output };
const char *depKindName(DepKind k); ///< "flow", "anti", "output"

/// A dependence carried by a loop: the source access, in an earlier iteration
/// of the loop, and the sink access, in a later one, touch the same element.
struct PolyDependence {
  DepKind kind = DepKind::Flow;
  std::string array; ///< the base array (after aliases)
  int sourceStmt = 0, sourceAccess = 0;
  int sinkStmt = 0, sinkAccess = 0;
  std::string sourceText, sinkText;
  bool sourceWrites = false, sinkWrites = false;
  bool approximate = false;  ///< needs a subscript that is not affine: may not be real
  bool reduction = false;    ///< between updates of one reduction
  bool privatized = false;   ///< on an array privatized for this loop
  /// one distance along the carrying loop for every pair (`a[i+1]` against
  /// `a[i]`), not a dependence between some iterations only (Floyd-Warshall's
  /// `path[i][k]` read where j = k writes it)
  bool uniform = false;
  /// on an array taken flattened (PolyNest::innerExtents): the elements met
  /// through a subscript outside its dimension's range
  bool acrossRows = false;
  /// Every write of the dependence is a relaxation (PolyRelaxation) whose
  /// addend reads the very element it writes: the write changes nothing while
  /// this holds ("path[k][j] >= 0"; "" when always). Not blocking: the loop is
  /// parallel under that assumption, which the caller says.
  bool unchanged = false;
  std::string unchangedWhile;
  std::string unchangedOp;   ///< the relaxation's "min" or "max"
  std::string unchangedRest; ///< the other addends ("path[k][j]")
  /// One instance pair, "i=0, j=1 -> i=1, j=0 (n=2)": the source's loop
  /// indices, the sink's, and the parameters.
  std::string example;

  /// "'a[i+1]' (read) and 'a[i]' (written)"
  std::string describe() const;
};

enum class LoopVerdict {
  Parallel,                   ///< no dependence carried
  ParallelAfterPrivatization, ///< only on arrays in `privatized`
  Reduction,                  ///< only reductions (and privatizable arrays)
  Sequential,                 ///< a dependence is carried
  Unknown,                    ///< not affine, or isl failed: see `reason`
};
const char *loopVerdictName(LoopVerdict v);

struct PolyLoopResult {
  int loop = 0;
  std::string index;
  LoopVerdict verdict = LoopVerdict::Unknown;
  /// Every dependence the loop carries (blocking ones first, flow before anti
  /// before output), at most one per ordered pair of accesses.
  std::vector<PolyDependence> carried;
  std::vector<std::string> reductions; ///< arrays reduced across iterations
  /// Arrays each iteration must own a copy of: written and read in the loop,
  /// every read preceded by a write of the element in the same iteration, and
  /// no value of the loop read after it inside the nest. Whether one is read
  /// after the nest is the caller's question (its liveness scan).
  std::vector<std::string> privatized;
  /// What the verdict assumes of the values (the `unchanged` dependences):
  /// "'path[i][k]' (read) and 'path[i][j]' (written): unchanged while path[k][j] >= 0"
  std::vector<std::string> assumptions;
  /// Sequential: "the iterations are not independent: 'a[i+1]' (read) and
  /// 'a[i]' (written)"; Unknown: why; Reduction / after privatization: what.
  std::string reason;

  bool parallel() const { return verdict == LoopVerdict::Parallel; }
};

struct PolyResult {
  bool ok = true;    ///< false: isl failed or the nest is malformed; every loop Unknown
  std::string error; ///< "isl failed: ...", "invalid nest: ..."
  std::vector<PolyLoopResult> loops; ///< by loop id

  /// The first loop with this index name (tests); throws std::out_of_range.
  const PolyLoopResult &loop(const std::string &index, int nth = 0) const;
};

struct PolyOptions {
  /// isl's operation budget (isl_ctx_set_max_operations) for each question:
  /// one ordered pair of accesses over all loops around both, or one array's
  /// value-based flow. The hardest question of the unit tests (lu, doitgen)
  /// takes between 60 000 and 100 000; the default leaves 20 times that, and
  /// a nest has at most (accesses^2 + arrays) questions. Over budget, every
  /// loop is Unknown ("isl failed: over the operation budget (N operations)").
  unsigned long maxOperations = 2'000'000;
  /// Look for privatizable arrays (off: anti and output dependences on
  /// scratch arrays block the loop).
  bool privatize = true;
};

/// For every loop of `nest`, whether it carries a dependence, exactly over
/// the parameters' values allowed. Never throws on isl failures.
PolyResult analyzeDependences(const PolyNest &nest, const PolyOptions &options = {});

} // namespace skelcast::frontend
