#include "TUContext.h"
#include "skelcast/skeleton/Parser.h"

#include <clang/AST/Decl.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/MacroInfo.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace skelcast::frontend {

using skeleton::Expr;

TUContext::TUContext(clang::ASTContext &astCtx, clang::Preprocessor &preproc,
                     const SkeletonizeOptions &options, std::string path)
    : ast(astCtx), sm(astCtx.getSourceManager()), pp(preproc), lang(astCtx.getLangOpts()),
      opts(options), userPath(std::move(path)) {
  auto slash = userPath.find_last_of('/');
  fileName = slash == std::string::npos ? userPath : userPath.substr(slash + 1);
}

SourceLoc TUContext::position(clang::SourceLocation loc) const {
  if (loc.isInvalid())
    return {userPath, 0, 0};
  clang::SourceLocation e = sm.getExpansionLoc(loc);
  clang::PresumedLoc p = sm.getPresumedLoc(e);
  if (p.isInvalid())
    return {userPath, 0, 0};
  std::string file = sm.isInMainFile(e) ? userPath : std::string(p.getFilename());
  return {file, static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
}

unsigned TUContext::line(clang::SourceLocation loc) const {
  return static_cast<unsigned>(position(loc).line);
}

Warning TUContext::warning(clang::SourceLocation loc, std::string message) const {
  return Warning{position(loc), std::move(message)};
}

std::string TUContext::sourceText(clang::SourceRange range) const {
  clang::CharSourceRange r = sm.getExpansionRange(range);
  llvm::StringRef text = clang::Lexer::getSourceText(r, sm, lang);
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty())
      out += ' ';
    space = false;
    out += c;
  }
  return out;
}

namespace {

/// True when text[from, to) holds only whitespace, comments and `#` lines.
bool onlyTrivia(llvm::StringRef text, size_t from, size_t to) {
  size_t i = from;
  bool lineStart = true;
  while (i < to) {
    char c = text[i];
    if (c == '\n') {
      lineStart = true;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (text.substr(i).starts_with("//")) {
      while (i < to && text[i] != '\n')
        ++i;
    } else if (text.substr(i).starts_with("/*")) {
      size_t e = text.find("*/", i + 2);
      if (e == llvm::StringRef::npos || e + 2 > to)
        return false;
      i = e + 2;
    } else if (c == '#' && lineStart) {
      // a directive line, with its backslash continuations
      while (i < to && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < to && text[i + 1] == '\n')
          ++i;
        ++i;
      }
    } else {
      return false;
    }
  }
  return true;
}

} // namespace

bool TUContext::userCode(clang::SourceLocation loc) const {
  clang::SourceLocation e = sm.getExpansionLoc(loc);
  if (e.isInvalid())
    return false;
  if (sm.isInMainFile(e))
    return true;
  return !sm.isInSystemHeader(e) && sm.getFileEntryRefForID(sm.getFileID(e)).has_value();
}

const PragmaRecord *TUContext::pragmaBefore(const clang::Stmt *s) const {
  clang::SourceLocation b = sm.getExpansionLoc(s->getBeginLoc());
  if (!sm.isInMainFile(b))
    return nullptr;
  unsigned off = sm.getFileOffset(b);
  const PragmaRecord *best = nullptr;
  for (const auto &r : pragmas)
    if (r.endOffset <= off && (!best || r.endOffset > best->endOffset))
      best = &r;
  if (!best)
    return nullptr;
  llvm::StringRef text = sm.getBufferData(sm.getMainFileID());
  return onlyTrivia(text, best->endOffset, off) ? best : nullptr;
}

std::optional<PragmaClause> TUContext::pragmaClause(const clang::Stmt *s,
                                                    const std::string &name) const {
  // Several `#pragma skelcast` lines may stand before one statement: look at
  // each, walking back over the trivia between them.
  clang::SourceLocation b = sm.getExpansionLoc(s->getBeginLoc());
  if (!sm.isInMainFile(b))
    return std::nullopt;
  unsigned off = sm.getFileOffset(b);
  llvm::StringRef text = sm.getBufferData(sm.getMainFileID());
  while (true) {
    const PragmaRecord *best = nullptr;
    for (const auto &r : pragmas)
      if (r.endOffset <= off && (!best || r.endOffset > best->endOffset))
        best = &r;
    if (!best || !onlyTrivia(text, best->endOffset, off))
      return std::nullopt;
    for (const auto &c : best->clauses)
      if (c.name == name)
        return c;
    off = best->beginOffset;
  }
}

