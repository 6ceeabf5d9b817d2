// The driver: compile the file with Clang (LibTooling's ToolInvocation, our
// own CompilerInstance so that every message goes to the stream we were
// given), collect `#pragma skelcast` lines with a PragmaHandler, then port the
// nests of each function and assemble one SkeletonFile.
#include "skelcast/frontend/Skeletonizer.h"

#include "ClangNodes.h"
#include "FileAssembler.h"
#include "InlineCalls.h"
#include "LoopPointers.h"
#include "NestAst.h"
#include "NestFinder.h"
#include "StructFields.h"
#include "TUContext.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"
#include "skelcast/support/SourceFiles.h"
#include "skelcast/support/TextFile.h"

#include <cstdint>
#include <clang/AST/ASTConsumer.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Pragma.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_os_ostream.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <ostream>

namespace skelcast::frontend {

using skeleton::Expr;

namespace {

/// What one run shares between the driver and the Clang callbacks.
struct RunState {
  const SkeletonizeOptions &opts;
  std::string userPath;
  std::ostream &diag;
  std::vector<PragmaRecord> pragmas;
  std::vector<std::pair<clang::SourceLocation, std::string>> pragmaProblems;
  std::optional<SkeletonizeResult> result;
  std::exception_ptr error;
  const AstCallback *callback = nullptr; ///< skeletonizeWithAst
  std::vector<NestAst> nests;            ///< per kernel, for the callback
};

// ---------------------------------------------------------------------------
// #pragma skelcast name(value) ...

class SkelcastPragmaHandler : public clang::PragmaHandler {
public:
  explicit SkelcastPragmaHandler(RunState &st) : clang::PragmaHandler("skelcast"), st_(st) {}

