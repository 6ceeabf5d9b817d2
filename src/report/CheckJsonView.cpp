// `skelcast check --format json`: the CheckReport, every entry with its status
// and both sides (docs/schema/check.schema.json).
#include "JsonFields.h"
#include "skelcast/report/Check.h"

#include <nlohmann/json.hpp>

namespace skelcast::report {

std::string renderCheckJson(const CheckReport &c) {
  using nlohmann::json;
  json root;
  root["schema_version"] = 1;
  root["skelcast_version"] = c.version;
  root["model"] = c.model;
  root["suite"] = c.suite;
  root["baseline"] = c.baselinePath;
  root["gpus"] = c.gpus;
  root["tolerance"] = finiteJson(c.options.tolerance);
  root["strict"] = c.options.strict;
  json entries = json::array();
  for (const auto &e : c.entries) {
    json j{{"status", checkStatusName(e.status)},
           {"benchmark", e.benchmark},
           {"kernel", e.kernel},
           {"gpu", e.gpu},
           {"old_time_ms", optionalJson(e.oldTimeMs)},
           {"new_time_ms", optionalJson(e.newTimeMs)},
           {"old_speedup", optionalJson(e.oldSpeedup)},
           {"new_speedup", optionalJson(e.newSpeedup)},
           {"time_regressed", e.timeRegressed},
           {"speedup_regressed", e.speedupRegressed},
           {"fails", e.fails(c.options.strict)}};
    if (!e.message.empty())
      j["message"] = e.message;
    entries.push_back(std::move(j));
  }
  root["entries"] = std::move(entries);
  json inputs = json::array();
  for (const auto &f : c.inputFailures)
    inputs.push_back({{"benchmark", f.benchmark}, {"input", f.input}, {"message", f.message}});
  root["input_failures"] = std::move(inputs);
  root["notes"] = c.notes;
  json counts;
  for (CheckStatus s : {CheckStatus::Unchanged, CheckStatus::Improved, CheckStatus::Regressed,
                        CheckStatus::New, CheckStatus::Gone, CheckStatus::Failed})
    counts[checkStatusName(s)] = c.count(s);
  root["summary"] = std::move(counts);
  root["passed"] = !c.failed();
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace skelcast::report
