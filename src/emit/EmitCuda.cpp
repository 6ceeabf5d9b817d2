// The CUDA of a layout (docs/emit.md): the kernel is the C nest's own body,
// printed from Clang's AST, inside the layout's thread mapping; the host
// driver fills the arrays, runs the C nest on the host (printed from the same
// AST), launches, checks and times the kernel and prints a measurement record.
// This file holds the entry points of include/skelcast/emit/Emit.h; the
// emitter's steps are the files that Emitter.h lists.
#include "skelcast/emit/Emit.h"
#include "skelcast/support/Hash.h"

#include "Emitter.h"

#include "frontend/NestAst.h"

#include "skelcast/layout/KernelInfo.h"
#include "skelcast/skeleton/Printer.h"
#include "skelcast/skeleton/Sample.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <string_view>

namespace skelcast::emit {

using frontend::NestAst;
using detail::Emitter;

LaunchShape launchShape(const layout::KernelInfo &ki, const layout::Layout &l) {
  LaunchShape s;
  size_t n = ki.dimSize.size();
  for (size_t d = 0; d < n; ++d) {
    size_t axis = n - 1 - d; // the last parallel dimension is x
    int64_t tile = l.block[d] * l.fold[d];
    s.block[axis] = l.block[d];
    s.grid[axis] = (ki.dimSize[d] + tile - 1) / tile;
  }
  return s;
}

layout::Layout naiveLayout(const layout::KernelInfo &ki) {
  static const std::vector<std::vector<int64_t>> kShapes = {{256}, {16, 16}, {4, 8, 8}};
  layout::Layout l;
  size_t n = ki.dimSize.size();
  for (size_t d = 0; d < n; ++d) {
    l.block.push_back(std::min(kShapes[n - 1][d], layout::nextPow2(ki.dimSize[d])));
    l.fold.push_back(1);
  }
  return l;
}

namespace {

/// The file's skeleton cut to kernel `k`: its macros, the arrays it uses, the
/// kernel; sample files named relative to `outDir`.
std::string oneKernelSkeleton(const skeleton::SkeletonFile &f, size_t k, const std::string &outDir) {
  skeleton::SkeletonFile one;
  one.path = f.path;
  one.macros = f.macros;
  std::set<std::string> used;
  for (const auto &t : skeleton::memTouches(f.kernels[k].body))
    used.insert(t.array);
  // arrays named only inside subscripts (indirect indices) are used too
  std::function<void(const skeleton::Expr &)> refs = [&](const skeleton::Expr &x) {
    if (x.kind == skeleton::Expr::Kind::Access)
      used.insert(x.name);
    for (const auto &c : x.args)
      refs(c);
  };
  std::function<void(const std::vector<skeleton::Stmt> &)> walk =
      [&](const std::vector<skeleton::Stmt> &body) {
        for (const auto &s : body) {
          if (s.kind == skeleton::Stmt::Kind::Mem)
            for (const auto &i : s.mem.index)
              refs(i);
          if (s.kind == skeleton::Stmt::Kind::Bind)
            refs(s.bindValue);
          if (s.kind == skeleton::Stmt::Kind::Loop) {
            refs(s.loop.lo);
            refs(s.loop.hi);
            walk(s.loop.body);
          }
          if (s.kind == skeleton::Stmt::Kind::Branch) {
            walk(s.branch.thenBody);
            walk(s.branch.elseBody);
          }
        }
      };
  walk(f.kernels[k].body);
  namespace fs = std::filesystem;
  for (const auto &a : f.arrays)
    if (used.count(a.name)) {
      skeleton::Array c = a;
      c.mark = skeleton::HostMark::None;
      if (c.sampleFile) {
        std::error_code ec;
        fs::path abs = fs::absolute(skeleton::resolveRelative(f.path, *c.sampleFile), ec);
        fs::path dir = fs::absolute(outDir, ec);
        c.sampleFile = abs.lexically_relative(dir).string();
      }
      one.arrays.push_back(std::move(c));
    }
  one.kernels.push_back(f.kernels[k]);
  for (size_t i = 0; i < one.macros.size(); ++i)
    one.order.push_back({skeleton::Item::Kind::Macro, i});
  for (size_t i = 0; i < one.arrays.size(); ++i)
    one.order.push_back({skeleton::Item::Kind::Array, i});
  one.order.push_back({skeleton::Item::Kind::Kernel, 0});
  return skeleton::printSkeleton(one);
}

std::string sizeOf(const layout::KernelInfo &ki) {
  std::string s;
  for (int64_t d : ki.dimSize)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

void replaceAll(std::string &s, const std::string &from, const std::string &to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
}

} // namespace

std::string programFingerprint(const std::string &cuda) {
  // The whole program: the GPU code, and the host driver that sets the launch
  // shape and fills the arrays (a fill changes what the kernel does without
  // changing its code). Comments and blank space are not code; the line that
  // prints the fingerprint is left out, so that it can hold it.
  std::string code;
  bool space = false;
  for (size_t i = 0; i < cuda.size(); ++i) {
    char c = cuda[i];
    if (c == '\n' || i == 0) { // a line that holds the fingerprint's placeholder
      size_t start = c == '\n' ? i + 1 : i, end = cuda.find('\n', start);
      std::string_view line(cuda.data() + start, (end == std::string::npos ? cuda.size() : end) - start);
      if (line.find("SKPROGRAM") != std::string_view::npos) {
        i = end == std::string::npos ? cuda.size() : end - 1;
        space = !code.empty();
        continue;
      }
    }
    if (c == '/' && i + 1 < cuda.size() && cuda[i + 1] == '/') { // to the line's end
      while (i + 1 < cuda.size() && cuda[i + 1] != '\n')
        ++i;
      space = !code.empty();
      continue;
    }
    if (c == '/' && i + 1 < cuda.size() && cuda[i + 1] == '*') { // to its close
      size_t close = cuda.find("*/", i + 2);
      i = close == std::string::npos ? cuda.size() : close + 1;
      space = !code.empty();
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !code.empty();
      continue;
    }
    if (space)
      code += ' ';
    space = false;
    code += c;
  }
  return fnv1aHex(code);
}

EmitResult emitCuda(const std::string &cpath, const frontend::SkeletonizeOptions &opts,
                    const EmitOptions &eo, const Chooser &choose, std::ostream &diagnostics,
                    std::vector<Warning> &warnings) {
  EmitResult out;
  std::vector<Warning> emitted; // what the programs do otherwise than projected
  frontend::SkeletonizeResult r = frontend::skeletonizeWithAst(
      cpath, opts, diagnostics,
      [&](const frontend::SkeletonizeResult &res, const std::vector<NestAst> &nests,
          clang::ASTContext &ctx) {
        std::vector<KernelChoice> choices = choose(res);
        layout::FileContext fc = layout::fileContext(res.file);
        for (const KernelChoice &c : choices) {
          const NestAst &nest = nests.at(c.kernel);
          layout::KernelInfo ki = c.info ? *c.info :
              layout::analyzeKernel(res.file, res.file.kernels[c.kernel],
                                    res.file.kernels[c.kernel].name.empty()
                                        ? fmt::format("kernel{}", c.kernel)
                                        : res.file.kernels[c.kernel].name,
                                    fc);
          if (!nest.function || nest.parallel.empty())
            throw InputError({cpath, 0, 0},
                             fmt::format("cannot emit kernel '{}': its C nest is not known",
                                         ki.name));
          EmittedKernel e;
          try {
          e.kernelIndex = c.kernel;
          e.kernel = ki.name;
          e.tag = c.tag;
          e.layoutString = layout::layoutString(ki, c.layout);
          e.size = sizeOf(ki);
          e.fileStem = ki.name + "_" + c.tag;
          Emitter em(ctx, nest, ki, c.layout, res, cpath);
          e.cuda = em.run(e.layoutString);
          // Before SKTAG and SKSIZE are filled in: the same program under any tag.
          e.fingerprint = programFingerprint(e.cuda);
          replaceAll(e.cuda, "SKPROGRAM", e.fingerprint);
          for (const Warning &w : em.warnings())
            if (std::find_if(emitted.begin(), emitted.end(), [&](const Warning &x) {
                  return x.message == w.message;
                }) == emitted.end())
              emitted.push_back(w);
          replaceAll(e.cuda, "SKTAG", c.tag);
          replaceAll(e.cuda, "SKSIZE", e.size);
          e.skeleton = oneKernelSkeleton(res.file, c.kernel, eo.outDir);
          } catch (const InputError &err) {
            if (!eo.skipUnsupported)
              throw;
            out.skipped.push_back({err.loc(), err.message() + " (skipped)"});
            continue;
          }
          out.kernels.push_back(std::move(e));
        }
      });
  warnings = r.warnings;
  warnings.insert(warnings.end(), emitted.begin(), emitted.end());
  out.source = std::move(r);
  return out;
}

} // namespace skelcast::emit
