#include "Suite.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Sample.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/JsonText.h"
#include "skelcast/support/SourceFiles.h"
#include "skelcast/support/TextFile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace skelcast::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kManifestSchema = 1;
constexpr int64_t kMaxCount = int64_t{1} << 62; ///< trips and extents (docs/errors.md: the 2^62 limit)

bool isSkel(const std::string &p) { return p.size() > 5 && p.compare(p.size() - 5, 5, ".skel") == 0; }

bool readable(const std::string &p) {
  std::ifstream in(p, std::ios::binary);
  return in.good() && !fs::is_directory(p);
}

class ManifestReader {
public:
  ManifestReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string &field, const std::string &msg) const {
    throw InputError({path_, 0, 0}, field.empty() ? msg : fmt::format("field '{}': {}", field, msg));
  }
  std::string error(const std::string &field, const std::string &msg) const {
    return InputError({path_, 0, 0}, fmt::format("field '{}': {}", field, msg)).what();
  }

  std::string resolve(const std::string &rel) const { return skeleton::resolveRelative(path_, rel); }

  Suite read(const std::string &text) {
    json root = parseJsonText(text, path_);
    if (!root.is_object())
      fail("", "a suite manifest is a JSON object {\"schema_version\": 1, \"benchmarks\": [...]}");
    auto sv = root.find("schema_version");
    if (sv == root.end())
      fail("schema_version", "missing (this skelcast reads manifests of version 1)");
    if (!sv->is_number_integer() || sv->get<int64_t>() != kManifestSchema)
      fail("schema_version", fmt::format("{} is not supported (this skelcast reads version {})",
                                         sv->dump(), kManifestSchema));
    for (auto &[k, v] : root.items())
      if (k != "schema_version" && k != "benchmarks" && k != "description")
        fail(k, "unknown field (known: schema_version, description, benchmarks)");
    if (auto d = root.find("description"); d != root.end() && !d->is_string())
      fail("description", "must be a string");
    auto bs = root.find("benchmarks");
    if (bs == root.end())
      fail("benchmarks", "missing");
    if (!bs->is_array())
      fail("benchmarks", fmt::format("must be an array, is {}", bs->type_name()));
    if (bs->empty())
      fail("benchmarks", "is empty: a suite needs at least one benchmark");
    Suite s;
    s.path = path_;
    s.isManifest = true;
    std::map<std::string, size_t> names;
    for (size_t i = 0; i < bs->size(); ++i) {
      BenchmarkSpec b = benchmark((*bs)[i], fmt::format("benchmarks[{}]", i));
      auto [it, fresh] = names.emplace(b.name, i);
      if (!fresh)
        fail(fmt::format("benchmarks[{}].name", i),
             fmt::format("'{}' is already the name of benchmarks[{}]", b.name, it->second));
      s.benchmarks.push_back(std::move(b));
    }
    return s;
  }

