// The views of a size sweep (Sweep.h): table, JSON, CSV, SVG.
#include "Csv.h"
#include "Format.h"
#include "JsonFields.h"
#include "SpeedupFormat.h"
#include "skelcast/report/Sweep.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace skelcast::report {
namespace {

/// The inputs in the order of their first row.
std::vector<std::string> inputsOf(const SweepReport &r) {
  std::vector<std::string> out;
  for (const auto &row : r.rows)
    if (std::find(out.begin(), out.end(), row.input) == out.end())
      out.push_back(row.input);
  return out;
}

double launches(const model::ProgramProjection &p, const std::string &kernel) {
  for (const auto &k : p.kernels)
    if (k.kernel == kernel)
      return k.count;
  return 1;
}

std::string breakEvenText(const SweepReport &r, const BreakEven &b) {
  const std::string &n = r.name;
  switch (b.kind) {
  case BreakEven::Kind::Everywhere:
    return fmt::format("from the smallest size swept on ({} = {})", n, r.values.front());
  case BreakEven::Kind::Nowhere:
    return fmt::format("at no size swept (up to {} = {})", n, r.values.back());
  case BreakEven::Kind::Between:
    if (b.estimate)
      return fmt::format("from {} = {} on (about {} = {:.0f}, where the speedup crosses {}x)", n, b.above, n,
                         *b.estimate, num(r.minSpeedup, 4));
    return fmt::format("from {} = {} on (not at {})", n, b.above, b.below);
  case BreakEven::Kind::Unknown:
    break;
  }
  return "unknown (no CPU time)";
}

} // namespace

const SweepKernel *longestKernel(const SweepRow &row) {
  const SweepKernel *best = nullptr;
  double bestMs = -1;
  for (const auto &k : row.kernels) {
    double ms = k.timeMs * (row.program ? launches(*row.program, k.name) : 1);
    if (ms > bestMs) {
      bestMs = ms;
      best = &k;
    }
  }
  return best;
}

std::vector<BreakEven> breakEvens(const SweepReport &r) {
  std::vector<BreakEven> out;
  for (const auto &input : inputsOf(r))
    for (size_t g = 0; g < r.gpus.size(); ++g) {
      BreakEven b;
      b.input = input;
      b.gpu = g;
      std::vector<const SweepRow *> rows;
      for (const auto &row : r.rows)
        if (row.input == input && row.gpu == g)
          rows.push_back(&row);
      // A size without a projection (the GPU cannot take it) is not one where the port pays.
      bool known = std::any_of(rows.begin(), rows.end(), [](const SweepRow *x) { return x->program.has_value(); }) &&
                   std::all_of(rows.begin(), rows.end(), [](const SweepRow *x) {
                     return !x->program || x->program->speedup;
                   });
      auto pays = [](const SweepRow *x) { return x->program && x->program->verdict == "port"; };
      if (known) {
        // The first size from which every larger one is "port".
        size_t from = rows.size();
        while (from > 0 && pays(rows[from - 1]))
          --from;
        if (from == 0)
          b.kind = BreakEven::Kind::Everywhere;
        else if (from == rows.size())
          b.kind = BreakEven::Kind::Nowhere;
        else {
          b.kind = BreakEven::Kind::Between;
          b.below = rows[from - 1]->value;
          b.above = rows[from]->value;
          double s0 = rows[from - 1]->program ? *rows[from - 1]->program->speedup : 0;
          double s1 = *rows[from]->program->speedup;
          double m = r.minSpeedup;
          if (s0 > 0 && s1 > 0 && s0 < m && s1 >= m && s1 > s0) {
            double x0 = std::log(static_cast<double>(b.below)), x1 = std::log(static_cast<double>(b.above));
            double t = (std::log(m) - std::log(s0)) / (std::log(s1) - std::log(s0));
            b.estimate = std::exp(x0 + t * (x1 - x0));
          }
        }
      }
      out.push_back(b);
    }
  return out;
}

