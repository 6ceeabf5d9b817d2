/// \file
/// `.skelcast.json`: a project's default flags, found upwards from the input's
/// directory as clang-tidy finds `.clang-tidy` (the nearest one wins; they do
/// not merge). The schema (README, "Project defaults"):
///
///     {"flags": ["-DLARGE_DATASET", "-Iutilities"], "hw": "h100"}
///
/// `flags` are compiler arguments for C inputs, given before the command line's
/// (so a `-D` there wins); `hw` is the GPU when `--hw` is not given. Any other
/// field is an error naming it and the file; relative `-I` paths are relative to
/// the file's directory.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace skelcast::cli {

struct ProjectConfig {
  std::string path;               ///< the .skelcast.json read
  std::vector<std::string> flags; ///< compiler arguments for C inputs
  std::optional<std::string> hw;  ///< the default GPU
};

/// The nearest `.skelcast.json` in the directory of `input` or one above it
/// (`-`: from the working directory); nothing when there is none. A file that
/// is not valid is an InputError at its path.
std::optional<ProjectConfig> findProjectConfig(const std::string &input);

/// The file `name` in the directory of `input` or the nearest one above it.
std::optional<std::string> findUpwards(const std::string &input, const std::string &name);

/// The directory of the nearest `compile_commands.json` above `input` that has
/// an entry for `input` (what `-p` would be); nothing when there is none.
std::optional<std::string> findCompilationDatabase(const std::string &input);

} // namespace skelcast::cli
