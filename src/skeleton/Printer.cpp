#include "skelcast/skeleton/Printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>

namespace skelcast::skeleton {
namespace {

int precedence(const Expr &e) {
  if (e.kind == Expr::Kind::Binary)
    return (e.op == '+' || e.op == '-') ? 1 : 2;
  if (e.kind == Expr::Kind::Neg)
    return 3;
  return 4;
}

void printTo(std::string &out, const Expr &e);

void printOperand(std::string &out, const Expr &e, int minPrec) {
  if (precedence(e) < minPrec) {
    out += '(';
    printTo(out, e);
    out += ')';
  } else {
    printTo(out, e);
  }
}

void printTo(std::string &out, const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::IntLit: out += std::to_string(e.value); break;
  case Expr::Kind::Name: out += e.name; break;
  case Expr::Kind::Neg:
    out += '-';
    printOperand(out, e.args[0], 3);
    break;
  case Expr::Kind::Binary: {
    int p = precedence(e);
    // left-associative: the right operand needs parentheses at equal precedence
    printOperand(out, e.args[0], p);
    if (p == 1)
      out += fmt::format(" {} ", e.op);
    else
      out += e.op;
    printOperand(out, e.args[1], p + 1);
    break;
  }
  case Expr::Kind::Access:
    out += e.name;
    for (const auto &i : e.args) {
      out += '[';
      printTo(out, i);
      out += ']';
    }
    break;
  }
}

class Printer {
public:
  std::string out;

  void comments(const std::vector<std::string> &cs, int depth) {
    for (const auto &c : cs)
      line(depth, c);
  }
  void line(int depth, const std::string &text, const std::string &trailing = {}) {
    out.append(static_cast<size_t>(depth) * 2, ' ');
    out += text;
    if (!trailing.empty()) {
      out += ' ';
      out += trailing;
    }
    out += '\n';
  }
  void block(const std::vector<Stmt> &body, const std::vector<std::string> &closing, int depth) {
    for (const auto &s : body)
      stmt(s, depth);
    comments(closing, depth);
  }
  void kernel(const Kernel &k, int d) {
    std::string t = "parallel_for";
    if (!k.name.empty())
      t += " " + k.name;
    t += "(";
    for (size_t i = 0; i < k.dims.size(); ++i) {
      if (i)
        t += ", ";
      if (k.dims[i].lo)
        t += printExpr(*k.dims[i].lo) + ":";
      t += printExpr(k.dims[i].hi);
    }
    t += ") : ";
    for (size_t i = 0; i < k.indices.size(); ++i)
      t += (i ? ", " : "") + k.indices[i];
    // consecutive reductions with one operator share a clause: `reduce(+: s, t)`
    for (size_t i = 0; i < k.reductions.size(); ++i) {
      const Reduction &r = k.reductions[i];
      if (i == 0 || k.reductions[i - 1].op != r.op)
        t += fmt::format(" reduce({}: {}", reduceOpName(r.op), r.target);
      else
        t += ", " + r.target;
      if (i + 1 == k.reductions.size() || k.reductions[i + 1].op != r.op)
        t += ")";
    }
    line(d, t + " {");
    block(k.body, k.closingComments, d + 1);
    line(d, "}");
  }

  void stmt(const Stmt &s, int d) {
    comments(s.comments.leading, d);
    switch (s.kind) {
    case Stmt::Kind::Comp:
    {
      std::vector<std::string> parts;
      if (s.fp64 || s.lit64)
        parts.push_back(fmt::format("fp64:{}", s.fp64));
      if (s.lit64)
        parts.push_back(fmt::format("lit64:{}", s.lit64));
      if (s.chain || s.chainWaits)
        parts.push_back(fmt::format("chain:{}", s.chain));
      if (s.chainWaits)
        parts.push_back(fmt::format("waits:{}", s.chainWaits));
      line(d,
           parts.empty() ? fmt::format("comp {}", s.comp)
                         : fmt::format("comp {} ({})", s.comp, fmt::join(parts, ", ")),
           s.comments.trailing);
    }
      break;
    case Stmt::Kind::Mem: {
      std::string t = s.mem.isStore ? "st " : "ld ";
      t += s.mem.array;
      for (const auto &i : s.mem.index)
        t += "[" + printExpr(i) + "]";
      line(d, t, s.comments.trailing);
      break;
    }
    case Stmt::Kind::Bind:
      line(d, s.bindName + " = " + printExpr(s.bindValue), s.comments.trailing);
      break;
    case Stmt::Kind::Loop: {
      const Loop &l = s.loop;
      std::string h = fmt::format("{} {} = {}:{}", l.isStream ? "stream" : "for", l.index,
                                  printExpr(l.lo), printExpr(l.hi));
      if (l.step)
        h += ":" + printExpr(*l.step);
      if (l.tripHint)
        h += fmt::format(" (hint:{})", *l.tripHint);
      line(d, h + " {");
      block(l.body, l.closingComments, d + 1);
      line(d, "}", s.comments.trailing);
      break;
    }
    case Stmt::Kind::Branch: {
      const Branch &b = s.branch;
      line(d, fmt::format("if (p={}) {{", b.prob));
      block(b.thenBody, b.thenClosingComments, d + 1);
      if (b.hasElse) {
        line(d, "} else {");
        block(b.elseBody, b.elseClosingComments, d + 1);
      }
      line(d, "}", s.comments.trailing);
      break;
    }
    }
  }
};

} // namespace