  void HandlePragma(clang::Preprocessor &pp, clang::PragmaIntroducer intro,
                    clang::Token &) override {
    clang::SourceManager &sm = pp.getSourceManager();
    PragmaRecord rec;
    rec.loc = intro.Loc;
    clang::Token tok;
    pp.Lex(tok);
    bool bad = false;
    while (tok.isNot(clang::tok::eod)) {
      if (bad) {
        pp.Lex(tok);
        continue;
      }
      if (!tok.is(clang::tok::identifier)) {
        st_.pragmaProblems.emplace_back(tok.getLocation(),
                                        "'#pragma skelcast' expects 'prob(P)', 'trip(N)', 'out(a, ...)' or 'independent'");
        bad = true;
        continue;
      }
      PragmaClause c;
      c.name = tok.getIdentifierInfo()->getName().str();
      c.loc = tok.getLocation();
      pp.Lex(tok);
      if (c.name == "independent") {
        // `independent`: the programmer's word that the loop's iterations are
        // independent, as an OpenMP loop directive gives it
        rec.clauses.push_back(c);
        continue;
      }
      if (c.name == "out") {
        // `out(a, b, ...)`: the arrays the host reads back
        bool ok = tok.is(clang::tok::l_paren);
        if (ok)
          pp.Lex(tok);
        while (ok && tok.is(clang::tok::identifier)) {
          c.names.push_back({tok.getIdentifierInfo()->getName().str(), tok.getLocation()});
          pp.Lex(tok);
          if (tok.is(clang::tok::comma))
            pp.Lex(tok);
          else
            break;
        }
        ok = ok && !c.names.empty() && tok.is(clang::tok::r_paren);
        if (!ok) {
          st_.pragmaProblems.emplace_back(
              c.loc, "'#pragma skelcast out' expects array names in parentheses: out(a, b)");
          bad = true;
          continue;
        }
        pp.Lex(tok);
        rec.clauses.push_back(c);
        continue;
      }
      std::string value;
      if (tok.is(clang::tok::l_paren)) {
        pp.Lex(tok);
        if (tok.is(clang::tok::numeric_constant)) {
          value = pp.getSpelling(tok);
          pp.Lex(tok);
        }
        if (tok.is(clang::tok::r_paren))
          pp.Lex(tok);
        else
          value.clear();
      }
      char *end = nullptr;
      double v = value.empty() ? 0 : std::strtod(value.c_str(), &end);
      if (value.empty() || !end || *end != '\0') {
        st_.pragmaProblems.emplace_back(
            c.loc, fmt::format("'#pragma skelcast {}' expects a number in parentheses", c.name));
        bad = true;
        continue;
      }
      if (c.name == "prob") {
        if (!(v >= 0 && v <= 1)) {
          st_.pragmaProblems.emplace_back(
              c.loc, fmt::format("'#pragma skelcast prob({})': a probability is within [0, 1]",
                                 value));
          continue;
        }
      } else if (c.name == "trip") {
        if (!(v >= 0) || v != static_cast<double>(static_cast<int64_t>(v))) {
          st_.pragmaProblems.emplace_back(
              c.loc,
              fmt::format("'#pragma skelcast trip({})': a trip count is a whole number", value));
          continue;
        }
      } else {
        st_.pragmaProblems.emplace_back(
            c.loc, fmt::format("unknown '#pragma skelcast {}' ignored (known: prob, trip, out, independent)",
                               c.name));
        continue;
      }
      c.value = v;
      rec.clauses.push_back(c);
    }
    clang::SourceLocation b = sm.getExpansionLoc(intro.Loc);
    clang::SourceLocation e = sm.getExpansionLoc(tok.getLocation());
    if (!sm.isInMainFile(b))
      return;
    rec.beginOffset = sm.getFileOffset(b);
    rec.endOffset = sm.getFileOffset(e);
    st_.pragmas.push_back(std::move(rec));
  }

private:
  RunState &st_;
};

// ---------------------------------------------------------------------------
// assembling the file

void renameExpr(Expr &e, const std::string &from, const std::string &to, bool arrays) {
  if (e.kind == Expr::Kind::Name && !arrays && e.name == from)
    e.name = to;
  if (e.kind == Expr::Kind::Access && arrays && e.name == from)
    e.name = to;
  for (auto &a : e.args)
    renameExpr(a, from, to, arrays);
}

void renameStmts(std::vector<skeleton::Stmt> &body, const std::string &from,
                 const std::string &to, bool arrays) {
  for (auto &s : body) {
    switch (s.kind) {
    case skeleton::Stmt::Kind::Comp: break;
    case skeleton::Stmt::Kind::Mem:
      if (arrays && s.mem.array == from)
        s.mem.array = to;
      for (auto &i : s.mem.index)
        renameExpr(i, from, to, arrays);
      break;
    case skeleton::Stmt::Kind::Bind:
      if (!arrays && s.bindName == from)
        s.bindName = to;
      renameExpr(s.bindValue, from, to, arrays);
      break;
    case skeleton::Stmt::Kind::Loop:
      if (!arrays && s.loop.index == from)
        s.loop.index = to;
      renameExpr(s.loop.lo, from, to, arrays);
      renameExpr(s.loop.hi, from, to, arrays);
      if (s.loop.step)
        renameExpr(*s.loop.step, from, to, arrays);
      renameStmts(s.loop.body, from, to, arrays);
      break;
    case skeleton::Stmt::Kind::Branch:
      renameStmts(s.branch.thenBody, from, to, arrays);
      renameStmts(s.branch.elseBody, from, to, arrays);
      break;
    }
  }
}

void localNames(const std::vector<skeleton::Stmt> &body, std::set<std::string> &out) {
  for (const auto &s : body) {
    if (s.kind == skeleton::Stmt::Kind::Bind)
      out.insert(s.bindName);
    if (s.kind == skeleton::Stmt::Kind::Loop) {
      out.insert(s.loop.index);
      localNames(s.loop.body, out);
    }
    if (s.kind == skeleton::Stmt::Kind::Branch) {
      localNames(s.branch.thenBody, out);
      localNames(s.branch.elseBody, out);
    }
  }
}

std::string freshName(const std::string &base, const std::set<std::string> &taken) {
  for (int k = 2;; ++k) {
    std::string n = fmt::format("{}_{}", base, k);
    if (!taken.count(n))
      return n;
  }
}

/// Sample files are written relative to the C file, as the skeleton's
/// `hints<sample=...>` are relative to the skeleton.
std::string relativeToFile(const std::string &sample, const std::string &cfile) {
  namespace fs = std::filesystem;
  fs::path s(sample);
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(cfile), ec).parent_path();
  fs::path abs = fs::absolute(s, ec);
  if (ec)
    return sample;
  fs::path rel = abs.lexically_normal().lexically_relative(dir.lexically_normal());
  return rel.empty() ? sample : rel.generic_string();
}

Warning fileWarning(const std::string &path, std::string message) {
  Warning w;
  w.loc.file = path;
  w.message = std::move(message);
  return w;
}

SkeletonizeResult assemble(TUContext &tu, FileAssembler &fa, std::vector<Warning> warnings,
                           std::vector<NestAst> &nests) {
  SkeletonizeResult res;
  fa.origins.resize(fa.kernels.size());
  nests = fa.origins;
  skeleton::SkeletonFile &f = res.file;
  f.path = tu.userPath;

  // macros in definition order
  std::vector<MacroUse> macros;
  for (const auto &[n, m] : tu.macros)
    macros.push_back(m);
  std::sort(macros.begin(), macros.end(), [](const MacroUse &a, const MacroUse &b) {
    if (a.group != b.group)
      return a.group < b.group;
    if (a.offset != b.offset)
      return a.offset < b.offset;
    return a.seq < b.seq;
  });
  for (const MacroUse &m : macros) {
    skeleton::Macro sm;
    sm.name = m.name;
    sm.value = Expr::lit(m.value);
    sm.comments.trailing = m.comment;
    f.macros.push_back(std::move(sm));
  }
  std::set<std::string> globals;
  for (const auto &m : f.macros)
    globals.insert(m.name);

  // host marks (docs/skeletonizer.md, "Programs"): written for a program (a
  // repeat, a device temporary, `#pragma skelcast out`); elsewhere the
  // dataflow rule of unmarked files gives the same transfers
  if (fa.programMarks || !fa.repeats.empty())
    for (auto &a : fa.arrays) {
      std::optional<bool> firstIsStore;
      bool written = false;
      for (const auto &k : fa.kernels)
        for (const auto &[name, st] : skeleton::memTouches(k.body))
          if (name == a.name) {
            if (!firstIsStore)
              firstIsStore = st;
            written = written || st;
          }
      auto it = fa.roles.find(a.name);
      FileAssembler::HostRole role = it == fa.roles.end() ? FileAssembler::HostRole{} : it->second;
      bool in = !role.deviceOwned && (role.constInput || (firstIsStore && !*firstIsStore));
      bool out = !role.deviceOwned && written && role.outAllowed;
      a.mark = in && out ? skeleton::HostMark::InOut
               : in      ? skeleton::HostMark::In
               : out     ? skeleton::HostMark::Out
                         : skeleton::HostMark::None;
      std::string why = role.why;
      if (!role.deviceOwned && !role.outAllowed && written)
        why += "; not read back ('#pragma skelcast out')";
      if (!why.empty())
        a.comments.trailing += (a.comments.trailing.empty() ? "// " : "; ") + why;
    }

  // arrays; a name taken by a macro moves aside
  f.arrays = fa.arraysInSourceOrder();
  f.kernels = fa.kernels;
  f.hostSteps = fa.hostSteps;
  res.functions = fa.functions;
  for (auto &a : f.arrays) {
    if (globals.count(a.name)) {
      std::string to = freshName(a.name, globals);
      for (auto &k : f.kernels) {
        renameStmts(k.body, a.name, to, true);
        for (auto &r : k.reductions)
          if (r.target == a.name)
            r.target = to;
      }
      for (auto &fn : res.functions)
        for (auto &p : fn.params)
          std::replace(p.arrays.begin(), p.arrays.end(), a.name, to);
      for (auto &h : f.hostSteps)
        std::replace(h.arrays.begin(), h.arrays.end(), a.name, to);
      for (auto &n : nests)
        if (auto it = n.arrays.find(a.name); it != n.arrays.end()) {
          const clang::VarDecl *d = it->second;
          n.arrays.erase(it);
          n.arrays[to] = d;
        }
      a.name = to;
    }
    globals.insert(a.name);
  }
  for (auto &a : f.arrays)
    if (a.sampleFile)
      a.sampleFile = relativeToFile(*a.sampleFile, tu.userPath);
  for (const auto &[name, file] : tu.opts.samples)
    if (!tu.usedSamples.count(name))
      warnings.push_back(
          fileWarning(tu.userPath, fmt::format("--sample {}: no array '{}' in the skeletons", name, name)));

  // kernels: unique names, local names clear of the global ones
  for (auto &k : f.kernels) {
    if (globals.count(k.name) || skeleton::isKeyword(k.name)) {
      std::string to = freshName(k.name, globals);
      k.name = to;
    }
    globals.insert(k.name);
  }
  for (auto &k : f.kernels) {
    std::set<std::string> locals(k.indices.begin(), k.indices.end());
    localNames(k.body, locals);
    for (const std::string &n : std::set<std::string>(locals)) {
      if (!globals.count(n))
        continue;
      std::set<std::string> taken = globals;
      taken.insert(locals.begin(), locals.end());
      std::string to = freshName(n, taken);
      for (auto &i : k.indices)
        if (i == n)
          i = to;
      renameStmts(k.body, n, to, false);
      locals.insert(to);
    }
  }

  for (size_t i = 0; i < f.macros.size(); ++i)
    f.order.push_back({skeleton::Item::Kind::Macro, i});
  for (size_t i = 0; i < f.arrays.size(); ++i)
    f.order.push_back({skeleton::Item::Kind::Array, i});
  // kernels in order; those of a time-step loop inside its repeat; host steps
  // outside repeats before the kernel they precede
  f.repeats = fa.repeats;
  size_t nextHost = 0;
  auto hostsBefore = [&](size_t kernel) {
    for (; nextHost < f.hostSteps.size(); ++nextHost) {
      if (f.hostSteps[nextHost].beforeKernel > kernel)
        break;
      if (f.hostSteps[nextHost].repeat < 0)
        f.order.push_back({skeleton::Item::Kind::Host, nextHost});
    }
  };
  for (size_t i = 0; i < f.kernels.size(); ++i) {
    hostsBefore(i);
    auto r = std::find_if(f.repeats.begin(), f.repeats.end(), [&](const skeleton::Repeat &x) {
      return std::find(x.kernels.begin(), x.kernels.end(), i) != x.kernels.end();
    });
    if (r == f.repeats.end())
      f.order.push_back({skeleton::Item::Kind::Kernel, i});
    else if (r->kernels.front() == i)
      f.order.push_back({skeleton::Item::Kind::Repeat, static_cast<size_t>(r - f.repeats.begin())});
  }
  hostsBefore(SIZE_MAX);
  std::string head = fmt::format("// skeletons of {}, written by 'skelcast skeletonize'", tu.fileName);
  if (!f.macros.empty())
    f.macros[0].comments.leading.insert(f.macros[0].comments.leading.begin(), head);
  else if (!f.arrays.empty())
    f.arrays[0].comments.leading.insert(f.arrays[0].comments.leading.begin(), head);
  else if (!f.kernels.empty())
    f.kernels[0].comments.leading.insert(f.kernels[0].comments.leading.begin(), head);

  // options that matched nothing
  for (const auto &[name, v] : tu.opts.trips)
    if (!tu.usedTrips.count(name))
      warnings.push_back(fileWarning(
          tu.userPath,
          fmt::format("--trip {}: no loop '{}' with bounds that depend on data", name, name)));
  for (const auto &[name, v] : tu.opts.extents)
    if (!tu.usedExtents.count(name))
      warnings.push_back(fileWarning(
          tu.userPath, fmt::format("--extent {}: no array or scalar '{}' used", name, name)));
  std::stable_sort(warnings.begin(), warnings.end(), [](const Warning &a, const Warning &b) {
    if (a.loc.file != b.loc.file)
      return false;
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
  res.warnings = std::move(warnings);
  return res;
}

/// Pragmas that stand before no statement they could describe.
class PragmaTargets : public clang::RecursiveASTVisitor<PragmaTargets> {
public:
  explicit PragmaTargets(TUContext &tu) : tu_(tu) {}
  bool VisitIfStmt(clang::IfStmt *s) {
    note(s, "prob");
    return true;
  }
  bool VisitForStmt(clang::ForStmt *s) {
    note(s, "trip");
    note(s, "independent");
    return true;
  }
  std::vector<Warning> problems() const {
    std::vector<Warning> out;
    for (const PragmaRecord &r : tu_.pragmas)
      for (const PragmaClause &c : r.clauses) {
        if (c.name == "out")
          continue; // belongs to a function body, checked by the NestFinder
        auto it = seen_.find(&r);
        if (it == seen_.end())
          out.push_back(tu_.warning(c.loc, fmt::format("'#pragma skelcast {}' ignored: no "
                                                       "'if' or 'for' follows it",
                                                       c.name)));
        else if (!it->second.count(c.name))
          out.push_back(tu_.warning(
              c.loc, fmt::format("'#pragma skelcast {}' ignored: it applies to {}", c.name,
                                 c.name == "prob" ? "an 'if'" : "a 'for'")));
      }
    return out;
  }

private:
  void note(clang::Stmt *s, const char *clause) {
    if (const PragmaRecord *r = tu_.pragmaBefore(s))
      seen_[r].insert(clause);
  }
  TUContext &tu_;
  std::map<const PragmaRecord *, std::set<std::string>> seen_;
};

bool hasLoop(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) ||
      llvm::isa<clang::DoStmt>(s))
    return true;
  if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s))
    return hasLoop(directiveBody(d)); // an OpenMP loop's children hide its 'for'
  for (const clang::Stmt *c : s->children())
    if (hasLoop(c))
      return true;
  return false;
}

