// The CLI tests run skelcast in-process: none of them keeps builds in the
// user's cache directory (docs/performance.md, "The build cache"); a test of
// the store gives CompileCache its own directory.
#include <gtest/gtest.h>

#include <cstdlib>

namespace {

class NoBuildStore : public ::testing::Environment {
public:
  void SetUp() override { setenv("SKELCAST_BUILD_CACHE", "none", 1); }
};

const ::testing::Environment *const kNoBuildStore = ::testing::AddGlobalTestEnvironment(new NoBuildStore);

} // namespace
