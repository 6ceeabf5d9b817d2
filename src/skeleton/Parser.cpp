// Recursive-descent parser of the skeleton language (grammar in
// docs/skeleton-language.md). The lexer keeps comments beside the tokens they
// precede so that the printer can put them back.
#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/TextFile.h"

#include "Check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

namespace skelcast::skeleton {
namespace {

enum class Tok { Ident, Int, Number, String, Punct, Define, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  int64_t ival = 0;
  double dval = 0;
  int line = 0, col = 0, endLine = 0;
  std::vector<std::string> commentsBefore;
  int firstCommentLine = 0; ///< line where the first comment before it starts
};

std::string describe(const Token &t) {
  switch (t.kind) {
  case Tok::End: return "end of file";
  case Tok::Define: return "'#define'";
  case Tok::String: return fmt::format("string \"{}\"", t.text);
  default: return fmt::format("'{}'", t.text);
  }
}

class Lexer {
public:
  Lexer(std::string_view text, std::string file) : s_(text), file_(std::move(file)) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    std::vector<std::string> comments;
    int firstCommentLine = 0;
    for (;;) {
      skipSpace();
      if (at("//") || at("/*")) {
        int cl = line_;
        if (comments.empty())
          firstCommentLine = cl;
        comments.push_back(readComment());
        continue;
      }
      Token t;
      t.line = line_;
      t.col = col_;
      t.commentsBefore = std::move(comments);
      t.firstCommentLine = firstCommentLine;
      comments.clear();
      firstCommentLine = 0;
      if (pos_ >= s_.size()) {
        t.kind = Tok::End;
        t.endLine = line_;
        out.push_back(std::move(t));
        return out;
      }
      char c = s_[pos_];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t b = pos_;
        while (pos_ < s_.size() &&
               (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
          advance();
        t.kind = Tok::Ident;
        t.text = std::string(s_.substr(b, pos_ - b));
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && pos_ + 1 < s_.size() &&
                  std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
        lexNumber(t);
      } else if (c == '"') {
        advance();
        size_t b = pos_;
        while (pos_ < s_.size() && s_[pos_] != '"' && s_[pos_] != '\n')
          advance();
        if (pos_ >= s_.size() || s_[pos_] != '"')
          throw InputError({file_, t.line, t.col}, "unterminated string");
        t.kind = Tok::String;
        t.text = std::string(s_.substr(b, pos_ - b));
        advance();
      } else if (c == '#') {
        size_t b = pos_;
        advance();
        while (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_])))
          advance();
        std::string word(s_.substr(b, pos_ - b));
        if (word != "#define")
          throw InputError({file_, t.line, t.col},
                           fmt::format("unknown directive '{}', expected '#define'", word));
        t.kind = Tok::Define;
        t.text = word;
      } else if (std::string_view("()[]{},:=+-*/%<>").find(c) != std::string_view::npos) {
        t.kind = Tok::Punct;
        t.text = std::string(1, c);
        advance();
      } else {
        std::string shown = std::isprint(static_cast<unsigned char>(c))
                                ? fmt::format("'{}'", c)
                                : fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
        throw InputError({file_, t.line, t.col}, fmt::format("unexpected character {}", shown));
      }
      t.endLine = line_;
      out.push_back(std::move(t));
    }
  }

