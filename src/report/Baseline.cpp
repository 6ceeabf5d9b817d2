// The baseline of `skelcast check`: reading, writing and comparing it.
#include "skelcast/report/Check.h"

#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/JsonText.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <set>
#include <tuple>

namespace skelcast::report {
namespace {

using nlohmann::json;

constexpr int kBaselineSchema = 1;

[[noreturn]] void fail(const std::string &path, const std::string &field, const std::string &msg) {
  throw InputError({path, 0, 0}, field.empty() ? msg : fmt::format("field '{}': {}", field, msg));
}

std::string str(const json &o, const std::string &key, const std::string &path, const std::string &at) {
  auto it = o.find(key);
  if (it == o.end())
    fail(path, at + key, "missing");
  if (!it->is_string() || it->get<std::string>().empty())
    fail(path, at + key, fmt::format("must be a non-empty string, is {}", it->type_name()));
  return it->get<std::string>();
}

/// A baseline's time or speedup: finite, within (0, 1e15].
double inRange(const std::string &path, const std::string &field, double v) {
  if (!std::isfinite(v) || !(v > 0) || v > 1e15)
    fail(path, field, fmt::format("{} is out of range (0, 1e+15]", v));
  return v;
}


using Key = std::tuple<std::string, std::string, std::string>;

} // namespace

Baseline parseBaseline(const std::string &text, const std::string &path) {
  json root = parseJsonText(text, path);
  if (!root.is_object())
    fail(path, "", "a baseline is a JSON object");
  auto sv = root.find("schema_version");
  if (sv == root.end())
    fail(path, "schema_version", "missing: this is not a skelcast baseline");
  if (!sv->is_number_integer() || sv->get<int64_t>() != kBaselineSchema)
    fail(path, "schema_version",
         fmt::format("{} is not supported (this skelcast reads version {}): regenerate the baseline "
                     "with 'skelcast check SUITE --baseline {} --update-baseline'",
                     sv->dump(), kBaselineSchema, path));
  if (!root.contains("entries")) {
    if (root.contains("benchmarks"))
      fail(path, "entries", "missing: this is a batch report (report.json), not a baseline; write a "
                            "baseline with 'skelcast check SUITE --baseline FILE --update-baseline'");
    fail(path, "entries", "missing: this is not a skelcast baseline");
  }
  static const std::set<std::string> known{"schema_version", "skelcast_version", "model", "specs", "entries"};
  for (auto &[k, _] : root.items())
    if (!known.count(k))
      fail(path, k, "unknown field");
  Baseline b;
  b.path = path;
  b.version = str(root, "skelcast_version", path, "");
  b.model = str(root, "model", path, "");
  if (auto sp = root.find("specs"); sp != root.end()) {
    if (!sp->is_object())
      fail(path, "specs", "must be an object {\"gpu\": \"content hash\"}");
    for (auto &[name, hash] : sp->items()) {
      if (!hash.is_string())
        fail(path, "specs." + name, "must be a string (the spec's content hash)");
      b.specs[name] = hash.get<std::string>();
    }
  }
  const json &entries = root["entries"];
  if (!entries.is_array())
    fail(path, "entries", fmt::format("must be an array, is {}", entries.type_name()));
  std::set<Key> seen;
  for (size_t i = 0; i < entries.size(); ++i) {
    const json &e = entries[i];
    std::string at = fmt::format("entries[{}].", i);
    if (!e.is_object())
      fail(path, fmt::format("entries[{}]", i), "must be an object");
    for (auto &[k, _] : e.items())
      if (k != "benchmark" && k != "kernel" && k != "gpu" && k != "time_ms" && k != "speedup")
        fail(path, at + k, "unknown field");
    BaselineEntry be;
    be.benchmark = str(e, "benchmark", path, at);
    be.kernel = str(e, "kernel", path, at);
    be.gpu = str(e, "gpu", path, at);
    auto t = e.find("time_ms");
    if (t == e.end())
      fail(path, at + "time_ms", "missing");
    if (!t->is_number() || !(t->get<double>() > 0))
      fail(path, at + "time_ms", fmt::format("must be a positive number, is {}", t->dump()));
    be.timeMs = inRange(path, at + "time_ms", t->get<double>());
    auto s = e.find("speedup");
    if (s == e.end())
      fail(path, at + "speedup", "missing (null when the benchmark has no CPU time)");
    if (!s->is_null()) {
      if (!s->is_number() || !(s->get<double>() > 0))
        fail(path, at + "speedup", fmt::format("must be a positive number or null, is {}", s->dump()));
      be.speedup = inRange(path, at + "speedup", s->get<double>());
    }
    if (!seen.insert({be.benchmark, be.kernel, be.gpu}).second)
      fail(path, fmt::format("entries[{}]", i),
           fmt::format("a second entry for benchmark '{}', kernel '{}', gpu '{}'", be.benchmark,
                       be.kernel, be.gpu));
    b.entries.push_back(std::move(be));
  }
  return b;
}

Baseline baselineFromReport(const BatchReport &r) {
  Baseline b;
  b.version = r.version;
  b.model = r.model;
  for (const auto &g : r.gpus)
    b.specs[g.name] = g.contentHash;
  for (const auto &bm : r.benchmarks)
    for (const auto &k : bm.kernels)
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g)
        if (auto t = k.gpus[g].timeMs())
          b.entries.push_back({bm.name, k.name, r.gpus[g].name, *t, speedup(bm, g)});
  return b;
}

