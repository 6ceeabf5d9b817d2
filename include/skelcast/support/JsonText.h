/// \file
/// Reading JSON input (hwspecs, validation measurements, manifests): one place
/// that turns every way the text can be wrong into an InputError, so that no
/// nlohmann exception escapes a loader. docs/errors.md lists the messages.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace skelcast {

/// Parse `text`, read from `path` (which names it in errors):
///   - empty or blank text: `path:1:1: error: empty file`
///   - text that is not JSON: `path:line:col: error: invalid JSON: <what nlohmann found>`
///   - a number beyond the range of a double: `path: error: invalid JSON: number overflow ...`
nlohmann::json parseJsonText(const std::string &text, const std::string &path);

} // namespace skelcast
