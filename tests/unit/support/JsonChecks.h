// Test helper: no NaN or infinity reaches a JSON output. nlohmann prints a
// non-finite double as null (and the renderers map them to null on purpose),
// so a null where a number belongs is how a NaN or infinity shows.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace skelcast::testsupport {

/// Keys whose value is null by design when the input gives no CPU time.
inline const std::set<std::string> &optionalNumberKeys() {
  static const std::set<std::string> keys{"cpu_ms", "speedup", "break_even_repeats"};
  return keys;
}

/// JSON-pointer-like paths of every null outside `optionalNumberKeys` and every
/// non-finite number in `j`.
inline void collectNonFinite(const nlohmann::json &j, const std::string &at,
                             std::vector<std::string> &bad) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.value().is_null() && !optionalNumberKeys().count(it.key()))
        bad.push_back(at + "/" + it.key());
      else
        collectNonFinite(it.value(), at + "/" + it.key(), bad);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      if (j[i].is_null())
        bad.push_back(at + "/" + std::to_string(i));
      else
        collectNonFinite(j[i], at + "/" + std::to_string(i), bad);
    }
  } else if (j.is_number_float() && !std::isfinite(j.get<double>())) {
    bad.push_back(at);
  }
}

inline std::vector<std::string> nonFinite(const std::string &jsonText) {
  std::vector<std::string> bad;
  collectNonFinite(nlohmann::json::parse(jsonText), "", bad);
  return bad;
}

/// Every number in `j`, for tests that bound them.
inline void collectNumbers(const nlohmann::json &j, const std::string &at,
                           std::vector<std::pair<std::string, double>> &out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      collectNumbers(it.value(), at + "/" + it.key(), out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      collectNumbers(j[i], at + "/" + std::to_string(i), out);
  } else if (j.is_number()) {
    out.push_back({at, j.get<double>()});
  }
}

} // namespace skelcast::testsupport
