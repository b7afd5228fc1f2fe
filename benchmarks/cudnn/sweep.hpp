#pragma once
/// \file sweep.hpp
/// What the two benchmark executables share: run settings, the per-case profiling loop, failure
/// classification, and the sweep driver (progress, session, table, CSV/JSON, recording, exit code).

#include "seer/dataset.hpp"
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
    double timeLimitSeconds = 0;       ///< 0: none; else no case starts after this many seconds
    std::vector<std::int64_t> engines; ///< --algo every: only these engines (empty: all)
};

/// Where a sweep's time went, summed over its cases (seconds of wall time). Runners add to the
/// phases they have; the driver prints the split at the end.
struct PhaseTimes {
    double setup = 0;     ///< descriptors, inputs and the reference result
    double plans = 0;     ///< building (or failing to build) each engine's execution plan
    double verify = 0;    ///< running the plan once and comparing with the reference
    double timing = 0;    ///< warm-up and CUDA-event timed runs
    double profiling = 0; ///< the profiled replay passes
};

/// Adds the wall time of its lifetime to one phase of `times` (none when `times` is null).
class PhaseTimer {
public:
    PhaseTimer(PhaseTimes* times, double PhaseTimes::*phase);
    ~PhaseTimer();
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

private:
    double* phase_;
    double start_;
};

/// Everything a case runner needs from the driver.
struct RunContext {
    cudnnHandle_t handle = nullptr;
    cudaStream_t stream = nullptr;
    roofline::Session* session = nullptr; ///< null: --no-profile
    RunSettings settings;
    PhaseTimes* phases = nullptr; ///< never null inside runSweep
};

/// One case's work under its ProfileScopes "<scope>/<pass>".
struct ProfiledWork {
    std::string scope, pass;
    std::function<void()> work;
};

/// Runs every `works` item, in order, once per replay pass (iteration replay takes as many passes
/// as the metric set needs), then waits for the stream. Profiling several cases in the same
/// passes pays each pass's fixed cost once for all of them.
/// A non-empty `outer` opens one scope around each pass's works: the iteration scope, so that each
/// pass is one iteration whatever the number of works (their records then carry "<outer>/...").
void profileCases(const RunContext& ctx, const std::vector<ProfiledWork>& works,
                  const std::string& outer = {});
/// profileCases with one case.
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
    /// --resume: the SEER data set already in `seerCsv` (`resumed`, read once by the caller, who
    /// has removed the cases it holds) is kept and the new rows added to it.
    bool resume = false;
    std::vector<seer::SeerRow> resumed;
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