/// The functions with a body in the main file, in source order: at the top
/// level, in `extern "C"` blocks, namespaces and classes (C-style C++).
/// A function template is analysed through the instantiations the file makes
/// of it (cfd's `copy<float>(dst, src, n)`: its body with `T` = `float`), each
/// named by its template arguments; one never instantiated is skipped with a
/// warning when it holds loops, its body having no types.
std::vector<const clang::FunctionDecl *> functionsOf(TUContext &tu, const clang::DeclContext *dc,
                                                     std::vector<Warning> &warnings) {
  std::vector<const clang::FunctionDecl *> out;
  for (const clang::Decl *d : dc->decls()) {
    if (!tu.sm.isInMainFile(tu.sm.getExpansionLoc(d->getLocation())))
      continue;
    if (auto *ft = llvm::dyn_cast<clang::FunctionTemplateDecl>(d)) {
      const clang::FunctionDecl *fd = ft->getTemplatedDecl();
      if (!fd->doesThisDeclarationHaveABody() || !hasLoop(fd->getBody()))
        continue;
      size_t before = out.size();
      for (const clang::FunctionDecl *spec : ft->specializations())
        if (spec->hasBody() && spec->getTemplateSpecializationKind() ==
                                   clang::TSK_ImplicitInstantiation)
          out.push_back(spec);
      if (out.size() == before)
        warnings.push_back(tu.warning(
            fd->getLocation(),
            fmt::format("function template '{}' skipped: the file never instantiates it, and a "
                        "template's body has no types until it is (write the loop in a plain "
                        "function, or call the template, to project it)",
                        fd->getNameAsString())));
      continue;
    }
    if (auto *ct = llvm::dyn_cast<clang::ClassTemplateDecl>(d)) {
      warnings.push_back(tu.warning(
          ct->getLocation(), fmt::format("class template '{}' skipped: templates are not analysed",
                                         ct->getNameAsString())));
      continue;
    }
    if (auto *fd = llvm::dyn_cast<clang::FunctionDecl>(d)) {
      if (fd->doesThisDeclarationHaveABody() && !fd->isDependentContext())
        out.push_back(fd);
      continue;
    }
    if (llvm::isa<clang::LinkageSpecDecl>(d) || llvm::isa<clang::NamespaceDecl>(d) ||
        llvm::isa<clang::CXXRecordDecl>(d)) {
      auto inner = functionsOf(tu, llvm::cast<clang::DeclContext>(d), warnings);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  }
  return out;
}

/// The sizes the refused loops lack, asked for once: every name whose
/// refusal says "give it with --extent NAME=VALUE", with the loops it stopped.
/// nullopt when no loop was refused for a size.
std::optional<std::string> missingSizes(const std::vector<Warning> &warnings) {
  static const std::string kAsk = "(give it with --extent ";
  std::map<std::string, std::vector<std::string>> uses; // name -> loops refused
  for (const Warning &w : warnings) {
    size_t at = w.message.find(kAsk);
    if (at == std::string::npos)
      continue;
    size_t b = at + kAsk.size(), e = w.message.find("=VALUE)", b);
    if (e == std::string::npos)
      continue;
    uses[w.message.substr(b, e - b)].push_back(
        fmt::format("{}:{}", w.loc.line, w.loc.col));
  }
  if (uses.empty())
    return std::nullopt;
  std::string names, flags;
  for (const auto &[name, at] : uses) {
    names += fmt::format("{}'{}' (the loop{} at {})", names.empty() ? "" : ", ", name,
                         at.size() > 1 ? "s" : "", fmt::join(at, ", "));
    flags += fmt::format(" --extent {}=VALUE", name);
  }
  return fmt::format("sizes not known at compile time: {}; give them with{}", names, flags);
}

SkeletonizeResult skeletonizeAST(clang::ASTContext &ctx, clang::Preprocessor &pp, RunState &st) {
  TUContext tu(ctx, pp, st.opts, st.userPath);
  tu.pragmas = st.pragmas;
  std::vector<Warning> warnings;
  {
    // step 0: calls of small functions that take pointers, inlined into the
    // loops that make them, before anything reads the loops
    std::vector<Warning> again; // functionsOf's warnings come with the walk below
    auto fns = functionsOf(tu, ctx.getTranslationUnitDecl(), again);
    inlinePointerCalls(tu, fns);
    // step 0b: scalar fields of structs read as values (`dim.number_boxes`)
    // become variables named after them, their values from the function or --extent
    nameStructFields(tu, fns);
    // step 0c: pointers set in a loop's body into an array (`rA = &rv[first_i]`)
    // become that array's accesses at the offset (`rA[i]` is `rv[first_i + i]`)
    replaceLoopPointers(tu, fns);
  }
  for (const auto &[loc, msg] : st.pragmaProblems)
    warnings.push_back(tu.warning(loc, msg));
  {
    PragmaTargets pt(tu);
    pt.TraverseDecl(ctx.getTranslationUnitDecl());
    for (auto &w : pt.problems())
      warnings.push_back(std::move(w));
  }
  FileAssembler fa(tu);
  bool found = false;
  for (const clang::FunctionDecl *fd : functionsOf(tu, ctx.getTranslationUnitDecl(), warnings)) {
    if (!st.opts.function.empty() && fd->getNameAsString() != st.opts.function)
      continue;
    found = true;
    processFunction(tu, fa, fd);
  }
  if (!st.opts.function.empty() && !found)
    throw InputError({st.userPath, 0, 0},
                     fmt::format("no function '{}' with a body in this file", st.opts.function));
  for (auto &w : fa.warnings)
    warnings.push_back(std::move(w));
  for (const auto &[fd, params] : tu.assumedDistinct) {
    std::vector<const clang::ParmVarDecl *> ps(params.begin(), params.end());
    std::sort(ps.begin(), ps.end(), [](auto *a, auto *b) {
      return a->getFunctionScopeIndex() < b->getFunctionScopeIndex();
    });
    std::vector<std::string> names;
    for (auto *p : ps)
      names.push_back(p->getName().str());
    warnings.push_back(tu.warning(
        fd->getLocation(),
        names.size() == 1
            ? fmt::format("'{}' assumes its pointer parameter '{}' does not overlap the arrays "
                          "it is used with (a port must guarantee it; --assume-aliasing refuses "
                          "instead)",
                          fd->getName().str(), names[0])
            : fmt::format("'{}' assumes its pointer parameters '{}' do not overlap (a port must "
                          "guarantee it; --assume-aliasing refuses instead)",
                          fd->getName().str(), fmt::join(names, "', '"))));
  }
  std::optional<std::string> sizes = missingSizes(warnings);
  if (sizes && !fa.kernels.empty())
    warnings.push_back(Warning{{st.userPath, 0, 0}, *sizes});
  if (fa.kernels.empty()) {
    std::stable_sort(warnings.begin(), warnings.end(), [](const Warning &a, const Warning &b) {
      return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
    });
    for (const auto &w : warnings)
      st.diag << (st.opts.renderWarning ? st.opts.renderWarning(w) : w.str() + "\n");
    std::string none = st.opts.function.empty()
                           ? "no loop nest that can be ported to a GPU"
                           : fmt::format("no loop nest of '{}' can be ported to a GPU",
                                         st.opts.function);
    throw InputError({st.userPath, 0, 0}, sizes ? none + "; " + *sizes : none);
  }
  return assemble(tu, fa, std::move(warnings), st.nests);
}

void selfCheck(const SkeletonizeResult &r);

class Consumer : public clang::ASTConsumer {
public:
  Consumer(RunState &st, clang::Preprocessor &pp) : st_(st), pp_(pp) {}
  void HandleTranslationUnit(clang::ASTContext &ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred())
      return;
    try {
      st_.result = skeletonizeAST(ctx, pp_, st_);
      if (st_.callback) {
        selfCheck(*st_.result);
        (*st_.callback)(*st_.result, st_.nests, ctx);
      }
    } catch (...) {
      st_.error = std::current_exception();
    }
  }

private:
  RunState &st_;
  clang::Preprocessor &pp_;
};