private:
  std::string string(const json &o, const std::string &key, const std::string &at, bool required) {
    auto it = o.find(key);
    if (it == o.end()) {
      if (required)
        fail(at + "." + key, "missing");
      return "";
    }
    if (!it->is_string() || it->get<std::string>().empty())
      fail(at + "." + key, fmt::format("must be a non-empty string, is {}",
                                       it->is_string() ? "empty" : it->type_name()));
    return it->get<std::string>();
  }

  BenchmarkSpec benchmark(const json &e, const std::string &at) {
    if (!e.is_object())
      fail(at, fmt::format("must be an object {{\"name\", \"input\", ...}}, is {}", e.type_name()));
    // in the order docs/batch.md lists them; the message lists them all
    static const std::vector<std::string> known{"name",   "input",    "args",
                                                "trip",   "sample",   "extent",
                                                "function", "assume_aliasing", "cpu_ms",
                                                "description"};
    for (auto &[k, v] : e.items())
      if (std::find(known.begin(), known.end(), k) == known.end())
        fail(at + "." + k, fmt::format("unknown field (known: {})", fmt::join(known, ", ")));
    BenchmarkSpec b;
    b.name = string(e, "name", at, true);
    std::string input = string(e, "input", at, true);
    string(e, "description", at, false);
    b.input = resolve(input);
    if (auto a = e.find("args"); a != e.end()) {
      if (!a->is_array())
        fail(at + ".args", fmt::format("must be an array of strings, is {}", a->type_name()));
      for (size_t j = 0; j < a->size(); ++j) {
        if (!(*a)[j].is_string())
          fail(fmt::format("{}.args[{}]", at, j), fmt::format("must be a string, is {}", (*a)[j].type_name()));
        b.options.compilerArgs.push_back((*a)[j].get<std::string>());
      }
    }
    if (auto x = e.find("assume_aliasing"); x != e.end()) {
      if (!x->is_boolean())
        fail(at + ".assume_aliasing", fmt::format("must be true or false, is {}", x->dump()));
      b.options.assumeAliasing = x->get<bool>();
    }
    if (auto t = e.find("trip"); t != e.end()) {
      if (!t->is_object())
        fail(at + ".trip", "must be an object {\"loop index\": trip count}");
      for (auto &[idx, v] : t->items()) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0)
          fail(at + ".trip." + idx, fmt::format("must be a non-negative integer, is {}", v.dump()));
        if (v.get<int64_t>() > kMaxCount)
          fail(at + ".trip." + idx, fmt::format("{} is out of range [0, 2^62]", v.dump()));
        b.options.trips[idx] = v.get<int64_t>();
      }
    }
    if (auto x = e.find("extent"); x != e.end()) {
      if (!x->is_object())
        fail(at + ".extent", "must be an object {\"array or scalar\": [extents]}");
      for (auto &[name, v] : x->items()) {
        std::vector<int64_t> ext;
        if (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= kMaxCount)
          ext.push_back(v.get<int64_t>());
        else if (v.is_array())
          for (const auto &n : v) {
            if (!n.is_number_integer() || n.get<int64_t>() <= 0 || n.get<int64_t>() > kMaxCount)
              fail(at + ".extent." + name,
                   fmt::format("must hold integers within [1, 2^62], has {}", n.dump()));
            ext.push_back(n.get<int64_t>());
          }
        else
          fail(at + ".extent." + name, fmt::format("must be an integer within [0, 2^62] or a list of them, is {}", v.dump()));
        b.options.extents[name] = ext;
      }
    }
    if (auto fn = e.find("function"); fn != e.end()) {
      if (!fn->is_string())
        fail(at + ".function", fmt::format("must be a string, is {}", fn->type_name()));
      b.options.function = fn->get<std::string>();
    }
    std::vector<std::pair<std::string, std::string>> sampleFields;
    if (auto sm = e.find("sample"); sm != e.end()) {
      if (!sm->is_object())
        fail(at + ".sample", "must be an object {\"array\": \"sample file\"}");
      for (auto &[arr, v] : sm->items()) {
        if (!v.is_string() || v.get<std::string>().empty())
          fail(at + ".sample." + arr, fmt::format("must be a file name, is {}", v.dump()));
        b.options.samples[arr] = resolve(v.get<std::string>());
        sampleFields.emplace_back(at + ".sample." + arr, b.options.samples[arr]);
      }
    }
    if (auto c = e.find("cpu_ms"); c != e.end() && !c->is_null()) {
      if (!c->is_number() || !(c->get<double>() > 0))
        fail(at + ".cpu_ms", fmt::format("must be a positive number of milliseconds, is {}", c->dump()));
      if (!std::isfinite(c->get<double>()) || c->get<double>() > 1e9)
        fail(at + ".cpu_ms", fmt::format("{} is out of range (0, 1e+09]", c->get<double>()));
      b.cpuMs = c->get<double>();
    }
    // What is wrong with the files is this benchmark's failure, not the suite's.
    if (!isCInput(b.input) && !isSkel(b.input))
      b.error = error(at + ".input", fmt::format("'{}' is neither a C or C++ source ({}) nor a .skel file", input, kCSourceExtensionList));
    else if (!readable(b.input))
      b.error = error(at + ".input", fmt::format("cannot read '{}'", b.input));
    else
      for (const auto &[field, file] : sampleFields)
        if (!readable(file)) {
          b.error = error(field, fmt::format("cannot read sample file '{}'", file));
          break;
        }
    return b;
  }

  std::string path_;
};

Suite directorySuite(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string f = it->path().filename().string();
    if ((isCInput(f) || isSkel(f)) && !it->is_directory())
      files.push_back(f);
  }
  if (ec)
    throw InputError({dir, 0, 0}, fmt::format("cannot list the directory: {}", ec.message()));
  if (files.empty())
    throw InputError({dir, 0, 0}, "no .c or .skel file in this directory");
  std::sort(files.begin(), files.end());
  std::map<std::string, int> stems;
  for (const auto &f : files)
    ++stems[fs::path(f).stem().string()];
  Suite s;
  s.path = dir;
  for (const auto &f : files) {
    BenchmarkSpec b;
    std::string stem = fs::path(f).stem().string();
    b.name = stems[stem] > 1 ? f : stem; // hotspot.c and hotspot.skel keep their extensions
    b.input = (fs::path(dir) / f).lexically_normal().string();
    s.benchmarks.push_back(std::move(b));
  }
  return s;
}

} // namespace

Suite parseManifest(const std::string &text, const std::string &path) {
  return ManifestReader(path).read(text);
}

Suite loadSuite(const std::string &path) {
  if (fs::is_directory(path))
    return directorySuite(path);
  if (!fs::exists(path))
    throw InputError({path, 0, 0}, "no such suite: give a directory of .c/.skel files or a JSON manifest");
  return parseManifest(readTextFile(path), path);
}

} // namespace skelcast::cli
