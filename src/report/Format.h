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

/// The first line of a message (a compiler's error can run to many).
inline std::string firstLine(const std::string &s) { return s.substr(0, s.find('\n')); }

inline std::string fixed(double v, int prec) {
  if (!std::isfinite(v))
    return "-";
  return fmt::format("{:.{}f}", v, prec);
}

} // namespace skelcast::report