std::string renderSweepTable(const SweepReport &r) {
  std::string out = fmt::format("sweep of {} over {} ({} size{}), model {}\n", r.name, r.rule,
                                r.values.size(), r.values.size() == 1 ? "" : "s", r.model);
  out += r.cpuRule.empty() ? "CPU time: none given (--cpu-ms or --measure-cpu gives the speedup)\n"
                           : "CPU time: " + r.cpuRule + "\n";
  size_t nw = std::max<size_t>(r.name.size(), 6), gw = 3;
  for (const auto &g : r.gpus)
    gw = std::max(gw, g.size());
  for (const auto &input : inputsOf(r)) {
    out += fmt::format("\n{}\n", input);
    out += fmt::format("  {:>{}}  {:<{}}  {:>11}  {:>12}  {:>11}  {:<8}  {:>11}  {:>8}  {:<11}  {}\n", r.name,
                       nw, "gpu", gw, "total_ms", "transfers_ms", "kernels_ms", "bound", "cpu_ms", "speedup",
                       "verdict", "best layout (of the longest kernel)");
    for (const auto &row : r.rows) {
      if (row.input != input)
        continue;
      if (!row.program) {
        out += fmt::format("  {:>{}}  {:<{}}  error: {}\n", row.value, nw, r.gpus[row.gpu], gw, row.error);
        continue;
      }
      const auto &p = *row.program;
      const SweepKernel *k = longestKernel(row);
      out += fmt::format("  {:>{}}  {:<{}}  {:>11}  {:>12}  {:>11}  {:<8}  {:>11}  {:>8}  {:<11}  {}\n",
                         row.value, nw, r.gpus[row.gpu], gw, num(p.totalMs, 5), num(p.h2dMs + p.d2hMs, 4),
                         num(p.kernelsMs, 4), k ? k->bound : "-", p.cpuMs ? num(*p.cpuMs, 5) : "-",
                         p.speedup ? speedupText(*p.speedup) : "-", p.verdict,
                         k ? (row.kernels.size() > 1 ? k->name + ": " : "") + k->layout : "-");
    }
    if (!r.cpuRule.empty())
      for (const auto &b : breakEvens(r))
        if (b.input == input)
          out += fmt::format("  the port pays (verdict port, speedup >= {}x) on {} {}\n", num(r.minSpeedup, 4),
                             r.gpus[b.gpu], breakEvenText(r, b));
  }
  if (!r.hwOverrides.empty()) {
    std::string list;
    for (const auto &o : r.hwOverrides)
      list += (list.empty() ? "" : ", ") + o;
    out += fmt::format("\nspec fields overridden (--set) on every GPU: {}\n", list);
  }
  return out;
}