class Action : public clang::ASTFrontendAction {
public:
  explicit Action(RunState &st) : st_(st) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci,
                                                        llvm::StringRef) override {
    ci.getPreprocessor().AddPragmaHandler(new SkelcastPragmaHandler(st_));
    return std::make_unique<Consumer>(st_, ci.getPreprocessor());
  }

private:
  RunState &st_;
};

class ToolAct : public clang::tooling::ToolAction {
public:
  ToolAct(RunState &st, llvm::raw_ostream &os) : st_(st), os_(os) {}
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> inv, clang::FileManager *files,
                     std::shared_ptr<clang::PCHContainerOperations> pch,
                     clang::DiagnosticConsumer *diags) override {
    clang::CompilerInstance ci(std::move(pch));
    ci.setInvocation(std::move(inv));
    ci.setFileManager(files);
    ci.createDiagnostics(diags, /*ShouldOwnClient=*/false);
    if (!ci.hasDiagnostics())
      return false;
    ci.setVerboseOutputStream(os_);
    ci.createSourceManager(*files);
    Action act(st_);
    bool ok = ci.ExecuteAction(act);
    files->clearStatCache();
    return ok;
  }

private:
  RunState &st_;
  llvm::raw_ostream &os_;
};

/// Pre-C99 code as GCC 12 takes it: implicit `int` and implicit function
/// declarations (and the conversions they bring) are warnings, not errors as
/// in Clang 16 and later. Rodinia's backprop and nn need it.
const std::vector<std::string> kGccLeniency = {
    "-Wno-error=implicit-function-declaration", "-Wno-error=implicit-int",
    "-Wno-error=int-conversion", "-Wno-error=incompatible-pointer-types",
    "-Wno-error=incompatible-function-pointer-types", "-Wno-error=return-type"};

