// The work of a program, for `--sweep` with `--cpu-ms`: the CPU time given for
// the file as it is written is scaled to each size by the ratio of this work.
#pragma once

#include "skelcast/skeleton/Skeleton.h"

namespace skelcast::cli {

/// W = the sum over the kernels of launches x tasks x instructions per task,
/// where a task's instructions are its `comp` counts and its `ld`/`st`
/// accesses, each times its executions per task (inner loops' trips and branch
/// probabilities, as layout::analyzeKernel counts them); launches: 1, or the
/// passes of its `repeat` (an indexed repeat: the loop space of each launch
/// summed instead of launches x tasks). Throws InputError as the analysis does.
double programWork(const skeleton::SkeletonFile &file);

} // namespace skelcast::cli
