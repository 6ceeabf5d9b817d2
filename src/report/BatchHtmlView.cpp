// report.html of `skelcast batch`: one self-contained page. The CSS and the one
// script (sorting and filtering the tables) are inline and the charts are SVG
// drawn here (no font, image or script to fetch), so the file opens offline in
// any browser and prints as it shows. Everything drawn is read from the
// BatchReport (and the sweep's SweepReport): no quantity is computed twice.
//
// Charts: the projected speedup over the CPU per benchmark and GPU (log scale;
// the whole program's, transfers included, and the kernels' alone behind it),
// the memory/compute split of every kernel's best layout per GPU (Hong-Kim's
// Mem_cycles against Comp_cycles), and per kernel the projected time of its top
// layouts on each GPU (one linear scale for all GPUs of the kernel), a
// roofline per GPU (each kernel's best layout against the spec's roofs), and,
// from `batch --sweep`, the sweep's plot (SweepView.cpp's SVG).
//
// At hundreds of benchmarks the page stays readable and small: the bar charts
// show the kLargest benchmarks at each end and say so, the per-kernel sections
// are closed and lose their charts, and the tables (which hold every row) can
// be sorted and filtered.
#include "Format.h"
#include "SpeedupFormat.h"
#include "skelcast/report/Batch.h"
#include "skelcast/report/Sweep.h"

#include <algorithm>
#include <cmath>
#include <map>

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
/// Bar charts of more rows show this many at each end (the table has them all).
constexpr size_t kChartEnds = 20;
/// Above this many kernels the per-kernel sections are closed and drawn without
/// their top-layouts chart (its table stays), so that the page stays small.
constexpr size_t kKernelChartsUpTo = 60;

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
  std::string capNote;
  if (rows.size() > 2 * kChartEnds) { // the slowest and fastest ports; the table has the rest
    auto best = [&](const BenchmarkResult *b) {
      double v = 0;
      for (size_t g = 0; g < r.gpus.size(); ++g)
        v = std::max(v, speedup(*b, g).value_or(kernelSpeedup(*b, g).value_or(0)));
      return v;
    };
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const BenchmarkResult *a, const BenchmarkResult *b) { return best(a) > best(b); });
    capNote = fmt::format("the {} highest and {} lowest of {} benchmarks with a CPU time; the "
                          "program table has them all",
                          kChartEnds, kChartEnds, rows.size());
    rows.erase(rows.begin() + kChartEnds, rows.end() - kChartEnds);
  }
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
  if (!capNote.empty()) {
    s.text(0, bottom + 44, capNote, 11, "fill=\"#52606d\"");
    s.height += 16;
  }
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
  size_t kernels = static_cast<size_t>(std::count_if(rows.begin(), rows.end(), [](const Row &x) { return x.first; }));
  std::string capNote;
  if (kernels > 2 * kChartEnds) { // the first kernels; the best-layout table has every memory share
    size_t seen = 0, keep = 0;
    while (keep < rows.size() && (seen += rows[keep].first) <= 2 * kChartEnds)
      ++keep;
    rows.resize(keep);
    capNote = fmt::format("the first {} of {} kernels; the best-layout table gives every memory share",
                          2 * kChartEnds, kernels);
  }
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
  if (!capNote.empty()) {
    s.text(0, bottom + 42, capNote, 11, "fill=\"#52606d\"");
    s.height += 16;
  }
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

