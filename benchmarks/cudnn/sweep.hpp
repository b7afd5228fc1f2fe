#pragma once
/// \file sweep.hpp
/// What the two benchmark executables share: run settings, the per-case profiling loop, failure
/// classification, and the sweep driver (progress, session, table, CSV/JSON, recording, exit code).

#include "workloads/case_result.hpp"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace roofline {
class Session;
}

namespace roofline::bench {

enum class AlgoMode { Heuristic, Exhaustive, Every };

struct RunSettings {
    AlgoMode algo = AlgoMode::Heuristic;
    int warmup = 3;
    int repeats = 10;
    bool verify = true;
    double tolerance = 0.0;         ///< 0: the precision's default
    std::uint64_t maxWorkspace = 0; ///< bytes; 0: whatever device memory is free
    std::uint64_t seed = 1;
};

/// Everything a case runner needs from the driver.
struct RunContext {
    cudnnHandle_t handle = nullptr;
    cudaStream_t stream = nullptr;
    roofline::Session* session = nullptr; ///< null: --no-profile
    RunSettings settings;
};

/// Runs `work` once per replay pass under ProfileScopes "<scope>/<pass>" (iteration replay takes
/// as many passes as the metric set needs), then waits for the stream.
void profileCase(const RunContext& ctx, const std::string& scope, const std::string& pass,
                 const std::function<void()>& work);

/// Runs `body`, turning exceptions into the case's status: cuDNN refusals -> Unsupported, memory
/// -> NoMemory, CUDA/cuDNN failures -> Crashed. Returns false when the device is unusable after it.
bool guardCase(workloads::CaseResult& result, const std::function<void()>& body);

/// Compares and sets verified/maxError/tolerance/status.
void judge(workloads::CaseResult& result, double maxError, long long nonFinite, double tolerance);

/// The ProfileScope name of case `index`: "<prefix><index>.<name>" with '/', ' ' and ',' replaced
/// by '_' (a '/' would split the scope path).
std::string caseScope(char prefix, int index, const std::string& name);

/// A seed for one case's inputs, derived from the run's seed, the case and the tensor.
std::uint64_t caseSeed(std::uint64_t runSeed, int caseIndex, int tensor);

/// Options every benchmark executable takes, and the driver loop.
struct SweepOutputs {
    std::string json, csv, casesCsv, seerCsv, recording, plots;
    bool profile = true;
    bool quiet = false;
};

/// `runCase(i, ctx)` returns the results of case i (several in --algo every). The driver owns the
/// cuDNN handle, the stream and the Session; prints progress and the table; writes the outputs;
/// returns the process exit code (1 when any case failed verification or crashed, else 0).
int runSweep(
    const std::string& tool, std::size_t caseCount, const RunSettings& settings,
    const SweepOutputs& outputs,
    const std::function<std::vector<workloads::CaseResult>(std::size_t, RunContext&)>& runCase,
    const std::function<workloads::CaseResult(std::size_t)>& skippedCase);

} // namespace roofline::bench
