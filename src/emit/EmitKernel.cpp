// The device code of a layout (docs/emit.md): the file's top (header(): the
// definitions for clang without the CUDA headers, the file's typedefs, the
// atomics, the file's own functions that the nest calls) and the kernel: the
// thread's tasks, the cooperative loads of the tiles, the staged loop, the
// register tile and the block's reductions.
#include "Emitter.h"

#include <clang/Basic/SourceManager.h>

#include <algorithm>
#include <filesystem>
#include <functional>

namespace skelcast::emit::detail {

namespace {

/// The file's own typedefs a kernel's code names (`typedef char base;` for
/// PolyBench's nussinov), each after the typedefs its own type names; those of
/// system headers are left to the headers.
struct TypedefUses : clang::RecursiveASTVisitor<TypedefUses> {
  explicit TypedefUses(const clang::SourceManager &sm) : sm(sm) {}
  const clang::SourceManager &sm;
  std::vector<const clang::TypedefNameDecl *> order;
  std::set<const clang::TypedefNameDecl *> seen;
  void addType(clang::QualType t) {
    if (t.isNull())
      return;
    const clang::Type *ty = t.getTypePtr();
    if (auto *tt = llvm::dyn_cast<clang::TypedefType>(ty))
      return addDecl(tt->getDecl());
    if (auto *pt = llvm::dyn_cast<clang::PointerType>(ty))
      return addType(pt->getPointeeType());
    if (auto *at = llvm::dyn_cast<clang::ArrayType>(ty))
      return addType(at->getElementType());
    if (auto *dt = llvm::dyn_cast<clang::DecayedType>(ty))
      return addType(dt->getOriginalType());
    if (auto *pt = llvm::dyn_cast<clang::ParenType>(ty))
      return addType(pt->getInnerType());
    if (auto *et = llvm::dyn_cast<clang::ElaboratedType>(ty))
      return addType(et->getNamedType());
    if (auto *at = llvm::dyn_cast<clang::AttributedType>(ty))
      return addType(at->getModifiedType());
    if (auto *ft = llvm::dyn_cast<clang::FunctionProtoType>(ty)) {
      addType(ft->getReturnType());
      for (clang::QualType p : ft->getParamTypes())
        addType(p);
    }
  }
  void addDecl(const clang::TypedefNameDecl *d) {
    if (!d || !seen.insert(d).second)
      return;
    if (sm.isInSystemHeader(d->getLocation())) {
      system = true;
      return;
    }
    // not written: a name C++ keeps for itself (`typedef int bool;`: the
    // kernel then uses C++'s bool, as before), a struct, union or enum (their
    // definitions are not emitted; a typedef alone would declare another,
    // incomplete type), and `__typeof__`, which C++ spells otherwise
    clang::QualType u = d->getUnderlyingType();
    static const std::set<std::string> keywords = {"bool", "wchar_t", "char8_t", "char16_t",
                                                   "char32_t"};
    if (keywords.count(d->getName().str()))
      return;
    if (u->getAsTagDecl() || llvm::isa<clang::TypeOfExprType>(u.getTypePtr()) ||
        llvm::isa<clang::TypeOfType>(u.getTypePtr())) {
      if (!unwritable)
        unwritable = d;
      return;
    }
    for (const clang::TypedefNameDecl *o : order)
      if (o->getName() == d->getName() && !unwritable)
        unwritable = d; // two typedefs of one name (one local to a function)
    addType(u);
    order.push_back(d);
  }
  /// A typedef emit cannot write: of a struct, union or enum (their
  /// definitions are not emitted), of `__typeof__`, or a second one of a name.
  const clang::TypedefNameDecl *unwritable = nullptr;
  bool system = false; ///< a typedef of a system header is named (`uint32_t`)
  bool VisitTypedefTypeLoc(clang::TypedefTypeLoc tl) {
    addDecl(tl.getTypedefNameDecl());
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *e) {
    addType(e->getDecl()->getType());
    return true;
  }
  bool VisitValueDecl(clang::ValueDecl *v) {
    addType(v->getType());
    return true;
  }
};

} // namespace

/// The value a reduction starts from: the operator's identity, in the
/// scalar's type (docs/emit.md, "Reductions").
std::string Emitter::identity(const Red &r) const {
  clang::QualType t = r.var->getType().getCanonicalType();
  bool floating = t->isRealFloatingType();
  uint64_t bits = ctx_.getTypeSize(t);
  bool isSigned = t->isSignedIntegerOrEnumerationType();
  switch (r.op) {
  case skeleton::ReduceOp::Add: return "0";
  case skeleton::ReduceOp::Mul: return "1";
  case skeleton::ReduceOp::Max:
    if (floating)
      return "-INFINITY";
    if (!isSigned)
      return "0";
    return bits > 32 ? "(-9223372036854775807LL - 1)" : bits > 16 ? "(-2147483647 - 1)"
           : bits > 8 ? "(-32768)" : "(-128)";
  case skeleton::ReduceOp::Min:
    if (floating)
      return "INFINITY";
    if (!isSigned)
      return bits > 32 ? "18446744073709551615ULL" : bits > 16 ? "4294967295U"
             : bits > 8 ? "65535" : "255";
    return bits > 32 ? "9223372036854775807LL" : bits > 16 ? "2147483647" : bits > 8 ? "32767" : "127";
  }
  return "0";
}

/// The block's combination of its threads' partials and its one atomic.
std::string Emitter::blockReduction(const std::string &ind) {
  std::string out;
  for (const Red &r : reds_) {
    std::string n = r.var->getName().str();
    std::string t = r.var->getType().getUnqualifiedType().getAsString(policy_);
    clang::QualType ct = r.var->getType().getCanonicalType();
    bool floating = ct->isRealFloatingType();
    uint64_t bits = ctx_.getTypeSize(ct);
    const char *op = skeleton::reduceOpName(r.op);
    std::string combine =
        r.op == skeleton::ReduceOp::Add   ? "a + b"
        : r.op == skeleton::ReduceOp::Mul ? "a * b"
        : r.op == skeleton::ReduceOp::Max ? "a > b ? a : b"
                                          : "a < b ? a : b";
    out += fmt::format("{}{{ // reduce({}: {}): the block's partials in shared memory, a tree, "
                       "one atomic per block\n",
                       ind, op, n);
    std::string in = ind + "  ";
    out += fmt::format("{}{} *const sk_red = ({} *)(sk_smem + {});\n", in, t, t, r.offset);
    out += fmt::format("{}sk_red[sk_tid] = {};\n{}__syncthreads();\n", in, n, in);
    out += fmt::format("{}for (int sk_w = 1; sk_w < sk_threads; sk_w *= 2) {{\n", in);
    out += fmt::format("{}  if (sk_tid % (2 * sk_w) == 0 && sk_tid + sk_w < sk_threads) {{\n", in);
    out += fmt::format("{}    const {} a = sk_red[sk_tid], b = sk_red[sk_tid + sk_w];\n", in, t);
    out += fmt::format("{}    sk_red[sk_tid] = {};\n{}  }}\n{}  __syncthreads();\n{}}}\n", in,
                       combine, in, in, in);
    std::string atomic;
    bool isSigned = ct->isSignedIntegerOrEnumerationType();
    if (r.op == skeleton::ReduceOp::Add && (floating || bits == 32))
      atomic = fmt::format("atomicAdd(sk_red_{}, sk_red[0])", n);
    else if (r.op == skeleton::ReduceOp::Add && bits == 64)
      atomic = fmt::format("atomicAdd((unsigned long long *)sk_red_{}, (unsigned long long)sk_red[0])", n);
    else if ((r.op == skeleton::ReduceOp::Max || r.op == skeleton::ReduceOp::Min) && !floating &&
             bits == 32 && isSigned)
      atomic = fmt::format("{}(sk_red_{}, sk_red[0])",
                           r.op == skeleton::ReduceOp::Max ? "atomicMax" : "atomicMin", n);
    else if (bits == 32 || bits == 64)
      atomic = fmt::format("sk_atomic_cas(sk_red_{}, sk_red[0], [](const {} a, const {} b) {{ "
                           "return {}; }})",
                           n, t, t, combine);
    else
      fail(r.var->getLocation(), fmt::format("the reduction into '{}' of {} bits (atomics take "
                                             "32 or 64)",
                                             n, bits));
    out += fmt::format("{}if (sk_tid == 0)\n{}  {};\n", in, in, atomic);
    out += ind + "}\n";
  }
  return out;
}

/// The kernel's parameter type of an array: the C variable's, decayed, its
/// elements `const` when the nest only reads them, and `restrict` (`cast`:
/// without it, for the launch's cast).
clang::QualType Emitter::kernelParamType(const clang::VarDecl *v, bool restrict) const {
  clang::QualType t = paramType(v);
  if (!t->isPointerType())
    return t;
  if (readOnly_.count(v)) {
    // const on the elements: a const array type of a parameter declared
    // `float (*A)[2]` prints as `float (const *A)[2]`, which does not build
    std::function<clang::QualType(clang::QualType)> constElements = [&](clang::QualType p) {
      if (const clang::ConstantArrayType *a = ctx_.getAsConstantArrayType(p))
        return ctx_.getConstantArrayType(constElements(a->getElementType()), a->getSize(), nullptr,
                                         clang::ArraySizeModifier::Normal, 0);
      return ctx_.getConstType(p);
    };
    t = ctx_.getPointerType(constElements(t->getPointeeType()));
  }
  return restrict ? t.withRestrict() : t.getUnqualifiedType();
}

std::string Emitter::header(const std::string &layoutText) {
  std::string out;
  out += fmt::format("// {}: kernel '{}' of {} in layout '{}'\n", kernelName(), ki_.name,
                     std::filesystem::path(path_).filename().string(), layoutText);
  out += "// Written by 'skelcast emit' (docs/emit.md). Build: nvcc -O3 -arch=sm_90 FILE.cu;\n"
         "// run: ./a.out [--repeats N] [--warmups N] [--tolerance T] prints a measurement record.\n"
         "// Device-only without the CUDA headers: clang -x cuda --cuda-device-only -nocudainc.\n";
  if (tasks_ == Tasks::Tile)
    out += fmt::format("// Folding: a register tile, the thread's {} tasks run inside the streaming "
                       "loop '{}' (docs/emit.md, \"Folding\").\n",
                       l_.foldProduct(), loopIndexName(chain_.back()));
  else if (tasks_ == Tasks::Unrolled)
    out += fmt::format("// Folding: the thread's {} tasks, unrolled (the body has no loop).\n",
                       l_.foldProduct());
  else if (!tileWhy_.empty())
    out += fmt::format("// Folding: a loop over the thread's {} tasks, not a register tile: {} "
                       "(docs/emit.md, \"Folding\").\n",
                       l_.foldProduct(), tileWhy_);
  out += "#if defined(__CUDA__) && !defined(__CUDACC__) // clang without the CUDA headers\n"
         "#include <__clang_cuda_builtin_vars.h>\n"
         "#define __global__ __attribute__((global))\n"
         "#define __device__ __attribute__((device))\n"
         "#define __shared__ __attribute__((shared))\n"
         "#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))\n"
         "#define __align__(n) __attribute__((aligned(n)))\n";
  std::set<std::string> declared;
  for (const clang::CallExpr *c : calls_) {
    const clang::FunctionDecl *fd = c->getDirectCallee();
    if (!declared.insert(fd->getName().str()).second)
      continue;
    std::string params;
    for (const clang::ParmVarDecl *p : fd->parameters())
      params += (params.empty() ? "" : ", ") + p->getType().getAsString(policy_);
    out += fmt::format("extern \"C\" __device__ {} {}({});\n",
                       fd->getReturnType().getAsString(policy_), fd->getName().str(), params);
  }
  out += "#define __host__ __attribute__((host))\n";
  out += "#endif\n";
  out += "#define restrict __restrict__\n";
  out += fmt::format("#define SKELCAST_BARRIERS {} // the kernel calls __syncthreads\n\n",
                     barriers_ ? 1 : 0);
  {
    TypedefUses types(ctx_.getSourceManager());
    for (const clang::VarDecl *v : arrays_)
      types.addType(v->getType());
    for (const clang::VarDecl *v : scalars_)
      types.addType(v->getType());
    for (const clang::VarDecl *v : privates_)
      types.addType(v->getType());
    for (const clang::Stmt *st : nest_.body)
      types.TraverseStmt(const_cast<clang::Stmt *>(st));
    for (const clang::FunctionDecl *fd : helpers_)
      types.TraverseDecl(const_cast<clang::FunctionDecl *>(fd));
    if (types.unwritable)
      fail(types.unwritable->getLocation(),
           fmt::format("it names the type '{}', which emit cannot write (a struct, union or "
                       "enum, a __typeof__, or a second typedef of the name)",
                       types.unwritable->getName().str()));
    if (types.system) // the headers of the C library's typedefs the C file may name
      out += "#include <stddef.h>\n#include <stdint.h>\n";
    for (const clang::TypedefNameDecl *d : types.order)
      out += fmt::format("typedef {}; // as {} declares it\n",
                         typed(d->getUnderlyingType(), d->getName().str()),
                         std::filesystem::path(path_).filename().string());
    if (!types.order.empty() || types.system)
      out += "\n";
  }
  if (!reds_.empty())
    out += R"(#if defined(__CUDA__) && !defined(__CUDACC__) // the atomics, without the CUDA headers
__device__ inline int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__device__ inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
__device__ inline float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__device__ inline double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
__device__ inline int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__device__ inline int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__device__ inline unsigned atomicCAS(unsigned *p, unsigned c, unsigned v) {
  return (unsigned)__nvvm_atom_cas_gen_i((int *)p, (int)c, (int)v);
}
__device__ inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long c,
                                               unsigned long long v) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)c, (long long)v);
}
#endif
#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
// A reduction's atomic for an operator or type without its own: compare and swap
// until no other block changed the value in between (docs/emit.md, "Reductions").
template <class U, class T, class F> __device__ inline void sk_atomic_cas_as(T *p, T v, F f) {
  union Bits { T t; U u; };
  Bits seen, next;
  seen.t = *p;
  for (;;) {
    next.t = f(seen.t, v);
    U old = atomicCAS((U *)p, seen.u, next.u);
    if (old == seen.u)
      return;
    seen.u = old;
  }
}
template <class T, class F> __device__ inline void sk_atomic_cas(T *p, T v, F f) {
  if constexpr (sizeof(T) == 4)
    sk_atomic_cas_as<unsigned>(p, v, f);
  else
    sk_atomic_cas_as<unsigned long long>(p, v, f);
}

)";
  for (const clang::FunctionDecl *fd : helpers_)
    out += "__host__ __device__ " + declText(fd) + "\n\n";
  return out;
}

