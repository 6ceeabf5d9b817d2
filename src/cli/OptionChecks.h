/// \file
/// CLI11 checks for the numeric options of every command. Each option has a
/// stated range; a value outside it, NaN or an infinity is a usage error
/// (exit 2) naming the option, the range and the value:
///
///   skelcast: error: --cpu-ms: must be a number within (0, 1e+09], is 'nan'
///   skelcast: error: --top: must be an integer within [1, 100000000], is '0'
///
/// (CLI11's own PositiveNumber lets NaN and 1e308 through and describes its
/// range with 309 digits.)
#pragma once

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace skelcast::cli {

/// A finite number within [lo, hi], or (lo, hi] when `openLow`.
inline CLI::Validator numberWithin(double lo, double hi, bool openLow = false) {
  std::string range = fmt::format("{}{}, {}]", openLow ? "(" : "[", lo, hi);
  return CLI::Validator(
      [=](std::string &s) -> std::string {
        errno = 0;
        char *end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        bool ok = !s.empty() && end == s.c_str() + s.size() && std::isfinite(v) &&
                  (openLow ? v > lo : v >= lo) && v <= hi;
        return ok ? "" : fmt::format("must be a number within {}, is '{}'", range, s);
      },
      "NUMBER in " + range);
}

/// An integer within [lo, hi].
inline CLI::Validator integerWithin(long long lo, long long hi) {
  return CLI::Validator(
      [=](std::string &s) -> std::string {
        errno = 0;
        char *end = nullptr;
        long long v = std::strtoll(s.c_str(), &end, 10);
        bool ok = !s.empty() && end == s.c_str() + s.size() && errno != ERANGE && v >= lo && v <= hi;
        return ok ? "" : fmt::format("must be an integer within [{}, {}], is '{}'", lo, hi, s);
      },
      fmt::format("INT in [{}, {}]", lo, hi));
}

/// The ranges, one place for every command.
constexpr double kMaxCpuMs = 1e9;        ///< 11.6 days
constexpr double kMaxSpeedup = 1e6;      ///< --min-speedup
constexpr double kMaxErrorPercent = 1e6; ///< validate --max-error
constexpr long long kMaxTop = 100000000; ///< layouts shown per kernel (all of them: --top 1000000)
constexpr long long kMaxJobs = 1024;     ///< -j
constexpr long long kMaxCpuRepeats = 1000;

} // namespace skelcast::cli
