#include "skelcast/support/Hash.h"

#include <fmt/format.h>

namespace skelcast {

std::string fnv1aHex(std::string_view s) { return fmt::format("{:016x}", fnv1a(s)); }

} // namespace skelcast