/// C++98 code as GCC takes it: a macro right after a string literal
/// (`"node (" fNID ")"` written without the spaces, mummergpu's `XPRINTF`) is a
/// warning, expanded as the macro it is, not C++11's error of an unknown
/// literal suffix.
const std::vector<std::string> kGccCxxLeniency = {"-Wno-error=reserved-user-defined-literal"};

SkeletonizeResult run(const std::string &path, const std::string *code,
                      const SkeletonizeOptions &opts, std::ostream &diagnostics,
                      const AstCallback *callback = nullptr) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string cwd = fs::current_path(ec).string();
  std::string workDir = cwd;
  std::vector<std::string> cmd;
  const std::vector<std::string> ours = {"-fopenmp",
                                         opts.colorDiagnostics ? "-fcolor-diagnostics"
                                                               : "-fno-color-diagnostics",
                                         std::string("-resource-dir=") +
                                             SKELCAST_CLANG_RESOURCE_DIR};
  if (!opts.compilationDbDir.empty()) {
    std::string err;
    auto db = clang::tooling::CompilationDatabase::loadFromDirectory(opts.compilationDbDir, err);
    if (!db)
      throw InputError({opts.compilationDbDir, 0, 0},
                       fmt::format("cannot load a compilation database: {}", err));
    std::string abs = fs::absolute(path, ec).lexically_normal().string();
    auto cmds = db->getCompileCommands(abs);
    if (cmds.empty())
      throw InputError({path, 0, 0}, fmt::format("no entry for this file in {}/compile_commands.json",
                                                 opts.compilationDbDir));
    clang::tooling::CompileCommand cc = cmds.front();
    workDir = cc.Directory;
    auto adjust = clang::tooling::combineAdjusters(
        clang::tooling::getClangStripOutputAdjuster(),
        clang::tooling::combineAdjusters(clang::tooling::getClangSyntaxOnlyAdjuster(),
                                         clang::tooling::getClangStripDependencyFileAdjuster()));
    cmd = adjust(cc.CommandLine, cc.Filename);
    std::vector<std::string> extra = ours;
    extra.insert(extra.end(), opts.clangArgs.begin(), opts.clangArgs.end());
    cmd.insert(cmd.begin() + 1, extra.begin(), extra.end());
  } else {
    cmd = {"clang", "-fsyntax-only", "-x", isCxxSource(path) ? "c++" : "c"};
    cmd.insert(cmd.end(), ours.begin(), ours.end());
    if (!isCxxSource(path))
      cmd.insert(cmd.end(), kGccLeniency.begin(), kGccLeniency.end());
    else
      cmd.insert(cmd.end(), kGccCxxLeniency.begin(), kGccCxxLeniency.end());
    cmd.insert(cmd.end(), opts.clangArgs.begin(), opts.clangArgs.end());
    cmd.push_back(path);
  }

  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay(
      new llvm::vfs::OverlayFileSystem(llvm::vfs::createPhysicalFileSystem()));
  if (code) {
    llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> mem(
        new llvm::vfs::InMemoryFileSystem);
    std::string abs = fs::path(path).is_absolute() ? path : (fs::path(cwd) / path).string();
    mem->addFile(abs, 0, llvm::MemoryBuffer::getMemBufferCopy(*code, abs));
    overlay->pushOverlay(mem);
  }
  overlay->setCurrentWorkingDirectory(workDir);
  llvm::IntrusiveRefCntPtr<clang::FileManager> files(
      new clang::FileManager(clang::FileSystemOptions(), overlay));

  llvm::raw_os_ostream os(diagnostics);
  if (opts.colorDiagnostics)
    os.enable_colors(true);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diagOpts(new clang::DiagnosticOptions());
  diagOpts->ShowColors = opts.colorDiagnostics;
  clang::TextDiagnosticPrinter printer(os, diagOpts.get());
  RunState st{opts, path, diagnostics, {}, {}, std::nullopt, nullptr, callback, {}};
  ToolAct act(st, os);
  clang::tooling::ToolInvocation inv(cmd, &act, files.get(),
                                     std::make_shared<clang::PCHContainerOperations>());
  inv.setDiagnosticConsumer(&printer);
  bool ok = inv.run();
  os.flush();
  if (st.error) {
    try {
      std::rethrow_exception(st.error);
    } catch (const InputError &) {
      throw;
    } catch (const std::bad_alloc &) {
      throw;
    } catch (const std::exception &e) {
      throw InputError({path, 0, 0}, fmt::format("internal error: {}; please report it", e.what()));
    }
  }
  if (!ok || printer.getNumErrors() > 0 || !st.result)
    throw InputError({path, 0, 0}, "the file does not compile (see Clang's messages above)");
  return std::move(*st.result);
}