private:
  bool at(std::string_view p) const { return s_.substr(pos_, p.size()) == p; }
  void advance() {
    if (s_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
      advance();
  }
  std::string readComment() {
    size_t b = pos_;
    int l = line_, c = col_;
    if (at("//")) {
      while (pos_ < s_.size() && s_[pos_] != '\n')
        advance();
      std::string text(s_.substr(b, pos_ - b));
      while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.pop_back();
      return text;
    }
    advance();
    advance();
    while (pos_ < s_.size() && !at("*/"))
      advance();
    if (pos_ >= s_.size())
      throw InputError({file_, l, c}, "unterminated comment, expected '*/'");
    advance();
    advance();
    return std::string(s_.substr(b, pos_ - b));
  }
  void lexNumber(Token &t) {
    size_t b = pos_;
    bool isFloat = false;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '.' || s_[pos_] == '_')) {
      if (s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E')
        isFloat = true;
      if ((s_[pos_] == 'e' || s_[pos_] == 'E') && pos_ + 1 < s_.size() &&
          (s_[pos_ + 1] == '-' || s_[pos_ + 1] == '+'))
        advance();
      advance();
    }
    t.text = std::string(s_.substr(b, pos_ - b));
    errno = 0;
    char *end = nullptr;
    if (isFloat) {
      t.kind = Tok::Number;
      t.dval = std::strtod(t.text.c_str(), &end);
    } else {
      t.kind = Tok::Int;
      long long v = std::strtoll(t.text.c_str(), &end, 10);
      t.ival = v;
      t.dval = static_cast<double>(v);
      if (errno == ERANGE)
        throw InputError({file_, t.line, t.col},
                         fmt::format("integer '{}' does not fit in 64 bits", t.text));
    }
    if (end != t.text.c_str() + t.text.size())
      throw InputError({file_, t.line, t.col}, fmt::format("malformed number '{}'", t.text));
  }

  std::string_view s_;
  std::string file_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

/// Later stages walk expressions and statement blocks recursively (checker,
/// evaluator, printer, destructors), so the parser refuses deeper nesting than
/// they can take on any stack: expression trees and blocks of at most this depth.
constexpr int kMaxNesting = 256;

/// Depth of an expression tree (a leaf is 1); bounded, since the parser builds
/// no tree deeper than kMaxNesting.
int exprDepth(const Expr &e) {
  int d = 0;
  for (const auto &a : e.args)
    d = std::max(d, exprDepth(a));
  return d + 1;
}

class Parser {
public:
  Parser(std::vector<Token> toks, std::string file) : t_(std::move(toks)), file_(std::move(file)) {}