std::optional<int64_t> TUContext::constantValue(const clang::Expr *e) const {
  if (!e || e->isValueDependent() || !e->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  clang::Expr::EvalResult r;
  if (!e->EvaluateAsInt(r, ast) || r.HasSideEffects)
    return std::nullopt;
  return r.Val.getInt().getExtValue();
}

std::optional<std::string> TUContext::wholeMacroExpansion(const clang::Expr *e) const {
  clang::SourceLocation b = e->getBeginLoc(), en = e->getEndLoc();
  if (!b.isMacroID() || !en.isMacroID())
    return std::nullopt;
  clang::SourceLocation mb, me;
  if (!clang::Lexer::isAtStartOfMacroExpansion(b, sm, lang, &mb) ||
      !clang::Lexer::isAtEndOfMacroExpansion(en, sm, lang, &me))
    return std::nullopt;
  // The expansion must be one token in the file: the macro's name, so an
  // object-like macro.
  clang::CharSourceRange r = sm.getExpansionRange(e->getSourceRange());
  if (r.getBegin() != r.getEnd() || mb != r.getBegin())
    return std::nullopt;
  std::string name =
      clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(r.getBegin()), sm, lang)
          .str();
  clang::IdentifierInfo *ii = pp.getIdentifierInfo(name);
  const clang::MacroInfo *mi = ii ? pp.getMacroInfo(ii) : nullptr;
  if (!mi || mi->isFunctionLike())
    return std::nullopt;
  return name;
}

std::optional<std::string> TUContext::literalMacro(const clang::Expr *e) const {
  clang::SourceLocation loc = e->getBeginLoc();
  if (!loc.isMacroID())
    return std::nullopt;
  llvm::StringRef name = clang::Lexer::getImmediateMacroName(loc, sm, lang);
  if (name.empty())
    return std::nullopt;
  clang::IdentifierInfo *ii = pp.getIdentifierInfo(name);
  const clang::MacroInfo *mi = ii ? pp.getMacroInfo(ii) : nullptr;
  if (!mi || mi->isFunctionLike() || mi->getNumTokens() != 1)
    return std::nullopt;
  return name.str();
}

bool TUContext::useMacro(const std::string &name, int64_t value, clang::SourceLocation defLoc,
                         std::string comment) {
  if (skeleton::isKeyword(name))
    return false;
  auto it = macros.find(name);
  if (it != macros.end())
    return it->second.value == value;
  MacroUse m;
  m.name = name;
  m.value = value;
  m.comment = std::move(comment);
  m.seq = static_cast<unsigned>(macros.size());
  if (defLoc.isValid()) {
    clang::SourceLocation f = sm.getExpansionLoc(defLoc);
    if (sm.isInMainFile(f)) {
      m.group = 2;
    } else if (sm.isWrittenInCommandLineFile(f)) {
      m.group = 0;
      if (m.comment.empty())
        m.comment = "// -D";
    } else if (sm.isWrittenInBuiltinFile(f)) {
      m.group = 0;
      if (m.comment.empty())
        m.comment = "// predefined";
    } else {
      m.group = 1;
      if (m.comment.empty()) {
        clang::PresumedLoc p = sm.getPresumedLoc(f);
        if (p.isValid())
          m.comment = fmt::format("// from {}", p.getFilename());
      }
    }
    m.offset = sm.getFileOffset(f);
  } else {
    m.group = 0;
  }
  macros.emplace(name, std::move(m));
  return true;
}

std::optional<Expr> TUContext::macroForValue(int64_t value) {
  if (!fileMacros_) {
    fileMacros_.emplace();
    for (auto it = pp.macro_begin(); it != pp.macro_end(); ++it) {
      const clang::IdentifierInfo *ii = it->first;
      const clang::MacroInfo *mi = pp.getMacroInfo(ii);
      if (!mi || mi->isFunctionLike() || mi->getNumTokens() != 1 ||
          !mi->getReplacementToken(0).is(clang::tok::numeric_constant))
        continue;
      clang::SourceLocation def = mi->getDefinitionLoc();
      llvm::StringRef name = ii->getName();
      if (name.starts_with("__") || (name.size() > 1 && name[0] == '_' && std::isupper(name[1])))
        continue; // reserved for the implementation
      if (sm.isWrittenInBuiltinFile(def) || sm.isInSystemHeader(def))
        continue;
      std::string text = pp.getSpelling(mi->getReplacementToken(0));
      char *end = nullptr;
      long long v = std::strtoll(text.c_str(), &end, 0);
      if (!end || *end != '\0')
        continue;
      fileMacros_->push_back({ii->getName().str(), v, def});
    }
    std::sort(fileMacros_->begin(), fileMacros_->end(), [&](const FileMacro &a, const FileMacro &b) {
      return sm.isBeforeInTranslationUnit(a.def, b.def);
    });
  }
  for (int delta : {0, 1})
    for (const FileMacro &m : *fileMacros_)
      if (m.value + delta == value && useMacro(m.name, m.value, m.def))
        return delta ? Expr::binary('+', Expr::ref(m.name), Expr::lit(1)) : Expr::ref(m.name);
  return std::nullopt;
}

