// The program of a file: its arrays and kernels (FileAssembler) and the host
// side of each function (HostProgram); FileAssembler.h says what each does.
#include "FileAssembler.h"
#include "HostData.h"

#include "skelcast/skeleton/Parser.h"

#include <clang/AST/StmtOpenMP.h>

#include <fmt/format.h>

#include <algorithm>

namespace skelcast::frontend {

// ---------------------------------------------------------------------------
// FileAssembler

std::string FileAssembler::declareArray(const ArrayShape &s) {
  skeleton::Array a;
  a.type = s.type;
  a.extents = s.extents;
  std::string base = s.decl->getName().str();
  if (skeleton::isKeyword(base))
    base += "_";
  // the same declaration with the same shape: reuse it; one that differs only
  // in its first extent (a nest reaching further rows) is the same memory: the
  // declaration takes the larger extent, which changes no address
  for (size_t idx : byDecl_[s.decl]) {
    skeleton::Array &old = arrays[idx];
    if (old.type == a.type && old.extents == a.extents)
      return old.name;
    if (old.type == a.type && old.extents.size() == a.extents.size() && !s.values.empty() &&
        std::equal(old.extents.begin() + 1, old.extents.end(), a.extents.begin() + 1)) {
      if (s.values[0] > firstExtent_[idx]) {
        widenings_.push_back({idx, old.extents[0], firstExtent_[idx]});
        old.extents[0] = a.extents[0];
        firstExtent_[idx] = s.values[0];
      }
      return old.name;
    }
  }
  std::string name = base;
  for (int k = 2; byName_.count(name) || tu_.macros.count(name); ++k)
    name = fmt::format("{}_{}", base, k);
  a.name = name;
  if (!s.origin.empty())
    a.comments.trailing = s.origin;
  auto sm = tu_.opts.samples.find(s.decl->getName().str());
  if (sm != tu_.opts.samples.end()) {
    a.sampleFile = sm->second; // made relative to the C file by the driver
    tu_.usedSamples.insert(sm->first);
  }
  byName_[name] = arrays.size();
  byDecl_[s.decl].push_back(arrays.size());
  decls_.push_back(s.decl);
  firstExtent_.push_back(s.values.empty() ? 0 : s.values[0]);
  arrays.push_back(std::move(a));
  return name;
}

std::vector<skeleton::Array> FileAssembler::arraysInSourceOrder() const {
  std::vector<size_t> idx(arrays.size());
  for (size_t i = 0; i < idx.size(); ++i)
    idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (decls_[a] == decls_[b])
      return false;
    return tu_.sm.isBeforeInTranslationUnit(decls_[a]->getLocation(), decls_[b]->getLocation());
  });
  std::vector<skeleton::Array> out;
  for (size_t i : idx)
    out.push_back(arrays[i]);
  return out;
}

const clang::VarDecl *FileAssembler::declOf(const std::string &name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : decls_[it->second];
}

std::vector<std::string> FileAssembler::namesOf(const clang::VarDecl *d) const {
  std::vector<std::string> out;
  auto it = byDecl_.find(d);
  if (it != byDecl_.end())
    for (size_t i : it->second)
      out.push_back(arrays[i].name);
  return out;
}

void FileAssembler::rollback(Mark mark) {
  while (widenings_.size() > mark.widenings) {
    const Widening &w = widenings_.back();
    arrays[w.index].extents[0] = w.extent;
    firstExtent_[w.index] = w.value;
    widenings_.pop_back();
  }
  while (arrays.size() > mark.arrays) {
    size_t idx = arrays.size() - 1;
    byName_.erase(arrays[idx].name);
    auto &v = byDecl_[decls_[idx]];
    v.erase(std::remove(v.begin(), v.end(), idx), v.end());
    arrays.pop_back();
    decls_.pop_back();
    firstExtent_.pop_back();
  }
}

// ---------------------------------------------------------------------------
// HostProgram

void HostProgram::noteHost(const clang::Stmt *s) {
  auto sc = hostScalarTouches(s);
  if (!sc.empty() && pendingScalars_.empty())
    pendingScalarLoc_ = s->getBeginLoc();
  for (const auto &[v, w] : sc)
    pendingScalars_[v] = pendingScalars_[v] || w;
  auto t = hostTouches(s);
  if (t.empty())
    return;
  if (pending_.empty())
    pendingLoc_ = s->getBeginLoc();
  for (const auto &[v, w] : t)
    pending_[v] = pending_[v] || w;
}

