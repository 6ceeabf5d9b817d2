#include "skelcast/report/Report.h"

#include "JsonFields.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace skelcast::report {
namespace {

nlohmann::json finite(double v) { return finiteJson(v); }

} // namespace

std::string renderJson(const Report &r) {
  using nlohmann::json;
  json root;
  root["skelcast_version"] = r.version;
  root["hw"] = {{"name", r.hwName}, {"description", r.hwDescription}, {"content_hash", r.hwHash}};
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
      const auto &l = p.layouts[i];
      const auto &w = l.characterization.workload;
      layouts.push_back({
          {"rank", i + 1},
          {"layout", l.layoutString},
          {"time_ms", finite(l.result.timeMs)},
          {"cycles", finite(l.result.totalCycles)},
          {"bound", l.result.bound},
          {"mwp", finite(l.result.mwp)},
          {"cwp", finite(l.result.cwp)},
          {"active_warps", finite(l.result.n)},
          {"exec_case", l.result.execCase},
          {"threads_per_block", finite(w.threadsPerBlock)},
          {"blocks", finite(w.blocks)},
          {"shared_mem_bytes_per_block", finite(w.sharedMemBytesPerBlock)},
          {"comp_insts", finite(w.compInsts)},
          {"coal_mem_insts", finite(w.coalMemInsts)},
          {"uncoal_mem_insts", finite(w.uncoalMemInsts)},
          {"synch_insts", finite(w.synchInsts)},
      });
    }
    kj["layouts"] = std::move(layouts);
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
  // File names come from the command line and need not be UTF-8: replace what is not.
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace skelcast::report
