/// \file
/// The program of a file (docs/skeletonizer.md, "Programs: time-step loops, host
/// data, double buffering"): FileAssembler gathers the kernels of every function
/// with the arrays they declare, the `repeat`s of time-step loops and the host
/// steps; HostProgram is the host side of one function: the host code between
/// its kernels, gathered into `host reads` / `host writes` steps, whose each
/// array is (HostData.h) and so which host marks it gets, and the function's
/// signature for a CPU harness.
#pragma once

#include "NestAst.h"
#include "Shapes.h"
#include "TUContext.h"

#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// The file-level assembly of kernels and arrays, shared by all functions.
class FileAssembler {
public:
  explicit FileAssembler(TUContext &tu) : tu_(tu) {}
  /// The skeleton name of this array with this shape, declared if new.
  std::string declareArray(const ArrayShape &s);
  /// Undo the declarations (and widened extents) made since `mark` (a nest
  /// that failed).
  struct Mark {
    size_t arrays = 0, widenings = 0;
  };
  Mark mark() const { return {arrays.size(), widenings_.size()}; }
  void rollback(Mark mark);
  /// The arrays in the order of their declarations in the source.
  std::vector<skeleton::Array> arraysInSourceOrder() const;
  /// `origin`: the nest's AST (kernels dropped by a rollback lose theirs here)
  void addKernel(skeleton::Kernel k, NestAst origin = {}) {
    origins.resize(kernels.size());
    kernels.push_back(std::move(k));
    origins.push_back(std::move(origin));
  }
  /// The C variable behind a skeleton array name (nullptr if none).
  const clang::VarDecl *declOf(const std::string &name) const;
  /// The skeleton names declared for a C variable.
  std::vector<std::string> namesOf(const clang::VarDecl *d) const;
  std::vector<skeleton::Array> arrays;
  std::vector<skeleton::Kernel> kernels;
  std::vector<NestAst> origins; ///< per kernel (may lag behind; resize to kernels.size())
  std::vector<skeleton::Repeat> repeats; ///< time-step loops around kernels
  std::vector<skeleton::HostStep> hostSteps; ///< host code between kernels, in program order
  std::vector<Warning> warnings;

  /// Whose an array is (HostData.h), by skeleton name; decides the host marks.
  struct HostRole {
    bool deviceOwned = false, constInput = false;
    bool outAllowed = true; ///< false when a `#pragma skelcast out` leaves it out
    std::string why;
  };
  std::map<std::string, HostRole> roles;
  std::vector<CFunction> functions; ///< those with kernels (array names before renaming)
  bool programMarks = false; ///< a repeat, a device temporary, `out` or a host step: write host marks

private:
  TUContext &tu_;
  std::map<std::string, size_t> byName_;
  std::map<const clang::VarDecl *, std::vector<size_t>> byDecl_;
  std::vector<const clang::VarDecl *> decls_;
  std::vector<int64_t> firstExtent_; ///< each array's first extent, by index
  struct Widening {
    size_t index;
    skeleton::Expr extent;
    int64_t value;
  };
  std::vector<Widening> widenings_; ///< first extents widened, with what they were
};

/// The host side of one function's program (docs/skeletonizer.md, "Host code
/// between kernels"): the arrays host code touches, gathered between two
/// kernels, become `host reads` / `host writes` steps at that point of the
/// program.
class HostProgram {
public:
  HostProgram(TUContext &tu, FileAssembler &out, const clang::FunctionDecl *fn)
      : tu_(tu), out_(out), fn_(fn) {}

  /// Host code: what `s` touches joins the step gathered since the last kernel.
  void noteHost(const clang::Stmt *s);
  /// The host code gathered so far runs before the next kernel.
  void flushHost();
  /// The number of steps so far: a mark for inRepeat and ownHostCodeSince.
  size_t stepCount() const { return steps_.size(); }
  /// Do the steps since `firstStep` that are in no repeat yet touch an array
  /// of the kernels so far? Then a loop around them has host code of its own.
  bool ownHostCodeSince(size_t firstStep);
  /// The host steps gathered since `firstStep` run in each pass of repeat r.
  void inRepeat(size_t firstStep, int r);
  /// What the host side has gathered so far, to walk a loop body again (the
  /// nest finder's second try of a sequential loop, NestFinder.cpp).
  struct Saved;
  Saved save() const;
  void restore(const Saved &s);
  /// At the end of the function, whose kernels begin at `first`: the roles of
  /// their arrays, the host steps with skeleton names, the signature.
  void finish(size_t first);

private:
  struct RawHostStep {
    std::map<const clang::VarDecl *, bool> touches; ///< written?
    std::map<const clang::VarDecl *, bool> scalars; ///< local scalars, written? (reduction results)
    size_t beforeKernel = 0;
    int repeat = -1;
    clang::SourceLocation loc;
  };

  /// The function's steps with skeleton names. Before its first kernel and
  /// after its last, the marks already say what the host provides and reads
  /// back of its own arrays: there a step keeps only the function's arrays
  /// (device temporaries the host fills or reads).
  void addHostSteps(size_t first);
  /// The parameters as a CPU harness must provide them.
  CFunction signature() const;
  static bool containsOpenMP(const clang::Stmt *s);
  /// Does host code `raw` touch an array the kernels so far use (itself or
  /// through an alias)? Host code on other memory causes no copy.
  bool touchesAnArray(const RawHostStep &raw);
  /// The variables whose memory host code touching `v` may touch: v's class
  /// (swapped pointers, pointers set into it; hostAliases), or v alone.
  std::vector<const clang::VarDecl *> mayHold(const clang::VarDecl *v);
  /// Whose each array of this function's kernels is (HostData.h), and the
  /// arrays `#pragma skelcast out(...)` in the body names.
  void decideRoles(size_t first);

  TUContext &tu_;
  FileAssembler &out_;
  const clang::FunctionDecl *fn_;
  std::map<const clang::VarDecl *, bool> pending_; ///< host code since the last kernel
  clang::SourceLocation pendingLoc_;
  std::map<const clang::VarDecl *, bool> pendingScalars_; ///< its local scalars
  clang::SourceLocation pendingScalarLoc_;
  std::vector<RawHostStep> steps_;

public:
  struct Saved {
    std::map<const clang::VarDecl *, bool> pending;
    clang::SourceLocation pendingLoc;
    std::map<const clang::VarDecl *, bool> pendingScalars;
    clang::SourceLocation pendingScalarLoc;
    std::vector<RawHostStep> steps;
  };

private:
  std::optional<std::map<const clang::VarDecl *, std::vector<const clang::VarDecl *>>> aliases_;
};

} // namespace skelcast::frontend