void HostProgram::flushHost() {
  if (pending_.empty() && pendingScalars_.empty())
    return;
  steps_.push_back({pending_, pendingScalars_, out_.kernels.size(), -1,
                    pending_.empty() ? pendingScalarLoc_ : pendingLoc_});
  pending_.clear();
  pendingScalars_.clear();
}

bool HostProgram::ownHostCodeSince(size_t firstStep) {
  for (size_t i = firstStep; i < steps_.size(); ++i)
    if (steps_[i].repeat < 0 && touchesAnArray(steps_[i]))
      return true;
  return false;
}

HostProgram::Saved HostProgram::save() const {
  return {pending_, pendingLoc_, pendingScalars_, pendingScalarLoc_, steps_};
}

void HostProgram::restore(const Saved &s) {
  pending_ = s.pending;
  pendingLoc_ = s.pendingLoc;
  pendingScalars_ = s.pendingScalars;
  pendingScalarLoc_ = s.pendingScalarLoc;
  steps_ = s.steps;
}

void HostProgram::inRepeat(size_t firstStep, int r) {
  for (size_t i = firstStep; i < steps_.size(); ++i)
    if (steps_[i].repeat < 0)
      steps_[i].repeat = r;
}

void HostProgram::finish(size_t first) {
  decideRoles(first);
  if (out_.kernels.size() > first) {
    addHostSteps(first);
    out_.functions.push_back(signature());
  }
}

void HostProgram::addHostSteps(size_t first) {
  std::set<std::string> names;
  for (size_t k = first; k < out_.kernels.size(); ++k)
    for (const auto &t : skeleton::memTouches(out_.kernels[k].body))
      names.insert(t.array);
  for (size_t k = first; k < out_.kernels.size(); ++k)
    for (const skeleton::Reduction &r : out_.kernels[k].reductions)
      names.insert(r.target);
  for (const RawHostStep &raw : steps_) {
    bool edge = raw.repeat < 0 && (raw.beforeKernel == first || raw.beforeKernel == out_.kernels.size());
    std::map<std::string, bool> arrays; // skeleton name -> written
    for (const auto &[v, w] : raw.touches) {
      for (const clang::VarDecl *m : mayHold(v))
        for (const std::string &n : out_.namesOf(m))
          if (names.count(n) && !(edge && !out_.roles[n].deviceOwned))
            arrays[n] = arrays[n] || w;
    }
    for (const auto &[v, w] : raw.scalars) // a reduction's result: a one-element array
      for (const std::string &n : out_.namesOf(v))
        if (names.count(n))
          arrays[n] = arrays[n] || w;
    std::vector<std::string> reads, writes;
    for (const auto &[n, w] : arrays)
      (w ? writes : reads).push_back(n);
    for (int w = 0; w < 2; ++w) {
      std::vector<std::string> &list = w ? writes : reads;
      if (list.empty())
        continue;
      skeleton::HostStep h;
      h.writes = w == 1;
      h.arrays = list;
      h.arrayLocs.assign(list.size(), tu_.position(raw.loc));
      h.beforeKernel = raw.beforeKernel;
      h.repeat = raw.repeat;
      h.loc = tu_.position(raw.loc);
      h.comments.leading.push_back(fmt::format("// from {}:{}: host code {} {}", tu_.fileName,
                                               tu_.line(raw.loc), w ? "updates" : "reads",
                                               list.size() == 1 ? "this array" : "these arrays"));
      out_.hostSteps.push_back(std::move(h));
      if (raw.repeat >= 0)
        out_.repeats[static_cast<size_t>(raw.repeat)].hostSteps.push_back(out_.hostSteps.size() - 1);
      out_.programMarks = true;
    }
  }
  steps_.clear();
}

CFunction HostProgram::signature() const {
  CFunction cf;
  cf.name = fn_->getNameAsString();
  cf.loc = tu_.position(fn_->getLocation());
  cf.openmp = containsOpenMP(fn_->getBody());
  for (const clang::ParmVarDecl *p : fn_->parameters()) {
    CParam cp;
    cp.name = p->getName().str();
    clang::QualType t = p->getType().getCanonicalType();
    if (t->isPointerType()) {
      clang::QualType e = tu_.ast.getBaseElementType(t->getPointeeType()).getUnqualifiedType();
      if (e->isIntegralOrEnumerationType() || e->isRealFloatingType()) {
        cp.kind = CParam::Kind::Buffer;
        cp.elemType = e.getAsString();
        cp.elemFloating = e->isRealFloatingType();
        cp.arrays = out_.namesOf(p);
      } else {
        cp.why = fmt::format("a pointer to '{}'", e.getAsString());
      }
    } else if (t->isIntegralOrEnumerationType()) {
      cp.kind = CParam::Kind::Integer;
      cp.value = tu_.scalarOption(cp.name);
      if (!cp.value)
        if (auto a = tu_.callValues.valueOf(p))
          cp.value = a->value;
    } else if (t->isRealFloatingType()) {
      cp.kind = CParam::Kind::Floating;
    } else {
      cp.why = fmt::format("of type '{}'", t.getAsString());
    }
    cf.params.push_back(std::move(cp));
  }
  return cf;
}

