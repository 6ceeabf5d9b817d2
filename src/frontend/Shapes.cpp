// The shapes of the arrays of a nest (Shapes.h; docs/skeletonizer.md, "Data",
// states the rules).
#include "Shapes.h"
#include "ClangNodes.h"
#include "NestAnalysis.h"

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/TypeLoc.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

namespace skelcast::frontend {

using skeleton::Expr;

namespace {

/// Is `e` inside a branch (an `if`'s arms, a `?:`'s arms) below loop `loop`?
/// Such an access may be kept in bounds by its condition (HotSpot's edges).
bool underBranch(clang::ASTContext &ast, const clang::Stmt *e, const clang::Stmt *loop) {
  clang::DynTypedNode node = clang::DynTypedNode::create(*e);
  for (int guard = 0; guard < 200; ++guard) {
    auto parents = ast.getParents(node);
    if (parents.empty())
      return false;
    const clang::DynTypedNode &p = parents[0];
    const clang::Stmt *cur = node.get<clang::Stmt>();
    if (p.get<clang::Stmt>() == loop || p.get<clang::FunctionDecl>())
      return false;
    if (auto *i = p.get<clang::IfStmt>(); i && cur != i->getCond())
      return true;
    if (auto *c = p.get<clang::ConditionalOperator>(); c && cur != c->getCond())
      return true;
    if (auto *b = p.get<clang::BinaryOperator>(); b && b->isLogicalOp() && cur == b->getRHS())
      return true; // `i + 1 < N && x[i + 1] > 0`
    if (p.get<clang::SwitchCase>())
      return true;
    node = p;
  }
  return false;
}

std::optional<skeleton::ElemType> elemTypeOf(clang::QualType t, const clang::ASTContext &ctx) {
  t = t.getCanonicalType();
  if (t->isBooleanType())
    return skeleton::ElemType::Char;
  if (t->isRealFloatingType())
    return ctx.getTypeSize(t) > 32 ? skeleton::ElemType::Double : skeleton::ElemType::Float;
  if (t->isIntegralOrEnumerationType()) {
    switch (ctx.getTypeSize(t)) {
    case 8: return skeleton::ElemType::Char;
    case 16: return skeleton::ElemType::Short;
    case 32: return skeleton::ElemType::Int;
    default: return skeleton::ElemType::Long;
    }
  }
  return std::nullopt;
}

class ShapeMaker {
public:
  explicit ShapeMaker(TUContext &tu) : tu_(tu) {}

  void makeShapes(NestAnalysis &na, const NestScan &scan, NestPlan &plan) {
    std::vector<const clang::VarDecl *> order;
    for (const AccessRec &a : scan.accesses)
      if (std::find(order.begin(), order.end(), a.base) == order.end())
        order.push_back(a.base);
    for (const clang::VarDecl *v : order) {
      ArrayShape s;
      s.decl = v;
      shapeErrorLoc_[v] = v->getLocation();
      for (const AccessRec &a : scan.accesses)
        if (a.base == v) {
          shapeErrorLoc_[v] = a.expr->getBeginLoc();
          break;
        }
      if (scan.registerArrays.count(v)) {
        s.isRegister = true;
        plan.shapes[v] = s;
        continue;
      }
      std::string err = shapeOf(na, scan, v, s);
      shapeErrors_[v] = err;
      plan.shapes[v] = s;
    }
  }

