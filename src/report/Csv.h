/// \file
/// The one CSV writer of every renderer (`project --format csv`, batch's
/// report.csv): RFC 4180, records ended by "\n", a field quoted when it holds
/// a comma, a double quote or a line break, its quotes doubled:
///
///   kernel,file,gpu,...
///   matmul,"/tmp/a,b.skel",h100,...
#pragma once

#include <string>
#include <vector>

namespace skelcast::report {

/// One field, quoted when it must be.
inline std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos)
    return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"')
      q += '"';
    q += c;
  }
  return q + '"';
}

/// One record: the fields, each through csvField, joined by commas, and "\n".
inline std::string csvRecord(const std::vector<std::string> &fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i)
      out += ',';
    out += csvField(fields[i]);
  }
  return out + '\n';
}

} // namespace skelcast::report
