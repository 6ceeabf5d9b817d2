/// \file
/// Small queries on Clang AST nodes that the skeletonizer's files share.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/StmtOpenMP.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// The variable `e` names, through parentheses and implicit casts; null otherwise.
const clang::VarDecl *refVar(const clang::Expr *e);

/// Does `s` (an expression or statement) refer to `v` anywhere inside?
bool mentions(const clang::Stmt *s, const clang::VarDecl *v);

/// Adds every variable `s` (an expression or statement) refers to anywhere inside.
void collectVars(const clang::Stmt *s, std::set<const clang::VarDecl *> &out);

/// Adds the variables `s` assigns anywhere inside (`v = e`, `v op= e`; with
/// `incDec` also `v++`, `--v`).
void assignedIn(const clang::Stmt *s, std::set<const clang::VarDecl *> &out, bool incDec);

/// The value of an integer constant expression without side effects; nullopt
/// for anything else (or null).
std::optional<int64_t> constInt(const clang::Expr *e, const clang::ASTContext &ctx);

/// The statement an OpenMP directive applies to, through the captured regions
/// Clang wraps around it (several for a combined directive, none for some such
/// as `atomic` or `critical`); null for a directive without one (`barrier`,
/// `flush`, `taskwait`).
const clang::Stmt *directiveBody(const clang::OMPExecutableDirective *d);

/// A `for` statement, also when an OpenMP loop directive wraps it.
const clang::ForStmt *asFor(const clang::Stmt *s);

/// The statements of f's body (the body itself when it is not a block); when
/// some of them are in `only`, those alone: the statements of a fission's
/// group (LoopOrder.h, fissionGroups), at any depth of the loop split.
std::vector<const clang::Stmt *> keptBody(const clang::ForStmt *f,
                                          const std::set<const clang::Stmt *> &only);
/// Some, not all, of f's statements are in `only`: f is written with those alone.
bool partlyKept(const clang::ForStmt *f, const std::set<const clang::Stmt *> &only);

/// `if (c) continue;` or `if (c) { ...; continue; }` with no `else`: the rest
/// of the loop body is skipped when c holds. The `then` statements before the
/// `continue` go to `before`. The `continue` itself, or null when `s` is not
/// of that form.
const clang::ContinueStmt *continueIf(const clang::Stmt *s,
                                      std::vector<const clang::Stmt *> *before = nullptr);

/// `if (c) break;` or `if (c) { ...; break; }` with no `else`: the loop ends
/// at the first iteration where c holds (a search). The `then` statements
/// before the `break` go to `before`. The `break`, or null.
const clang::BreakStmt *breakIf(const clang::Stmt *s,
                                std::vector<const clang::Stmt *> *before = nullptr);

/// `if (c) return e;` or `if (c) { ...; return e; }` with no `else` (an early
/// return of a function's body). The `then` statements before the `return`
/// go to `before`. The `return`, or null.
const clang::ReturnStmt *returnIf(const clang::Stmt *s,
                                  std::vector<const clang::Stmt *> *before = nullptr);

/// The `if` of loop `f`'s body (the body, or the first of its statements
/// that is one) that ends the loop with a `break` (breakIf), or null.
const clang::IfStmt *earlyExit(const clang::ForStmt *f);

/// A struct whose fields are numbers of one size with no padding (`float3`,
/// `struct { int start, count; }`): an array of them is an array of numbers
/// with one more dimension, the field's index. The field type, or null.
const clang::Type *uniformStruct(clang::QualType t, const clang::ASTContext &ctx,
                                 unsigned *fields = nullptr);

/// A subscript of an array field on the way from an element of an array of
/// structs to a number in it (`k - 1` of `box[l].nei[k - 1].number`), with the
/// stride it moves by, in words.
struct FieldSubscript {
  const clang::Expr *index = nullptr;
  uint64_t stride = 1;
};

/// `a[i].x` (a field of an element of an array of structs): the subscript
/// `a[i]`, and the field's place into `*field`; null otherwise. For a uniform
/// struct the place is the field's index. For another struct (mixed fields,
/// array fields: `struct knode { int location; int keys[257]; bool leaf; }`)
/// the element is taken as words of the field's number type, and the place
/// is the field's offset in such words: the struct's size and the field's
/// offset must be multiples of the word, and `*word` gets the word's type
/// (null for a uniform struct). The number may lie deeper in the element,
/// through fields of struct type and subscripts of array fields
/// (`a[i].pos.y`, `box[l].nei[k - 1].number`, `n[k].keys[j]`: `e` may be a
/// subscript of an array field): the place is then the constant words of the
/// fields on the way, in `*field`, plus each subscript's index times its
/// stride in words, in `*terms` (where `terms` is null, such a chain still
/// gives the element: the callers that only look for it).
const clang::ArraySubscriptExpr *structElement(const clang::Expr *e, const clang::ASTContext &ctx,
                                               unsigned *field = nullptr,
                                               const clang::Type **word = nullptr,
                                               std::vector<FieldSubscript> *terms = nullptr);

/// The struct `t` taken as words of `word`: the number of words, or 0 when its
/// size is not a multiple of the word's.
unsigned structWords(clang::QualType t, const clang::Type *word, const clang::ASTContext &ctx);

/// A variable (or a reference to one) of a uniform struct type, held in
/// registers as its fields: cfd's `float3 momentum;` local, a `float3&`
/// parameter of a helper it is passed to.
bool isStructVariable(const clang::VarDecl *v, const clang::ASTContext &ctx);

/// `v.x` with v such a variable (not a pointer, not an array element): v, and
/// the field's index into `*field`; null otherwise.
const clang::VarDecl *structVariableField(const clang::Expr *e, const clang::ASTContext &ctx,
                                          unsigned *field = nullptr);

/// The name of an OpenMP directive as written after `#pragma omp`.
std::string directiveName(llvm::omp::Directive k);

} // namespace skelcast::frontend