/// A skeleton that fails its checks on a value (an extent that is not
/// positive, an array over 2^62 bytes) holds the user's sizes (`-D N=0`,
/// `--extent row=-5`), not a bug: the error names the array, its extents and
/// the values behind them, with where each came from (the macro's comment:
/// `-D`, `--extent`, a header).
std::optional<InputError> sizeError(const SkeletonizeResult &r, const InputError &e) {
  const std::string &m = e.message();
  if (m.find("must be positive") == std::string::npos &&
      m.find("more than 2^62") == std::string::npos)
    return std::nullopt;
  for (const skeleton::Array &a : r.file.arrays) {
    if (m.find("'" + a.name + "'") == std::string::npos)
      continue;
    std::set<std::string> names;
    std::function<void(const Expr &)> refs = [&](const Expr &x) {
      if (x.kind == Expr::Kind::Name)
        names.insert(x.name);
      for (const Expr &c : x.args)
        refs(c);
    };
    std::string dims;
    for (const Expr &x : a.extents) {
      refs(x);
      dims += "[" + skeleton::printExpr(x) + "]";
    }
    std::string values;
    for (const skeleton::Macro &mac : r.file.macros)
      if (names.count(mac.name)) {
        std::string from = mac.comments.trailing;
        if (from.rfind("// ", 0) == 0)
          from = from.substr(3);
        if (from == "-D")
          from = fmt::format("-D {}={}", mac.name, skeleton::printExpr(mac.value));
        values += fmt::format("{}{} = {}{}", values.empty() ? "" : ", ", mac.name,
                              skeleton::printExpr(mac.value),
                              from.empty() ? "" : " (" + from + ")");
      }
    return InputError({r.file.path, 0, 0},
                      fmt::format("array '{}' is {}{}{}: {}; give sizes that make every extent "
                                  "positive and the array fit",
                                  a.name, dims, values.empty() ? "" : " with ", values, m));
  }
  return std::nullopt;
}