std::string renderBaselineJson(const Baseline &b) {
  // Written by hand, one entry per line, so that a changed number is a one-line diff.
  json specs = json::object();
  for (const auto &[n, h] : b.specs)
    specs[n] = h;
  std::string out = "{\n";
  out += fmt::format("  \"schema_version\": {},\n", kBaselineSchema);
  out += fmt::format("  \"skelcast_version\": {},\n", json(b.version).dump());
  out += fmt::format("  \"model\": {},\n", json(b.model).dump());
  out += fmt::format("  \"specs\": {},\n", specs.dump());
  out += "  \"entries\": [";
  for (size_t i = 0; i < b.entries.size(); ++i) {
    const auto &e = b.entries[i];
    json line = {{"benchmark", e.benchmark},
                 {"kernel", e.kernel},
                 {"gpu", e.gpu},
                 // every digit (nlohmann writes the shortest text that reads back the
                 // same double): an unchanged suite passes at any tolerance
                 {"time_ms", e.timeMs},
                 {"speedup", e.speedup ? json(*e.speedup) : json(nullptr)}};
    // nlohmann sorts keys; keep the documented order instead.
    out += fmt::format("{}\n    {{\"benchmark\": {}, \"kernel\": {}, \"gpu\": {}, \"time_ms\": {}, "
                       "\"speedup\": {}}}",
                       i ? "," : "", line["benchmark"].dump(), line["kernel"].dump(),
                       line["gpu"].dump(), line["time_ms"].dump(), line["speedup"].dump());
  }
  out += b.entries.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

double parseTolerance(const std::string &text) {
  std::string t = text;
  bool percent = !t.empty() && t.back() == '%';
  if (percent)
    t.pop_back();
  char *end = nullptr;
  double v = t.empty() ? NAN : std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
    throw InputError({"--tolerance", 0, 0},
                     fmt::format("'{}' is not a tolerance: write a percentage ('5%') or a fraction "
                                 "('0.05')",
                                 text));
  if (percent && v > 1000)
    throw InputError({"--tolerance", 0, 0},
                     fmt::format("'{}' is out of range: a tolerance is at most 1000%", text));
  if (percent)
    return v / 100;
  if (v > 1)
    throw InputError({"--tolerance", 0, 0},
                     fmt::format("'{}' is ambiguous: write '{}%' for a percentage or a fraction "
                                 "at most 1",
                                 text, text));
  return v;
}

const char *checkStatusName(CheckStatus s) {
  switch (s) {
  case CheckStatus::Unchanged: return "unchanged";
  case CheckStatus::Improved: return "improved";
  case CheckStatus::Regressed: return "regressed";
  case CheckStatus::New: return "new";
  case CheckStatus::Gone: return "gone";
  case CheckStatus::Failed: return "failed";
  }
  return "?";
}

bool CheckEntry::fails(bool strict) const {
  return status == CheckStatus::Regressed || status == CheckStatus::Gone ||
         status == CheckStatus::Failed || (strict && status == CheckStatus::New);
}

size_t CheckReport::count(CheckStatus s) const {
  size_t n = 0;
  for (const auto &e : entries)
    n += e.status == s ? 1 : 0;
  return n;
}

bool CheckReport::failed() const {
  if (!inputFailures.empty())
    return true;
  for (const auto &e : entries)
    if (e.fails(options.strict))
      return true;
  return false;
}

CheckReport compareWithBaseline(const BatchReport &run, const Baseline &base, const CheckOptions &opts) {
  if (base.model != run.model)
    throw InputError({base.path, 0, 0},
                     fmt::format("field 'model': the baseline was made with model '{}', this run "
                                 "uses '{}': compare like with like (--model/--without) or "
                                 "regenerate it with --update-baseline",
                                 base.model, run.model));
  if (base.version != run.version)
    throw InputError({base.path, 0, 0},
                     fmt::format("field 'skelcast_version': the baseline was written by skelcast "
                                 "{}, this is {}: its projections are not comparable; regenerate it "
                                 "with --update-baseline",
                                 base.version, run.version));
  CheckReport c;
  c.suite = run.suite;
  c.baselinePath = base.path;
  c.version = run.version;
  c.model = run.model;
  c.options = opts;
  std::set<std::string> projected;
  for (const auto &g : run.gpus) {
    c.gpus.push_back(g.name);
    projected.insert(g.name);
    auto h = base.specs.find(g.name);
    if (h != base.specs.end() && h->second != g.contentHash)
      c.notes.push_back(fmt::format("the spec of '{}' changed since the baseline (content hash {} "
                                    "-> {}): its projections may move for that reason alone",
                                    g.name, h->second, g.contentHash));
  }
  std::map<Key, const BaselineEntry *> old;
  std::set<std::string> skippedGpus;
  for (const auto &e : base.entries) {
    if (projected.count(e.gpu))
      old[{e.benchmark, e.kernel, e.gpu}] = &e;
    else
      skippedGpus.insert(e.gpu);
  }
  for (const auto &g : skippedGpus)
    c.notes.push_back(fmt::format("the baseline has entries for '{}', which this run does not "
                                  "project (add it to --hw to check them)",
                                  g));

  std::set<Key> matched;
  std::set<std::string> failedInputs;
  for (const auto &bm : run.benchmarks) {
    if (!bm.error.empty()) {
      c.inputFailures.push_back({bm.name, bm.input, "", "", bm.error});
      failedInputs.insert(bm.name);
      continue;
    }
    for (const auto &k : bm.kernels)
      for (size_t g = 0; g < k.gpus.size() && g < run.gpus.size(); ++g) {
        CheckEntry e;
        e.benchmark = bm.name;
        e.kernel = k.name;
        e.gpu = run.gpus[g].name;
        e.newTimeMs = k.gpus[g].timeMs();
        e.newSpeedup = speedup(bm, g);
        auto it = old.find({e.benchmark, e.kernel, e.gpu});
        if (it != old.end()) {
          matched.insert(it->first);
          e.oldTimeMs = it->second->timeMs;
          e.oldSpeedup = it->second->speedup;
        }
        if (!k.gpus[g].ok()) {
          e.status = CheckStatus::Failed;
          e.message = k.gpus[g].error;
        } else if (!e.oldTimeMs) {
          e.status = CheckStatus::New;
        } else {
          double tol = opts.tolerance;
          e.timeRegressed = *e.newTimeMs > *e.oldTimeMs * (1 + tol);
          e.speedupRegressed = e.oldSpeedup && e.newSpeedup && *e.newSpeedup < *e.oldSpeedup * (1 - tol);
          if (e.oldSpeedup && !e.newSpeedup && !bm.cpuMs)
            e.speedupRegressed = true; // the CPU time was removed from the suite
          // (A sibling kernel without a projection also leaves no speedup: that
          // kernel is reported as failed, not this one.)
          bool improved = *e.newTimeMs < *e.oldTimeMs * (1 - tol) ||
                          (e.oldSpeedup && e.newSpeedup && *e.newSpeedup > *e.oldSpeedup * (1 + tol));
          e.status = e.timeRegressed || e.speedupRegressed ? CheckStatus::Regressed
                     : improved                            ? CheckStatus::Improved
                                                           : CheckStatus::Unchanged;
        }
        c.entries.push_back(std::move(e));
      }
  }
  for (const auto &be : base.entries) {
    Key key{be.benchmark, be.kernel, be.gpu};
    if (!projected.count(be.gpu) || matched.count(key))
      continue;
    CheckEntry e;
    e.benchmark = be.benchmark;
    e.kernel = be.kernel;
    e.gpu = be.gpu;
    e.oldTimeMs = be.timeMs;
    e.oldSpeedup = be.speedup;
    if (failedInputs.count(be.benchmark)) {
      e.status = CheckStatus::Failed;
      e.message = "the benchmark's input failed (see above)";
    } else {
      e.status = CheckStatus::Gone;
    }
    c.entries.push_back(std::move(e));
  }
  return c;
}

} // namespace skelcast::report