/// The task of this thread along each parallel dimension (cyclic folding:
/// F_d tasks B_d apart in a block tile of B_d x F_d), its loop indices, and
/// `sk_active` when it falls inside the loop space.
std::string Emitter::taskCoords(const std::string &ind, bool guardContinue) {
  std::string out;
  size_t n = par_.size();
  std::vector<std::string> inRange;
  for (size_t d = 0; d < n; ++d) {
    const auto &h = par_[d];
    size_t axis = n - 1 - d;
    std::string name = h.var->getName().str();
    int64_t tile = l_.block[d] * l_.fold[d];
    std::string task =
        l_.fold[d] > 1
            ? fmt::format("({})blockIdx.{} * {} + sk_f{} * {} + ({})threadIdx.{}", idx_,
                          kAxis[axis], tile, d, l_.block[d], idx_, kAxis[axis])
            : fmt::format("({})blockIdx.{} * {} + ({})threadIdx.{}", idx_, kAxis[axis], tile,
                          idx_, kAxis[axis]);
    std::string init = printPlain(h.init);
    int64_t step = h.step;
    out += fmt::format("{}const {} sk_t{} = {};\n", ind, idx_, d, task);
    bool guard = needsGuard(d) && !guardsOff_;
    if (guard)
      out += fmt::format("{}const {} sk_n{} = {}; // trips of '{}'\n", ind, idx_, d,
                         tripsText(d), name);
    // clamped: a task past the end runs the last one's iteration (clampTasks_)
    std::string t = guard && clampTasks_
                        ? fmt::format("(sk_t{} < sk_n{} ? sk_t{} : sk_n{} - 1)", d, d, d, d)
                        : fmt::format("sk_t{}", d);
    std::string value = fmt::format("({}) {} {}{}", init, h.decreasing ? "-" : "+", t,
                                    step == 1 ? "" : fmt::format(" * {}", step));
    out += fmt::format("{}{} = {};\n", ind, typed(h.var->getType(), name), value);
    if (guard)
      inRange.push_back(fmt::format("sk_t{} < sk_n{}", d, d));
    else if (!guardsOff_)
      out += fmt::format("{}// '{}': {} trips, {} whole tiles of {}: every task in range\n", ind,
                         name, ki_.dimSize[d], ki_.dimSize[d] / tile, tile);
  }
  std::string cond;
  for (size_t i = 0; i < inRange.size(); ++i)
    cond += (i ? " && " : "") + inRange[i];
  if (clampTasks_)
    return out; // no statement of the chain is guarded
  if (barriers_)
    out += fmt::format("{}const bool sk_active = {};\n", ind, cond.empty() ? "true" : cond);
  else if (!cond.empty())
    out += fmt::format("{}if (!({})) {}; // outside the loop space\n", ind, cond,
                       guardContinue ? "continue" : "return");
  return out;
}

