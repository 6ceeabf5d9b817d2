/// \file
/// Validation against measured GPU times (`skelcast validate`): each measured
/// case (a skeleton, a layout, a median kernel time) is projected with the
/// chosen model and with the roofline baseline; errors are max(p/m, m/p) - 1
/// and summarised by their geometric mean; per kernel, the measured layout the
/// projection ranks first is compared with the fastest measured one.
#pragma once

#include "skelcast/model/Project.h"

#include <string>
#include <vector>

namespace skelcast::model {

struct MeasuredCase {
  std::string kernel, size, skeleton, layout;
  double timeMs = 0;
};

struct Measurements {
  std::string path, gpuName;
  std::vector<MeasuredCase> cases;
};

/// Read a measurement file (validation/results/*_kernels.json); skeleton paths
/// are relative to its "skeleton_root" (itself relative to the file, default ".").
Measurements loadMeasurements(const std::string &path);

/// Several runs of the same cases: each case keeps its lowest median, since
/// interference from other work can only add time. Cases are matched by
/// kernel, size and layout; a case missing from a run is kept as measured.
Measurements mergeRuns(const std::vector<Measurements> &runs);

struct CaseResult {
  MeasuredCase measured;
  std::string skeletonPath; ///< resolved
  double projectedMs = 0, rooflineMs = 0;
  double error = 0, rooflineError = 0; ///< max(p/m, m/p) - 1
  std::string bound;
};

struct KernelCheck {
  std::string kernel, size;
  std::string fastestMeasured;   ///< layout
  double fastestMs = 0;
  std::string projectedBest;     ///< the measured layout the model ranks first
  double projectedBestMeasuredMs = 0;
  bool withinTenPercent = false;
  std::string enumeratedTop;     ///< the enumerator's overall first layout
  bool enumeratedTopMeasured = false;
};

struct ValidationReport {
  std::string hwName, model, measurementsPath, gpuName;
  std::vector<CaseResult> cases;
  std::vector<KernelCheck> kernels;
  double geomeanError = 0, rooflineGeomeanError = 0, maxError = 0;
  int topWithinTen = 0;
};

ValidationReport validate(const Measurements &m, const HwSpec &hw, const ModelOptions &mo,
                          const std::string &modelLabel);

} // namespace skelcast::model
