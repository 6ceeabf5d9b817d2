/// \file
/// FNV-1a, 64 bits: a stable hash of bytes (the same in every run and build),
/// for names that must not change between runs: a spec's content hash, a
/// build's record in the store, an emitted layout's tag.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace skelcast {

constexpr uint64_t kFnv1aOffset = 1469598103934665603ull;

/// FNV-1a of `s`, continuing from `h` (the offset basis to start).
inline uint64_t fnv1a(std::string_view s, uint64_t h = kFnv1aOffset) {
  for (unsigned char c : s)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

/// The same as 16 hex digits.
std::string fnv1aHex(std::string_view s);

} // namespace skelcast
