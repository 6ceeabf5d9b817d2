// report.html of `skelcast batch`: one self-contained page. The CSS is inline
// and the charts are SVG drawn here (no script, no font or image to fetch), so
// the file opens offline in any browser and prints as it shows.
//
// Charts: the projected speedup over the CPU per benchmark and GPU (log scale;
// the whole program's, transfers included, and the kernels' alone behind it),
// the memory/compute split of every kernel's best layout per GPU (Hong-Kim's
// Mem_cycles against Comp_cycles), and per kernel the projected time of its top
// layouts on each GPU (one linear scale for all GPUs of the kernel).
#include "Format.h"
#include "SpeedupFormat.h"
#include "skelcast/report/Batch.h"

#include <algorithm>
#include <cmath>

namespace skelcast::report {
namespace {

std::string esc(const std::string &s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '&': o += "&amp;"; break;
    case '<': o += "&lt;"; break;
    case '>': o += "&gt;"; break;
    case '"': o += "&quot;"; break;
    case '\'': o += "&#39;"; break;
    default: o += c;
    }
  }
  return o;
}

// Every SVG text is set in a monospace font whose advance is 0.6 em (DejaVu Sans
// Mono, Menlo; Consolas is narrower), so label columns can be sized here.
constexpr const char *kMono = "'DejaVu Sans Mono',Menlo,Consolas,monospace";
constexpr double kCharEm = 0.61;
double textWidth(const std::string &s, double px) { return static_cast<double>(s.size()) * px * kCharEm; }

/// Shortened to at most `n` characters, with an ellipsis.
std::string clip(const std::string &s, size_t n) {
  if (s.size() <= n)
    return s;
  return s.substr(0, n - 1) + "\xE2\x80\xA6";
}

const char *gpuColor(size_t g) {
  static const char *palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
                                  "#e15759", "#76b7b2", "#edc948", "#9c755f"};
  return palette[g % (sizeof palette / sizeof *palette)];
}
constexpr const char *kMemoryColor = "#3f6fb5";
constexpr const char *kComputeColor = "#e49b34";

std::string px(double v) { return fmt::format("{:.1f}", v); }

/// An SVG being drawn: width fixed, height grows.
struct Svg {
  explicit Svg(double w) : width(w) {}
  double width;
  double height = 0;
  std::string body;

  void text(double x, double y, const std::string &s, double size, const std::string &extra = "") {
    body += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\"{}>{}</text>\n", px(x), px(y), size,
                        extra.empty() ? "" : " " + extra, esc(s));
  }
  /// Nothing for a rectangle under 0.05 px: every drawn element has a size.
  void rect(double x, double y, double w, double h, const std::string &fill,
            const std::string &tooltip = "", const std::string &extra = "") {
    if (!(w >= 0.05 && h >= 0.05))
      return;
    body += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}>", px(x),
                        px(y), px(w), px(h), fill, extra.empty() ? "" : " " + extra);
    if (!tooltip.empty())
      body += "<title>" + esc(tooltip) + "</title>";
    body += "</rect>\n";
  }
  void line(double x1, double y1, double x2, double y2, const std::string &stroke,
            const std::string &extra = "") {
    body += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"{}/>\n", px(x1),
                        px(y1), px(x2), px(y2), stroke, extra.empty() ? "" : " " + extra);
  }
  std::string render(const std::string &cls, const std::string &label) const {
    return fmt::format("<svg class=\"chart {}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
                       "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
                       "font-family=\"{}\" fill=\"#1f2933\">\n<title>{}</title>\n{}</svg>\n",
                       cls, px(width), px(height), px(width), px(height), esc(label), kMono,
                       esc(label), body);
  }
};

constexpr double kChartWidth = 1040;

/// The GPU legend: one swatch per GPU, ending at `right`, baseline `y`.
void gpuLegend(Svg &s, const BatchReport &r, double right, double y) {
  double x = right;
  for (const auto &g : r.gpus)
    x -= 17 + textWidth(g.name, 12) + 22;
  x += 22;
  for (size_t g = 0; g < r.gpus.size(); ++g) {
    s.rect(x, y - 10, 12, 12, gpuColor(g), "", "rx=\"2\"");
    s.text(x + 17, y, r.gpus[g].name, 12);
    x += 17 + textWidth(r.gpus[g].name, 12) + 22;
  }
}