/// One roofline chart for GPU `g`: every kernel's best layout as a point
/// (rooflinePoint: arithmetic intensity against achieved 10^9 operations/s,
/// log-log), under the spec's roofs: the memory bandwidth's slope up to the FP32
/// peak, and the FP64 peak (dashed) where the spec has one. Points of mostly-FP64
/// kernels are hollow.
std::string rooflineChart(const BatchReport &r, size_t g) {
  struct Pt {
    std::string label;
    RooflinePoint p;
  };
  std::vector<Pt> pts;
  for (const auto &b : r.benchmarks)
    for (const auto &k : b.kernels)
      if (g < k.gpus.size() && k.gpus[g].ok()) {
        RooflinePoint p = rooflinePoint(k.gpus[g].layouts.front());
        if (p.intensity() > 0 && p.gops() > 0)
          pts.push_back({b.name == k.name ? b.name : b.name + " / " + k.name, p});
      }
  const GpuRoofs &roofs = r.gpus[g].roofs;
  if (pts.empty() || !(roofs.memBandwidthGBs > 0) || !(roofs.peakSpGflops > 0))
    return "";
  double ridge = roofs.peakSpGflops / roofs.memBandwidthGBs; // operations per byte
  double xlo = ridge, xhi = ridge, ylo = roofs.peakSpGflops, yhi = roofs.peakSpGflops;
  for (const auto &q : pts) {
    xlo = std::min(xlo, q.p.intensity());
    xhi = std::max(xhi, q.p.intensity());
    ylo = std::min(ylo, q.p.gops());
    yhi = std::max(yhi, q.p.gops());
  }
  double x0 = std::floor(std::log10(xlo)), x1 = std::ceil(std::log10(xhi)) + (xhi >= ridge * 0.999 ? 1 : 0);
  double y0 = std::floor(std::log10(ylo)), y1 = std::ceil(std::log10(yhi * 1.2));
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) y1 = y0 + 1;
  const double W = 500, H = 330, left = 62, right = 14, top = 26, bottom = 44;
  const double pw = W - left - right, ph = H - top - bottom;
  auto X = [&](double v) { return left + pw * (std::log10(v) - x0) / (x1 - x0); };
  auto Y = [&](double v) { return top + ph * (1 - (std::log10(v) - y0) / (y1 - y0)); };
  Svg s(W);
  s.text(left, 16, fmt::format("{}: roofline of the best layouts", r.gpus[g].name), 12,
         fmt::format("font-weight=\"bold\" fill=\"{}\"", gpuColor(g)));
  for (double e = x0; e <= x1; e += 1) {
    s.line(X(std::pow(10, e)), top, X(std::pow(10, e)), top + ph, "#e4e7eb");
    s.text(X(std::pow(10, e)), top + ph + 14, fmt::format("{:g}", std::pow(10.0, e)), 10,
           "text-anchor=\"middle\" fill=\"#52606d\"");
  }
  for (double e = y0; e <= y1; e += 1) {
    s.line(left, Y(std::pow(10, e)), left + pw, Y(std::pow(10, e)), "#e4e7eb");
    s.text(left - 5, Y(std::pow(10, e)) + 3, fmt::format("{:g}", std::pow(10.0, e)), 10,
           "text-anchor=\"end\" fill=\"#52606d\"");
  }
  s.text(left + pw, H - 8, "operations per DRAM byte (compulsory)", 10, "text-anchor=\"end\" fill=\"#52606d\"");
  s.text(12, top + ph / 2, "10^9 operations/s", 10,
         fmt::format("text-anchor=\"middle\" fill=\"#52606d\" transform=\"rotate(-90 12 {})\"", px(top + ph / 2)));
  // The memory roof from the left edge to the ridge, then the FP32 roof.
  double xl = std::pow(10.0, x0), xr = std::pow(10.0, x1);
  double xs = std::max(xl, std::pow(10.0, y0) / roofs.memBandwidthGBs); // where the slope enters
  s.line(X(xs), Y(xs * roofs.memBandwidthGBs), X(ridge), Y(roofs.peakSpGflops), "#1f2933",
         "stroke-width=\"1.5\"");
  s.line(X(ridge), Y(roofs.peakSpGflops), X(xr), Y(roofs.peakSpGflops), "#1f2933", "stroke-width=\"1.5\"");
  s.text(X(xr) - 4, Y(roofs.peakSpGflops) - 5, fmt::format("FP32 peak {:g}", roofs.peakSpGflops), 10,
         "text-anchor=\"end\"");
  s.text(X(xs) + 4, Y(xs * roofs.memBandwidthGBs) - 6, fmt::format("{:g} GB/s", roofs.memBandwidthGBs), 10,
         fmt::format("transform=\"rotate({} {} {})\"",
                     fixed(std::atan2(Y(roofs.peakSpGflops) - Y(xs * roofs.memBandwidthGBs), X(ridge) - X(xs)) *
                               180 / M_PI, 1),
                     px(X(xs) + 4), px(Y(xs * roofs.memBandwidthGBs) - 6)));
  if (roofs.peakDpGflops > 0 && std::log10(roofs.peakDpGflops) > y0) {
    double dr = roofs.peakDpGflops / roofs.memBandwidthGBs;
    s.line(X(std::max(dr, xl)), Y(roofs.peakDpGflops), X(xr), Y(roofs.peakDpGflops), "#52606d",
           "stroke-width=\"1.2\" stroke-dasharray=\"5 3\"");
    s.text(X(xr) - 4, Y(roofs.peakDpGflops) + 12, fmt::format("FP64 peak {:g}", roofs.peakDpGflops), 10,
           "text-anchor=\"end\" fill=\"#52606d\"");
  }
  for (const auto &q : pts) {
    std::string tip = fmt::format("{} on {}: {} operations/byte, {} 10^9 operations/s ({}% of the roof "
                                  "there); {} ms{}",
                                  q.label, r.gpus[g].name, num(q.p.intensity(), 3), num(q.p.gops(), 4),
                                  fixed(100 * q.p.gops() / std::min(roofs.peakSpGflops,
                                                                    roofs.memBandwidthGBs * q.p.intensity()), 0),
                                  num(q.p.timeMs, 4), q.p.fp64() ? ", FP64" : "");
    s.body += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"{}\">"
                          "<title>{}</title></circle>\n",
                          px(X(q.p.intensity())), px(Y(q.p.gops())), q.p.fp64() ? "#ffffff" : gpuColor(g),
                          q.p.fp64() ? "1" : "0.75", gpuColor(g), esc(tip));
    if (pts.size() <= 12)
      s.text(X(q.p.intensity()) + 6, Y(q.p.gops()) + 3, clip(q.label, 28), 9, "fill=\"#323f4b\"");
  }
  s.rect(left, top, pw, ph, "none", "", "stroke=\"#9aa5b1\"");
  s.height = H;
  return s.render("roofline", fmt::format("Roofline on {}: each kernel's best layout", r.gpus[g].name));
}