  SkeletonFile run() {
    SkeletonFile f;
    f.path = file_;
    while (peek().kind != Tok::End) {
      const Token &t = peek();
      if (t.kind == Tok::Define) {
        f.macros.push_back(parseMacro());
        f.order.push_back({Item::Kind::Macro, f.macros.size() - 1});
      } else if (t.kind == Tok::Ident &&
                 (parseElemType(t.text) || (hostMark(t.text) != HostMark::None &&
                                            peek(1).kind == Tok::Ident && parseElemType(peek(1).text)))) {
        f.arrays.push_back(parseArray());
        f.order.push_back({Item::Kind::Array, f.arrays.size() - 1});
      } else if (t.kind == Tok::Ident && t.text == "parallel_for") {
        tooManyKernels(f, t);
        f.kernels.push_back(parseKernel());
        f.order.push_back({Item::Kind::Kernel, f.kernels.size() - 1});
      } else if (t.kind == Tok::Ident && t.text == "repeat") {
        f.repeats.push_back(parseRepeat(f));
        f.order.push_back({Item::Kind::Repeat, f.repeats.size() - 1});
      } else if (isHostStep()) {
        f.hostSteps.push_back(parseHostStep(f, -1));
        f.order.push_back({Item::Kind::Host, f.hostSteps.size() - 1});
      } else {
        fail(t, fmt::format("expected '#define', an array declaration, 'parallel_for', 'repeat' or "
                            "'host', found {}",
                            describe(t)));
      }
    }
    take(); // End: its comments close the file
    f.closingComments = drainPending();
    return f;
  }

private:
  const Token &peek(size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  SourceLoc loc(const Token &t) const { return {file_, t.line, t.col}; }
  /// Refuse the kernel at `t` when the file holds kMaxKernels already.
  void tooManyKernels(const SkeletonFile &f, const Token &t) const {
    if (f.kernels.size() >= kMaxKernels)
      fail(t, fmt::format("more than {} kernels in one file, more than skelcast projects at once "
                          "(docs/performance.md, \"Large skeletons\"): split the file",
                          kMaxKernels));
  }

  [[noreturn]] void fail(const Token &t, const std::string &msg) const {
    throw InputError(loc(t), msg);
  }
  const Token &take() {
    const Token &t = t_[p_];
    for (const auto &c : t.commentsBefore)
      pending_.push_back(c);
    lastLine_ = t.endLine;
    if (p_ + 1 < t_.size())
      ++p_;
    return t;
  }
  std::vector<std::string> drainPending() {
    std::vector<std::string> out;
    out.swap(pending_);
    return out;
  }
  bool isPunct(const Token &t, char c) const {
    return t.kind == Tok::Punct && t.text.size() == 1 && t.text[0] == c;
  }
  const Token &expectPunct(char c, const char *what) {
    const Token &t = peek();
    if (!isPunct(t, c))
      fail(t, fmt::format("expected '{}' {}, found {}", c, what, describe(t)));
    return take();
  }
  const Token &expectWord(const char *w, const char *what) {
    const Token &t = peek();
    if (t.kind != Tok::Ident || t.text != w)
      fail(t, fmt::format("expected '{}' {}, found {}", w, what, describe(t)));
    return take();
  }
  std::string expectName(const char *what) {
    const Token &t = peek();
    if (t.kind != Tok::Ident)
      fail(t, fmt::format("expected {}, found {}", what, describe(t)));
    if (isKeyword(t.text))
      fail(t, fmt::format("expected {}, found keyword '{}'", what, t.text));
    return take().text;
  }
  int64_t expectInt(const char *what) {
    const Token &t = peek();
    bool neg = false;
    if (isPunct(t, '-')) {
      neg = true;
      take();
    }
    const Token &n = peek();
    if (n.kind != Tok::Int)
      fail(n, fmt::format("expected {}, found {}", what, describe(n)));
    take();
    return neg ? -n.ival : n.ival;
  }
  /// After a one-line item: a comment starting on its last line is trailing.
  std::string takeTrailing() {
    Token &n = t_[p_];
    if (!n.commentsBefore.empty() && n.firstCommentLine == lastLine_) {
      std::string c = n.commentsBefore.front();
      if (c.find('\n') == std::string::npos) {
        n.commentsBefore.erase(n.commentsBefore.begin());
        n.firstCommentLine = 0; // the rest start on later lines
        return c;
      }
    }
    return {};
  }

  /// One level of recursion (a parenthesis, a unary minus, an index, a block)
  /// for the lifetime of a parse function; past kMaxNesting the input is refused.
  class Nest {
  public:
    Nest(Parser &p, int &depth, const Token &at, const char *what) : depth_(depth) {
      if (++depth_ > kMaxNesting)
        p.fail(at, fmt::format("{} nested deeper than {} levels", what, kMaxNesting));
    }
    ~Nest() { --depth_; }
    Nest(const Nest &) = delete;
    Nest &operator=(const Nest &) = delete;

  private:
    int &depth_;
  };

  /// `l op r`, refused when the tree would grow deeper than kMaxNesting (a long
  /// chain `1+1+1+...` builds a deep tree without recursion in the parser).
  Expr combine(const Token &op, Expr l, int &depth, Expr r) {
    depth = std::max(depth, exprDepth(r)) + 1;
    if (depth > kMaxNesting)
      fail(op, fmt::format("expression nested deeper than {} levels", kMaxNesting));
    return Expr::binary(op.text[0], std::move(l), std::move(r), loc(op));
  }

  // expr := term (('+'|'-') term)* ; term := unary (('*'|'/'|'%') unary)*
  Expr parseExpr() {
    Expr l = parseTerm();
    int depth = exprDepth(l);
    while (isPunct(peek(), '+') || isPunct(peek(), '-')) {
      const Token &op = take();
      Expr r = parseTerm();
      l = combine(op, std::move(l), depth, std::move(r));
    }
    return l;
  }
  Expr parseTerm() {
    Expr l = parseUnary();
    int depth = exprDepth(l);
    while (isPunct(peek(), '*') || isPunct(peek(), '/') || isPunct(peek(), '%')) {
      const Token &op = take();
      Expr r = parseUnary();
      l = combine(op, std::move(l), depth, std::move(r));
    }
    return l;
  }
  Expr parseUnary() {
    Nest nest(*this, exprNest_, peek(), "expression");
    if (isPunct(peek(), '-')) {
      SourceLoc l = loc(take());
      if (peek().kind == Tok::Int) // a negative literal stays one node
        return Expr::lit(-take().ival, l);
      return Expr::neg(parseUnary(), l);
    }
    return parsePrimary();
  }
  Expr parsePrimary() {
    const Token &t = peek();
    if (t.kind == Tok::Int) {
      take();
      return Expr::lit(t.ival, loc(t));
    }
    if (isPunct(t, '(')) {
      take();
      Expr e = parseExpr();
      expectPunct(')', "to close the parenthesis");
      return e;
    }
    if (t.kind == Tok::Ident && !isKeyword(t.text)) {
      SourceLoc l = loc(t);
      std::string name = take().text;
      if (isPunct(peek(), '['))
        return Expr::access(name, parseIndices(), l);
      return Expr::ref(name, l);
    }
    fail(t, fmt::format("expected an integer expression, found {}", describe(t)));
  }
  std::vector<Expr> parseIndices() {
    std::vector<Expr> idx;
    while (isPunct(peek(), '[')) {
      take();
      idx.push_back(parseExpr());
      expectPunct(']', "after the index");
    }
    return idx;
  }

  Macro parseMacro() {
    Macro m;
    const Token &d = take();
    m.comments.leading = drainPending();
    m.loc = loc(d);
    const Token &n = peek();
    if (n.kind != Tok::Ident || n.line != d.line)
      fail(n, fmt::format("expected a macro name after '#define', found {}", describe(n)));
    const Token &nameTok = peek();
    m.name = expectName("a macro name");
    if (peek().line != d.line || peek().kind == Tok::End)
      fail(nameTok, fmt::format("expected the value of macro '{}' on the same line", m.name));
    m.value = parseExpr();
    m.comments.trailing = takeTrailing();
    return m;
  }

  static HostMark hostMark(const std::string &w) {
    if (w == "in")
      return HostMark::In;
    if (w == "out")
      return HostMark::Out;
    if (w == "inout")
      return HostMark::InOut;
    return HostMark::None;
  }

  Repeat parseRepeat(SkeletonFile &f) {
    Repeat r;
    const Token &kw = take();
    r.comments.leading = drainPending();
    r.loc = loc(kw);
    if (peek().kind == Tok::Ident && !isKeyword(peek().text) && isPunct(peek(1), '=')) {
      // `repeat k = lo:hi[:step]`: a host loop whose index the kernels see
      r.indexLoc = loc(peek());
      r.index = take().text;
      take(); // '='
      r.lo = parseExpr();
      expectPunct(':', "between the repeat's bounds");
      r.hi = parseExpr();
      if (isPunct(peek(), ':')) {
        take();
        r.step = parseExpr();
      }
    } else {
      r.count = parseExpr();
    }
    expectPunct('{', "to open the repeated kernels");
    const int self = static_cast<int>(f.repeats.size()); // its index once pushed
    while (!isPunct(peek(), '}')) {
      const Token &t = peek();
      if (t.kind == Tok::End)
        fail(t, "expected '}' to close 'repeat', found end of file");
      if (isHostStep()) {
        f.hostSteps.push_back(parseHostStep(f, self));
        r.hostSteps.push_back(f.hostSteps.size() - 1);
        continue;
      }
      if (t.kind == Tok::Ident && t.text == "repeat")
        fail(t, "'repeat' inside 'repeat' is not supported: one level of repeats");
      if (t.kind != Tok::Ident || t.text != "parallel_for")
        fail(t, fmt::format("expected 'parallel_for' or 'host' inside 'repeat', found {}",
                            describe(t)));
      tooManyKernels(f, t);
      f.kernels.push_back(parseKernel());
      r.kernels.push_back(f.kernels.size() - 1);
    }
    take();
    r.closingComments = drainPending();
    if (r.kernels.empty())
      fail(kw, "'repeat' needs at least one kernel");
    return r;
  }

  /// `host reads` or `host writes`: the words are not reserved elsewhere.
  bool isHostStep() const {
    return peek().kind == Tok::Ident && peek().text == "host" && peek(1).kind == Tok::Ident &&
           (peek(1).text == "reads" || peek(1).text == "writes");
  }

  /// `host reads|writes NAME, NAME...`, after the kernels parsed so far.
  HostStep parseHostStep(const SkeletonFile &f, int repeat) {
    HostStep h;
    const Token &kw = take();
    h.comments.leading = drainPending();
    h.loc = loc(kw);
    h.writes = take().text == "writes";
    h.beforeKernel = f.kernels.size();
    h.repeat = repeat;
    do {
      if (!h.arrays.empty())
        take(); // the comma
      h.arrayLocs.push_back(loc(peek()));
      h.arrays.push_back(expectName(h.writes ? "an array name after 'host writes'"
                                             : "an array name after 'host reads'"));
    } while (isPunct(peek(), ','));
    h.comments.trailing = takeTrailing();
    return h;
  }

  Array parseArray() {
    Array a;
    const Token &first = peek();
    a.loc = loc(first);
    a.mark = hostMark(first.text);
    if (a.mark != HostMark::None)
      take();
    const Token &ty = take();
    a.comments.leading = drainPending();
    a.type = *parseElemType(ty.text);
    a.name = expectName("an array name");
    if (!isPunct(peek(), '['))
      fail(peek(), fmt::format("expected '[' and the extents of array '{}', found {}", a.name,
                               describe(peek())));
    a.extents = parseIndices();
    if (isPunct(peek(), ':')) {
      take();
      expectWord("hints", "after ':' in an array declaration");
      expectPunct('<', "after 'hints'");
      expectWord("sample", "inside 'hints<...>'");
      expectPunct('=', "after 'sample'");
      const Token &s = peek();
      if (s.kind != Tok::String)
        fail(s, fmt::format("expected a quoted file name, found {}", describe(s)));
      a.sampleFile = take().text;
      expectPunct('>', "to close 'hints<'");
    }
    a.comments.trailing = takeTrailing();
    return a;
  }

  Kernel parseKernel() {
    Kernel k;
    const Token &pf = take();
    k.comments.leading = drainPending();
    k.loc = loc(pf);
    if (peek().kind == Tok::Ident)
      k.name = expectName("a kernel name or '('");
    expectPunct('(', "after 'parallel_for'");
    for (;;) {
      ParallelDim d;
      Expr e = parseExpr();
      if (isPunct(peek(), ':')) {
        take();
        d.lo = std::move(e);
        d.hi = parseExpr();
      } else {
        d.hi = std::move(e);
      }
      k.dims.push_back(std::move(d));
      if (isPunct(peek(), ',')) {
        take();
        continue;
      }
      expectPunct(')', "or ',' in the loop space");
      break;
    }
    expectPunct(':', "and the index names after the loop space");
    for (;;) {
      const Token &it = peek();
      k.indices.push_back(expectName("an index name"));
      (void)it;
      if (isPunct(peek(), ',')) {
        take();
        continue;
      }
      break;
    }
    // `reduce(op: s, t)`, any number of clauses (docs/skeleton-language.md, "Reductions")
    while (peek().kind == Tok::Ident && peek().text == "reduce" && isPunct(peek(1), '(')) {
      take();
      take();
      const Token &opTok = peek();
      std::optional<ReduceOp> op;
      if (opTok.kind == Tok::Ident || isPunct(opTok, '+') || isPunct(opTok, '*'))
        op = parseReduceOp(opTok.text);
      if (!op)
        fail(opTok, fmt::format("expected a reduction operator ('+', '*', 'min' or 'max'), found {}",
                                describe(opTok)));
      take();
      expectPunct(':', "after the reduction operator");
      for (;;) {
        Reduction r;
        r.op = *op;
        r.loc = loc(peek());
        r.target = expectName("a reduction variable");
        k.reductions.push_back(std::move(r));
        if (isPunct(peek(), ',')) {
          take();
          continue;
        }
        break;
      }
      expectPunct(')', "or ',' to close 'reduce('");
    }
    k.body = parseBlock(k.closingComments);
    return k;
  }

  std::vector<Stmt> parseBlock(std::vector<std::string> &closing) {
    Nest nest(*this, blockNest_, peek(), "blocks");
    expectPunct('{', "to open a block");
    std::vector<Stmt> body;
    while (!isPunct(peek(), '}')) {
      if (peek().kind == Tok::End)
        fail(peek(), "expected '}' to close the block, found end of file");
      body.push_back(parseStmt());
    }
    take();
    closing = drainPending();
    return body;
  }

  Stmt parseStmt() {
    const Token &t = peek();
    Stmt s;
    s.loc = loc(t);
    if (t.kind != Tok::Ident)
      fail(t, fmt::format("expected a statement (comp, ld, st, stream, for, if or a scalar "
                          "binding), found {}",
                          describe(t)));
    const std::string w = t.text;
    if (w == "comp") {
      take();
      s.comments.leading = drainPending();
      s.kind = Stmt::Kind::Comp;
      s.comp = expectInt("an instruction count after 'comp'");
      if (isPunct(peek(), '(')) { // `comp N (fp64:M, lit64:K, chain:C)`, each part optional
        take();
        // `chain:C`: the cycles of the stretch's dependent chain, last
        auto chain = [&](const std::string &form) {
          expectWord("chain", fmt::format("in '{}'", form).c_str());
          expectPunct(':', "after 'chain'");
          s.chain = expectInt(fmt::format("a chain's cycles in '{}'", form).c_str());
          if (isPunct(peek(), ',')) { // `, waits:L`: the loads on the chain
            take();
            std::string full = form.substr(0, form.size() - 1) + ", waits:L)";
            expectWord("waits", fmt::format("in '{}'", full).c_str());
            expectPunct(':', "after 'waits'");
            s.chainWaits = expectInt(fmt::format("a count of loads in '{}'", full).c_str());
            expectPunct(')', fmt::format("to close '{}'", full.substr(full.find('('))).c_str());
          } else {
            expectPunct(')', fmt::format("to close '{}'", form.substr(form.find('('))).c_str());
          }
        };
        if (peek().kind == Tok::Ident && peek().text == "chain") {
          chain("comp N (chain:C)");
        } else {
          expectWord("fp64", "in 'comp N (fp64:M)'");
          expectPunct(':', "after 'fp64'");
          s.fp64 = expectInt("an FP64 instruction count in 'comp N (fp64:M)'");
          if (isPunct(peek(), ',')) { // `, lit64:K`: the 64-bit literals they take
            take();
            if (peek().kind == Tok::Ident && peek().text == "chain") {
              chain("comp N (fp64:M, chain:C)");
            } else {
              expectWord("lit64", "in 'comp N (fp64:M, lit64:K)'");
              expectPunct(':', "after 'lit64'");
              s.lit64 = expectInt("a count of 64-bit literals in 'comp N (fp64:M, lit64:K)'");
              if (isPunct(peek(), ',')) {
                take();
                chain("comp N (fp64:M, lit64:K, chain:C)");
              } else {
                expectPunct(')', "to close '(fp64:M, lit64:K)'");
              }
            }
          } else {
            expectPunct(')', "to close '(fp64:M)'");
          }
        }
      }
      s.comments.trailing = takeTrailing();
    } else if (w == "ld" || w == "st") {
      take();
      s.comments.leading = drainPending();
      s.kind = Stmt::Kind::Mem;
      s.mem.isStore = (w == "st");
      s.mem.array = expectName("an array name");
      if (!isPunct(peek(), '['))
        fail(peek(), fmt::format("expected '[' and an index after '{} {}', found {}", w,
                                 s.mem.array, describe(peek())));
      s.mem.index = parseIndices();
      s.comments.trailing = takeTrailing();
    } else if (w == "stream" || w == "for") {
      take();
      s.comments.leading = drainPending();
      s.kind = Stmt::Kind::Loop;
      Loop &l = s.loop;
      l.isStream = (w == "stream");
      l.index = expectName("a loop index name");
      expectPunct('=', "after the loop index");
      l.lo = parseExpr();
      expectPunct(':', "between the loop bounds");
      l.hi = parseExpr();
      if (isPunct(peek(), ':')) {
        take();
        l.step = parseExpr();
      }
      if (isPunct(peek(), '(')) {
        take();
        expectWord("hint", "in '(hint:N)'");
        expectPunct(':', "after 'hint'");
        l.tripHint = expectInt("a trip count in '(hint:N)'");
        expectPunct(')', "to close '(hint:N)'");
      }
      l.body = parseBlock(l.closingComments);
    } else if (w == "if") {
      take();
      s.comments.leading = drainPending();
      s.kind = Stmt::Kind::Branch;
      expectPunct('(', "after 'if'");
      expectWord("p", "in 'if (p=...)'");
      expectPunct('=', "after 'p'");
      const Token &pt = peek();
      if (pt.kind != Tok::Int && pt.kind != Tok::Number)
        fail(pt, fmt::format("expected a probability, found {}", describe(pt)));
      s.branch.prob = take().dval;
      expectPunct(')', "after the probability");
      s.branch.thenBody = parseBlock(s.branch.thenClosingComments);
      if (peek().kind == Tok::Ident && peek().text == "else") {
        take();
        s.branch.hasElse = true;
        // comments between '}' and 'else' join the then-block's closing ones
        auto extra = drainPending();
        s.branch.thenClosingComments.insert(s.branch.thenClosingComments.end(), extra.begin(),
                                            extra.end());
        s.branch.elseBody = parseBlock(s.branch.elseClosingComments);
      }
    } else if (!isKeyword(w) && isPunct(peek(1), '=')) {
      take();
      s.comments.leading = drainPending();
      s.kind = Stmt::Kind::Bind;
      s.bindName = w;
      take(); // '='
      s.bindValue = parseExpr();
      s.comments.trailing = takeTrailing();
    } else {
      fail(t, fmt::format("expected a statement (comp, ld, st, stream, for, if or a scalar "
                          "binding), found '{}'",
                          w));
    }
    return s;
  }

  std::vector<Token> t_;
  std::string file_;
  size_t p_ = 0;
  int lastLine_ = 0;
  int exprNest_ = 0, blockNest_ = 0; ///< current recursion depths, see Nest
  std::vector<std::string> pending_;
};

} // namespace