  /// The errors makeShapes recorded, by array.
  ShapeErrors errors() const {
    ShapeErrors out;
    for (const auto &[v, why] : shapeErrors_)
      if (!why.empty())
        out[v] = Unsupported{shapeErrorLoc_.at(v), why};
    return out;
  }

private:
  /// Named constants of the nest by value: loop bounds and constant factors,
  /// to write inferred extents with the names the code uses.
  std::optional<Expr> namedValue(NestAnalysis &na, const NestScan &scan, int64_t value) {
    for (const auto &[f, h] : scan.headers) {
      for (const clang::Expr *e : {h.bound, h.init}) {
        auto k = na.knownValue(e);
        if (!k)
          continue;
        int64_t v = h.inclusive && e == h.bound ? *k + 1 : *k;
        if (v != value)
          continue;
        if (auto c = tu_.constantExpr(e)) {
          if (c->kind == Expr::Kind::Name && v == *k)
            return c;
        }
        if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
          if (auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()))
            if (auto ks = na.knownScalar(vd))
              if (ks->second.kind == Expr::Kind::Name && v == *k)
                return ks->second;
      }
    }
    return tu_.macroForValue(value);
  }

  /// The elements of one step of the first dimension: the product of the
  /// other extents (1 for a vector); kUnknownInner when one is not known.
  static constexpr int64_t kUnknownInner = 0;
  static int64_t innerElements(const std::vector<int64_t> &values) {
    int64_t p = 1;
    for (size_t d = 1; d < values.size(); ++d)
      p = values[d] > 0 ? p * values[d] : kUnknownInner;
    return p;
  }

  /// The elements of `v`: from the allocation the function sets it to once,
  /// else from the allocations it may point to in the whole file (a pointer
  /// parameter: those its callers pass, CallValues::allocatedElements).
  std::optional<int64_t> allocatedElements(NestAnalysis &na, const clang::VarDecl *v,
                                           std::string &why) {
    if (auto n = localAllocation(na, v))
      return n;
    return tu_.callValues.allocatedElements(v, why);
  }

  /// The elements of `v` when the function sets it once, from `malloc(BYTES)`
  /// or `calloc(N, SIZE)` (through casts) with a size of known values.
  std::optional<int64_t> localAllocation(NestAnalysis &na, const clang::VarDecl *v) {
    const clang::Expr *value = v->getInit();
    int sets = value ? 1 : 0;
    std::function<void(const clang::Stmt *)> walk = [&](const clang::Stmt *st) {
      if (!st)
        return;
      if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(st))
        if (b->isAssignmentOp() && refVar(b->getLHS()) == v) {
          ++sets;
          value = b->getRHS();
        }
      for (const clang::Stmt *c : st->children())
        walk(c);
    };
    if (llvm::isa<clang::ParmVarDecl>(v) || v->hasGlobalStorage() || !na.facts.fn)
      return std::nullopt;
    walk(na.facts.fn->getBody());
    if (sets != 1 || !value || na.facts.addressTaken.count(v))
      return std::nullopt;
    auto *call = llvm::dyn_cast<clang::CallExpr>(value->IgnoreParenCasts());
    const clang::FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
    if (!fd)
      return std::nullopt;
    std::string fn = fd->getNameAsString();
    std::optional<int64_t> bytes;
    if (fn == "malloc" && call->getNumArgs() == 1) {
      bytes = na.knownValue(call->getArg(0));
    } else if (fn == "calloc" && call->getNumArgs() == 2) {
      auto n = na.knownValue(call->getArg(0)), sz = na.knownValue(call->getArg(1));
      if (n && sz)
        bytes = *n * *sz;
    }
    clang::QualType pointee = v->getType()->getPointeeType();
    if (!bytes || *bytes <= 0 || pointee.isNull() || pointee->isIncompleteType())
      return std::nullopt;
    int64_t elem = static_cast<int64_t>(tu_.ast.getTypeSizeInChars(pointee).getQuantity());
    if (elem <= 0 || *bytes % elem != 0)
      return std::nullopt;
    return *bytes / elem;
  }