/// The one inline script: every table.sortable sorts by a column when its
/// header is clicked (by data-v, the number, when the cells have it) and hides
/// the rows that do not hold the text of its input.filter.
constexpr const char *kScript = R"js(
(function () {
  document.querySelectorAll("table.sortable").forEach(function (t) {
    var body = t.tBodies[0];
    t.querySelectorAll("thead th").forEach(function (th, col) {
      th.title = "sort by this column";
      th.addEventListener("click", function () {
        var up = th.getAttribute("aria-sort") !== "ascending";
        t.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (r) {
          var c = r.cells[col];
          if (!c) return "";
          var v = c.getAttribute("data-v");
          return v !== null ? (v === "" ? null : parseFloat(v)) : c.textContent.trim().toLowerCase();
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          if (x === y) return 0;
          if (x === null) return 1; if (y === null) return -1; // empty cells last either way
          return (x < y ? -1 : 1) * (up ? 1 : -1);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll("input.filter").forEach(function (f) {
    var t = document.getElementById(f.getAttribute("data-table"));
    f.addEventListener("input", function () {
      var q = f.value.toLowerCase();
      Array.prototype.forEach.call(t.tBodies[0].rows, function (r) {
        r.style.display = r.textContent.toLowerCase().indexOf(q) >= 0 ? "" : "none";
      });
    });
  });
})();
)js";

/// A number cell that sorts by its value.
std::string numCell(const std::optional<double> &v, const std::string &shown) {
  return v ? fmt::format("<td class=\"num\" data-v=\"{}\">{}</td>", num(*v, 8), shown)
           : "<td class=\"num\" data-v=\"\">-</td>";
}

/// The filter box of a sortable table.
std::string filterBox(const std::string &table, const std::string &what) {
  return fmt::format("<input class=\"filter\" type=\"search\" data-table=\"{}\" placeholder=\"filter {}\" "
                     "aria-label=\"filter {}\">\n",
                     table, esc(what), esc(what));
}

/// The program of every benchmark on every GPU (docs/model.md section 9):
/// transfers in, kernels, transfers out, total, speedup and the verdict with its
/// reason; a benchmark without a CPU time is marked so (no speedup, and the
/// verdict cannot say "port").
std::string programTable(const BatchReport &r) {
  std::string o = filterBox("programs", "benchmarks, GPUs, verdicts");
  o += "<table id=\"programs\" class=\"sortable\">\n<thead><tr><th>benchmark</th><th>GPU</th>"
       "<th class=\"num\">CPU (ms)</th><th class=\"num\">in (ms)</th><th class=\"num\">kernels (ms)</th>"
       "<th class=\"num\">out (ms)</th><th class=\"num\">total (ms)</th><th class=\"num\">transfers</th>"
       "<th class=\"num\">speedup</th><th class=\"num\">kernel speedup</th><th>verdict</th><th>reason</th>"
       "</tr></thead>\n<tbody>\n";
  for (size_t bi = 0; bi < r.benchmarks.size(); ++bi) {
    const auto &b = r.benchmarks[bi];
    std::string name = fmt::format("<td><a href=\"#b-{}\">{}</a></td>", bi, esc(b.name));
    std::string cpu = b.cpuMs ? numCell(b.cpuMs, num(*b.cpuMs, 4))
                              : "<td class=\"num nocpu\" data-v=\"\" title=\"the suite gives no cpu_ms\">no CPU time</td>";
    for (size_t g = 0; g < r.gpus.size(); ++g) {
      o += "<tr>" + name + "<td>" + esc(r.gpus[g].name) + "</td>" + cpu;
      const auto *p = g < b.programs.size() && b.programs[g] ? &*b.programs[g] : nullptr;
      if (!p) {
        o += fmt::format("<td colspan=\"9\" class=\"bad\">{}</td></tr>\n",
                         b.error.empty() ? "no program: a kernel has no projection (see its section)"
                                         : "the input failed (see Failures)");
        continue;
      }
      o += numCell(p->h2dMs, num(p->h2dMs, 4)) + numCell(p->kernelsMs, num(p->kernelsMs, 4)) +
           numCell(p->d2hMs, num(p->d2hMs, 4)) + numCell(p->totalMs, num(p->totalMs, 4));
      std::optional<double> share = transferShare(b, g);
      o += numCell(share, share ? fixed(100 * *share, 0) + "%" : "-");
      o += numCell(p->speedup, p->speedup ? speedupText(*p->speedup) : "-");
      std::optional<double> ks = kernelSpeedup(b, g); // the kernels alone, as the chart's light bar
      o += numCell(ks, ks ? speedupText(*ks) : "-");
      o += fmt::format("<td class=\"{}\">{}</td><td class=\"reason\">{}</td></tr>\n",
                       p->verdict == "port" ? "port" : p->verdict == "do not port" ? "noport" : "open",
                       esc(p->verdict),
                       esc(p->reason.empty() ? (b.cpuMs ? "" : "no CPU time given") : p->reason));
    }
  }
  return o + "</tbody></table>\n";
}

/// Each benchmark's program time on every GPU against the first GPU's, and the
/// fastest GPU: the GPUs against each other.
std::string gpuAgainstGpuTable(const BatchReport &r) {
  if (r.gpus.size() < 2)
    return "";
  std::string o = filterBox("gpus", "benchmarks");
  o += "<table id=\"gpus\" class=\"sortable\">\n<thead><tr><th>benchmark</th>";
  for (size_t g = 0; g < r.gpus.size(); ++g)
    o += fmt::format("<th class=\"num\">{} (ms)</th>", esc(r.gpus[g].name));
  for (size_t g = 1; g < r.gpus.size(); ++g)
    o += fmt::format("<th class=\"num\">{} / {}</th>", esc(r.gpus[g].name), esc(r.gpus[0].name));
  o += "<th>fastest</th></tr></thead>\n<tbody>\n";
  for (size_t bi = 0; bi < r.benchmarks.size(); ++bi) {
    const auto &b = r.benchmarks[bi];
    o += fmt::format("<tr><td><a href=\"#b-{}\">{}</a></td>", bi, esc(b.name));
    std::optional<size_t> fastest;
    for (size_t g = 0; g < r.gpus.size(); ++g) {
      std::optional<double> t = programTimeMs(b, g);
      o += numCell(t, t ? num(*t, 4) : "-");
      if (t && (!fastest || *t < *programTimeMs(b, *fastest)))
        fastest = g;
    }
    std::optional<double> t0 = programTimeMs(b, 0);
    for (size_t g = 1; g < r.gpus.size(); ++g) {
      std::optional<double> t = programTimeMs(b, g), ratio;
      if (t && t0 && *t0 > 0)
        ratio = *t / *t0;
      o += numCell(ratio, ratio ? fixed(*ratio, 2) + "x" : "-");
    }
    o += fmt::format("<td>{}</td></tr>\n", fastest ? esc(r.gpus[*fastest].name) : "-");
  }
  return o + "</tbody></table>\n";
}

/// The warnings of every benchmark, each text once, with how many benchmarks
/// gave it and which (the first few).
std::string warningsPanel(const BatchReport &r) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> who;
  for (const auto &b : r.benchmarks)
    for (const auto &w : b.warnings) {
      auto &v = who[w];
      if (v.empty())
        order.push_back(w);
      if (v.empty() || v.back() != b.name)
        v.push_back(b.name);
    }
  if (order.empty())
    return "";
  size_t total = 0;
  for (const auto &[w, v] : who)
    total += v.size();
  std::string o = fmt::format("<section class=\"panel\"><h2 style=\"margin-top:0\">Warnings</h2>\n<p "
                              "class=\"note\">{} distinct, {} in all; each shown once.</p>\n",
                              order.size(), total);
  for (const auto &w : order) {
    const auto &v = who[w];
    std::string names;
    for (size_t i = 0; i < v.size() && i < 5; ++i)
      names += (i ? ", " : "") + esc(v[i]);
    if (v.size() > 5)
      names += fmt::format(" and {} more", v.size() - 5);
    o += fmt::format("<div class=\"warning\"><span class=\"count\">&times;{}</span> <span "
                     "class=\"mono\">{}</span> <span class=\"who\">({})</span></div>\n",
                     v.size(), esc(w), names);
  }
  return o + "</section>\n";
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
input.filter { font:inherit; padding:4px 8px; margin:0 0 8px; width:320px; border:1px solid #cbd2d9; border-radius:4px; }
table.sortable thead th { cursor:pointer; user-select:none; }
table.sortable th[aria-sort=ascending]::after { content:" \25B2"; }
table.sortable th[aria-sort=descending]::after { content:" \25BC"; }
td.bad, .bad { color:var(--bad); }
td.port { color:#2f855a; font-weight:600; } td.noport { color:var(--bad); }
td.reason { color:var(--muted); font-size:12px; max-width:340px; }
td.nocpu { color:#9aa5b1; font-style:italic; white-space:nowrap; } td.open { color:var(--muted); }
.rooflines { display:flex; flex-wrap:wrap; gap:10px; }
.warning { margin:2px 0; } .warning .count { font-weight:600; color:var(--accent); } .warning .who { color:var(--muted); font-size:12px; }
@media print { details.kernel { break-inside: avoid; } }
)css";

std::string boundSpan(const std::string &bound) {
  return fmt::format("<span class=\"bound-{}\">{}</span>", esc(bound), esc(bound));
}

} // namespace

std::string renderBatchHtml(const BatchReport &r, const SweepReport *sweep) {
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
  if (sweep && !sweep->values.empty())
    o += fmt::format("<p class=\"note\" style=\"margin-top:14px\">A sweep of <code>{}</code> over {}: "
                     "the plot below is the sweep's; every table and chart above it is the suite at "
                     "<code>{} = {}</code>, the sweep's last size.</p>\n",
                     esc(sweep->name), esc(sweep->rule), esc(sweep->name), sweep->values.back());

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

  o += warningsPanel(r);

  o += "<h2 id=\"programs-h\">The program of each benchmark</h2>\n<p class=\"note\">Per benchmark and GPU "
       "the whole program as <code>project</code> projects it (docs/model.md, section 9): copies to "
       "the GPU, its kernels (repeats, launches, fusion), copies back, the total, the host link's "
       "share, the speedup over the suite's CPU time and the verdict with its reason. A benchmark "
       "without a CPU time (no <code>cpu_ms</code>) is marked and has no speedup. Click a heading "
       "to sort; the box filters.</p>\n";
  o += "<div class=\"panel\">" + programTable(r) + "</div>\n";

  if (sweep) {
    std::string svg = renderSweepSvg(*sweep);
    auto at = svg.find("<svg ");
    if (at != std::string::npos) // the same SVG as sweep.svg, styled as the page's charts
      svg.replace(at, 5, "<svg class=\"chart sweep\" ");
    o += fmt::format("<h2>Sweep of {}</h2>\n<p class=\"note\">{} over {}; <code>sweep.svg</code>, "
                     "<code>sweep.csv</code> and <code>sweep.json</code> hold the same.</p>\n",
                     esc(sweep->name), esc(sweep->name), esc(sweep->rule));
    o += "<div class=\"panel\">" + svg + "</div>\n";
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

  std::string gvg = gpuAgainstGpuTable(r);
  if (!gvg.empty()) {
    o += fmt::format("<h2>GPU against GPU</h2>\n<p class=\"note\">Each benchmark's projected program "
                     "time on every GPU, its ratio to {}'s (below 1: faster than {}) and the fastest "
                     "GPU.</p>\n",
                     esc(r.gpus[0].name), esc(r.gpus[0].name));
    o += "<div class=\"panel\">" + gvg + "</div>\n";
  }

  std::string roofs;
  for (size_t g = 0; g < r.gpus.size(); ++g)
    roofs += rooflineChart(r, g);
  if (!roofs.empty()) {
    o += "<h2>Rooflines</h2>\n<p class=\"note\">Per GPU, each kernel's best layout: its operations "
         "(the skeleton's arithmetic instructions over all threads; an FMA is one, where the peaks "
         "count two) per compulsory DRAM byte against operations per second at its projected time, "
         "under the spec's roofs (memory bandwidth, FP32 peak, FP64 peak dashed). Hollow: mostly "
         "FP64. Log-log; hover a point for its kernel.</p>\n";
    o += "<div class=\"panel rooflines\">" + roofs + "</div>\n";
  }


  o += "<h2>Best layout per kernel and GPU</h2>\n<div class=\"panel\">" +
       filterBox("kernels", "benchmarks, kernels, layouts, bounds") +
       "<table id=\"kernels\" class=\"sortable\">\n<thead><tr><th>benchmark</th>"
       "<th>kernel</th><th>GPU</th><th>best layout</th><th class=\"num\">time (ms)</th><th>bound</th>"
       "<th class=\"num\">memory</th><th class=\"num\">speedup</th></tr></thead>\n<tbody>\n";
  for (size_t bi = 0; bi < r.benchmarks.size(); ++bi) {
    const auto &b = r.benchmarks[bi];
    if (!b.error.empty()) {
      o += fmt::format("<tr><td><a href=\"#b-{}\">{}</a></td><td colspan=\"7\" class=\"bad\">the input "
                       "failed (see Failures)</td></tr>\n",
                       bi, esc(b.name));
      continue;
    }
    for (size_t ki = 0; ki < b.kernels.size(); ++ki) {
      const auto &k = b.kernels[ki];
      std::string head = fmt::format("<tr><td>{}</td><td><a href=\"#k-{}-{}\">{}</a></td>", esc(b.name), bi,
                                     ki, esc(k.name));
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
        const auto &kg = k.gpus[g];
        if (!kg.ok()) {
          o += head + fmt::format("<td>{}</td><td colspan=\"5\" class=\"bad\">{}</td></tr>\n",
                                  esc(r.gpus[g].name), esc(kg.error));
          continue;
        }
        const auto &l = kg.layouts.front();
        std::optional<double> s = speedup(b, g);
        double share = memoryShare(l, r.gpus[g].clockGHz);
        o += head + fmt::format("<td>{}</td><td class=\"mono\">{}</td>{}<td>{}</td>{}{}</tr>\n",
                                esc(r.gpus[g].name), esc(l.layoutString),
                                numCell(l.result.timeMs, num(l.result.timeMs, 4)), boundSpan(l.result.bound),
                                numCell(share, fixed(100 * share, 0) + "%"),
                                numCell(s, s ? speedupText(*s) : "-"));
      }
    }
  }
  o += "</tbody></table></div>\n";

  o += fmt::format("<h2>Top layouts of each kernel</h2>\n<p class=\"note\">The {} fastest layouts "
                   "of each kernel on each GPU, on one time scale per kernel.</p>\n",
                   r.top);
  bool drawEach = kernelCount(r) <= kKernelChartsUpTo;
  if (!drawEach)
    o += fmt::format("<p class=\"note\">{} kernels: the sections are closed and hold their tables only "
                     "(the charts of each kernel are drawn up to {} kernels).</p>\n",
                     kernelCount(r), kKernelChartsUpTo);
  for (size_t bi = 0; bi < r.benchmarks.size(); ++bi) {
    const auto &b = r.benchmarks[bi];
    o += fmt::format("<a id=\"b-{}\"></a>", bi);
    if (!b.error.empty())
      o += fmt::format("<details class=\"kernel\"><summary>{} <span class=\"mono\">{}</span></summary>"
                       "<pre class=\"bad\">{}</pre></details>\n",
                       esc(b.name), esc(b.input), esc(b.error));
    for (size_t ki = 0; ki < b.kernels.size(); ++ki) {
      const auto &k = b.kernels[ki];
      std::string chart = drawEach ? topLayoutsChart(r, b, k) : "";
      o += fmt::format("<details class=\"kernel\" id=\"k-{}-{}\"{}><summary>{} / {} <span "
                       "class=\"mono\">{}</span></summary>\n",
                       bi, ki, drawEach ? " open" : "", esc(b.name), esc(k.name), esc(b.input));
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
  }

  o += fmt::format("<footer>Written by skelcast {} (model {}). Projections, not measurements: see "
                   "docs/model.md for what the model assumes. This file is self-contained: it "
                   "loads nothing.</footer>\n</main>\n<script>{}</script>\n</body>\n</html>\n",
                   esc(r.version), esc(r.model), kScript);
  return o;
}

} // namespace skelcast::report
