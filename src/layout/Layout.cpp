#include "skelcast/layout/Layout.h"

#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iterator>
#include <sstream>

namespace skelcast::layout {

int64_t Layout::threadsPerBlock() const {
  int64_t p = 1;
  for (auto b : block)
    p *= b;
  return p;
}
int64_t Layout::foldProduct() const {
  int64_t p = 1;
  for (auto f : fold)
    p *= f;
  return p;
}
int64_t Layout::stageSize(int loop) const {
  for (const auto &[l, s] : stages)
    if (l == loop)
      return s;
  return 0;
}
int64_t Layout::unrollFactor(int loop) const {
  for (const auto &[l, u] : unroll)
    if (l == loop)
      return u;
  return 1;
}
bool Layout::isCached(int array) const {
  return std::find(cached.begin(), cached.end(), array) != cached.end();
}

/// How a layout string names loop `loop`: its index, or 'n#2' for the second
/// of several loops named 'n' (a shared name alone would be ambiguous).
static void appendLoopName(std::string &s, const KernelInfo &ki, int loop) {
  const std::string &name = ki.loops[static_cast<size_t>(loop)].index;
  int ordinal = 0, count = 0;
  for (size_t lp = 0; lp < ki.loops.size(); ++lp)
    if (ki.loops[lp].index == name) {
      ++count;
      if (static_cast<int>(lp) <= loop)
        ++ordinal;
    }
  s += name;
  if (count > 1)
    fmt::format_to(std::back_inserter(s), "#{}", ordinal);
}

void appendLayoutString(std::string &s, const KernelInfo &ki, const Layout &l) {
  auto out = std::back_inserter(s);
  s += "block=";
  for (size_t d = 0; d < l.block.size(); ++d)
    fmt::format_to(out, "{}{}:{}", d ? "," : "", ki.dimNames[d], l.block[d]);
  bool anyFold = false;
  for (size_t d = 0; d < l.fold.size(); ++d)
    if (l.fold[d] > 1) {
      fmt::format_to(out, "{}{}:{}", anyFold ? "," : " fold=", ki.dimNames[d], l.fold[d]);
      anyFold = true;
    }
  if (!l.stages.empty()) {
    s += " stage=";
    for (size_t i = 0; i < l.stages.size(); ++i) {
      s += i ? "," : "";
      appendLoopName(s, ki, l.stages[i].first);
      fmt::format_to(out, ":{}", l.stages[i].second);
    }
  }
  if (!l.cached.empty()) {
    s += " cache=";
    for (size_t i = 0; i < l.cached.size(); ++i) {
      if (i)
        s += ',';
      s += ki.arrays[static_cast<size_t>(l.cached[i])].name;
    }
  }
  if (!l.unroll.empty()) {
    s += " unroll=";
    for (size_t i = 0; i < l.unroll.size(); ++i) {
      s += i ? "," : "";
      appendLoopName(s, ki, l.unroll[i].first);
      fmt::format_to(out, ":{}", l.unroll[i].second);
    }
  }
}

std::string layoutString(const KernelInfo &ki, const Layout &l) {
  std::string s;
  appendLayoutString(s, ki, l);
  return s;
}

namespace {

[[noreturn]] void bad(const std::string &msg) { throw InputError({"--layout", 0, 0}, msg); }

int64_t parseCount(const std::string &part, const std::string &txt) {
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(txt.c_str(), &end, 10);
  if (txt.empty() || end != txt.c_str() + txt.size() || errno == ERANGE)
    bad(fmt::format("'{}': '{}' is not an integer", part, txt));
  return v;
}

std::vector<std::string> split(const std::string &s, char c) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, c))
    out.push_back(cur);
  if (!s.empty() && s.back() == c)
    out.emplace_back();
  return out;
}

} // namespace

int64_t nextPow2(int64_t x) {
  int64_t p = 1;
  while (p < x && p < (int64_t{1} << 40))
    p *= 2;
  return p;
}