std::string printExpr(const Expr &e) {
  std::string s;
  printTo(s, e);
  return s;
}

namespace {
/// `host reads a, b` (its leading comments are the caller's).
void hostStep(Printer &p, const HostStep &h, int indent) {
  std::string t = h.writes ? "host writes " : "host reads ";
  for (size_t i = 0; i < h.arrays.size(); ++i)
    t += (i ? ", " : "") + h.arrays[i];
  p.line(indent, t, h.comments.trailing);
}
} // namespace

std::string printSkeleton(const SkeletonFile &f) {
  Printer p;
  const Item *prev = nullptr;
  for (const auto &it : f.order) {
    const Comments *cm = nullptr;
    switch (it.kind) {
    case Item::Kind::Macro: cm = &f.macros[it.index].comments; break;
    case Item::Kind::Array: cm = &f.arrays[it.index].comments; break;
    case Item::Kind::Kernel: cm = &f.kernels[it.index].comments; break;
    case Item::Kind::Repeat: cm = &f.repeats[it.index].comments; break;
    case Item::Kind::Host: cm = &f.hostSteps[it.index].comments; break;
    }
    // A blank line between groups, before each kernel and before commented items.
    if (prev && (prev->kind != it.kind || it.kind == Item::Kind::Kernel ||
                 it.kind == Item::Kind::Repeat || !cm->leading.empty()))
      p.out += '\n';
    p.comments(cm->leading, 0);
    switch (it.kind) {
    case Item::Kind::Macro: {
      const Macro &m = f.macros[it.index];
      p.line(0, fmt::format("#define {} {}", m.name, printExpr(m.value)), m.comments.trailing);
      break;
    }
    case Item::Kind::Array: {
      const Array &a = f.arrays[it.index];
      std::string t = a.mark == HostMark::None ? "" : std::string(hostMarkName(a.mark)) + " ";
      t += elemTypeName(a.type);
      t += " " + a.name;
      for (const auto &e : a.extents)
        t += "[" + printExpr(e) + "]";
      if (a.sampleFile)
        t += fmt::format(" : hints<sample=\"{}\">", *a.sampleFile);
      p.line(0, t, a.comments.trailing);
      break;
    }
    case Item::Kind::Kernel: p.kernel(f.kernels[it.index], 0); break;
    case Item::Kind::Host: hostStep(p, f.hostSteps[it.index], 0); break;
    case Item::Kind::Repeat: {
      const Repeat &r = f.repeats[it.index];
      std::string head = printExpr(r.count);
      if (r.indexed()) {
        head = fmt::format("{} = {}:{}", r.index, printExpr(r.lo), printExpr(r.hi));
        if (r.step)
          head += ":" + printExpr(*r.step);
      }
      p.line(0, "repeat " + head + " {");
      // Kernels and host steps in program order, a blank line between items.
      size_t h = 0;
      bool first = true;
      auto hostsBefore = [&](size_t kernel) {
        for (; h < r.hostSteps.size() && f.hostSteps[r.hostSteps[h]].beforeKernel <= kernel; ++h) {
          if (!first)
            p.out += '\n';
          first = false;
          p.comments(f.hostSteps[r.hostSteps[h]].comments.leading, 1);
          hostStep(p, f.hostSteps[r.hostSteps[h]], 1);
        }
      };
      for (size_t i = 0; i < r.kernels.size(); ++i) {
        hostsBefore(r.kernels[i]);
        const Kernel &k = f.kernels[r.kernels[i]];
        if (!first)
          p.out += '\n';
        first = false;
        p.comments(k.comments.leading, 1);
        p.kernel(k, 1);
      }
      hostsBefore(SIZE_MAX);
      p.comments(r.closingComments, 1);
      p.line(0, "}");
      break;
    }
    }
    prev = &it;
  }
  if (!f.closingComments.empty()) {
    if (prev)
      p.out += '\n';
    p.comments(f.closingComments, 0);
  }
  return p.out;
}

} // namespace skelcast::skeleton