/// The cooperative load of the tiles reloaded at `staged` (-1: once per
/// block), by all threads of the block, elements outside the array skipped.
std::string Emitter::loadTiles(int staged, const std::string &ind) {
  std::string out;
  int64_t threads = l_.threadsPerBlock();
  for (const Tile &t : tiles_) {
    if (t.staged != staged)
      continue;
    const layout::ArrayInfo &ai = ki_.arrays[t.array];
    size_t rank = t.extent.size();
    for (size_t d = 0; d < rank; ++d)
      out += fmt::format("{}const {} sk_{}_b{} = {};\n", ind, idx_, t.name, d, t.base[d]);
    // A flat array some access of which leaves its row (NestAst::leavesRows):
    // a slot whose coordinate is outside a row holds what C reads there, the
    // element at the flat offset, so the test is on that offset.
    bool byOffset = nest_.leavesRows.count(t.decl) > 0;
    // element sk_q of the tile: its coordinates in the array, the test that
    // they are inside it, and the copy
    auto element = [&](const std::string &at, bool test) {
      std::string text, rest = "sk_q", inside, flat;
      for (size_t d = rank; d-- > 0;) {
        std::string coord = d == 0 ? rest : fmt::format("{} % {}", rest, t.extent[d]);
        text += fmt::format("{}const {} sk_g{} = sk_{}_b{} + {};\n", at, idx_, d, t.name, d,
                            coord);
        rest = fmt::format("{} / {}", rest, t.extent[d]);
        inside += fmt::format("{}sk_g{} >= 0 && sk_g{} < {}", inside.empty() ? "" : " && ", d,
                              d, ai.extents[d]);
        flat += fmt::format("{}sk_g{} * {}", flat.empty() ? "" : " + ", d, ai.strides[d]);
      }
      if (byOffset)
        inside = fmt::format("{} >= 0 && {} < {}", flat, flat, ai.extents[0] * ai.strides[0]);
      std::string copy =
          fmt::format("sk_{}_tile[sk_q] = ((const {} *){})[{}];\n", t.name, t.elem, t.name, flat);
      if (test)
        text += fmt::format("{}if ({})\n{}  {}", at, inside, at, copy);
      else
        text += at + copy;
      return text;
    };
    // the whole tile inside the array: a constant number of rounds of the
    // block's threads, no test per element, so the loads go out together
    auto rounds = [&](const std::string &at) {
      int64_t n = t.elements(), full = n / threads;
      std::string text;
      if (full > 0) {
        text += full <= 16 ? "#pragma unroll\n" : "#pragma unroll 8\n";
        text += fmt::format("{}for (int sk_r = 0; sk_r < {}; ++sk_r) {{ // {} elements, {} "
                            "threads\n",
                            at, full, n, threads);
        text += fmt::format("{}  const int sk_q = sk_tid + sk_r * {};\n", at, threads);
        text += element(at + "  ", false);
        text += at + "}\n";
      }
      if (n % threads != 0) {
        text += fmt::format("{}if (sk_tid < {}) {{ // the last {} elements\n", at, n % threads,
                            n % threads);
        text += fmt::format("{}  const int sk_q = sk_tid + {};\n", at, full * threads);
        text += element(at + "  ", false);
        text += at + "}\n";
      }
      return text;
    };
    bool always = true; // inside the array for every block and stage
    std::string test;
    for (size_t d = 0; d < rank; ++d) {
      always = always && t.baseMin[d] >= 0 && t.baseMax[d] + t.extent[d] <= ai.extents[d];
      test += fmt::format("{}sk_{}_b{} >= 0 && sk_{}_b{} + {} <= {}", test.empty() ? "" : " && ",
                          t.name, d, t.name, d, t.extent[d], ai.extents[d]);
    }
    if (always) {
      out += fmt::format("{}// the tile lies inside {} for every block{}\n", ind, t.name,
                         staged >= 0 ? " and stage" : "");
      out += rounds(ind);
      continue;
    }
    out += fmt::format("{}if ({}) {{ // the whole tile inside {}\n", ind, test, t.name);
    out += rounds(ind + "  ");
    out += ind + "} else {\n";
    out += fmt::format("{}  for (int sk_q = sk_tid; sk_q < {}; sk_q += sk_threads) {{\n", ind,
                       t.elements());
    out += element(ind + "    ", true);
    out += ind + "  }\n";
    out += ind + "}\n";
  }
  return out;
}

