/// \file
/// Footprints: P(A, T), the elements one access touches over an iteration set T,
/// and H(D, T), the union over all accesses of an array (GROPHECY §7.1).
///
/// An iteration set is a box: for each variable an arithmetic progression of
/// values. Accesses whose subscripts each depend on at most one variable are
/// counted exactly as a union of lattice boxes (grouped by residue, coordinate
/// compression); others are enumerated up to kEnumerationLimit points and
/// bounded above past it (docs/model.md, "Footprints").
#pragma once

#include "skelcast/layout/KernelInfo.h"

#include <vector>

namespace skelcast::layout {

/// Values start, start + stride, ..., (count of them).
struct VarRange {
  int64_t start = 0;
  int64_t count = 1;
  int64_t stride = 1;
};
using IterSet = std::vector<VarRange>; ///< one per KernelInfo::vars entry

constexpr double kEnumerationLimit = 1 << 20;

/// The per-dimension bounding box of a footprint, in elements.
struct FootprintBox {
  std::vector<int64_t> lo, hi; ///< inclusive bounds per array dimension
};

struct Footprint {
  double size = 0;   ///< number of distinct elements
  bool exact = true; ///< false when bounded (data-dependent or too large to enumerate)
  FootprintBox box;
};

/// H over the given accesses (all of one array) and iteration set.
Footprint footprint(const KernelInfo &ki, const std::vector<const AccessInfo *> &accesses,
                    const IterSet &set);

/// footprint(...).size, without allocating when the accesses are separable (at
/// most 16 accesses of at most 8 dimensions); for the enumerator's hot loop.
double footprintSize(const KernelInfo &ki, const AccessInfo *const *accesses, size_t n,
                     const IterSet &set);

} // namespace skelcast::layout
