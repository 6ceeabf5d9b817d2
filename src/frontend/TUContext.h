/// \file
/// What every part of the skeletonizer shares while it works on one
/// translation unit: Clang's AST, source manager and preprocessor, the user's
/// options, the `#pragma skelcast` records, the macros the skeleton names, and
/// the conversion of Clang positions to `file:line:col`.
#pragma once

#include "CallValues.h"
#include "PointerOrigins.h"
#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/skeleton/Skeleton.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/Lex/Preprocessor.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// Something the skeletonizer cannot port. Thrown while one nest is analysed
/// and turned into the warning `cannot port this loop: <reason>`; the nest is
/// skipped and the rest of the file goes on.
struct Unsupported {
  clang::SourceLocation loc; ///< the construct that cannot be ported
  std::string reason;
};

/// One clause of `#pragma skelcast name(value)`.
struct PragmaClause {
  std::string name;
  double value = 0;
  clang::SourceLocation loc;
  /// `out(a, b)`: the names and their positions
  std::vector<std::pair<std::string, clang::SourceLocation>> names;
};

/// One `#pragma skelcast ...` line of the main file.
struct PragmaRecord {
  unsigned beginOffset = 0; ///< of the `#`
  unsigned endOffset = 0;   ///< of the end of the line
  clang::SourceLocation loc;
  std::vector<PragmaClause> clauses;
};

/// A named integer constant of the skeleton (`#define N 800`).
struct MacroUse {
  std::string name;
  int64_t value = 0;
  int group = 2;     ///< 0: command line, 1: another file, 2: the main file
  unsigned offset = 0; ///< of its definition, for ordering
  unsigned seq = 0;    ///< order of first use
  std::string comment;
};

class TUContext {
public:
  TUContext(clang::ASTContext &ast, clang::Preprocessor &pp, const SkeletonizeOptions &opts,
            std::string userPath);

  clang::ASTContext &ast;
  clang::SourceManager &sm;
  clang::Preprocessor &pp;
  const clang::LangOptions &lang;
  const SkeletonizeOptions &opts;
  std::string userPath; ///< the file as the user named it
  std::string fileName; ///< its last component, for comments

  std::vector<PragmaRecord> pragmas;    ///< filled by the pragma handler while parsing
  std::vector<Warning> pragmaWarnings;  ///< malformed pragmas
  std::map<std::string, MacroUse> macros; ///< the ones the skeleton uses
  std::set<std::string> usedTrips;      ///< --trip entries that matched a loop
  std::set<std::string> usedExtents;    ///< --extent entries that were used
  std::set<std::string> usedSamples;    ///< --sample entries that were used
  CallValues callValues{*this};         ///< parameters' values from the file's calls
  PointerOrigins origins{*this};        ///< whose memory each pointer holds (aliasing)
  /// calls inlined into loops (InlineCalls.h): where, and the callee's name;
  /// a kernel's comment names those inside its nest
  std::vector<std::pair<clang::SourceLocation, std::string>> inlinedCalls;
  /// pointers set in a loop's body into an array, replaced by the array's
  /// accesses (LoopPointers.h): a kernel's comment names those inside its nest
  struct LoopPointer {
    clang::SourceLocation loc;
    std::string pointer, array, value;
    bool written = false; ///< an element is written through it
    const clang::Expr *offset = nullptr; ///< its last subscript (`first_i`), or null
  };
  std::vector<LoopPointer> loopPointers;
  /// pointer parameters a ported loop assumed not to overlap, per function (one
  /// warning each, written with the others at the end)
  std::map<const clang::FunctionDecl *, std::set<const clang::ParmVarDecl *>> assumedDistinct;

  /// `file:line:col` of a location (its expansion, for macros); the main file
  /// is named as the user named it.
  SourceLoc position(clang::SourceLocation loc) const;
  unsigned line(clang::SourceLocation loc) const;
  /// Code the user wrote: the main file, or a file it includes that is not a
  /// system header (`#include "kernel.c"`, a header of the project's -I).
  bool userCode(clang::SourceLocation loc) const;
  Warning warning(clang::SourceLocation loc, std::string message) const;
  /// The source text of a range, whitespace runs collapsed to one space.
  std::string sourceText(clang::SourceRange range) const;

  /// The `#pragma skelcast` directly before statement `s` (only whitespace,
  /// comments and other `#` lines between), if any.
  const PragmaRecord *pragmaBefore(const clang::Stmt *s) const;
  /// The value of clause `name` of the pragma before `s`, if any.
  std::optional<PragmaClause> pragmaClause(const clang::Stmt *s, const std::string &name) const;

  /// The skeleton form of an integer constant expression: macro names kept
  /// (`N - 1`), enum constants and const globals by name, literals folded
  /// otherwise. nullopt if `e` is not an integer constant expression.
  std::optional<skeleton::Expr> constantExpr(const clang::Expr *e);
  std::optional<int64_t> constantValue(const clang::Expr *e) const;

  /// An object-like macro of the main file (or the command line) whose value
  /// is `value` (or `value - 1`, written `M + 1`), registered; for extents
  /// given as numbers.
  std::optional<skeleton::Expr> macroForValue(int64_t value);

  /// A value given with `--extent NAME=V` for a scalar, registered as a macro.
  std::optional<int64_t> scalarOption(const std::string &name) const;
  skeleton::Expr useScalarOption(const std::string &name);

  /// Register a macro the skeleton uses; false if the name cannot be used
  /// (a keyword, or the name is taken by another value).
  bool useMacro(const std::string &name, int64_t value, clang::SourceLocation defLoc,
                std::string comment = {});

private:
  struct FileMacro {
    std::string name;
    int64_t value;
    clang::SourceLocation def;
  };
  std::optional<std::vector<FileMacro>> fileMacros_;
  std::optional<std::string> wholeMacroExpansion(const clang::Expr *e) const;
  std::optional<std::string> literalMacro(const clang::Expr *e) const;
};

} // namespace skelcast::frontend