/// The staged loop: per stage, the block loads the tiles of the arrays read
/// in it, waits, runs the stage's iterations, and waits again before the next
/// stage overwrites the tiles. In a register tile the stage's iterations run
/// outside the thread's tasks: `for k in stage { for tasks { body } }`.
std::string Emitter::stagedBody(const std::string &ind) {
  std::string out;
  std::string why;
  auto h = frontend::parseLoopHeader(stagedFor_, ctx_, why);
  const layout::Var &var = ki_.vars[ki_.loops[stagedLoop_].var];
  int64_t lo = var.lo, step = var.step, trip = static_cast<int64_t>(var.trip);
  int64_t end = lo + trip * step;
  std::string name = h->var->getName().str();
  // the stage's first index has the C index's type: `i < sk_i0 + S` is then a
  // constant trip count to the compiler (with `long long sk_i0` and `int i` it
  // is not, and every unrolled iteration tests the exit before its loads)
  out += fmt::format("{}for ({} = {}; sk_{}0 < {}; sk_{}0 += {}) {{ // stages of {} iterations\n",
                     ind, typed(h->var->getType().getUnqualifiedType(), "sk_" + name + "0"), lo,
                     name, end, name, stageSize_ * step, stageSize_);
  std::string in = ind + "  ";
  out += loadTiles(stagedLoop_, in);
  out += in + "__syncthreads();\n";
  int64_t factor = l_.unrollFactor(stagedLoop_);
  bool declaredInInit = h->var->getDeclContext() && stagedFor_->getInit() &&
                        llvm::isa<clang::DeclStmt>(stagedFor_->getInit());
  std::string decl = declaredInInit ? typed(h->var->getType(), name) : name;
  // a whole stage runs a constant trip count (the compiler unrolls it and
  // issues its loads together); only a last, partial stage tests the end
  std::string whole = fmt::format("for ({} = sk_{}0; {} < sk_{}0 + {}; {} += {})", decl, name,
                                  name, name, stageSize_ * step, name, step);
  std::string partial = fmt::format("for ({} = sk_{}0; {} < {}; {} += {})", decl, name, name,
                                    end, name, step);
  auto stageRun = [&](const std::string &at, const std::string &header) {
    if (tasks_ == Tasks::Tile)
      return interleaved(at, 0, header);
    std::string compute;
    std::string cin = at + std::string(2 * taskDepth(), ' ');
    compute += cin + "if (sk_active) {\n";
    if (factor > 1)
      compute += fmt::format("#pragma unroll {}\n", factor);
    compute += cin + "  " + header + "\n";
    compute += bodyText(stagedFor_, static_cast<unsigned>(cin.size() / 2 + 2));
    compute += cin + "}\n";
    return phase(at, compute);
  };
  if (trip % stageSize_ == 0) {
    out += fmt::format("{}// every stage whole: {} iterations = {} stages of {}\n", in, trip,
                       trip / stageSize_, stageSize_);
    out += stageRun(in, whole);
  } else {
    out += fmt::format("{}if (sk_{}0 + {} <= {}) {{ // a whole stage\n", in, name,
                       stageSize_ * step, end);
    out += stageRun(in + "  ", whole);
    out += fmt::format("{}}} else {{ // the last stage: {} of {} iterations\n", in,
                       trip % stageSize_, stageSize_);
    out += stageRun(in + "  ", partial);
    out += in + "}\n";
  }
  out += in + "__syncthreads();\n";
  out += ind + "}\n";
  return out;
}