/// The printed skeleton must parse back to the same IR (and its sample files
/// must fit the arrays they describe).
void selfCheck(const SkeletonizeResult &r) {
  std::string text = skeleton::printSkeleton(r.file);
  skeleton::SkeletonFile back;
  try {
    back = skeleton::parseSkeleton(text, r.file.path);
  } catch (const InputError &e) {
    if (e.loc().file != r.file.path)
      throw; // a sample file that does not fit
    if (auto user = sizeError(r, e))
      throw *user;
    throw InputError({r.file.path, 0, 0},
                     fmt::format("internal error: the skeleton written for this file does not "
                                 "parse ({}); please report it",
                                 e.what()));
  }
  if (!(back == r.file))
    throw InputError({r.file.path, 0, 0},
                     "internal error: the skeleton written for this file does not read back the "
                     "same; please report it");
}

} // namespace

SkeletonizeResult skeletonizeFile(const std::string &path, const SkeletonizeOptions &opts,
                                  std::ostream &diagnostics) {
  checkInputFile(path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) // a pipe: Clang reads only files
    throw InputError({path, 0, 0}, "is not a regular file");
  SkeletonizeResult r = run(path, nullptr, opts, diagnostics);
  selfCheck(r);
  return r;
}

SkeletonizeResult skeletonizeCode(const std::string &code, const std::string &path,
                                  const SkeletonizeOptions &opts, std::ostream &diagnostics) {
  SkeletonizeResult r = run(path, &code, opts, diagnostics);
  selfCheck(r);
  return r;
}

} // namespace skelcast::frontend

namespace skelcast::frontend {

SkeletonizeResult skeletonizeWithAst(const std::string &path, const SkeletonizeOptions &opts,
                                     std::ostream &diagnostics, const AstCallback &callback) {
  checkInputFile(path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError({path, 0, 0}, "is not a regular file");
  return run(path, nullptr, opts, diagnostics, &callback);
}

} // namespace skelcast::frontend