/// Grouped horizontal bars, one group per benchmark with a CPU time, one bar
/// per GPU, on a log scale with a dashed line at 1x (as fast as the CPU). The
/// solid bar is the program's speedup (speedup(): transfers, launches, repeats,
/// fusion); the light bar behind it the kernels' alone (kernelSpeedup()).
std::string speedupChart(const BatchReport &r) {
  std::vector<const BenchmarkResult *> rows;
  double lo = 1, hi = 1;
  for (const auto &b : r.benchmarks) {
    if (!b.cpuMs)
      continue;
    rows.push_back(&b);
    for (size_t g = 0; g < r.gpus.size(); ++g)
      for (auto s : {speedup(b, g), kernelSpeedup(b, g)})
        if (s) {
          lo = std::min(lo, *s);
          hi = std::max(hi, *s);
        }
  }
  if (rows.empty())
    return "";
  double l0 = std::floor(std::log10(lo)), l1 = std::ceil(std::log10(hi));
  if (l1 <= l0)
    l1 = l0 + 1;
  double labelW = 0;
  for (const auto *b : rows)
    labelW = std::max(labelW, textWidth(clip(b->name, 40), 12));
  const double x0 = labelW + 18, valueW = 190, plotW = kChartWidth - x0 - valueW;
  const double barH = 13, barGap = 3, groupGap = 12;
  const double groupH = static_cast<double>(r.gpus.size()) * (barH + barGap) - barGap;
  auto xOf = [&](double v) { return x0 + plotW * (std::log10(v) - l0) / (l1 - l0); };

  Svg s(kChartWidth);
  gpuLegend(s, r, kChartWidth - 10, 16);
  double top = 34, y = top;
  double bottom = top + static_cast<double>(rows.size()) * (groupH + groupGap) - groupGap;
  // Decade grid lines and labels, then the 1x line above them.
  for (double e = l0; e <= l1; e += 1) {
    double x = xOf(std::pow(10.0, e));
    s.line(x, top - 4, x, bottom + 4, "#d5dbe1");
    s.text(x, bottom + 20, fmt::format("{:g}x", std::pow(10.0, e)), 11, "text-anchor=\"middle\" fill=\"#52606d\"");
  }
  for (const auto *b : rows) {
    s.text(labelW + 8, y + groupH / 2 + 4, clip(b->name, 40), 12, "text-anchor=\"end\"");
    for (size_t g = 0; g < r.gpus.size(); ++g) {
      double by = y + static_cast<double>(g) * (barH + barGap);
      std::optional<double> sp = speedup(*b, g), ks = kernelSpeedup(*b, g);
      if (!sp && !ks) {
        s.text(x0 + 4, by + barH - 3, fmt::format("{}: no projection", r.gpus[g].name), 11,
               "fill=\"#9aa5b1\"");
        continue;
      }
      std::string label, tip = fmt::format("{} on {}: CPU {} ms", b->name, r.gpus[g].name,
                                           num(*b->cpuMs, 4));
      if (sp) {
        label = "program " + speedupText(*sp);
        tip += fmt::format("; program {} ({} ms, transfers included)", speedupText(*sp),
                           num(*programTimeMs(*b, g), 4));
      }
      if (ks) {
        label += (label.empty() ? "" : ", ") + std::string("kernels ") + speedupText(*ks);
        tip += fmt::format("; kernels alone {} ({} ms)", speedupText(*ks),
                           num(*benchmarkTimeMs(*b, g), 4));
      }
      double w = 0;
      if (ks) { // light, behind
        double kw = std::max(2.0, xOf(*ks) - x0);
        s.rect(x0, by, kw, barH, gpuColor(g), tip, "rx=\"2\" fill-opacity=\"0.35\"");
        w = kw;
      }
      if (sp) { // solid, narrower, in front
        double pw = std::max(2.0, xOf(*sp) - x0);
        s.rect(x0, by + 2, pw, barH - 4, gpuColor(g), tip, "rx=\"2\"");
        w = std::max(w, pw);
      }
      s.text(x0 + w + 5, by + barH - 3, label, 11);
    }
    y += groupH + groupGap;
  }
  double x1 = xOf(1);
  s.line(x1, top - 8, x1, bottom + 4, "#323f4b", "stroke-width=\"1.5\" stroke-dasharray=\"4 3\"");
  s.text(x1 + 4, top - 10, "CPU (1x)", 11, "fill=\"#323f4b\"");
  s.height = bottom + 30;
  return s.render("speedup", "Projected speedup over the CPU per benchmark and GPU (log scale): "
                             "the whole program (solid) and its kernels alone (light)");
}