  std::string shapeOf(NestAnalysis &na, const NestScan &scan, const clang::VarDecl *v,
                      ArrayShape &s) {
    std::string name = v->getName().str();
    s.isRestrict = v->getType().isRestrictQualified();
    // the declared dimensions: from the written type (parameters keep their
    // array syntax there), leftmost first; 0 for unknown
    clang::QualType written = v->getType();
    if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(v))
      written = pv->getOriginalType();
    std::vector<int64_t> dims;
    std::vector<std::optional<Expr>> dimExprs;
    clang::TypeLoc tl;
    if (v->getTypeSourceInfo())
      tl = v->getTypeSourceInfo()->getTypeLoc();
    clang::QualType cur = written;
    bool isPtr = false;
    while (true) {
      cur = cur.getCanonicalType();
      const clang::Type *ty = cur.getTypePtr();
      clang::ArrayTypeLoc atl;
      if (!tl.isNull()) {
        tl = tl.getUnqualifiedLoc();
        if (auto p = tl.getAs<clang::ParenTypeLoc>())
          tl = p.getInnerLoc();
        if (auto d = tl.getAs<clang::DecayedTypeLoc>())
          tl = d.getOriginalLoc();
        atl = tl.getAs<clang::ArrayTypeLoc>();
      }
      if (auto *ca = llvm::dyn_cast<clang::ConstantArrayType>(ty)) {
        dims.push_back(static_cast<int64_t>(ca->getSize().getZExtValue()));
        std::optional<Expr> e;
        if (atl && atl.getSizeExpr())
          e = tu_.constantExpr(atl.getSizeExpr());
        dimExprs.push_back(e);
        cur = ca->getElementType();
        tl = atl ? atl.getElementLoc() : clang::TypeLoc();
        continue;
      }
      if (auto *va = llvm::dyn_cast<clang::VariableArrayType>(ty)) {
        std::optional<Expr> e;
        int64_t value = 0;
        if (va->getSizeExpr()) {
          if (auto k = na.knownValue(va->getSizeExpr())) {
            value = *k;
            std::set<const clang::VarDecl *> vs;
            collectVars(va->getSizeExpr(), vs);
            if (vs.size() == 1)
              if (auto ks = na.knownScalar(*vs.begin()))
                if (ks->first == value)
                  e = ks->second;
          }
        }
        dims.push_back(value);
        dimExprs.push_back(e);
        cur = va->getElementType();
        tl = atl ? atl.getElementLoc() : clang::TypeLoc();
        continue;
      }
      if (auto *ia = llvm::dyn_cast<clang::IncompleteArrayType>(ty)) {
        dims.push_back(0);
        dimExprs.push_back(std::nullopt);
        cur = ia->getElementType();
        tl = atl ? atl.getElementLoc() : clang::TypeLoc();
        continue;
      }
      if (auto *pt = llvm::dyn_cast<clang::PointerType>(ty)) {
        if (dims.size() == 1 && !s.pointerRows &&
            pt->getPointeeType()->isArithmeticType()) {
          // rows through pointers (`float **w`, `float *w[N]`): each row is
          // contiguous, where the rows lie is not known
          s.pointerRows = true;
          dims.push_back(0);
          dimExprs.push_back(std::nullopt);
          cur = pt->getPointeeType();
          tl = clang::TypeLoc();
          continue;
        }
        if (!dims.empty() || isPtr)
          break; // deeper chains of pointers
        isPtr = true;
        dims.push_back(0);
        dimExprs.push_back(std::nullopt);
        cur = pt->getPointeeType();
        tl = clang::TypeLoc();
        if (auto pl = v->getTypeSourceInfo() ? v->getTypeSourceInfo()->getTypeLoc()
                                                   .getUnqualifiedLoc()
                                                   .getAs<clang::PointerTypeLoc>()
                                             : clang::PointerTypeLoc())
          tl = pl.getPointeeLoc();
        continue;
      }
      break;
    }
    s.isPointer = isPtr;
    unsigned nfields = 0;
    // the number type the accesses take the elements as words of, when the
    // struct is not uniform (ClangNodes.h, structElement): one for all of them
    const clang::Type *word = nullptr;
    for (const AccessRec &a : scan.accesses)
      if (a.base == v && a.word) {
        if (word && (tu_.ast.getTypeSize(word) != tu_.ast.getTypeSize(a.word) ||
                     word->isRealFloatingType() != a.word->isRealFloatingType()))
          return fmt::format("the fields of '{}' used in the loop are numbers of different types "
                             "('{}' and '{}')",
                             name, clang::QualType(word, 0).getAsString(),
                             clang::QualType(a.word, 0).getAsString());
        word = a.word;
      }
    if (auto *ft = word ? nullptr : uniformStruct(cur, tu_.ast, &nfields)) {
      // an array of structs of like fields: one more dimension, the field
      // (`pos[i].y` is `pos[i][1]`: the struct's stride, the field's offset)
      s.structFields = static_cast<int>(nfields);
      s.structName = cur.getUnqualifiedType().getAsString();
      dims.push_back(nfields);
      dimExprs.push_back(std::nullopt);
      cur = clang::QualType(ft, 0);
    } else if (unsigned words = word && cur->isRecordType() ? structWords(cur, word, tu_.ast) : 0) {
      // a struct of mixed fields (or array fields) taken as words of the
      // fields' type: `n[k].keys[j]` is `n[k][258 + j]`, the struct's size
      // the stride, the field's offset the place
      s.structFields = static_cast<int>(words);
      s.structName = cur.getUnqualifiedType().getAsString();
      s.structWord = clang::QualType(word, 0).getAsString();
      dims.push_back(words);
      dimExprs.push_back(std::nullopt);
      cur = clang::QualType(word, 0);
    }
    auto et = elemTypeOf(cur, tu_.ast);
    if (!et || cur->isPointerType())
      return fmt::format("the elements of '{}' are not numbers ('{}')", name,
                         cur.getAsString());
    s.type = *et;

