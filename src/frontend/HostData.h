/// \file
/// Whose memory a function's arrays are (docs/skeletonizer.md, "Programs"):
/// the host's (globals, parameters, pointers into them), which cross the host
/// link, or the function's own (local arrays, memory it mallocs and frees),
/// which stay on the GPU as device temporaries. Pointers assigned to one
/// another (`tmp = a; a = b; b = tmp;`, double buffering) form one buffer
/// class: they share one owner and are reported as a pair.
#pragma once

#include <clang/AST/Decl.h>

#include <map>
#include <string>
#include <vector>

namespace skelcast::frontend {

struct BufferRole {
  bool deviceOwned = false; ///< local array, or allocated and freed in the function
  bool constInput = false;  ///< a parameter pointing to const data: the host's input only
  std::vector<const clang::VarDecl *> swappedWith; ///< the other pointers of its class
  std::string why;          ///< for the array's comment
};

/// The role of every pointer and array variable of `fn` (its parameters and
/// locals; globals are the host's and not listed).
std::map<const clang::VarDecl *, BufferRole> bufferRoles(const clang::FunctionDecl *fn);

/// For each pointer and array variable of `fn`, the variables that may share its
/// memory: its buffer class (bufferRoles) joined with pointers set into it
/// (`p = a + k`, `p = &a[k]`). Host code that touches one touches them all as
/// far as skelcast can tell (a wrong guess costs a transfer, never drops one).
std::map<const clang::VarDecl *, std::vector<const clang::VarDecl *>>
hostAliases(const clang::FunctionDecl *fn);

/// The arrays that host code `s` touches (docs/skeletonizer.md, "Host code
/// between kernels"), each with whether it writes it: elements read or written
/// through a subscript or `*p`, and arrays passed to a function, which may do
/// either (they count as written). `free(p)` touches nothing.
std::map<const clang::VarDecl *, bool> hostTouches(const clang::Stmt *s);

/// The local scalars that host code `s` reads or assigns, each with whether
/// it assigns it (`v = e`, `v op= e`, `v++`): a kernel's reduction into a
/// scalar (docs/skeletonizer.md, "Reductions") puts its result in a
/// one-element array that host code around the kernel writes (its initial
/// value) and reads (the result).
std::map<const clang::VarDecl *, bool> hostScalarTouches(const clang::Stmt *s);

} // namespace skelcast::frontend