int64_t maxFold(const KernelInfo &ki, size_t d, int64_t block) {
  int64_t n = ki.dimSize[d];
  int64_t tiles = (n + block - 1) / block;
  return std::max(tiles, nextPow2(n) / block);
}

Layout parseLayout(const KernelInfo &ki, const std::string &text, const hw::HwSpec &hw) {
  Layout l;
  size_t nd = ki.dimNames.size();
  l.block.assign(nd, 1);
  l.fold.assign(nd, 1);
  bool haveBlock = false;
  std::istringstream in(text);
  std::string part;
  std::vector<std::string> seenKeys;
  std::string foldPart;
  while (in >> part) {
    auto eq = part.find('=');
    if (eq == std::string::npos)
      bad(fmt::format("'{}': expected key=value (block, fold, stage, cache, unroll)", part));
    std::string key = part.substr(0, eq), val = part.substr(eq + 1);
    if (std::find(seenKeys.begin(), seenKeys.end(), key) != seenKeys.end())
      bad(fmt::format("'{}' is given twice", key));
    seenKeys.push_back(key);
    if (val.empty())
      bad(fmt::format("'{}': empty value", part));
    if (key == "cache") {
      std::vector<std::string> seenArrays;
      for (const auto &a : split(val, ',')) {
        if (std::find(seenArrays.begin(), seenArrays.end(), a) != seenArrays.end())
          bad(fmt::format("'{}': '{}' is given twice", part, a));
        seenArrays.push_back(a);
        int ai = ki.arrayIndex(a);
        if (ai < 0)
          bad(fmt::format("'{}': unknown array '{}' in kernel '{}'", part, a, ki.name));
        bool loaded = false, stored = false;
        for (const auto &acc : ki.accesses)
          if (acc.array == ai)
            (acc.isStore ? stored : loaded) = true;
        if (!loaded)
          bad(fmt::format("'{}': kernel '{}' does not load '{}'", part, ki.name, a));
        if (stored)
          bad(fmt::format("'{}': '{}' is written by the kernel; only read-only arrays can be "
                          "cached in shared memory",
                          part, a));
        if (!l.isCached(ai))
          l.cached.push_back(ai);
      }
      std::sort(l.cached.begin(), l.cached.end());
      continue;
    }
    if (key != "block" && key != "fold" && key != "stage" && key != "unroll")
      bad(fmt::format("unknown layout part '{}' (expected block, fold, stage, cache, unroll)", key));
    if (key == "fold")
      foldPart = part;
    std::vector<std::string> seenNames;
    for (const auto &item : split(val, ',')) {
      auto colon = item.find(':');
      if (colon == std::string::npos)
        bad(fmt::format("'{}': expected NAME:N, found '{}'", part, item));
      std::string name = item.substr(0, colon);
      // Every name once per part (a loop unrolled twice, a dimension blocked twice).
      if (std::find(seenNames.begin(), seenNames.end(), name) != seenNames.end())
        bad(fmt::format("'{}': '{}' is given twice", part, name));
      seenNames.push_back(name);
      int64_t n = parseCount(part, item.substr(colon + 1));
      if (key == "block" || key == "fold") {
        auto it = std::find(ki.dimNames.begin(), ki.dimNames.end(), name);
        if (it == ki.dimNames.end())
          bad(fmt::format("'{}': '{}' is not a parallel index of kernel '{}'", part, name, ki.name));
        size_t d = static_cast<size_t>(it - ki.dimNames.begin());
        if (key == "block") {
          haveBlock = true;
          if (n < 1)
            bad(fmt::format("'{}': block size of '{}' must be at least 1, is {}", part, name, n));
          if (n > hw.maxThreadsPerBlock)
            bad(fmt::format("'{}': block size {} exceeds {}'s limit of {} threads per block", part,
                            n, hw.name, hw.maxThreadsPerBlock));
          l.block[d] = n;
        } else {
          if (n < 1)
            bad(fmt::format("'{}': fold of '{}' must be at least 1, is {}", part, name, n));
          l.fold[d] = n;
        }
      } else {
        // Sequential loops may share an index name: 'n#2' is the second loop
        // named 'n'; a shared name alone is ambiguous.
        std::string index = name;
        long ordinal = 0; // 0: no '#k'
        if (auto hash = name.find('#'); hash != std::string::npos) {
          index = name.substr(0, hash);
          std::string k = name.substr(hash + 1);
          char *end = nullptr;
          errno = 0;
          ordinal = k.empty() ? -1 : std::strtol(k.c_str(), &end, 10);
          if (k.empty() || *end != '\0' || errno == ERANGE || ordinal < 1)
            ordinal = -1;
        }
        std::vector<int> named;
        for (size_t lp = 0; lp < ki.loops.size(); ++lp)
          if (ki.loops[lp].index == index)
            named.push_back(static_cast<int>(lp));
        if (named.empty())
          bad(fmt::format("'{}': '{}' is not a loop of kernel '{}'", part, index, ki.name));
        if (ordinal == 0 && named.size() > 1) {
          std::string names;
          for (size_t i = 0; i < named.size(); ++i)
            names += fmt::format("{}'{}#{}'", i ? ", " : "", index, i + 1);
          bad(fmt::format("'{}': kernel '{}' has {} loops named '{}': name them {}", part, ki.name,
                          named.size(), index, names));
        }
        if (ordinal < 0 || ordinal > static_cast<long>(named.size()))
          bad(fmt::format("'{}': kernel '{}' has {} loop{} named '{}'", part, ki.name, named.size(),
                          named.size() == 1 ? "" : "s", index));
        int li = named[static_cast<size_t>(ordinal > 0 ? ordinal - 1 : 0)];
        const LoopInfo &lp = ki.loops[static_cast<size_t>(li)];
        if (key == "stage") {
          if (!lp.isStream)
            bad(fmt::format("'{}': only streaming loops can be staged; '{}' is a for loop", part, name));
          if (!lp.constTrip)
            bad(fmt::format("'{}': loop '{}' has data-dependent bounds and cannot be staged", part, name));
          if (n < 1)
            bad(fmt::format("'{}': stage size of '{}' must be at least 1, is {}", part, name, n));
          l.stages.push_back({li, n});
        } else {
          // A loop with data-dependent bounds unrolls too: the compiler adds a remainder loop.
          if (n < 1)
            bad(fmt::format("'{}': unroll factor of '{}' must be at least 1, is {}", part, name, n));
          if (n > 1)
            l.unroll.push_back({li, n});
        }
      }
    }
  }
  if (!haveBlock)
    bad("a layout needs a 'block=' part");
  // The space's bound on folds (the one Enumerate uses), so that every layout
  // skelcast prints parses back.
  for (size_t d = 0; d < nd; ++d) {
    int64_t most = maxFold(ki, d, l.block[d]);
    if (l.fold[d] > most)
      bad(fmt::format("'{}': fold of '{}' must be at most {} (its {} iterations, rounded up to a "
                      "power of two, in blocks of {}), is {}",
                      foldPart, ki.dimNames[d], most, ki.dimSize[d], l.block[d], l.fold[d]));
  }
  if (l.threadsPerBlock() > hw.maxThreadsPerBlock)
    bad(fmt::format("block of {} threads exceeds {}'s limit of {} threads per block",
                    l.threadsPerBlock(), hw.name, hw.maxThreadsPerBlock));
  if (!l.stages.empty() && l.cached.empty())
    bad("staging needs at least one array in 'cache=' to bring through shared memory");
  std::sort(l.stages.begin(), l.stages.end());
  std::sort(l.unroll.begin(), l.unroll.end());
  return l;
}

} // namespace skelcast::layout