bool HostProgram::containsOpenMP(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::OMPExecutableDirective>(s))
    return true;
  for (const clang::Stmt *c : s->children())
    if (containsOpenMP(c))
      return true;
  return false;
}

bool HostProgram::touchesAnArray(const RawHostStep &raw) {
  for (const auto &[v, w] : raw.touches)
    for (const clang::VarDecl *m : mayHold(v))
      if (!out_.namesOf(m).empty())
        return true;
  return false;
}

std::vector<const clang::VarDecl *> HostProgram::mayHold(const clang::VarDecl *v) {
  if (!aliases_)
    aliases_ = hostAliases(fn_);
  auto it = aliases_->find(v);
  return it != aliases_->end() ? it->second : std::vector<const clang::VarDecl *>{v};
}

void HostProgram::decideRoles(size_t first) {
  std::set<std::string> names;
  for (size_t k = first; k < out_.kernels.size(); ++k)
    for (const auto &t : skeleton::memTouches(out_.kernels[k].body))
      names.insert(t.array);
  for (size_t k = first; k < out_.kernels.size(); ++k)
    for (const skeleton::Reduction &r : out_.kernels[k].reductions)
      names.insert(r.target);
  auto roles = bufferRoles(fn_);
  std::optional<std::set<std::string>> outs; // C names the pragma keeps
  clang::SourceRange body = fn_->getBody()->getSourceRange();
  unsigned b = tu_.sm.getFileOffset(tu_.sm.getExpansionLoc(body.getBegin()));
  unsigned e = tu_.sm.getFileOffset(tu_.sm.getExpansionLoc(body.getEnd()));
  std::vector<std::pair<std::string, clang::SourceLocation>> named;
  for (const PragmaRecord &r : tu_.pragmas)
    for (const PragmaClause &c : r.clauses)
      if (c.name == "out" && r.beginOffset > b && r.beginOffset < e) {
        if (!outs)
          outs.emplace();
        for (const auto &n : c.names) {
          outs->insert(n.first);
          named.push_back(n);
        }
      }
  if (outs) {
    out_.programMarks = true;
    for (const auto &[n, loc] : named) {
      bool known = std::any_of(names.begin(), names.end(), [&](const std::string &a) {
        const clang::VarDecl *d = out_.declOf(a);
        return d && d->getName() == n;
      });
      if (!known)
        out_.warnings.push_back(tu_.warning(
            loc, fmt::format("'#pragma skelcast out': no array '{}' in the kernels of '{}'", n,
                             fn_->getNameAsString())));
    }
  }
  for (const std::string &a : names) {
    const clang::VarDecl *d = out_.declOf(a);
    FileAssembler::HostRole hr;
    if (d && !d->getType()->isPointerType() && !d->getType()->isArrayType()) {
      // a local scalar a kernel reduces into: its one element lives on the device
      hr.deviceOwned = true;
      hr.why = "the reduction's result: one element on the device";
    } else if (auto it = d ? roles.find(d) : roles.end(); it != roles.end()) {
      hr.deviceOwned = it->second.deviceOwned;
      hr.constInput = it->second.constInput;
      hr.why = it->second.why;
      std::vector<std::string> pair;
      for (const clang::VarDecl *o : it->second.swappedWith)
        for (const std::string &n : out_.namesOf(o))
          if (names.count(n))
            pair.push_back("'" + n + "'");
      if (!pair.empty()) {
        std::string list;
        for (size_t i = 0; i < pair.size(); ++i)
          list += (i ? ", " : "") + pair[i];
        hr.why += "; swapped with " + list + " (one buffer pair)";
      }
    } else {
      hr.why = "a global: the host's";
    }
    if (outs)
      hr.outAllowed = d && outs->count(d->getName().str());
    out_.programMarks = out_.programMarks || hr.deviceOwned;
    out_.roles[a] = hr;
  }
}

} // namespace skelcast::frontend