/// The register tile whose streaming loops' headers read parallel indices
/// that are not folded (IspinEx's `for (n = J[j]; n < J[j + 1]; n++)`, `j`
/// not folded): those indices are the same for all of the thread's tasks, so
/// the chain runs once per thread, in a scope where they are computed and in
/// range (the header may read memory at them).
std::string Emitter::sharedChain(const std::string &ind) {
  std::string out = ind + "{\n";
  std::string in = ind + "  ";
  size_t n = par_.size();
  std::string cond, names;
  for (size_t d : sharedDims_) {
    const auto &h = par_[d];
    size_t axis = n - 1 - d;
    std::string name = h.var->getName().str();
    names += (names.empty() ? "'" : ", '") + name + "'";
    out += fmt::format("{}const {} sk_t{} = ({})blockIdx.{} * {} + ({})threadIdx.{};\n", in, idx_,
                       d, idx_, kAxis[axis], l_.block[d], idx_, kAxis[axis]);
    out += fmt::format("{}{} = ({}) {} sk_t{}{};\n", in, typed(h.var->getType(), name),
                       printPlain(h.init), h.decreasing ? "-" : "+", d,
                       h.step == 1 ? "" : fmt::format(" * {}", h.step));
    if (needsGuard(d))
      cond += fmt::format("{}sk_t{} < {}", cond.empty() ? "" : " && ", d, tripsText(d));
  }
  out += fmt::format("{}// the streaming loop's bounds read {}, the same for all of the thread's "
                     "tasks\n",
                     in, names);
  std::string at = in;
  if (!cond.empty()) {
    out += fmt::format("{}if ({}) {{\n", in, cond);
    at += "  ";
  }
  for (const clang::DeclStmt *ds : sharedLocals_)
    out += stmt(ds, static_cast<unsigned>(at.size() / 2));
  out += interleaved(at, 0, "");
  if (!cond.empty())
    out += in + "}\n";
  out += ind + "}\n";
  return out;
}

/// The trip count of parallel loop `d` as a C expression of its header.
std::string Emitter::tripsText(size_t d) {
  const auto &h = par_[d];
  std::string init = printPlain(h.init), bound = printPlain(h.bound);
  return h.decreasing
             ? fmt::format("({})({}) - ({}){}", idx_, init, bound, h.inclusive ? " + 1" : "")
             : fmt::format("(({})({}) - ({}){} + {}) / {}", idx_, bound, init,
                           h.inclusive ? " + 1" : "", h.step - 1, h.step);
}

/// Whether the tasks of parallel dimension `d` need a guard: always, but in
/// a register tile whose tiles cover a constant trip count exactly (then the
/// tasks' loads of an element they share are one load, not one under each
/// task's own condition).
bool Emitter::needsGuard(size_t d) const {
  if (tasks_ == Tasks::Loop)
    return true;
  int64_t fixed = constantTrips(d), tile = l_.block[d] * l_.fold[d];
  return !(fixed > 0 && fixed == ki_.dimSize[d] && fixed % tile == 0);
}

