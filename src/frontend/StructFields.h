/// \file
/// Step 0b of docs/skeletonizer.md ("How it works"), after the calls are
/// inlined and before nests are found: scalar fields of structs read as values
/// (`for (l = 0; l < dim.number_boxes; l++)`, `i < points->num`). Each such
/// field, read through one variable, becomes a variable of its own, named as
/// the code writes it (`dim.number_boxes`, `points->num`): every read is
/// replaced by that variable, so the later steps see a scalar the nest does
/// not assign. Its value is the one the function gives the field, when the
/// function shows it:
///   - a struct variable (a local or a parameter) whose field is assigned once,
///     by a statement of the function's body itself (not in a loop or a
///     branch) that comes before every read (`public.allPoints = ALL_POINTS;`):
///     the assigned expression, judged as a local's initialiser (constants,
///     macros, known locals);
///   - a local struct initialised by a list (`struct dims d = {64, 32};`) whose
///     field is never assigned: the list's element;
/// otherwise `--extent dim.number_boxes=1000` gives it, and a size it stops is
/// named in the one message that lists the missing sizes.
///
/// A field is made a variable only when its value cannot change while the
/// function runs other than as said above: for `s.f`, the variable `s` is a
/// local or a parameter (not a global: another function may change it) used
/// only through its fields or copied whole (never assigned, its address never
/// taken, never bound to a reference), and `s.f` appears only where it is
/// read, apart from the one assignment; for `p->f`, the pointer `p` is a local
/// or a parameter never assigned after its declaration, whose address is never
/// taken, and no field `f` of any struct of that type is written in the
/// function (`q->f = ...` through another pointer may be the same object), no
/// struct of that type is assigned whole (`*q = t`, `a[i] = t`) and none has
/// its address taken. Fields that are not numbers, of unions, and chains
/// (`s.a.b`, `p->q->n`) stay as they are, and the nest analysis refuses them.
#pragma once

#include "TUContext.h"

#include <clang/AST/Decl.h>

#include <vector>

namespace skelcast::frontend {

/// The value a local scalar `v` of `fn` is given by its one assignment, when
/// that assignment is a statement of the function's body itself (`t = order <
/// 1024 ? order : 1024;`, not in a loop or a branch), `v` has no initialiser,
/// its address is never taken, and every other use of `v` reads it and comes
/// after that statement: the assigned expression; null otherwise. The rule
/// the fields above follow, for a plain local (b+tree's `threadsPerBlock`).
const clang::Expr *assignedOnceAtTop(const clang::FunctionDecl *fn, const clang::VarDecl *v,
                                     const clang::SourceManager &sm);

/// Replaces the reads of such fields in `fns` (functions with a body in the
/// main file) by variables named after them, changing the ASTs in place. Call
/// before anything builds Clang's parent map.
void nameStructFields(TUContext &tu, const std::vector<const clang::FunctionDecl *> &fns);

} // namespace skelcast::frontend