std::optional<int64_t> TUContext::scalarOption(const std::string &name) const {
  auto it = opts.extents.find(name);
  if (it == opts.extents.end() || it->second.size() != 1)
    return std::nullopt;
  return it->second[0];
}

Expr TUContext::useScalarOption(const std::string &name) {
  int64_t v = *scalarOption(name);
  usedExtents.insert(name);
  // a struct's field (`dim.number_boxes`, `points->num`, StructFields.h) is
  // written as an identifier: `dim_number_boxes`, `points_num`
  std::string macro;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '-' && i + 1 < name.size() && name[i + 1] == '>') {
      macro += '_';
      ++i;
    } else {
      macro += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    }
  }
  if (useMacro(macro, v, {}, fmt::format("// --extent {}={}", name, v)))
    return Expr::ref(macro);
  return Expr::lit(v);
}

std::optional<Expr> TUContext::constantExpr(const clang::Expr *e) {
  std::optional<int64_t> v = constantValue(e);
  if (!v)
    return std::nullopt;
  auto named = [&](const std::string &name, clang::SourceLocation def) -> std::optional<Expr> {
    if (useMacro(name, *v, def))
      return Expr::ref(name);
    return std::nullopt;
  };
  if (auto m = wholeMacroExpansion(e)) {
    clang::IdentifierInfo *ii = pp.getIdentifierInfo(*m);
    if (auto r = named(*m, pp.getMacroInfo(ii)->getDefinitionLoc()))
      return r;
  }
  const clang::Expr *s = e->IgnoreParenImpCasts();
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
    if (auto *ec = llvm::dyn_cast<clang::EnumConstantDecl>(dr->getDecl()))
      if (auto r = named(ec->getName().str(), ec->getLocation()))
        return r;
    if (auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
      if (vd->hasGlobalStorage() && !vd->isStaticLocal()) {
        if (auto r = named(vd->getName().str(), vd->getLocation()))
          return r;
      } else if (vd->getType().isConstQualified() && vd->getInit()) {
        // a local constant: written as its initialiser (`half` is `SZ/2`)
        if (auto r = constantExpr(vd->getInit()))
          return r;
      }
    }
  }
  if (auto *il = llvm::dyn_cast<clang::IntegerLiteral>(s)) {
    if (auto m = literalMacro(il)) {
      clang::IdentifierInfo *ii = pp.getIdentifierInfo(*m);
      if (auto r = named(*m, pp.getMacroInfo(ii)->getDefinitionLoc()))
        return r;
    }
    return Expr::lit(*v);
  }
  if (auto *bo = llvm::dyn_cast<clang::BinaryOperator>(s)) {
    char op = 0;
    switch (bo->getOpcode()) {
    case clang::BO_Add: op = '+'; break;
    case clang::BO_Sub: op = '-'; break;
    case clang::BO_Mul: op = '*'; break;
    case clang::BO_Div: op = '/'; break;
    case clang::BO_Rem: op = '%'; break;
    default: break;
    }
    if (op) {
      auto l = constantExpr(bo->getLHS());
      auto r = constantExpr(bo->getRHS());
      if (l && r)
        return Expr::binary(op, *l, *r);
    }
  }
  if (auto *uo = llvm::dyn_cast<clang::UnaryOperator>(s)) {
    if (uo->getOpcode() == clang::UO_Minus) {
      auto a = constantExpr(uo->getSubExpr());
      if (a && a->kind != Expr::Kind::IntLit)
        return Expr::neg(*a);
    }
    if (uo->getOpcode() == clang::UO_Plus)
      return constantExpr(uo->getSubExpr());
  }
  return Expr::lit(*v);
}

} // namespace skelcast::frontend
