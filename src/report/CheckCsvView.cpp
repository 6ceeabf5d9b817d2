// `skelcast check --format csv`: one row per kernel/GPU entry, as the JSON's
// `entries`; an input that failed is a row with status `failed` and no kernel.
#include "Csv.h"
#include "Format.h"
#include "skelcast/report/Check.h"

namespace skelcast::report {

std::string renderCheckCsv(const CheckReport &c) {
  auto opt = [](const std::optional<double> &v) { return v ? num(*v, 8) : std::string(); };
  std::string out = "status,benchmark,kernel,gpu,old_time_ms,new_time_ms,old_speedup,new_speedup,"
                    "time_regressed,speedup_regressed,fails,message\n";
  for (const auto &f : c.inputFailures)
    out += csvRecord({"failed", f.benchmark, "", "", "", "", "", "", "false", "false", "true", f.message});
  for (const auto &e : c.entries)
    out += csvRecord({checkStatusName(e.status), e.benchmark, e.kernel, e.gpu, opt(e.oldTimeMs),
                      opt(e.newTimeMs), opt(e.oldSpeedup), opt(e.newSpeedup),
                      e.timeRegressed ? "true" : "false", e.speedupRegressed ? "true" : "false",
                      e.fails(c.options.strict) ? "true" : "false", e.message});
  return out;
}

} // namespace skelcast::report
