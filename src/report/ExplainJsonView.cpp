// `skelcast explain --format json`: the quantities of explainProjection
// (Explanation.cpp), one explanation per GPU (docs/schema/explain.schema.json).
#include "JsonFields.h"
#include "skelcast/report/Report.h"

#include <nlohmann/json.hpp>

namespace skelcast::report {

std::string renderExplainJson(const std::vector<Explanation> &perGpu, const std::string &version) {
  using nlohmann::json;
  json root;
  root["schema_version"] = 1;
  root["skelcast_version"] = version;
  json all = json::array();
  for (const auto &x : perGpu) {
    json sections = json::array();
    for (const auto &s : x.sections) {
      json qs = json::array();
      for (const auto &q : s.rows)
        // full precision (the text rounds); whole numbers as JSON integers
        qs.push_back({{"name", q.name}, {"value", q.value ? countJson(*q.value) : json(q.text)},
                      {"where", q.where}});
      sections.push_back({{"title", s.title}, {"quantities", std::move(qs)}});
    }
    json j{{"kernel", x.kernel}, {"file", x.file},           {"gpu", x.gpu},
           {"model", x.model},   {"layout", x.layout},       {"time_ms", finiteJson(x.timeMs)},
           {"bound", x.bound},   {"sections", std::move(sections)}};
    if (x.launches)
      j["repeat"] = launchesJson(*x.launches);
    if (!x.hwOverrides.empty())
      j["hw_overrides"] = x.hwOverrides;
    if (!x.timing.empty())
      j["timing"] = x.timing;
    all.push_back(std::move(j));
  }
  root["explanations"] = std::move(all);
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace skelcast::report