/// The condition that every task of the thread is in the loop space (its
/// last task along each guarded dimension is; with `firstTask`, that its
/// first is), or "" when none needs a guard or a trip count depends on
/// another parallel index.
std::string Emitter::wholeCondition(bool firstTask) {
  std::set<const clang::VarDecl *> parVars;
  for (const auto &h : par_)
    parVars.insert(h.var);
  std::string cond;
  size_t n = par_.size();
  for (size_t d = 0; d < n; ++d) {
    if (!needsGuard(d))
      continue;
    VarUses u;
    u.TraverseStmt(const_cast<clang::Expr *>(par_[d].init));
    u.TraverseStmt(const_cast<clang::Expr *>(par_[d].bound));
    for (const clang::VarDecl *v : u.used)
      if (parVars.count(v))
        return "";
    size_t axis = n - 1 - d;
    cond += fmt::format("{}({})blockIdx.{} * {} + {} + ({})threadIdx.{} < {}",
                        cond.empty() ? "" : " && ", idx_, kAxis[axis], l_.block[d] * l_.fold[d],
                        firstTask ? 0 : (l_.fold[d] - 1) * l_.block[d], idx_, kAxis[axis],
                        tripsText(d));
  }
  return cond;
}

/// The trip count of parallel loop `d` when its header's values are
/// constants, else -1.
int64_t Emitter::constantTrips(size_t d) const {
  const frontend::LoopHeader &h = par_[d];
  clang::Expr::EvalResult a, b;
  if (!h.init->EvaluateAsInt(a, ctx_) || !h.bound->EvaluateAsInt(b, ctx_) || h.step <= 0)
    return -1;
  int64_t init = a.Val.getInt().getExtValue(), bound = b.Val.getInt().getExtValue();
  int64_t span = h.decreasing ? init - bound : bound - init;
  span += h.inclusive ? 1 : 0;
  return span <= 0 ? 0 : (span + h.step - 1) / h.step;
}

/// The register tile: the chain of streaming loops from chain_[from] (the
/// first one's header given), and inside the innermost, the thread's tasks
/// fully unrolled, each running its iteration of the body under its guard.
std::string Emitter::interleaved(const std::string &ind, size_t from,
                                 const std::string &firstHeader) {
  std::string whole = wholeCondition();
  if (whole.empty())
    return chainText(ind, from, firstHeader);
  // partial tiles: the guards would keep the tasks from sharing loads, so the
  // threads whose tasks are all in range run the tile without them
  std::string out = fmt::format("{}if ({}) {{ // every task of the thread in range\n", ind, whole);
  guardsOff_ = true;
  out += chainText(ind + "  ", from, firstHeader);
  guardsOff_ = false;
  // A body that writes only the tasks' own slots runs unguarded for every
  // task, the ones past the end at the last task's coordinates: under a guard
  // each task's loads wait one after another (conv2d's 64-task edge blocks ran
  // 4 times longer than the others). The thread's first task must be in range.
  std::vector<const clang::Stmt *> body = bodyOf(chain_.back());
  std::string first = wholeCondition(true);
  if (!first.empty() && writesOnlyTaskSlots(body)) {
    out += fmt::format("{}}} else if ({}) {{ // the tasks past the end clamped to the last\n",
                       ind, first);
    clampTasks_ = true;
    out += chainText(ind + "  ", from, firstHeader);
    clampTasks_ = false;
    out += ind + "}\n";
    return out;
  }
  out += ind + "} else {\n";
  out += chainText(ind + "  ", from, firstHeader);
  out += ind + "}\n";
  return out;
}

/// Whether running `stmts` for a task outside the loop space, at coordinates
/// clamped into it, leaves everything the kernel keeps as it was: they write
/// only promoted locals, register elements and their own locals, call only
/// builtins, do not branch or loop, and divide integers only by constants
/// (a clamped task's slot may hold any value).
bool Emitter::writesOnlyTaskSlots(const std::vector<const clang::Stmt *> &stmts) const {
  std::set<const clang::VarDecl *> own;
  auto slot = [&](const clang::Expr *e) {
    if (const clang::VarDecl *v = frontend::refVar(e))
      return promoted_.count(v) || own.count(v);
    e = e->IgnoreParenImpCasts();
    while (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
      e = a->getBase()->IgnoreParenImpCasts();
    const clang::VarDecl *v = frontend::refVar(e);
    return v && regOf_.count(v);
  };
  std::function<bool(const clang::Stmt *)> ok = [&](const clang::Stmt *s) -> bool {
    if (!s)
      return true;
    if (llvm::isa<clang::IfStmt, clang::ForStmt, clang::WhileStmt, clang::DoStmt,
                  clang::SwitchStmt, clang::ReturnStmt, clang::BreakStmt, clang::ContinueStmt,
                  clang::GotoStmt, clang::LabelStmt>(s))
      return false;
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s))
      for (const clang::Decl *d : ds->decls()) {
        auto *v = llvm::dyn_cast<clang::VarDecl>(d);
        if (!v || v->isStaticLocal())
          return false;
        own.insert(v);
      }
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(s)) {
      const clang::FunctionDecl *f = c->getDirectCallee();
      if (!f || f->getBuiltinID() == 0)
        return false;
    }
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s)) {
      if (b->isAssignmentOp() && !slot(b->getLHS()))
        return false;
      auto op = b->getOpcode();
      if ((op == clang::BO_Div || op == clang::BO_Rem || op == clang::BO_DivAssign ||
           op == clang::BO_RemAssign) &&
          b->getType()->isIntegerType() && !b->getRHS()->isIntegerConstantExpr(ctx_))
        return false;
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
      if (u->isIncrementDecrementOp() && !slot(u->getSubExpr()))
        return false;
    for (const clang::Stmt *c : s->children())
      if (!ok(c))
        return false;
    return true;
  };
  for (const clang::Stmt *s : stmts)
    if (!ok(s))
      return false;
  return !stmts.empty();
}

