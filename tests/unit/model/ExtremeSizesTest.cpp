// Numbers stay sane at the edges (issue 7, item 4): loop spaces up to 2^40
// iterations and extents up to 2^31 project without overflow (the sanitizer
// build turns a signed overflow into a failure) and without NaN or infinity in
// the output, on a spec of each coalescing rule and with every model.
#include "skelcast/layout/KernelInfo.h"
#include "skelcast/model/Program.h"
#include "skelcast/model/Project.h"
#include "skelcast/report/Report.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/Diagnostic.h"

#include "../support/JsonChecks.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace skelcast;

namespace {

const std::string kSpecs = std::string(SKELCAST_SOURCE_DIR) + "/hwspecs";

struct Extreme {
  const char *name;
  const char *text;
};

// 2^40 = 1099511627776, 2^31 = 2147483648, 2^20 = 1048576.
const Extreme kExtremes[] = {
    {"matmul_2pow20", R"(#define N 1048576
float A[N][N]
float B[N][N]
float C[N][N]
parallel_for matmul(N, N) : i, j {
  stream k = 0:N {
    ld A[i][k]
    ld B[k][j]
    comp 2
  }
  st C[i][j]
}
)"},
    {"flat_2pow40", R"(#define SPACE 1099511627776
#define EXT 2147483648
float X[EXT]
double Y[EXT]
parallel_for flat(SPACE) : i {
  ld X[i / 512]
  ld Y[i % EXT]
  comp 1099511627776
  st X[i / 1024]
}
)"},
    {"extent_2pow31", R"(#define EXT 2147483648
float A[EXT][2]
float B[2][EXT]
parallel_for tall(EXT, 2) : i, j {
  ld A[i][j]
  ld B[j][i]
  comp 4
  st A[i][j]
}
)"},
    {"space3d_2pow40", R"(// three dimensions, 2^36 x 4 x 4 (wider short dimensions only grow the layout space)
float A[68719476736][4][4]
float S[8192]
parallel_for cube(68719476736, 4, 4) : i, j, k {
  ld A[i][j][k]
  ld A[i][k][j]
  stream s = 0:8192 {
    ld S[s]
    comp 3
  }
  st A[i][j][k]
}
)"},
    {"long_stream_2pow31", R"(#define EXT 2147483648
float V[EXT]
float W[1024]
parallel_for(1024) : t {
  stream k = 0:EXT {
    ld V[k]
    comp 1
  }
  st W[t]
}
)"},
    {"negative_bounds", R"(#define H 549755813888
float A[1099511627776]
parallel_for shifted(-H:H) : i {
  ld A[i + H]
  st A[H - 1 - i]
}
)"},
    {"big_coefficient", R"(#define EXT 2147483648
float A[536870912][EXT]
parallel_for flat2(536870912, EXT) : i, j {
  ld A[i][j]
  st A[i][EXT - 1 - j]
}
)"},
    {"repeat_program", R"(#define N 1048576
inout float A[N][N]
out float B[N][N]
repeat 1000000 {
  parallel_for step1(N, N) : i, j {
    ld A[i][j]
    st B[i][j]
  }
  parallel_for step2(N, N) : i, j {
    ld B[i][j]
    st A[i][j]
  }
}
)"},
};

class ExtremeSizes : public ::testing::TestWithParam<Extreme> {};

TEST_P(ExtremeSizes, ProjectToFiniteNumbers) {
  const Extreme &x = GetParam();
  skeleton::SkeletonFile f = skeleton::parseSkeleton(x.text, std::string(x.name) + ".skel");
  // Every model on h100 (32-byte sectors); the default model on c1060 and
  // fx5600, whose coalescing rules (segments, half-warps) compute addresses otherwise.
  for (const char *spec : {"h100", "c1060", "fx5600"}) {
    hw::HwSpec hw = hw::loadHwSpec(kSpecs + "/" + spec + ".json");
    // The arithmetic at the edges, not the device memory (whose check refuses
    // these arrays: Program.ArraysBeyondTheDeviceMemoryAreNotPorted).
    hw.memCapacityBytes = 0;
    std::vector<std::string> models = model::modelNames();
    if (std::string(spec) != "h100")
      models = {"skelcast"};
    for (const auto &name : models) {
      model::ModelOptions mo;
      mo.model = model::parseModelSpec(name);
      report::Report rep;
      rep.version = "test";
      rep.hwName = hw.name;
      rep.model = name;
      rep.top = 1000000;
      std::vector<model::KernelProjection> all;
      for (size_t k = 0; k < f.kernels.size(); ++k) {
        all.push_back(model::projectKernel(layout::analyzeKernel(f, k), hw, {}, mo));
        EXPECT_FALSE(all.back().layouts.empty()) << x.name << " on " << spec;
        rep.kernels.push_back({f.path, all.back()});
      }
      model::ProgramOptions po;
      po.cpuMs = 1e9;
      rep.programs.push_back({f.path, model::projectProgram(f, all, hw, {}, mo, po)});
      std::string json = report::renderJson(rep);
      std::vector<std::string> bad = testsupport::nonFinite(json);
      EXPECT_TRUE(bad.empty()) << x.name << " on " << spec << " with " << name
                               << ": not finite at " << ::testing::PrintToString(bad);
      std::vector<std::pair<std::string, double>> nums;
      testsupport::collectNumbers(nlohmann::json::parse(json), "", nums);
      // An overflow usually shows as a negative count or time; only a fusion's
      // saved bytes may be negative (fusion that adds traffic).
      for (const auto &[at, v] : nums) {
        if (at.find("bytes_saved") == std::string::npos) {
          EXPECT_GE(v, 0) << x.name << " on " << spec << " with " << name << " at " << at;
        }
      }
      for (const auto &kp : all)
        for (const auto &l : kp.layouts)
          ASSERT_GT(l.result.timeMs, 0) << x.name << " " << l.layoutString;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Generated, ExtremeSizes, ::testing::ValuesIn(kExtremes),
                         [](const ::testing::TestParamInfo<Extreme> &i) { return std::string(i.param.name); });

// Subscripts whose values run far outside their array (up to the edge of
// 64-bit integers): skeletons do not bound-check affine subscripts, so these
// are legal input; they must project to finite numbers without overflow.
const Extreme kWildIndices[] = {
    {"huge_coefficient", R"(float A[8]
parallel_for(8) : i {
  ld A[i * 4611686018427387904]
  st A[i]
}
)"},
    {"huge_offset", R"(float A[8][8]
parallel_for(8, 8) : i, j {
  ld A[i + 9223372036854775800][j]
  ld A[-9223372036854775807 - i][j]
  st A[i][j]
}
)"},
    {"coefficient_product", R"(float A[8]
parallel_for(64) : i {
  ld A[(i * 3037000500) * 3037000500]
  ld A[(i + 3037000500) * 3037000500]
  st A[i % 8]
}
)"},
    {"bound_scalar", R"(float A[1024]
parallel_for(1024) : i {
  r = i * 4611686018427387904
  ld A[r + r]
  st A[i]
}
)"},
    {"stream_wild", R"(float A[1024][1024]
parallel_for(1024) : i {
  stream k = 0:1024 {
    ld A[k * 9007199254740992][i * 2251799813685248]
    comp 1
  }
  st A[i][0]
}
)"},
    {"big_stride", R"(float A[268435456][4294967296]
parallel_for(268435456, 2) : i, j {
  ld A[i * 8][j * 1073741824]
  st A[i][j]
}
)"},
    {"address_edges", R"(// byte addresses at both ends of 64 bits: -2^61 x 4 bytes = -2^63
float A[64]
parallel_for(64) : i {
  ld A[-2305843009213693952 + i]
  ld A[2305843009213693951 - i]
  ld A[2305843009213693951]
  st A[i]
}
)"},
    {"cached_wild", R"(// read-only and shared by a block's threads, so the enumerator caches it
float A[64][64]
float B[64][64]
parallel_for(64, 64) : i, j {
  ld A[(i / 8) * 1152921504606846976][j]
  ld A[(i / 8) * -1152921504606846976][j + 4611686018427387904]
  st B[i][j]
}
)"},
};

INSTANTIATE_TEST_SUITE_P(WildIndices, ExtremeSizes, ::testing::ValuesIn(kWildIndices),
                         [](const ::testing::TestParamInfo<Extreme> &i) { return std::string(i.param.name); });

// The blocks of a 2^40 loop space are counted exactly.
TEST(ExtremeSizes, BlocksOfTwoPow40) {
  skeleton::SkeletonFile f = skeleton::parseSkeleton(kExtremes[1].text, "flat.skel");
  hw::HwSpec hw = hw::loadHwSpec(kSpecs + "/h100.json");
  layout::KernelInfo ki = layout::analyzeKernel(f, 0);
  EXPECT_EQ(ki.loopSpace, std::ldexp(1.0, 40));
  layout::Layout l = layout::parseLayout(ki, "block=i:1024 fold=i:8", hw);
  model::KernelProjection kp = model::projectKernel(ki, hw, {}, {}, l);
  ASSERT_EQ(kp.layouts.size(), 1u);
  EXPECT_EQ(kp.layouts[0].characterization.workload.blocks, std::ldexp(1.0, 27));
}

} // namespace
