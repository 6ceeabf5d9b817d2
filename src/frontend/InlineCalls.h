/// \file
/// Step 0 of docs/skeletonizer.md ("How it works"), before nests are found:
/// calls of small functions of the file that take pointers (`randn(seed, i)`,
/// `put(out, in, i)`) are inlined into the loops that make them. The callee's
/// body is copied into the caller in place of the call: its scalar parameters
/// become locals initialised with the arguments (C passes copies), its pointer
/// parameters are replaced by the caller's variables passed for them, its
/// locals by fresh locals, and its last `return e;` by a local holding e that
/// the calling expression reads. Every later step then sees the callee's
/// memory accesses as accesses of the caller's arrays (`seed[index]` is
/// `seed[i]`), so the dependence and aliasing tests judge them as written in
/// the loop: nothing is assumed about what the callee touches.
///
/// A call is inlined only where that is exactly what C does: its callee has a
/// body in the main file whose loops are `for` loops (and only for a call
/// inside an OpenMP loop: elsewhere a callee with loops may be a kernel of
/// its own, called from a time-step loop; a `break` in them is a search that
/// the nest analysis judges, docs/skeletonizer.md "Loops and branches"), and
/// no `while`, `do`, `goto`, `switch`, static locals,
/// address-of or dereference, uses each pointer parameter only as `p[e]`, and
/// returns (if it returns) by one `return e;` at its end, after early returns
/// `if (c) { ...; return e; }` among its statements (each becomes an `if`
/// whose `else` holds the statements after it); each pointer
/// argument is a variable (an array, or a pointer of the same element type);
/// the call stands in a statement of a `for` body (not in a loop header, a
/// `while` condition, the right operand of `&&`/`||` or an arm of `?:`, which
/// may not evaluate it, nor in the right operand of `,` or a declarator after
/// the first, which C evaluates after what stands before them), and the rest
/// of its statement does not touch an array passed for a pointer or a global
/// the callee uses (C leaves that order open). Other calls are left as they are, and the nest
/// analysis says why it cannot port them.
#pragma once

#include "TUContext.h"

#include <clang/AST/Decl.h>

#include <vector>

namespace skelcast::frontend {

/// Inlines such calls in the `for` loops of `fns` (functions with a body in
/// the main file), changing their ASTs in place. Call before anything builds
/// Clang's parent map.
void inlinePointerCalls(TUContext &tu, const std::vector<const clang::FunctionDecl *> &fns);

} // namespace skelcast::frontend
