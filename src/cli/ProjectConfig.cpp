#include "ProjectConfig.h"

#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/JsonText.h"
#include "skelcast/support/TextFile.h"

#include <fmt/format.h>

#include <filesystem>

namespace skelcast::cli {
namespace fs = std::filesystem;

std::optional<std::string> findUpwards(const std::string &input, const std::string &name) {
  std::error_code ec;
  fs::path start = input == "-" ? fs::current_path(ec) : fs::absolute(input, ec).parent_path();
  if (ec)
    return std::nullopt;
  for (fs::path dir = start.lexically_normal();; dir = dir.parent_path()) {
    fs::path candidate = dir / name;
    if (fs::is_regular_file(candidate, ec)) {
      // Named relative to the working directory when below it, as the user sees it.
      fs::path rel = candidate.lexically_relative(fs::current_path(ec));
      if (!ec && !rel.empty() && *rel.begin() != "..")
        return rel.string();
      return candidate.string();
    }
    if (dir == dir.parent_path() || dir.empty())
      return std::nullopt;
  }
}

std::optional<ProjectConfig> findProjectConfig(const std::string &input) {
  std::optional<std::string> found = findUpwards(input, ".skelcast.json");
  if (!found)
    return std::nullopt;
  ProjectConfig c;
  c.path = *found;
  nlohmann::json j = parseJsonText(readTextFile(c.path), c.path);
  if (!j.is_object())
    throw InputError({c.path, 0, 0}, "a .skelcast.json holds one JSON object: {\"flags\": [...], \"hw\": \"NAME\"}");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string &key = it.key();
    if (key == "flags") {
      if (!it->is_array())
        throw InputError({c.path, 0, 0}, "field 'flags': must be an array of strings");
      for (const auto &f : *it) {
        if (!f.is_string())
          throw InputError({c.path, 0, 0}, "field 'flags': must be an array of strings");
        std::string flag = f.get<std::string>();
        // -Idir relative to the config's directory, so the project builds from anywhere
        if (flag.size() > 2 && flag.rfind("-I", 0) == 0 && flag[2] != '/')
          flag = "-I" + fs::absolute(fs::path(c.path).parent_path() / flag.substr(2))
                            .lexically_normal()
                            .string();
        c.flags.push_back(flag);
      }
    } else if (key == "hw") {
      if (!it->is_string() || it->get<std::string>().empty())
        throw InputError({c.path, 0, 0}, "field 'hw': must be the name of a GPU spec or a spec file");
      c.hw = it->get<std::string>();
    } else {
      throw InputError({c.path, 0, 0},
                       fmt::format("unknown field '{}' (a .skelcast.json knows 'flags' and 'hw')", key));
    }
  }
  return c;
}

std::optional<std::string> findCompilationDatabase(const std::string &input) {
  if (input == "-")
    return std::nullopt;
  std::error_code ec;
  fs::path self = fs::absolute(input, ec).lexically_normal();
  if (ec)
    return std::nullopt;
  for (fs::path dir = self.parent_path();; dir = dir.parent_path()) {
    fs::path db = dir / "compile_commands.json";
    if (fs::is_regular_file(db, ec)) {
      // Only a database that names this file counts: another project's, higher
      // up, must not hijack the compile flags.
      nlohmann::json j;
      try {
        j = parseJsonText(readTextFile(db.string()), db.string());
      } catch (const InputError &) {
        return std::nullopt;
      }
      if (j.is_array())
        for (const auto &e : j) {
          if (!e.is_object() || !e.contains("file") || !e["file"].is_string())
            continue;
          fs::path f = e["file"].get<std::string>();
          if (f.is_relative() && e.contains("directory") && e["directory"].is_string())
            f = fs::path(e["directory"].get<std::string>()) / f;
          if (f.lexically_normal() == self)
            return dir.string();
        }
      return std::nullopt;
    }
    if (dir == dir.parent_path() || dir.empty())
      return std::nullopt;
  }
}

} // namespace skelcast::cli