std::string renderSweepJson(const SweepReport &r) {
  using nlohmann::json;
  json root;
  root["schema_version"] = 1; // docs/schema/project-sweep.schema.json
  root["skelcast_version"] = r.version;
  root["model"] = {{"name", r.model}};
  root["sweep"] = {{"name", r.name}, {"rule", r.rule}, {"values", r.values}};
  root["gpus"] = r.gpus;
  if (!r.hwOverrides.empty())
    root["hw_overrides"] = r.hwOverrides;
  root["cpu_rule"] = r.cpuRule.empty() ? json(nullptr) : json(r.cpuRule);
  root["min_speedup"] = finiteJson(r.minSpeedup);
  json rows = json::array();
  for (const auto &row : r.rows) {
    json j{{"input", row.input}, {"value", row.value}, {"gpu", r.gpus[row.gpu]}};
    json ks = json::array();
    for (const auto &k : row.kernels)
      ks.push_back({{"name", k.name}, {"layout", k.layout}, {"time_ms", finiteJson(k.timeMs)}, {"bound", k.bound}});
    j["kernels"] = ks;
    if (row.program)
      j["program"] = programJson(*row.program);
    else
      j["error"] = row.error;
    rows.push_back(std::move(j));
  }
  root["rows"] = std::move(rows);
  json be = json::array();
  for (const auto &b : breakEvens(r)) {
    static const char *kinds[] = {"everywhere", "nowhere", "between", "unknown"};
    json j{{"input", b.input}, {"gpu", r.gpus[b.gpu]}, {"kind", kinds[static_cast<int>(b.kind)]}};
    if (b.kind == BreakEven::Kind::Between) {
      j["below"] = b.below;
      j["above"] = b.above;
      j["estimate"] = optionalJson(b.estimate);
    }
    be.push_back(std::move(j));
  }
  root["break_even"] = std::move(be);
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string renderSweepCsv(const SweepReport &r) {
  std::string out = fmt::format("input,{},gpu,total_ms,h2d_ms,kernels_ms,d2h_ms,cpu_ms,speedup,verdict,"
                                "kernel,launches,kernel_ms,bound,layout,error\n",
                                csvField(r.name));
  for (const auto &row : r.rows) {
    std::string v = std::to_string(row.value);
    if (!row.program) {
      out += csvRecord({row.input, v, r.gpus[row.gpu], "", "", "", "", "", "", "", "", "", "", "", "", row.error});
      continue;
    }
    const auto &p = *row.program;
    for (const auto &k : row.kernels)
      out += csvRecord({row.input, v, r.gpus[row.gpu], num(p.totalMs, 8), num(p.h2dMs, 8), num(p.kernelsMs, 8),
                        num(p.d2hMs, 8), p.cpuMs ? num(*p.cpuMs, 8) : "", p.speedup ? num(*p.speedup, 8) : "",
                        p.verdict, k.name, num(launches(p, k.name), 12), num(k.timeMs, 8), k.bound, k.layout, ""});
  }
  return out;
}

namespace {

std::string esc(const std::string &s) {
  std::string o;
  for (char c : s) {
    switch (c) {
    case '&': o += "&amp;"; break;
    case '<': o += "&lt;"; break;
    case '>': o += "&gt;"; break;
    case '"': o += "&quot;"; break;
    default: o += c;
    }
  }
  return o;
}

/// Log-axis ticks: each power of ten within [lo, hi]; where fewer than two lie
/// within, 1, 2 and 5 times each power; where still fewer, lo and hi.
std::vector<double> logTicks(double lo, double hi) {
  for (std::vector<double> steps : {std::vector<double>{1}, std::vector<double>{1, 2, 5}}) {
    std::vector<double> t;
    for (double p = std::pow(10, std::floor(std::log10(lo))); p <= hi * 1.0001; p *= 10)
      for (double m : steps)
        if (p * m >= lo * 0.9999 && p * m <= hi * 1.0001)
          t.push_back(p * m);
    if (t.size() >= 2)
      return t;
  }
  return lo == hi ? std::vector<double>{lo} : std::vector<double>{lo, hi};
}

struct Series {
  std::string label;
  std::vector<std::pair<double, double>> pts;
};

/// One panel: a log-log plot of `series` at (x0, y0), w x h.
std::string panel(const std::string &title, const std::string &xName, const std::string &yName,
                  const std::vector<Series> &series, double x0, double y0, double w, double h,
                  std::optional<double> hline, const std::string &unit) {
  static const char *colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
  for (const auto &s : series)
    for (auto [x, y] : s.pts)
      if (x > 0 && y > 0 && std::isfinite(y)) {
        xlo = std::min(xlo, x), xhi = std::max(xhi, x), ylo = std::min(ylo, y), yhi = std::max(yhi, y);
      }
  if (hline && *hline > 0)
    ylo = std::min(ylo, *hline), yhi = std::max(yhi, *hline);
  std::string out = fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n", x0, y0 - 10, esc(title));
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", x0, y0, w, h);
  if (!(xhi > 0) || !(yhi > 0))
    return out + fmt::format("<text x=\"{}\" y=\"{}\">no data</text>\n", x0 + 10, y0 + h / 2);
  // Pad the y range a little; a single value gets a decade around it.
  double lx0 = std::log10(xlo), lx1 = std::log10(xhi), ly0 = std::log10(ylo) - 0.05, ly1 = std::log10(yhi) + 0.05;
  if (lx1 - lx0 < 1e-9)
    lx0 -= 0.5, lx1 += 0.5;
  if (ly1 - ly0 < 0.2)
    ly0 -= 0.5, ly1 += 0.5;
  auto px = [&](double x) { return x0 + (std::log10(x) - lx0) / (lx1 - lx0) * w; };
  auto py = [&](double y) { return y0 + h - (std::log10(y) - ly0) / (ly1 - ly0) * h; };
  for (double t : logTicks(xlo, xhi))
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" font-size=\"11\">{4}</text>\n",
                       px(t), y0, y0 + h, y0 + h + 14, num(t, 6));
  for (double t : logTicks(std::pow(10, ly0), std::pow(10, ly1)))
    out += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\" font-size=\"11\">{5}</text>\n",
                       x0, py(t), x0 + w, x0 - 4, py(t) + 4, num(t, 4));
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} (log)</text>\n", x0 + w / 2, y0 + h + 32,
                     esc(xName));
  out += fmt::format("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" transform=\"rotate(-90 {0} {1})\">{2} "
                     "(log)</text>\n",
                     x0 - 48, y0 + h / 2, esc(yName));
  if (hline && *hline > 0)
    out += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#888\" "
                       "stroke-dasharray=\"4 3\"/><text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" "
                       "fill=\"#666\">{}x</text>\n",
                       x0, py(*hline), x0 + w, py(*hline), x0 + w - 30, py(*hline) - 3, num(*hline, 4));
  for (size_t i = 0; i < series.size(); ++i) {
    const char *c = colours[i % 8];
    std::string pts;
    for (auto [x, y] : series[i].pts)
      if (x > 0 && y > 0 && std::isfinite(y))
        pts += fmt::format("{}{:.1f},{:.1f}", pts.empty() ? "" : " ", px(x), py(y));
    out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", c, pts);
    for (auto [x, y] : series[i].pts)
      if (x > 0 && y > 0 && std::isfinite(y))
        out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{} = {}: {}{}</title></circle>\n",
                           px(x), py(y), c, esc(xName), num(x, 8), num(y, 5), unit);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>"
                       "<text x=\"{}\" y=\"{}\" font-size=\"12\">{}</text>\n",
                       x0 + 10, y0 + 16 + 16 * i, x0 + 30, y0 + 16 + 16 * i, c, x0 + 34, y0 + 20 + 16 * i,
                       esc(series[i].label));
  }
  return out;
}

} // namespace