std::string Emitter::chainText(const std::string &ind, size_t from,
                               const std::string &firstHeader) {
  std::string out;
  std::string in = ind;
  for (size_t c = from; c < chain_.size(); ++c) {
    const clang::ForStmt *f = chain_[c];
    int64_t factor = 0;
    if (c == 0 && stagedFor_)
      factor = l_.unrollFactor(stagedLoop_);
    else if (auto it = unroll_.find(f); it != unroll_.end())
      factor = it->second;
    if (factor > 1)
      out += fmt::format("#pragma unroll {}\n", factor);
    else if (!(c == 0 && stagedFor_) && rolled(f))
      out += "#pragma unroll 1\n";
    out += in + (c == from && !firstHeader.empty() ? firstHeader : loopHeader(f)) +
           (c == from ? " { // the thread's tasks run inside\n" : " {\n");
    in += "  ";
  }
  std::vector<const clang::Stmt *> stmts = bodyOf(chain_.back());
  std::string bin = in + std::string(2 * taskDepth(), ' ');
  unsigned level = static_cast<unsigned>(bin.size() / 2);
  std::string text;
  if (barriers_ && !clampTasks_) {
    text += bin + "if (sk_active) {\n";
    for (const clang::Stmt *st : stmts)
      text += stmt(st, level + 1);
    text += bin + "}\n";
  } else {
    for (const clang::Stmt *st : stmts)
      text += stmt(st, level);
  }
  out += phase(in, text);
  for (size_t c = from; c < chain_.size(); ++c) {
    in.resize(in.size() - 2);
    out += in + "}\n";
  }
  return out;
}

/// The statements of `stmts`, one phase over the thread's tasks, each
/// statement under the task's guard (a promoted local's declaration is its
/// task's assignment; the declaration of a streaming index is the kernel's).
std::string Emitter::tasksPhase(const std::string &ind,
                                const std::vector<const clang::Stmt *> &stmts, bool first,
                                bool last) {
  std::string in = ind + std::string(2 * taskDepth(), ' ');
  unsigned level = static_cast<unsigned>(in.size() / 2);
  std::string body;
  // the elements kept in registers: loaded in the first phase, stored in the last
  auto guarded = [&](const std::string &line) {
    return barriers_ ? in + "if (sk_active)\n" + in + "  " + line + "\n" : in + line + "\n";
  };
  for (const RegElem &r : regs_)
    if (first && r.load)
      body += guarded(fmt::format("{}[sk_fl] = {}; // in a register across the streaming loop",
                                  r.reg, printPlain(r.access)));
  for (const clang::Stmt *st : stmts) {
    if (pairedSecond(st))
      continue; // stored with the first of its pair
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(st)) {
      bool chainOnly = true;
      for (const clang::Decl *d : ds->decls())
        chainOnly = chainOnly && llvm::isa<clang::VarDecl>(d) &&
                    (chainVars_.count(llvm::cast<clang::VarDecl>(d)) ||
                     sharedLocalVars_.count(llvm::cast<clang::VarDecl>(d)));
      if (chainOnly)
        continue;
      if (!readsMemory(ds) || !barriers_) {
        body += stmt(st, level);
        continue;
      }
    }
    if (barriers_)
      body += in + "if (sk_active) {\n" + stmt(st, level + 1) + in + "}\n";
    else
      body += stmt(st, level);
  }
  for (const RegElem &r : regs_)
    if (last)
      body += guarded(fmt::format("{} = {}[sk_fl];", printPlain(r.access), r.reg));
  if (body.empty())
    return "";
  return phase(ind, body);
}

/// The fold loops (when folded) around `body`, with the task's coordinates:
/// one phase over the thread's tasks, in its own scope. Fully unrolled when
/// the tasks form a register tile, so their promoted values are registers.
std::string Emitter::phase(const std::string &ind, const std::string &body) {
  std::string out = ind + "{\n";
  std::string inner = ind + "  ";
  size_t n = par_.size();
  if (foldLoops_)
    for (size_t d = 0; d < n; ++d) {
      if (tasks_ != Tasks::Loop)
        out += "#pragma unroll\n";
      out += fmt::format("{}for (int sk_f{} = 0; sk_f{} < {}; ++sk_f{}) {{ // fold={}:{}\n",
                         inner, d, d, l_.fold[d], d, ki_.dimNames[d], l_.fold[d]);
      inner += "  ";
    }
  out += taskCoords(inner, foldLoops_);
  if (!promoted_.empty() || !regs_.empty()) {
    std::string flat = foldLoops_ ? "sk_f0" : "0";
    for (size_t d = 1; foldLoops_ && d < n; ++d)
      flat = fmt::format("({}) * {} + sk_f{}", flat, l_.fold[d], d);
    out += fmt::format("{}const int sk_fl = {}; // the task's slot\n", inner, flat);
  }
  out += body;
  if (foldLoops_)
    for (size_t d = 0; d < n; ++d) {
      inner.resize(inner.size() - 2);
      out += inner + "}\n";
    }
  out += ind + "}\n";
  return out;
}

/// The indentation depth of a phase's body below its `ind`.
size_t Emitter::taskDepth() const { return 1 + (foldLoops_ ? par_.size() : 0); }

/// A kernel with a staged loop: the statements before it, its stages, and
/// those after it, each a phase over the thread's tasks; only the stages'
/// loads and barriers run in every thread.
std::string Emitter::stagedKernel(const std::string &ind) {
  std::string out;
  std::vector<const clang::Stmt *> before(nest_.body.begin(), nest_.body.begin() + streamAt_),
      after(nest_.body.begin() + streamAt_ + 1, nest_.body.end());
  out += tasksPhase(ind, before, true, false);
  out += stagedBody(ind);
  out += tasksPhase(ind, after, false, true);
  return out;
}