/// One 100% bar per kernel and GPU: the memory and compute shares of the best
/// layout's projected time (memoryShare), with the bound the model names.
std::string splitChart(const BatchReport &r) {
  struct Row {
    std::string label;
    size_t gpu;
    const model::LayoutProjection *best;
    bool first;
  };
  std::vector<Row> rows;
  double labelW = 0, gpuW = 0;
  for (const auto &b : r.benchmarks)
    for (const auto &k : b.kernels) {
      bool first = true;
      std::string label = clip(b.name == k.name ? b.name : b.name + " / " + k.name, 44);
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
        if (!k.gpus[g].ok())
          continue;
        rows.push_back({label, g, &k.gpus[g].layouts.front(), first});
        first = false;
        labelW = std::max(labelW, textWidth(label, 12));
        gpuW = std::max(gpuW, textWidth(r.gpus[g].name, 11));
      }
    }
  if (rows.empty())
    return "";
  const double x0 = labelW + gpuW + 30, boundW = 130, plotW = kChartWidth - x0 - boundW;
  const double barH = 14, rowGap = 4, groupGap = 10;
  Svg s(kChartWidth);
  s.rect(x0, 6, 12, 12, kMemoryColor, "", "rx=\"2\"");
  s.text(x0 + 17, 16, "memory", 12);
  double lx = x0 + 17 + textWidth("memory", 12) + 22;
  s.rect(lx, 6, 12, 12, kComputeColor, "", "rx=\"2\"");
  s.text(lx + 17, 16, "compute", 12);
  double top = 34, y = top;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &row = rows[i];
    if (row.first && i > 0)
      y += groupGap;
    if (row.first)
      s.text(labelW + 8, y + barH - 3, row.label, 12, "text-anchor=\"end\"");
    s.text(labelW + 18, y + barH - 3, r.gpus[row.gpu].name, 11, "fill=\"" + std::string(gpuColor(row.gpu)) + "\"");
    double share = memoryShare(*row.best, r.gpus[row.gpu].clockGHz);
    double wm = plotW * share;
    std::string tip = fmt::format("{} on {}: {}% of the time memory, {}% compute; {}-bound "
                                  "(Mem_cycles {}, Comp_cycles {}, MWP {}, CWP {})",
                                  row.label, r.gpus[row.gpu].name, fixed(100 * share, 0),
                                  fixed(100 * (1 - share), 0), row.best->result.bound,
                                  num(row.best->result.memCycles, 4), num(row.best->result.compCycles, 4),
                                  fixed(row.best->result.mwp, 2), fixed(row.best->result.cwp, 2));
    s.rect(x0, y, wm, barH, kMemoryColor, tip);
    s.rect(x0 + wm, y, plotW - wm, barH, kComputeColor, tip);
    if (wm >= 44)
      s.text(x0 + 5, y + barH - 3, fixed(100 * share, 0) + "%", 11, "fill=\"#ffffff\"");
    if (plotW - wm >= 44)
      s.text(x0 + plotW - 5, y + barH - 3, fixed(100 * (1 - share), 0) + "%", 11,
             "fill=\"#1f2933\" text-anchor=\"end\"");
    s.text(x0 + plotW + 10, y + barH - 3, row.best->result.bound + "-bound", 11, "fill=\"#52606d\"");
    y += barH + rowGap;
  }
  double bottom = y - rowGap;
  // The half-way mark over the bars: which demand is larger.
  s.line(x0 + plotW / 2, top - 3, x0 + plotW / 2, bottom + 3, "#1f2933",
         "stroke-width=\"1\" stroke-dasharray=\"2 3\" stroke-opacity=\"0.55\"");
  for (int q = 0; q <= 4; ++q) {
    double x = x0 + plotW * q / 4.0;
    s.line(x, bottom + 3, x, bottom + 8, "#9aa5b1");
    s.text(x, bottom + 21, fmt::format("{}%", 25 * q), 11, "text-anchor=\"middle\" fill=\"#52606d\"");
  }
  s.height = bottom + 28;
  return s.render("split", "Memory/compute split of each kernel's best layout per GPU");
}

