// JSON pieces that `project --format json` (JsonView.cpp) and batch's
// report.json (BatchJsonView.cpp) share, so that a program reads the same in both.
#pragma once

#include "skelcast/model/Program.h"
#include "skelcast/model/Project.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>

namespace skelcast::report {

/// JSON has no NaN or infinity: such a value becomes null (never expected).
nlohmann::json finiteJson(double v);
nlohmann::json optionalJson(const std::optional<double> &v);
/// A count (threads, blocks, bytes, instructions, launches): a JSON integer when
/// the value is whole (`256`, never `256.0`), else the number as it is.
nlohmann::json countJson(double v);

/// One ranked layout of a kernel: its string, time, the MWP/CWP result and the
/// workload (docs/model.md); `launches_ms` for a kernel of an indexed repeat. Batch's report.json adds its own fields to it.
nlohmann::json layoutJson(size_t rank, const model::LayoutProjection &l);

/// An indexed repeat's launches of a kernel (model::RepeatedLaunches).
nlohmann::json launchesJson(const model::RepeatedLaunches &l);

/// A program's projection: transfers, kernels, fusion, CPU time, speedup, verdict
/// (the `program` object of docs/model.md section 9).
nlohmann::json programJson(const model::ProgramProjection &p);

struct Report;
/// renderJson's object (JsonView.cpp), for the views that hold several reports.
nlohmann::json reportJson(const Report &r);

} // namespace skelcast::report