    // accesses of this array, for the subscript count
    size_t nsubs = 0;
    for (const AccessRec &a : scan.accesses)
      if (a.base == v) {
        if (nsubs && a.subs.size() != nsubs)
          return fmt::format("'{}' is subscripted with different numbers of indices", name);
        nsubs = a.subs.size();
      }
    if (nsubs != dims.size())
      return fmt::format("'{}' has {} dimensions but is subscripted with {}", name, dims.size(),
                         nsubs);

    auto opt = tu_.opts.extents.find(name);
    if (opt != tu_.opts.extents.end() && !opt->second.empty()) {
      tu_.usedExtents.insert(name);
      std::vector<int64_t> given = opt->second;
      if (s.structFields && given.size() + 1 == dims.size())
        given.push_back(s.structFields); // the elements' extents: the fields follow
      for (int64_t g : given)
        if (g <= 0)
          return fmt::format("--extent {}: extents must be positive", name);
      s.values = given;
      for (int64_t g : given) {
        auto ne = namedValue(na, scan, g);
        s.extents.push_back(ne ? *ne : Expr::lit(g));
      }
      s.origin = fmt::format("// --extent {}", name);
      if (given.size() == dims.size())
        return {};
      if (given.size() < dims.size())
        return fmt::format("--extent {} gives {} extents, the array has {} dimensions", name,
                           given.size(), dims.size());
      // split the last subscript over the extra dimensions
      size_t extra = given.size() - dims.size() + 1;
      s.strides.assign(extra, 1);
      for (size_t d = extra - 1; d-- > 0;)
        s.strides[d] = s.strides[d + 1] * given[dims.size() - 1 + d + 1];
      return {};
    }