/// 1, 2 or 5 times a power of ten, near `raw`.
double niceStep(double raw) {
  double p = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/// The projected time of the kernel's top layouts, per GPU, on one linear scale.
std::string topLayoutsChart(const BatchReport &r, const BenchmarkResult &b, const KernelResult &k) {
  double maxT = 0, labelW = 0;
  size_t nBars = 0;
  for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
    if (!k.gpus[g].ok())
      continue;
    for (const auto &l : k.gpus[g].layouts) {
      maxT = std::max(maxT, l.result.timeMs);
      labelW = std::max(labelW, textWidth(clip(l.layoutString, 64), 11));
      ++nBars;
    }
  }
  if (nBars == 0 || !(maxT > 0))
    return "";
  double step = niceStep(maxT / 5);
  double axisMax = std::ceil(maxT / step - 1e-9) * step;
  const double x0 = labelW + 16, valueW = 170, plotW = kChartWidth - x0 - valueW;
  const double barH = 13, barGap = 4, headH = 22;
  Svg s(kChartWidth);
  double y = 6;
  double top = y;
  for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
    const auto &kg = k.gpus[g];
    if (!kg.ok())
      continue;
    s.text(4, y + 14, r.gpus[g].name, 12, fmt::format("font-weight=\"bold\" fill=\"{}\"", gpuColor(g)));
    y += headH;
    for (size_t i = 0; i < kg.layouts.size(); ++i) {
      const auto &l = kg.layouts[i];
      double w = std::max(2.0, plotW * l.result.timeMs / axisMax);
      s.text(x0 - 8, y + barH - 3, clip(l.layoutString, 64), 11, "text-anchor=\"end\"");
      std::string tip = fmt::format("#{} on {}: {} — {} ms, {}-bound, MWP {}, CWP {}", i + 1,
                                    r.gpus[g].name, l.layoutString, num(l.result.timeMs, 5),
                                    l.result.bound, fixed(l.result.mwp, 2), fixed(l.result.cwp, 2));
      s.rect(x0, y, w, barH, gpuColor(g), tip, i == 0 ? "rx=\"2\"" : "rx=\"2\" fill-opacity=\"0.7\"");
      s.text(x0 + w + 5, y + barH - 3,
             fmt::format("{} ms · {}", num(l.result.timeMs, 4), l.result.bound), 11);
      y += barH + barGap;
    }
    y += 6;
  }
  double bottom = y - 6 - barGap;
  // The grid goes first in the document so that the bars are drawn over it.
  Svg grid(kChartWidth);
  for (int i = 0; static_cast<double>(i) * step <= axisMax * (1 + 1e-9); ++i) {
    double v = static_cast<double>(i) * step;
    double x = x0 + plotW * v / axisMax;
    grid.line(x, top, x, bottom + 4, "#e4e7eb");
    grid.text(x, bottom + 18, num(v, 3), 10, "text-anchor=\"middle\" fill=\"#52606d\"");
  }
  grid.text(x0 + plotW, bottom + 32, "projected time (ms)", 10, "text-anchor=\"end\" fill=\"#52606d\"");
  s.body = grid.body + s.body;
  s.height = bottom + 38;
  return s.render("layouts", fmt::format("Projected time of the top layouts of {} / {}", b.name, k.name));
}

