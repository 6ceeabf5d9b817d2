/// \file
/// Step 0c of docs/skeletonizer.md ("How it works"), after the struct fields
/// are named and before nests are found: pointers set in a loop's body into
/// an array (`rA = &rv[first_i];`, `float *row = a + i * N;`), the way
/// Rodinia's lavaMD walks its boxes. Such a pointer, set again in every
/// iteration before it is used, is that array at an offset: each `p[x]` after
/// it is replaced by `A[e + x]` (`&A[s][e]` gives `A[s][e + x]`), and the
/// assignment by an empty statement, so that every later step sees the
/// array's own accesses: the dependence test judges them as written on `A`
/// (an offset read from data makes them indirect, which only an OpenMP
/// directive or `#pragma skelcast independent` vouches for), and the shapes
/// and the coalescing analysis see the offset.
///
/// A pointer is replaced so only when that is exactly what the C code does:
///   - it is a local of the function (not a parameter, a global or a static),
///     assigned exactly once in the function, by a statement of a block
///     inside a `for` body (or declared there with that value), whose address
///     is never taken;
///   - its value is `&A[s]...[e]`, `A + e`, `e + A` or `A`, with `A` an array
///     or a pointer variable of the same element type, and the subscripts
///     made of scalar variables, constants and arithmetic (no memory read, no
///     call, no assignment);
///   - every other use of it is `p[x]`, in the statements of that block after
///     the assignment (so it is private to each pass through the block, and
///     its value after the loop is never read);
///   - neither `A` nor a variable of the subscripts is assigned in those
///     statements, and no variable of them has its address taken;
///   - the function has no `goto`, label or `switch` (a jump past the
///     assignment would reach a use with an older value).
/// Other pointers are left as they are, and the nest analysis says why it
/// cannot port them.
#pragma once

#include "TUContext.h"

#include <clang/AST/Decl.h>

#include <vector>

namespace skelcast::frontend {

/// Replaces the uses of such pointers in the `for` loops of `fns` (functions
/// with a body in the main file), changing their ASTs in place, and records
/// each in `tu.loopPointers`. Call before anything builds Clang's parent map.
void replaceLoopPointers(TUContext &tu, const std::vector<const clang::FunctionDecl *> &fns);

} // namespace skelcast::frontend
