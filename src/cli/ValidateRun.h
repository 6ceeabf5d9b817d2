// `validate --run`: emit, build with nvcc, run on this machine's GPU, and
// validate against the records the runs print (ValidateRun.cpp).
#pragma once

#ifdef SKELCAST_HAVE_FRONTEND

#include "Commands.h"
#include "EmitRun.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace skelcast::cli {

struct ValidateRunOptions {
  std::vector<std::string> files; ///< C files
  frontend::SkeletonizeOptions skeletonize;
  EmitChoice choice;
  std::string hw, nvcc, outDir, modelLabel;
  model::ModelOptions model;
  bool force = false;
};

/// nvcc: `given`, else the first on PATH, else /usr/local/cuda/bin/nvcc; empty
/// when there is none.
std::string findNvcc(const std::string &given);
/// "sm_90" from the spec's compute_capability "9.0".
std::string cudaArch(const hw::HwSpec &hw);
/// `nvcc -O3 -arch=ARCH -o EXE CU`; InputError with the compiler's messages.
std::string buildEmitted(const std::string &nvcc, const std::string &arch, const std::string &cu,
                         const std::string &exe);
/// Runs an emitted program and reads the record it prints; InputError when it
/// fails (no GPU: a message saying so).
nlohmann::json runEmitted(const std::string &exe, const std::string &cu);
/// One measurement file (validation/README.md's schema) from single-case records.
std::string mergeRecords(const std::vector<nlohmann::json> &records);

int runValidateRun(Context &ctx, const ValidateRunOptions &o);

} // namespace skelcast::cli

#endif