std::string renderSweepSvg(const SweepReport &r) {
  std::vector<std::string> inputs = inputsOf(r);
  std::vector<Series> time, speed;
  bool anySpeedup = false;
  for (const auto &input : inputs)
    for (size_t g = 0; g < r.gpus.size(); ++g) {
      Series t{inputs.size() > 1 ? input + " on " + r.gpus[g] : r.gpus[g], {}}, s = t;
      for (const auto &row : r.rows)
        if (row.input == input && row.gpu == g && row.program) {
          t.pts.push_back({static_cast<double>(row.value), row.program->totalMs});
          if (row.program->speedup) {
            s.pts.push_back({static_cast<double>(row.value), *row.program->speedup});
            anySpeedup = true;
          }
        }
      time.push_back(std::move(t));
      speed.push_back(std::move(s));
    }
  double pw = 420, ph = 300, left = 70, top = 60;
  double width = anySpeedup ? left + pw + 90 + pw + 20 : left + pw + 20, height = top + ph + 60;
  std::string title = fmt::format("skelcast: sweep of {} over {}, model {}", r.name, r.rule, r.model);
  std::string out = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                                "viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"13\">\n"
                                "<title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                                "<text x=\"10\" y=\"20\" font-size=\"14\">{}</text>\n",
                                width, height, width, height, esc(title), esc(title));
  out += panel("projected time of the program (transfers and kernels)", r.name, "time (ms)", time, left, top, pw,
               ph, std::nullopt, " ms");
  if (anySpeedup)
    out += panel("speedup over the CPU", r.name, "speedup", speed, left + pw + 90, top, pw, ph, r.minSpeedup, "x");
  return out + "</svg>\n";
}

} // namespace skelcast::report
