// `validate --run`: emit, build with nvcc, run on this machine's GPU, and
// validate against the records the runs print (ValidateRun.cpp).
#pragma once

#ifdef SKELCAST_HAVE_FRONTEND

#include "Commands.h"
#include "EmitRun.h"
#include "Inputs.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace skelcast::cli {

struct ValidateRunOptions {
  std::vector<std::string> files; ///< C files
  frontend::SkeletonizeOptions skeletonize;
  EmitChoice choice;
  std::string hw, nvcc, outDir;
  model::ModelOptions model;
  /// --counts and the run's compile cache: not `table` (and nvcc found), the
  /// top N are chosen after the re-rank with ptxas's registers (docs/model.md,
  /// "Registers from ptxas").
  InputOptions counts;
};

/// nvcc: `given`, else the first on PATH, else /usr/local/cuda/bin/nvcc; empty
/// when there is none.
std::string findNvcc(const std::string &given);
/// "sm_90" from the spec's compute_capability "9.0".
std::string cudaArch(const hw::HwSpec &hw);
/// `nvcc -O3 -arch=ARCH -Xcompiler -fopenmp -o EXE CU`; InputError with the compiler's messages.
std::string buildEmitted(const std::string &nvcc, const std::string &arch, const std::string &cu,
                         const std::string &exe);
/// Runs an emitted program and reads the record it prints; InputError when it
/// fails (no GPU: a message saying so).
nlohmann::json runEmitted(const std::string &exe, const std::string &cu);
/// Make a record name its C file (relative to the working directory when
/// inside it) and the options it was read with (c_args, c_extent, c_trip,
/// c_function, c_sample) and its kernel ("c_kernel"), in place of the
/// emitted skeleton, so that validate projects it from C.
void nameCFile(nlohmann::json &c, const std::string &file, const frontend::SkeletonizeOptions &so);

/// One measurement file (validation/README.md's schema) from single-case
/// records; `root` is its "skeleton_root" (relative to the file).
std::string mergeRecords(const std::vector<nlohmann::json> &records, const std::string &root);

/// The measurement file a run wrote (each case naming its C file and the
/// options it was read with, so `validate FILE` projects it from C again), the
/// GPU it ran on, and the temporary directory's removal (none with --out-dir).
struct RunMeasurements {
  std::string path, gpuName;
  std::shared_ptr<void> cleanup;
};

/// Emit the chosen layouts of each C file, build, run and check them on this
/// machine's GPU, and write their records into one measurement file.
RunMeasurements runAndMeasure(Context &ctx, const ValidateRunOptions &o);

} // namespace skelcast::cli

#endif
