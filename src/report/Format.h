// Number formatting shared by the renderers: no NaN or infinity ever printed.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace skelcast::report {

inline std::string num(double v, int prec = 4) {
  if (!std::isfinite(v))
    return "-";
  return fmt::format("{:.{}g}", v, prec);
}

inline std::string fixed(double v, int prec) {
  if (!std::isfinite(v))
    return "-";
  return fmt::format("{:.{}f}", v, prec);
}

} // namespace skelcast::report
