// Regression tests of the layout-string parser (issue 7): a fold far beyond its
// dimension overflowed block x fold (undefined behaviour) in the
// characterization; a name given twice in one part was silently merged.
#include "skelcast/layout/KernelInfo.h"
#include "skelcast/layout/Layout.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/model/Project.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/Diagnostic.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace skelcast;

namespace {

struct Fixture {
  layout::KernelInfo ki;
  hw::HwSpec hw;
};

const Fixture &fx() {
  static const Fixture f = [] {
    skeleton::SkeletonFile s = skeleton::parseSkeletonFile(std::string(SKELCAST_SOURCE_DIR) + "/skeletons/matmul.skel");
    return Fixture{layout::analyzeKernel(s, 0),
                   hw::loadHwSpec(std::string(SKELCAST_SOURCE_DIR) + "/hwspecs/h100.json")};
  }();
  return f;
}

std::string errorOf(const std::string &layout) {
  try {
    layout::parseLayout(fx().ki, layout, fx().hw);
  } catch (const InputError &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(LayoutLimits, FoldBeyondTheDimensionIsAnError) {
  // matmul.skel: i runs over 800 values.
  EXPECT_EQ(fx().ki.dimSize[0], 800);
  EXPECT_EQ(errorOf("block=i:16,j:16 fold=i:9223372036854775807"),
            "--layout: error: 'fold=i:9223372036854775807': fold of 'i' must be at most 64 (its 800 "
            "iterations, rounded up to a power of two, in blocks of 16), is 9223372036854775807");
  // 800 rounded up is 1024: 64 tiles of 16 (the enumerator's bound, so that
  // every layout it prints parses back).
  EXPECT_EQ(errorOf("fold=i:65 block=i:16,j:16"),
            "--layout: error: 'fold=i:65': fold of 'i' must be at most 64 (its 800 iterations, rounded "
            "up to a power of two, in blocks of 16), is 65");
  // A block that is not a power of two: the tiles the dimension needs (800/48 -> 17).
  EXPECT_EQ(errorOf("fold=i:22 block=i:48,j:4"),
            "--layout: error: 'fold=i:22': fold of 'i' must be at most 21 (its 800 iterations, rounded "
            "up to a power of two, in blocks of 48), is 22");
  // The largest fold projects, to finite numbers: one block row covers all of i.
  layout::Layout l = layout::parseLayout(fx().ki, "block=i:16,j:16 fold=i:64", fx().hw);
  model::KernelProjection kp = model::projectKernel(fx().ki, fx().hw, {}, {}, l);
  ASSERT_EQ(kp.layouts.size(), 1u);
  EXPECT_TRUE(std::isfinite(kp.layouts[0].result.timeMs));
  EXPECT_EQ(kp.layouts[0].characterization.workload.blocks, 50.0);
}

TEST(LayoutLimits, ParallelIndexGivenTwiceIsAnError) {
  EXPECT_EQ(errorOf("block=i:4,i:8"), "--layout: error: 'block=i:4,i:8': 'i' is given twice");
  EXPECT_EQ(errorOf("block=i:16 fold=j:2,j:2"), "--layout: error: 'fold=j:2,j:2': 'j' is given twice");
  EXPECT_EQ(errorOf("block=i:16 stage=k:4,k:8 cache=A"),
            "--layout: error: 'stage=k:4,k:8': 'k' is given twice");
  EXPECT_EQ(errorOf("block=i:16 unroll=k:4,k:1"),
            "--layout: error: 'unroll=k:4,k:1': 'k' is given twice");
  EXPECT_EQ(errorOf("block=i:16,j:16 cache=A,A"), "--layout: error: 'cache=A,A': 'A' is given twice");
  EXPECT_EQ(errorOf("block=i:16 unroll=k#2:4"),
            "--layout: error: 'unroll=k#2:4': kernel 'matmul' has 1 loop named 'k'");
}

// spinflap's kernel has two loops named 'n' (issue 17, item 15): "unroll=n:4,n:1"
// was read as the first and the second loop, and echoed as "unroll=n:4", which
// reads back as the first: "unroll=n:1,n:4" came back as the wrong loop. A name
// that several loops share is ambiguous; 'n#2' names the second loop of that
// name, and layoutString writes it so.
TEST(LayoutLimits, LoopsSharingANameAreNamedByTheirOrdinal) {
  skeleton::SkeletonFile s =
      skeleton::parseSkeletonFile(std::string(SKELCAST_SOURCE_DIR) + "/skeletons/spinflap.skel");
  layout::KernelInfo ki = layout::analyzeKernel(s, 0);
  std::vector<int> ns;
  for (size_t lp = 0; lp < ki.loops.size(); ++lp)
    if (ki.loops[lp].index == "n")
      ns.push_back(static_cast<int>(lp));
  ASSERT_EQ(ns.size(), 2u);
  auto errorIn = [&](const std::string &text) -> std::string {
    try {
      layout::parseLayout(ki, text, fx().hw);
    } catch (const InputError &e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(errorIn("block=j:2,i:128 unroll=n:4,n:1"),
            "--layout: error: 'unroll=n:4,n:1': kernel 'spinflap' has 2 loops named 'n': name "
            "them 'n#1', 'n#2'");
  EXPECT_EQ(errorIn("block=j:2,i:128 unroll=n:4"),
            "--layout: error: 'unroll=n:4': kernel 'spinflap' has 2 loops named 'n': name them "
            "'n#1', 'n#2'");
  EXPECT_EQ(errorIn("block=j:2,i:128 unroll=n#2:4,n#2:2"),
            "--layout: error: 'unroll=n#2:4,n#2:2': 'n#2' is given twice");
  EXPECT_EQ(errorIn("block=j:2,i:128 unroll=n#3:4"),
            "--layout: error: 'unroll=n#3:4': kernel 'spinflap' has 2 loops named 'n'");
  EXPECT_EQ(errorIn("block=j:2,i:128 unroll=n#0:4"),
            "--layout: error: 'unroll=n#0:4': kernel 'spinflap' has 2 loops named 'n'");
  layout::Layout l = layout::parseLayout(ki, "block=j:2,i:128 unroll=n#2:4", fx().hw);
  EXPECT_EQ(l.unrollFactor(ns[0]), 1);
  EXPECT_EQ(l.unrollFactor(ns[1]), 4);
  EXPECT_EQ(layout::layoutString(ki, l), "block=j:2,i:128 unroll=n#2:4");
  l = layout::parseLayout(ki, "block=j:2,i:128 unroll=n#2:2,n#1:4", fx().hw);
  EXPECT_EQ(l.unrollFactor(ns[0]), 4);
  EXPECT_EQ(l.unrollFactor(ns[1]), 2);
  EXPECT_EQ(layout::layoutString(ki, l), "block=j:2,i:128 unroll=n#1:4,n#2:2");
  EXPECT_EQ(layout::parseLayout(ki, layout::layoutString(ki, l), fx().hw), l);
}
