#include "CpuHarness.h"

#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Sample.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/Interrupt.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unistd.h>

namespace skelcast::cli {
namespace {

using skeleton::Expr;
using skeleton::Stmt;

/// Where each index array's values go: the extent of the dimension it
/// subscripts directly (`ld A[M[i]][j]`, or through a binding `r = M[i]`),
/// the smallest over all uses; an index array used any other way (in a bound,
/// inside arithmetic) has no range we can know.
struct IndexUses {
  std::map<std::string, int64_t> bound;
  std::set<std::string> unknown;
};

void scanExpr(const Expr &e, bool whole, int64_t extent, const std::map<std::string, std::string> &binds,
              IndexUses &u) {
  if (e.kind == Expr::Kind::Access) {
    if (whole && extent > 0) {
      auto it = u.bound.find(e.name);
      u.bound[e.name] = it == u.bound.end() ? extent : std::min(it->second, extent);
    } else {
      u.unknown.insert(e.name);
    }
  }
  if (e.kind == Expr::Kind::Name) {
    auto b = binds.find(e.name);
    if (b != binds.end())
      scanExpr(Expr::access(b->second, {}), whole, extent, binds, u);
  }
  for (const Expr &a : e.args)
    scanExpr(a, false, 0, binds, u);
}

void scanBody(const std::vector<Stmt> &body, const skeleton::SkeletonFile &f,
              const skeleton::MacroTable &macros, std::map<std::string, std::string> &binds,
              IndexUses &u) {
  for (const Stmt &s : body) {
    switch (s.kind) {
    case Stmt::Kind::Mem: {
      const skeleton::Array *a = f.findArray(s.mem.array);
      for (size_t d = 0; d < s.mem.index.size(); ++d) {
        int64_t ext = a && d < a->extents.size()
                          ? skeleton::evalConstExpr(a->extents[d], macros, f.path)
                          : 0;
        scanExpr(s.mem.index[d], true, ext, binds, u);
      }
      break;
    }
    case Stmt::Kind::Bind:
      if (s.bindValue.kind == Expr::Kind::Access)
        binds[s.bindName] = s.bindValue.name; // its uses decide the range
      else
        scanExpr(s.bindValue, false, 0, binds, u);
      break;
    case Stmt::Kind::Loop:
      scanExpr(s.loop.lo, false, 0, binds, u);
      scanExpr(s.loop.hi, false, 0, binds, u);
      scanBody(s.loop.body, f, macros, binds, u);
      break;
    case Stmt::Kind::Branch:
      scanBody(s.branch.thenBody, f, macros, binds, u);
      scanBody(s.branch.elseBody, f, macros, binds, u);
      break;
    default: break;
    }
  }
}

std::string shellQuote(const std::string &s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string readFile(const std::string &p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A fresh directory for the harness and its binary, removed by the destructor
/// or, when skelcast is interrupted, by the interrupt handling.
struct TempDir {
  std::string path;
  std::unique_ptr<CleanupGuard> guard;
  TempDir() {
    guard = std::make_unique<CleanupGuard>([] {
      std::string tmpl = (std::filesystem::temp_directory_path() / "skelcast-cpu-XXXXXX").string();
      if (!mkdtemp(tmpl.data()))
        throw InputError({tmpl, 0, 0}, "cannot create a directory for the CPU harness");
      return tmpl;
    });
    path = guard->path();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// Run `cmd`; InputError when /bin/sh cannot be started.
CommandStatus run(const std::string &cmd, const std::string &cfile) {
  try {
    return runCommand(cmd);
  } catch (const std::runtime_error &e) {
    throw InputError({cfile, 0, 0}, fmt::format("cannot measure the CPU time: {}", e.what()));
  }
}

} // namespace

const frontend::CFunction &functionToMeasure(const std::vector<frontend::CFunction> &functions,
                                             const std::string &path) {
  if (functions.empty())
    throw InputError({path, 0, 0}, "cannot measure the CPU time: no function with kernels");
  if (functions.size() > 1)
    throw InputError({path, 0, 0},
                     fmt::format("cannot measure the CPU time: kernels come from {} functions "
                                 "('{}', '{}', ...); choose one with --function",
                                 functions.size(), functions[0].name, functions[1].name));
  return functions.front();
}

std::string harnessSource(const std::string &cfile, const frontend::CFunction &fn,
                          const skeleton::SkeletonFile &skel, int repeats) {
  auto refuse = [&](const std::string &why) {
    throw InputError(fn.loc, fmt::format("cannot measure the CPU time of '{}': {}", fn.name, why));
  };
  skeleton::MacroTable macros = skeleton::evalMacros(skel);
  IndexUses uses;
  for (const auto &k : skel.kernels) {
    std::map<std::string, std::string> binds;
    scanBody(k.body, skel, macros, binds, uses);
  }

  std::string setup, args, check;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const frontend::CParam &p = fn.params[i];
    std::string var = fmt::format("arg{}", i);
    args += (i ? ", " : "") + var;
    switch (p.kind) {
    case frontend::CParam::Kind::Other:
      refuse(fmt::format("parameter '{}' is {}, which the harness cannot make", p.name, p.why));
      break;
    case frontend::CParam::Kind::Floating:
      // a coefficient: small, so that time steps stay finite
      setup += fmt::format("  double {} = 0.1;\n", var);
      break;
    case frontend::CParam::Kind::Integer:
      if (!p.value)
        refuse(fmt::format("integer parameter '{}' has no value (give --extent {}=V)", p.name,
                           p.name));
      setup += fmt::format("  long long {} = {}LL;\n", var, *p.value);
      break;
    case frontend::CParam::Kind::Buffer: {
      if (p.arrays.empty())
        refuse(fmt::format("pointer '{}' is in no ported nest, so its size is unknown", p.name));
      int64_t elems = 0;
      const skeleton::Array *arr = nullptr;
      for (const std::string &a : p.arrays) {
        const skeleton::Array *x = skel.findArray(a);
        if (!x)
          refuse(fmt::format("pointer '{}' has no array in the skeleton", p.name));
        int64_t n = 1;
        for (const auto &e : x->extents)
          n *= skeleton::evalConstExpr(e, macros, skel.path);
        if (n > elems) {
          elems = n;
          arr = x;
        }
      }
      std::string t = p.elemType;
      setup += fmt::format("  {} *{} = malloc(sizeof({}) * {}LL);\n", t, var, t, elems);
      setup += fmt::format("  if (!{}) {{ fprintf(stderr, \"out of memory for '{}'\\n\"); return 2; }}\n",
                           var, p.name);
      std::string fill;
      if (p.elemFloating) {
        fill = "(double)((k * 2654435761ULL) % 1000ULL) / 1000.0"; // in [0, 1)
      } else if (arr->sampleFile) {
        auto sample = skeleton::loadSample(skeleton::resolveRelative(skel.path, *arr->sampleFile),
                                           arr->loc);
        if (sample.values.empty())
          refuse(fmt::format("the sample of '{}' holds no values", p.name));
        std::string list;
        for (size_t v = 0; v < sample.values.size(); ++v)
          list += fmt::format("{}{}LL", v ? "," : "", sample.values[v]);
        setup += fmt::format("  static const long long {}_sample[] = {{{}}};\n", var, list);
        fill = fmt::format("{}_sample[k % {}ULL]", var, sample.values.size());
      } else {
        int64_t range = 0;
        for (const std::string &a : p.arrays) {
          if (uses.unknown.count(a))
            refuse(fmt::format("the values of index array '{}' decide loop bounds or arithmetic, "
                               "so no range is known (give --sample {}=FILE)",
                               p.name, p.name));
          if (auto b = uses.bound.find(a); b != uses.bound.end())
            range = range ? std::min(range, b->second) : b->second;
        }
        if (!range)
          range = 100; // plain data, not an index
        fill = fmt::format("(long long)((k * 7919ULL) % {}ULL)", range);
      }
      setup += fmt::format("  for (unsigned long long k = 0; k < {}ULL; ++k) {}[k] = ({})({});\n",
                           elems, var, t, fill);
      check += fmt::format("  sum += (double){}[{}];\n", var, elems / 2);
      break;
    }
    }
  }

  std::string out;
  out += "/* generated by 'skelcast project --measure-cpu': times " + fn.name + " */\n";
  out += "#define _POSIX_C_SOURCE 199309L\n#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n";
  out += "#ifdef _OPENMP\n#include <omp.h>\n#endif\n";
  out += "#define main skelcast_user_main\n";
  out += fmt::format("#include \"{}\"\n", cfile);
  out += "#undef main\n\n";
  out += "static double skelcast_now_ms(void) {\n"
         "  struct timespec ts;\n  clock_gettime(CLOCK_MONOTONIC, &ts);\n"
         "  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;\n}\n\n";
  out += "int main(void) {\n";
  out += setup;
  // through a volatile pointer: the call is not inlined into the timing loop
  out += fmt::format("  __typeof__(&{}) volatile fn = &{};\n", fn.name, fn.name);
  out += fmt::format("  for (int r = 0; r <= {}; ++r) {{\n", repeats);
  out += "    double t0 = skelcast_now_ms();\n";
  out += fmt::format("    fn({});\n", args);
  out += "    double t1 = skelcast_now_ms();\n";
  out += "    if (r > 0) /* the first call warms caches and pages */\n";
  out += "      printf(\"skelcast-time-ms %.6f\\n\", t1 - t0);\n  }\n";
  out += "  double sum = 0;\n" + check;
  out += "  printf(\"skelcast-checksum %g\\n\", sum); /* the results are used */\n";
  out += "#ifdef _OPENMP\n  printf(\"skelcast-threads %d\\n\", omp_get_max_threads());\n"
         "#else\n  printf(\"skelcast-threads 1\\n\");\n#endif\n";
  out += "  return 0;\n}\n";
  return out;
}

CpuMeasurement measureCpu(const std::string &cfile, const frontend::CFunction &fn,
                          const skeleton::SkeletonFile &skel, const CpuMeasureOptions &opts) {
  std::string abs = std::filesystem::absolute(cfile).lexically_normal().string();
  std::string src = harnessSource(abs, fn, skel, opts.repeats);
  TempDir dir;
  std::string harness = dir.path + "/harness.c", bin = dir.path + "/harness",
              log = dir.path + "/log.txt";
  std::ofstream(harness) << src;

  CpuMeasurement m;
  std::string cmd = opts.compiler + " -O3 -march=native";
  if (fn.openmp)
    cmd += " -fopenmp";
  for (const std::string &a : opts.compilerArgs)
    cmd += " " + shellQuote(a);
  m.command = cmd;
  cmd += " -w " + shellQuote(harness) + " -o " + shellQuote(bin) + " -lm > " + shellQuote(log) +
         " 2>&1";
  CommandStatus st = run("exec " + cmd, cfile);
  if (!st.ok()) {
    std::string msg = readFile(log);
    if (msg.find("not found") != std::string::npos && msg.find(opts.compiler) != std::string::npos)
      throw InputError({cfile, 0, 0}, fmt::format("cannot measure the CPU time: '{}' is not "
                                                  "installed",
                                                  opts.compiler));
    if (fn.openmp && msg.find("omp.h") != std::string::npos)
      msg += "(OpenMP needs libomp: Debian's libomp-19-dev)\n";
    throw InputError({cfile, 0, 0},
                     fmt::format("cannot measure the CPU time: the harness does not compile ({}):\n{}",
                                 m.command, msg));
  }
  // exec: the harness is skelcast's own child, which an interrupt kills and reaps.
  st = run("exec " + shellQuote(bin) + " > " + shellQuote(log) + " 2>&1", cfile);
  std::string output = readFile(log);
  if (!st.ok())
    throw InputError({cfile, 0, 0}, fmt::format("cannot measure the CPU time: the harness failed ({}){}{}",
                                                st.describe(), output.empty() ? "" : ":\n", output));
  std::istringstream lines(output);
  std::string key;
  while (lines >> key) {
    if (key == "skelcast-time-ms") {
      double t;
      lines >> t;
      m.timesMs.push_back(t);
    } else if (key == "skelcast-threads") {
      lines >> m.threads;
    } else {
      std::string rest;
      std::getline(lines, rest);
    }
  }
  if (m.timesMs.empty())
    throw InputError({cfile, 0, 0},
                     fmt::format("cannot measure the CPU time: the harness printed no time:\n{}",
                                 output));
  std::vector<double> t = m.timesMs;
  std::sort(t.begin(), t.end());
  m.medianMs = t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
  return m;
}

} // namespace skelcast::cli
