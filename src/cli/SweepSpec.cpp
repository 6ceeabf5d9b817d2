#include "SweepSpec.h"

#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace skelcast::cli {
namespace {

constexpr int64_t kMaxSize = int64_t{1} << 62;

[[noreturn]] void fail(const std::string &msg) { throw InputError({"--sweep", 0, 0}, msg); }

int64_t parseSize(const std::string &s, const std::string &spec) {
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-'))
    fail(fmt::format("'{}' is not an integer size (in '{}')", s, spec));
  if (errno == ERANGE || v < 1 || v > kMaxSize)
    fail(fmt::format("size {} is out of range [1, 2^62] (in '{}')", s, spec));
  return v;
}

double parseNumber(const std::string &s, const std::string &what, const std::string &spec) {
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
    fail(fmt::format("'{}' is not a number for the {} (in '{}')", s, what, spec));
  return v;
}

void tooMany(const std::string &spec) {
  fail(fmt::format("'{}' gives more than {} sizes, more than a sweep takes: widen the step", spec,
                   kMaxSweepPoints));
}

} // namespace

SweepSpec parseSweepSpec(const std::string &text) {
  SweepSpec sw;
  size_t eq = text.find('=');
  if (eq == std::string::npos)
    fail(fmt::format("'{}' is not NAME=SIZES (e.g. --sweep N=1024..65536:log)", text));
  sw.name = text.substr(0, eq);
  std::string rest = text.substr(eq + 1);
  bool ident = !sw.name.empty() && !std::isdigit(static_cast<unsigned char>(sw.name[0])) &&
               std::all_of(sw.name.begin(), sw.name.end(), [](char c) {
                 return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
               });
  if (!ident)
    fail(fmt::format("'{}' is not a macro or --extent name (in '{}')", sw.name, text));
  if (rest.empty())
    fail(fmt::format("no sizes after '{}=' (e.g. {}=1024..65536:log)", sw.name, sw.name));

  size_t dots = rest.find("..");
  if (dots == std::string::npos) { // a list
    size_t at = 0;
    while (true) {
      size_t comma = rest.find(',', at);
      sw.values.push_back(parseSize(rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at), text));
      if (sw.values.size() > kMaxSweepPoints)
        tooMany(text);
      if (comma == std::string::npos)
        break;
      at = comma + 1;
    }
    std::sort(sw.values.begin(), sw.values.end());
    if (std::adjacent_find(sw.values.begin(), sw.values.end()) != sw.values.end())
      fail(fmt::format("size {} is listed twice (in '{}')",
                       *std::adjacent_find(sw.values.begin(), sw.values.end()), text));
    sw.rule = "the sizes listed";
    return sw;
  }

  std::string lo = rest.substr(0, dots), tail = rest.substr(dots + 2), hi = tail, mode = "log", arg;
  if (size_t colon = tail.find(':'); colon != std::string::npos) {
    hi = tail.substr(0, colon);
    mode = tail.substr(colon + 1);
    if (size_t c2 = mode.find(':'); c2 != std::string::npos) {
      arg = mode.substr(c2 + 1);
      mode = mode.substr(0, c2);
    }
  }
  if (lo.empty() || hi.empty())
    fail(fmt::format("the range '{}' needs a start and an end (e.g. {}=1024..65536)", rest, sw.name));
  int64_t a = parseSize(lo, text), b = parseSize(hi, text);
  if (a > b)
    fail(fmt::format("the range {}..{} is empty: its start is above its end", a, b));
  auto push = [&](int64_t v) {
    if (sw.values.size() >= kMaxSweepPoints)
      tooMany(text);
    sw.values.push_back(v);
  };
  if (mode == "log") {
    double f = arg.empty() ? 2 : parseNumber(arg, "factor of :log", text);
    if (!(f > 1) || f > 1e6)
      fail(fmt::format("the factor of :log must be within (1, 1e6], is {} (in '{}')", arg, text));
    // Each size: lo x f^i rounded, so that the steps do not accumulate rounding.
    for (int i = 0;; ++i) {
      double x = std::round(static_cast<double>(a) * std::pow(f, i));
      if (x >= static_cast<double>(b))
        break;
      int64_t v = static_cast<int64_t>(x);
      if (sw.values.empty() || v > sw.values.back())
        push(v);
    }
    if (sw.values.empty() || sw.values.back() != b)
      push(b);
    sw.rule = arg.empty() ? fmt::format("{}..{}, doubling", a, b) : fmt::format("{}..{}, x{}", a, b, arg);
  } else if (mode == "lin") {
    if (arg.empty())
      fail(fmt::format("':lin' needs a step, e.g. {}={}..{}:lin:{} (in '{}')", sw.name, a, b,
                       std::max<int64_t>(1, (b - a) / 8), text));
    int64_t step = parseSize(arg, text);
    if ((b - a) / step + 1 > static_cast<int64_t>(kMaxSweepPoints))
      tooMany(text);
    for (int64_t v = a; v < b; v += step)
      push(v);
    push(b);
    sw.rule = fmt::format("{}..{}, step {}", a, b, step);
  } else {
    fail(fmt::format("'{}' is not a spacing: log, log:FACTOR or lin:STEP (in '{}')", mode, text));
  }
  return sw;
}

} // namespace skelcast::cli
