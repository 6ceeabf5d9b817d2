// How the batch and check renderers print a speedup: "44230x", "58.5x", "0.84x"
// (never an exponent, three significant digits or more).
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace skelcast::report {

inline std::string speedupText(double v) {
  if (!std::isfinite(v))
    return "-";
  if (v >= 100)
    return fmt::format("{:.0f}x", v);
  if (v >= 10)
    return fmt::format("{:.1f}x", v);
  return fmt::format("{:.2f}x", v);
}

} // namespace skelcast::report
