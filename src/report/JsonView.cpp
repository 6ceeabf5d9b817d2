#include "skelcast/report/Report.h"

#include "JsonFields.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace skelcast::report {

nlohmann::json reportJson(const Report &r) {
  using nlohmann::json;
  json root;
  root["skelcast_version"] = r.version;
  root["hw"] = {{"name", r.hwName}, {"description", r.hwDescription}, {"content_hash", r.hwHash}};
  if (!r.hwOverrides.empty())
    root["hw"]["overrides"] = r.hwOverrides;
  root["model"] = {{"name", r.model}};
  json kernels = json::array();
  for (const auto &k : r.kernels) {
    const auto &p = k.projection;
    json kj;
    kj["name"] = p.kernel;
    kj["file"] = k.file;
    kj["layouts_explored"] = p.layoutsExplored;
    kj["layouts_pruned"] = p.layoutsPruned;
    json layouts = json::array();
    size_t n = std::min(r.top, p.layouts.size());
    for (size_t i = 0; i < n; ++i) {
      layouts.push_back(layoutJson(i + 1, p.layouts[i]));
    }
    kj["layouts"] = std::move(layouts);
    if (p.launches)
      kj["repeat"] = launchesJson(*p.launches);
    kernels.push_back(std::move(kj));
  }
  root["kernels"] = std::move(kernels);
  json programs = json::array();
  for (const auto &pr : r.programs) {
    json pj = programJson(pr.program);
    pj["file"] = pr.file;
    programs.push_back(std::move(pj));
  }
  if (!programs.empty())
    root["program"] = programs.front();
  root["programs"] = std::move(programs);
  return root;
}

std::string renderJson(const Report &r) {
  nlohmann::json root = reportJson(r);
  root["schema_version"] = 1; // docs/schema/project.schema.json
  // File names come from the command line and need not be UTF-8: replace what is not.
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace skelcast::report