constexpr const char *kCss = R"css(
:root { --ink:#1f2933; --muted:#52606d; --line:#e4e7eb; --bg:#f5f7fa; --accent:#3f6fb5; --bad:#c53030; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Roboto, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 28px 40px; }
header { background:#1f2933; color:#f5f7fa; }
header .inner { max-width:1120px; margin:0 auto; padding:22px 28px 18px; }
header h1 { margin:0 0 4px; font-size:24px; font-weight:600; letter-spacing:.2px; }
header p { margin:0; color:#cbd2d9; }
code, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
h2 { font-size:18px; margin:30px 0 6px; }
h3 { font-size:15px; margin:0 0 4px; }
p.note { color:var(--muted); margin:2px 0 10px; }
.cards { display:flex; gap:14px; flex-wrap:wrap; margin:18px 0 6px; }
.card { background:#fff; border:1px solid var(--line); border-radius:8px; padding:10px 16px; min-width:150px; }
.card .n { font-size:26px; font-weight:600; }
.card .l { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.5px; }
.card.bad { border-color:#f5b5b5; background:#fff5f5; }
.card.bad .n { color:var(--bad); }
.panel { background:#fff; border:1px solid var(--line); border-radius:8px; padding:14px 16px; margin:10px 0; overflow-x:auto; }
svg.chart { display:block; max-width:100%; height:auto; }
table { border-collapse:collapse; width:100%; font-size:13px; }
th, td { padding:5px 8px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
th { color:var(--muted); font-weight:600; font-size:12px; }
td.num, th.num { text-align:right; font-variant-numeric: tabular-nums; }
.failures { border-color:#f5b5b5; background:#fff5f5; }
.failures h2 { color:var(--bad); margin-top:0; }
.failures pre { white-space:pre-wrap; margin:4px 0 12px; background:#fff; border:1px solid #f5d0d0; padding:8px; border-radius:4px; }
.bound-memory { color:#3f6fb5; } .bound-compute { color:#b7791f; } .bound-latency { color:#6b46c1; }
details.kernel { background:#fff; border:1px solid var(--line); border-radius:8px; margin:10px 0; padding:10px 16px; }
details.kernel summary { cursor:pointer; font-weight:600; }
details.kernel summary .mono { font-weight:normal; color:var(--muted); }
footer { color:var(--muted); font-size:12px; margin-top:30px; }
@media print { details.kernel { break-inside: avoid; } }
)css";

std::string boundSpan(const std::string &bound) {
  return fmt::format("<span class=\"bound-{}\">{}</span>", esc(bound), esc(bound));
}

} // namespace

std::string renderBatchHtml(const BatchReport &r) {
  std::vector<BatchFailure> fails = batchFailures(r);
  std::string gpuNames;
  for (size_t g = 0; g < r.gpus.size(); ++g)
    gpuNames += (g ? ", " : "") + r.gpus[g].name;

  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += fmt::format("<title>skelcast batch report: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
                   esc(r.suite), kCss);
  o += fmt::format("<header><div class=\"inner\"><h1>skelcast batch report</h1><p>Suite <code>{}</code> "
                   "projected on {} &middot; model {} &middot; skelcast {}</p></div></header>\n<main>\n",
                   esc(r.suite), esc(gpuNames), esc(r.model), esc(r.version));

  o += "<section class=\"cards\">\n";
  auto card = [&](size_t n, const std::string &label, bool bad) {
    o += fmt::format("<div class=\"card{}\"><div class=\"n\">{}</div><div class=\"l\">{}</div></div>\n",
                     bad ? " bad" : "", n, esc(label));
  };
  card(r.benchmarks.size(), "benchmarks", false);
  card(kernelCount(r), "kernels", false);
  card(r.gpus.size(), "GPUs", false);
  card(projectionCount(r), "projections", false);
  card(fails.size(), "failures", !fails.empty());
  o += "</section>\n";

  o += "<div class=\"panel\"><table>\n<tr><th>GPU</th><th>description</th><th>spec content hash</th></tr>\n";
  for (const auto &g : r.gpus)
    o += fmt::format("<tr><td><b>{}</b></td><td>{}</td><td class=\"mono\">{}</td></tr>\n", esc(g.name),
                     esc(g.description), esc(g.contentHash));
  o += "</table>\n";
  for (const auto &g : r.gpus)
    if (!g.overrides.empty()) {
      std::string list;
      for (const auto &x : g.overrides)
        list += (list.empty() ? "" : ", ") + ("<code>" + esc(x) + "</code>");
      o += fmt::format("<p>Spec fields overridden (<code>--set</code>) on {}: {}</p>\n", esc(g.name), list);
    }
  o += "</div>\n";

  if (!fails.empty()) {
    o += "<section class=\"panel failures\"><h2>Failures</h2>\n";
    for (const auto &f : fails) {
      o += f.kernel.empty()
               ? fmt::format("<div>benchmark <b>{}</b> (<code>{}</code>): the input failed</div>\n",
                             esc(f.benchmark), esc(f.input))
               : fmt::format("<div>benchmark <b>{}</b>, kernel <b>{}</b> on <b>{}</b></div>\n",
                             esc(f.benchmark), esc(f.kernel), esc(f.gpu));
      o += "<pre>" + esc(f.message) + "</pre>\n";
    }
    o += "</section>\n";
  }

  bool anyWarning = false;
  for (const auto &b : r.benchmarks)
    anyWarning = anyWarning || !b.warnings.empty();
  if (anyWarning) {
    o += "<section class=\"panel\"><h2 style=\"margin-top:0\">Warnings</h2>\n";
    for (const auto &b : r.benchmarks)
      for (const auto &w : b.warnings)
        o += fmt::format("<div><b>{}</b>: <span class=\"mono\">{}</span></div>\n", esc(b.name), esc(w));
    o += "</section>\n";
  }

  o += "<h2>Projected speedup over the CPU</h2>\n";
  std::string sc = speedupChart(r);
  if (sc.empty()) {
    o += "<p class=\"note\">No benchmark of this suite gives a measured CPU time "
         "(<code>cpu_ms</code> in the manifest), so there is no speedup to show.</p>\n";
  } else {
    o += "<p class=\"note\">Measured CPU time / projected GPU time. Solid bar: the whole program "
         "(copies to and from the GPU, every kernel with its repeats and launches, fusion where it "
         "wins), the speedup <code>project --cpu-ms</code> gives. Light bar behind it: the kernels "
         "alone (the best layout of each kernel, summed, without transfers). Log scale; the dashed "
         "line is the CPU.</p>\n";
    o += "<div class=\"panel\">" + sc + "</div>\n";
  }

  std::string split = splitChart(r);
  if (!split.empty()) {
    o += "<h2>Memory / compute split of the best layouts</h2>\n<p class=\"note\">Memory against "
         "compute demand of each kernel's best layout on each GPU, per SM: Mem_cycles &times; N / "
         "MWP against Comp_cycles &times; N (Hong-Kim; docs/batch.md), and the bound the model "
         "names.</p>\n";
    o += "<div class=\"panel\">" + split + "</div>\n";
  }

  if (!sc.empty()) {
    o += "<h2>Projected times and speedups</h2>\n";
    o += "<div class=\"panel\"><table>\n<tr><th>benchmark</th><th class=\"num\">CPU (ms)</th>";
    for (const auto &g : r.gpus)
      o += fmt::format("<th class=\"num\">{} program (ms)</th><th class=\"num\">{} transfers</th>"
                       "<th class=\"num\">{} program speedup</th><th class=\"num\">{} kernel "
                       "speedup</th>",
                       esc(g.name), esc(g.name), esc(g.name), esc(g.name));
    o += "</tr>\n";
    for (const auto &b : r.benchmarks) {
      if (!b.cpuMs)
        continue;
      o += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td>", esc(b.name), num(*b.cpuMs, 5));
      for (size_t g = 0; g < r.gpus.size(); ++g) {
        std::optional<double> t = programTimeMs(b, g), s = speedup(b, g), x = transferShare(b, g),
                              k = kernelSpeedup(b, g);
        o += fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                         "<td class=\"num\">{}</td>",
                         t ? num(*t, 4) : "-", x ? fixed(100 * *x, 0) + "%" : "-",
                         s ? speedupText(*s) : "-", k ? speedupText(*k) : "-");
      }
      o += "</tr>\n";
    }
    o += "</table></div>\n";
  }

  o += "<h2>Best layout per kernel and GPU</h2>\n<div class=\"panel\"><table>\n<tr><th>benchmark</th>"
       "<th>kernel</th><th>GPU</th><th>best layout</th><th class=\"num\">time (ms)</th><th>bound</th>"
       "<th class=\"num\">memory</th><th class=\"num\">speedup</th></tr>\n";
  for (const auto &b : r.benchmarks) {
    if (!b.error.empty()) {
      o += fmt::format("<tr><td>{}</td><td colspan=\"7\" style=\"color:var(--bad)\">the input failed "
                       "(see Failures)</td></tr>\n",
                       esc(b.name));
      continue;
    }
    for (const auto &k : b.kernels)
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
        const auto &kg = k.gpus[g];
        if (!kg.ok()) {
          o += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td colspan=\"5\" "
                           "style=\"color:var(--bad)\">{}</td></tr>\n",
                           esc(b.name), esc(k.name), esc(r.gpus[g].name), esc(kg.error));
          continue;
        }
        const auto &l = kg.layouts.front();
        std::optional<double> s = speedup(b, g);
        o += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"mono\">{}</td><td "
                         "class=\"num\">{}</td><td>{}</td><td class=\"num\">{}%</td><td "
                         "class=\"num\">{}</td></tr>\n",
                         esc(b.name), esc(k.name), esc(r.gpus[g].name), esc(l.layoutString),
                         num(l.result.timeMs, 4), boundSpan(l.result.bound),
                         fixed(100 * memoryShare(l, r.gpus[g].clockGHz), 0), s ? speedupText(*s) : "-");
      }
  }
  o += "</table></div>\n";

  o += fmt::format("<h2>Top layouts of each kernel</h2>\n<p class=\"note\">The {} fastest layouts "
                   "of each kernel on each GPU, on one time scale per kernel.</p>\n",
                   r.top);
  for (const auto &b : r.benchmarks)
    for (const auto &k : b.kernels) {
      std::string chart = topLayoutsChart(r, b, k);
      o += fmt::format("<details class=\"kernel\" open><summary>{} / {} <span class=\"mono\">{}</span>"
                       "</summary>\n",
                       esc(b.name), esc(k.name), esc(b.input));
      o += "<table>\n<tr><th>GPU</th><th class=\"num\">explored</th><th class=\"num\">pruned</th>"
           "<th>best layout</th><th class=\"num\">time (ms)</th><th>bound</th><th class=\"num\">MWP</th>"
           "<th class=\"num\">CWP</th><th class=\"num\">warps</th></tr>\n";
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
        const auto &kg = k.gpus[g];
        if (!kg.ok()) {
          o += fmt::format("<tr><td>{}</td><td colspan=\"8\" style=\"color:var(--bad)\">{}</td></tr>\n",
                           esc(r.gpus[g].name), esc(kg.error));
          continue;
        }
        const auto &l = kg.layouts.front();
        o += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
                         "class=\"mono\">{}</td><td class=\"num\">{}</td><td>{}</td><td "
                         "class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                         esc(r.gpus[g].name), kg.layoutsExplored, kg.layoutsPruned, esc(l.layoutString),
                         num(l.result.timeMs, 5), boundSpan(l.result.bound), fixed(l.result.mwp, 2),
                         fixed(l.result.cwp, 2), fixed(l.result.n, 1));
      }
      o += "</table>\n" + chart + "</details>\n";
    }

  o += fmt::format("<footer>Written by skelcast {} (model {}). Projections, not measurements: see "
                   "docs/model.md for what the model assumes. This file is self-contained: it "
                   "loads nothing.</footer>\n</main>\n</body>\n</html>\n",
                   esc(r.version), esc(r.model));
  return o;
}

} // namespace skelcast::report