bool isKeyword(const std::string &s) {
  static const char *kw[] = {"comp", "ld",   "st",     "stream", "for",   "if",    "else",
                             "parallel_for", "hints", "char", "short", "int", "long",
                             "float", "double"};
  for (const char *k : kw)
    if (s == k)
      return true;
  return false;
}

SkeletonFile parseSkeleton(std::string_view text, const std::string &path) {
  // An empty file (or one of blanks only) declares nothing: most likely the
  // wrong file, or one cut off while it was written.
  if (std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
    throw InputError({path, 1, 1}, "empty file");
  if (text.size() > kMaxSkeletonBytes)
    throw InputError({path, 0, 0}, "larger than 8 MiB, more than a skeleton skelcast reads "
                                   "(docs/performance.md, \"Large skeletons\")");
  if (text.find('\0') != std::string_view::npos) {
    size_t at = text.find('\0');
    int line = 1, col = 1;
    for (size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw InputError({path, line, col}, "unexpected NUL byte: not a text file");
  }
  auto toks = Lexer(text, path).run();
  SkeletonFile f = Parser(std::move(toks), path).run();
  checkSkeleton(f);
  return f;
}

SkeletonFile parseSkeletonFile(const std::string &path) {
  return parseSkeleton(readTextFile(path), path);
}

} // namespace skelcast::skeleton
