// `skelcast skeletonize --format json`: the skeleton the C file gave, as text
// (what `skeletonize` prints) and as its parts: macros with their values,
// arrays with their extents, kernels with their loop spaces, repeats, and the
// warnings (docs/schema/skeletonize.schema.json).
#include "skelcast/report/SkeletonJson.h"

#include "JsonFields.h"
#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Printer.h"

#include <nlohmann/json.hpp>

namespace skelcast::report {
namespace {

using nlohmann::json;

/// An expression as written and, when it is constant, its value.
json exprJson(const skeleton::Expr &e, const skeleton::MacroTable &env, const std::string &file) {
  json j{{"text", skeleton::printExpr(e)}, {"value", nullptr}};
  if (skeleton::isConstExpr(e, env))
    j["value"] = skeleton::evalConstExpr(e, env, file);
  return j;
}

json locJson(const SourceLoc &l) { return {{"line", l.line}, {"col", l.col}}; }

} // namespace

std::string renderSkeletonJson(const skeleton::SkeletonFile &f, const std::vector<Warning> &warnings,
                               const std::vector<std::string> &functions, const std::string &version) {
  skeleton::MacroTable env = skeleton::evalMacros(f);
  json root;
  root["schema_version"] = 1;
  root["skelcast_version"] = version;
  root["input"] = f.path;
  root["functions"] = functions;
  root["skeleton"] = skeleton::printSkeleton(f);
  json macros = json::array();
  for (const auto &m : f.macros)
    macros.push_back({{"name", m.name}, {"expr", exprJson(m.value, env, f.path)}});
  root["macros"] = std::move(macros);
  json arrays = json::array();
  for (const auto &a : f.arrays) {
    json extents = json::array();
    for (const auto &e : a.extents)
      extents.push_back(exprJson(e, env, f.path));
    arrays.push_back({{"name", a.name},
                      {"type", skeleton::elemTypeName(a.type)},
                      {"host", skeleton::hostMarkName(a.mark)},
                      {"extents", std::move(extents)},
                      {"sample", a.sampleFile ? json(*a.sampleFile) : json(nullptr)}});
  }
  root["arrays"] = std::move(arrays);
  json kernels = json::array();
  for (size_t k = 0; k < f.kernels.size(); ++k) {
    const auto &kn = f.kernels[k];
    json dims = json::array();
    for (size_t d = 0; d < kn.dims.size(); ++d)
      dims.push_back({{"index", d < kn.indices.size() ? kn.indices[d] : ""},
                      {"lo", kn.dims[d].lo ? exprJson(*kn.dims[d].lo, env, f.path) : json{{"text", "0"}, {"value", 0}}},
                      {"hi", exprJson(kn.dims[d].hi, env, f.path)}});
    const skeleton::Repeat *rep = f.repeatOf(k);
    kernels.push_back({{"name", f.kernelName(k)},
                       {"loop_space", std::move(dims)},
                       {"in_repeat", rep != nullptr},
                       {"loc", locJson(kn.loc)}});
  }
  root["kernels"] = std::move(kernels);
  json repeats = json::array();
  for (const auto &r : f.repeats) {
    json names = json::array();
    for (size_t k : r.kernels)
      names.push_back(f.kernelName(k));
    json j{{"kernels", std::move(names)}, {"index", r.indexed() ? json(r.index) : json(nullptr)}};
    if (r.indexed()) {
      j["lo"] = exprJson(r.lo, env, f.path);
      j["hi"] = exprJson(r.hi, env, f.path);
      j["step"] = r.step ? exprJson(*r.step, env, f.path) : json{{"text", "1"}, {"value", 1}};
    } else {
      j["count"] = exprJson(r.count, env, f.path);
    }
    repeats.push_back(std::move(j));
  }
  root["repeats"] = std::move(repeats);
  json ws = json::array();
  for (const auto &w : warnings)
    ws.push_back({{"file", w.loc.file}, {"line", w.loc.line}, {"col", w.loc.col}, {"message", w.message}});
  root["warnings"] = std::move(ws);
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace skelcast::report