    if (isPtr && !s.pointerRows) {
      // infer strides from the constant factors of the subscripts
      std::set<int64_t> cands;
      for (const AccessRec &a : scan.accesses)
        if (a.base == v && !s.structFields) { // a struct's last index is a field's place
          Flattener fl{na, {}, {}, true};
          fl.add(a.subs.back(), 1);
          for (const auto &[c, f] : fl.terms)
            if (c > 1)
              cands.insert(c);
        }
      std::vector<int64_t> chain;
      for (auto it = cands.rbegin(); it != cands.rend() && chain.size() < 2; ++it)
        if (chain.empty() || chain.back() % *it == 0)
          chain.push_back(*it);
      if (!chain.empty()) {
        s.strides = chain;
        s.strides.push_back(1);
        s.origin = fmt::format("// '{}' is a pointer: extents implied by its subscripts", name);
      } else {
        s.origin = fmt::format("// '{}' is a pointer: extent implied by its subscripts", name);
      }
    }

    // extents of the split dimensions
    std::vector<int64_t> values;
    std::vector<std::optional<Expr>> exprs;
    for (size_t d = 0; d + 1 < dims.size(); ++d) {
      values.push_back(dims[d]);
      exprs.push_back(dimExprs[d]);
    }
    if (s.strides.empty()) {
      values.push_back(dims.back());
      exprs.push_back(dimExprs.back());
    } else {
      values.push_back(0);
      exprs.push_back(std::nullopt);
      for (size_t d = 1; d < s.strides.size(); ++d) {
        int64_t e = s.strides[d - 1] / s.strides[d];
        values.push_back(e);
        exprs.push_back(namedValue(na, scan, e));
      }
    }
    // the first extent, if unknown: from the loop bound of a plain subscript,
    // else from the range of the subscripts
    if (values[0] == 0) {
      std::string allocWhy; // why the allocations it may point to give no extent
      std::optional<int64_t> plain, maxHi, maxHiUnguarded;
      std::optional<Expr> plainExpr;
      bool unknown = false;
      for (const AccessRec &a : scan.accesses) {
        if (a.base != v)
          continue;
        Affine f0 = Affine::invalid();
        if (s.strides.empty()) {
          f0 = na.affine(a.subs[0]);
        } else {
          ArrayShape tmp = s;
          tmp.extents.assign(values.size(), Expr::lit(1));
          auto parts = na.split(a, tmp);
          if (parts)
            f0 = na.dimAffine((*parts)[0]);
        }
        auto r = na.range(f0);
        if (!r) {
          unknown = true;
          continue;
        }
        maxHi = maxHi ? std::max(*maxHi, r->hi) : r->hi;
        if (!underBranch(tu_.ast, a.expr, na.plan.root))
          maxHiUnguarded = maxHiUnguarded ? std::max(*maxHiUnguarded, r->hi) : r->hi;
        if (f0.constant == 0 && f0.coef.size() == 1 && f0.coef.begin()->second == 1) {
          const clang::ValueDecl *lv = f0.coef.begin()->first.decl;
          auto lit = na.plan.loops.find(llvm::dyn_cast<clang::VarDecl>(lv));
          if (lit != na.plan.loops.end() && !lit->second.hdr.decreasing) {
            int64_t hi = r->hi + 1;
            if (!plain || hi > *plain) {
              plain = hi;
              plainExpr = std::nullopt;
              const LoopHeader &h = lit->second.hdr;
              std::optional<Expr> b;
              if (auto *vd = refVar(h.bound))
                if (auto ks = na.knownScalar(vd))
                  b = ks->second;
              if (!b)
                b = tu_.constantExpr(h.bound);
              if (b && h.inclusive)
                b = Expr::binary('+', *b, Expr::lit(1));
              plainExpr = b;
            }
          }
        }
      }
      if (plain && maxHiUnguarded && *maxHiUnguarded + 1 > *plain) {
        // another subscript reaches further (`u[i + 1][j]` beside `u[i][j]`);
        // one under a branch may be kept in bounds by its condition
        values[0] = *maxHiUnguarded + 1;
        exprs[0] = namedValue(na, scan, values[0]);
      } else if (plain) {
        values[0] = *plain;
        exprs[0] = plainExpr;
      } else if (maxHi && !unknown) {
        values[0] = *maxHi + 1;
        exprs[0] = namedValue(na, scan, values[0]);
      } else if (auto n = isPtr && !s.pointerRows ? allocatedElements(na, v, allocWhy)
                                                  : std::nullopt;
                 n && innerElements(values) != kUnknownInner) {
        // an indirect or non-affine subscript (`mask[edges[e]]`, hotspot's
        // `result[r*col + c]` over chunks): the allocation's size, over the
        // extents of the dimensions its strides split off, rounded up to
        // cover it (nw's blocks of 16 rows of 2049 in 2049 rows)
        int64_t inner = innerElements(values);
        values[0] = (*n + inner - 1) / inner;
        exprs[0] = namedValue(na, scan, values[0]);
        s.origin = fmt::format("// '{}' is a pointer: extent from its allocation{}", name,
                               *n % inner ? fmt::format(" of {} elements, rounded up", *n) : "");
      } else {
        return fmt::format("the extent of '{}' is unknown (give it with --extent {}=N{}){}", name,
                           name, values.size() > 1 ? ",..." : "",
                           allocWhy.empty() ? "" : "; its allocation: " + allocWhy);
      }
      if (values[0] <= 0)
        return fmt::format("the extent of '{}' is unknown (give it with --extent {}=N)", name,
                           name);
    }
    if (s.pointerRows && values.size() == 2 && values[1] == 0) {
      // the length of a row: from the range of the column subscripts
      std::optional<int64_t> maxHi;
      for (const AccessRec &a : scan.accesses) {
        if (a.base != v)
          continue;
        auto r = na.range(na.affine(a.subs[1]));
        if (!r)
          return fmt::format("the length of the rows of '{}' is unknown (give it with --extent "
                             "{}=ROWS,LENGTH)",
                             name, name);
        maxHi = maxHi ? std::max(*maxHi, r->hi) : r->hi;
      }
      if (!maxHi || *maxHi < 0)
        return fmt::format("the length of the rows of '{}' is unknown (give it with --extent "
                           "{}=ROWS,LENGTH)",
                           name, name);
      values[1] = *maxHi + 1;
      exprs[1] = namedValue(na, scan, values[1]);
    }
    if (s.structFields && !s.structWord.empty()) {
      s.origin = fmt::format("// '{}' is an array of '{}' taken as {} words of '{}' each: a "
                             "field's offset in words is the last index",
                             name, s.structName, s.structFields, s.structWord);
      // integer fields wider than the word (NestScan, wordsOfOneSize)
      std::set<std::string> wide;
      for (const AccessRec &a : scan.accesses)
        if (a.base == v && a.wideField)
          wide.insert(clang::QualType(a.wideField, 0).getAsString());
      if (!wide.empty())
        s.origin += fmt::format(" (its '{}' fields read as the word each begins with)",
                                fmt::join(wide, "', '"));
    }
    else if (s.structFields)
      s.origin = fmt::format("// '{}' is an array of '{}': a field is the last index, the {} "
                             "fields side by side",
                             name, s.structName, s.structFields);
    if (s.pointerRows)
      s.origin = fmt::format("// '{}' holds row pointers: each row contiguous, the rows placed "
                             "anywhere (taken apart from each other)",
                             name);
    s.values = values;
    for (size_t d = 0; d < values.size(); ++d)
      s.extents.push_back(exprs[d] ? *exprs[d] : Expr::lit(values[d]));
    return {};
  }

  TUContext &tu_;
  std::map<const clang::VarDecl *, std::string> shapeErrors_;
  std::map<const clang::VarDecl *, clang::SourceLocation> shapeErrorLoc_;
};

} // namespace

ShapeErrors makeShapes(NestAnalysis &na, const NestScan &scan, NestPlan &plan) {
  ShapeMaker sm(na.tu);
  sm.makeShapes(na, scan, plan);
  return sm.errors();
}

} // namespace skelcast::frontend