std::string Emitter::kernel() {
  std::string out;
  // the parameters: arrays, then the values the nest reads
  std::vector<std::string> params;
  for (const clang::VarDecl *v : arrays_)
    params.push_back(typed(kernelParamType(v, true), v->getName().str()));
  for (const clang::VarDecl *v : scalars_)
    params.push_back(typed(v->getType().getUnqualifiedType(), v->getName().str()));
  for (const Red &r : reds_) // where each block adds its part of a reduction
    params.push_back(typed(ctx_.getPointerType(r.var->getType().getUnqualifiedType()),
                           "sk_red_" + r.var->getName().str()));
  int64_t threads = l_.threadsPerBlock();
  out += fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(", threads,
                     kernelName());
  for (size_t i = 0; i < params.size(); ++i)
    out += (i ? ", " : "") + params[i];
  out += ") {\n";
  std::string ind = "  ";
  if (stagedFor_ || tasks_ == Tasks::Tile) {
    promote(); // the phases are scopes of their own
    planRegisters();
  }
  planLoopAccumulators();
  planPairs(); // after the tiles and registers, which hold what they cannot rewrite
  for (const clang::VarDecl *v : privates_)
    if (!promoted_.count(v))
      out += fmt::format("{}{}; // private: written in the nest, declared outside it\n", ind,
                         typed(v->getType().getUnqualifiedType(), v->getName().str()));
  for (const Red &r : reds_)
    out += fmt::format("{}{} = {}; // the thread's partial of reduce({}: {})\n", ind,
                       typed(r.var->getType().getUnqualifiedType(), r.var->getName().str()),
                       identity(r), skeleton::reduceOpName(r.op), r.var->getName().str());
  for (const clang::Stmt *st : nest_.body) // a streaming index declared in the body
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(st))
      for (const clang::Decl *d : ds->decls())
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(d); v && chainVars_.count(v))
          out += fmt::format("{}{}; // the streaming loop's index: the same for every task\n",
                             ind, typed(v->getType().getUnqualifiedType(), v->getName().str()));
  for (const clang::VarDecl *v : promotedOrder_)
    out += fmt::format("{}{}; // one per task of the thread: it lives across the phases\n", ind,
                       typed(ctx_.getConstantArrayType(v->getType().getUnqualifiedType(),
                                                       llvm::APInt(32, l_.foldProduct()), nullptr,
                                                       clang::ArraySizeModifier::Normal, 0),
                             v->getName().str()));
  for (const RegElem &r : regs_)
    out += fmt::format("{}{}[{}]; // {} of each task, in a register across the streaming loop\n",
                       ind, elemName(r.array) + " " + r.reg, l_.foldProduct(),
                       printPlain(r.access));
  if (barriers_) {
    out += ind + "const int sk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
                 "threadIdx.z);\n";
    out += fmt::format("{}const int sk_threads = {};\n", ind, threads);
    // the tiles share one dynamic allocation (beyond 48 KiB a static one
    // cannot go), each at a 16-byte aligned offset
    if (!tiles_.empty() || !reds_.empty())
      out += ind + "extern __shared__ __align__(16) unsigned char sk_smem[];\n";
    for (const Tile &t : tiles_) {
      std::string dims;
      for (int64_t e : t.extent)
        dims += fmt::format("{}{}", dims.empty() ? "" : " x ", e);
      out += fmt::format("{}{} *const sk_{}_tile = ({} *)(sk_smem + {}); // cache={}: {} "
                         "elements{}\n",
                         ind, t.elem, t.name, t.elem, t.offset, ki_.arrays[t.array].name, dims,
                         t.staged >= 0 ? fmt::format(" per stage of '{}'",
                                                     ki_.loops[t.staged].index)
                                       : " of the block's footprint");
    }
    std::string once = loadTiles(-1, ind);
    if (!once.empty())
      out += once + ind + "__syncthreads();\n";
  }
  if (stagedFor_) {
    out += stagedKernel(ind);
    out += "}\n";
    return out;
  }
  if (tasks_ == Tasks::Tile) {
    std::vector<const clang::Stmt *> before(nest_.body.begin(), nest_.body.begin() + streamAt_),
        after(nest_.body.begin() + streamAt_ + 1, nest_.body.end());
    out += tasksPhase(ind, before, true, false);
    out += sharedDims_.empty() ? interleaved(ind, 0, "") : sharedChain(ind);
    out += tasksPhase(ind, after, false, true);
    out += "}\n";
    return out;
  }
  std::string inner = ind;
  size_t n = par_.size();
  if (foldLoops_) {
    for (size_t d = 0; d < n; ++d) {
      if (tasks_ == Tasks::Unrolled)
        out += "#pragma unroll\n";
      out += fmt::format("{}for (int sk_f{} = 0; sk_f{} < {}; ++sk_f{}) {{ // fold={}:{}\n",
                         inner, d, d, l_.fold[d], d, ki_.dimNames[d], l_.fold[d]);
      inner += "  ";
    }
  }
  out += taskCoords(inner, foldLoops_);
  unsigned level = static_cast<unsigned>(inner.size() / 2);
  if (!barriers_) {
    for (const clang::Stmt *s : nest_.body)
      out += stmt(s, level);
  } else if (!stagedFor_) {
    out += inner + "if (sk_active) {\n";
    for (const clang::Stmt *s : nest_.body)
      out += stmt(s, level + 1);
    out += inner + "}\n";
  }
  if (foldLoops_)
    for (size_t d = 0; d < n; ++d) {
      inner.resize(inner.size() - 2);
      out += inner + "}\n";
    }
  out += blockReduction(ind);
  out += "}\n";
  return out;
}

} // namespace skelcast::emit::detail
