#include "cudnn/sweep.hpp"
#include "seer/cases.hpp"

#include "cudnn/cuda_util.hpp"
#include "workloads/plots.hpp"

#include <roofline/profile_scope.hpp>
#include <roofline/session.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <unistd.h>

namespace roofline::bench {

using workloads::CaseResult;
using workloads::CaseStatus;

namespace {

double nowSeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

PhaseTimer::PhaseTimer(PhaseTimes* times, double PhaseTimes::*phase)
    : phase_(times ? &(times->*phase) : nullptr), start_(nowSeconds()) {}

PhaseTimer::~PhaseTimer() {
    if (phase_)
        *phase_ += nowSeconds() - start_;
}

void profileCases(const RunContext& ctx, const std::vector<ProfiledWork>& works,
                  const std::string& outer) {
    if (!ctx.session || works.empty())
        return;
    PhaseTimer timer(ctx.phases, &PhaseTimes::profiling);
    while (ctx.session->needsPass()) {
        std::optional<roofline::ProfileScope> iteration;
        if (!outer.empty())
            iteration.emplace(outer.c_str());
        for (const ProfiledWork& w : works) {
            roofline::ProfileScope caseScope{w.scope.c_str()};
            roofline::ProfileScope passScope{w.pass.c_str()};
            w.work();
        }
    }
    BENCH_CUDA(cudaStreamSynchronize(ctx.stream));
}

void profileCase(const RunContext& ctx, const std::string& scope, const std::string& pass,
                 const std::function<void()>& work) {
    profileCases(ctx, {ProfiledWork{scope, pass, work}});
}

bool guardCase(CaseResult& result, const std::function<void()>& body) {
    try {
        body();
        return true;
    } catch (const OutOfMemory& e) {
        result.status = CaseStatus::NoMemory;
        result.reason = e.what();
        return true;
    } catch (const CudnnError& e) {
        result.status = e.notSupported() ? CaseStatus::Unsupported : CaseStatus::Crashed;
        result.reason = std::string("cuDNN: ") + e.what();
        return true;
    } catch (const CudaError& e) {
        result.status = CaseStatus::Crashed;
        result.reason = std::string("CUDA: ") + e.what();
        return !e.sticky();
    } catch (const std::exception& e) {
        result.status = CaseStatus::Crashed;
        result.reason = e.what();
        return true;
    }
}

void judge(CaseResult& result, double maxError, long long nonFinite, double tolerance) {
    result.verified = true;
    result.tolerance = tolerance;
    result.maxError = maxError;
    if (nonFinite > 0) {
        result.status = CaseStatus::VerifyFailed;
        result.maxError = 1.0;
        result.reason = std::to_string(nonFinite) + " result elements are NaN or infinite";
    } else if (!(maxError <= tolerance)) {
        result.status = CaseStatus::VerifyFailed;
        char text[128];
        std::snprintf(text, sizeof text, "max error %.3g exceeds the %s tolerance %.3g", maxError,
                      result.precision.c_str(), tolerance);
        result.reason = text;
    }
}

std::string caseScope(char prefix, int index, const std::string& name) {
    std::string scope = std::string(1, prefix) + std::to_string(index) + ".";
    for (char ch : name)
        scope += ch == '/' || ch == ' ' || ch == ',' ? '_' : ch;
    return scope;
}

std::uint64_t caseSeed(std::uint64_t runSeed, int caseIndex, int tensor) {
    std::uint64_t x = runSeed * 0x9E3779B97F4A7C15ull +
                      static_cast<std::uint64_t>(caseIndex) * 131 +
                      static_cast<std::uint64_t>(tensor);
    x ^= x >> 29;
    return x * 0xBF58476D1CE4E5B9ull;
}

namespace {

// "time: 414.8 s for 658 cases (0.63 s each): setup 4.4 s, engine plans 2.0 s, ..." -- where a
// sweep's time went, so that a long one can be sized (and its cost reported) before it is run.
std::string phaseSummary(const PhaseTimes& p, double total, std::size_t cases) {
    char text[400];
    const double known = p.setup + p.plans + p.verify + p.timing + p.profiling;
    std::snprintf(text, sizeof text,
                  "time: %.1f s for %zu cases (%.2f s each): setup %.1f s, engine plans %.1f s, "
                  "verification %.1f s, timing %.1f s, profiling %.1f s, other %.1f s",
                  total, cases, cases ? total / static_cast<double>(cases) : 0.0, p.setup, p.plans,
                  p.verify, p.timing, p.profiling, total > known ? total - known : 0.0);
    return text;
}

struct Resources {
    cudnnHandle_t handle = nullptr;
    cudaStream_t stream = nullptr;
    ~Resources() {
        if (handle)
            (void)cudnnDestroy(handle);
        if (stream)
            (void)cudaStreamDestroy(stream);
    }
};

bool deviceUsable(std::string& why) {
    const cudaError_t status = cudaDeviceSynchronize();
    if (status == cudaSuccess)
        return true;
    if (!isStickyCudaError(status)) {
        (void)cudaGetLastError();
        return true;
    }
    why =
        std::string("an earlier case left the device unusable (") + cudaGetErrorName(status) + ")";
    return false;
}

} // namespace

namespace {

// CUDA and cuDNN set up on device 0 (its name in `deviceName`); false, said, when they cannot be.
bool setUp(const std::string& tool, Resources& res, std::string& deviceName) {
    int devices = 0;
    const cudaError_t probe = cudaGetDeviceCount(&devices);
    if (probe != cudaSuccess || devices == 0) {
        std::cerr << tool << ": needs a CUDA GPU ("
                  << (probe != cudaSuccess ? cudaGetErrorString(probe) : "no device visible")
                  << "); nothing was run\n";
        return false;
    }
    try {
        BENCH_CUDA(cudaStreamCreateWithFlags(&res.stream, cudaStreamNonBlocking));
        BENCH_CUDNN(cudnnCreate(&res.handle));
        BENCH_CUDNN(cudnnSetStream(res.handle, res.stream));
        cudaDeviceProp prop{};
        BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
        deviceName = prop.name;
    } catch (const std::exception& e) {
        std::cerr << tool << ": cannot set up CUDA/cuDNN: " << e.what() << '\n';
        return false;
    }
    return true;
}

// What the cases gave, and how many the time limit left out.
struct Ran {
    std::vector<CaseResult> results;
    std::size_t notReached = 0;
    double seconds = 0;
};

Ran runCases(std::size_t caseCount, const RunSettings& settings, const SweepOutputs& outputs,
             const std::function<std::vector<CaseResult>(std::size_t, RunContext&)>& runCase,
             const std::function<CaseResult(std::size_t)>& skippedCase, RunContext& ctx) {
    const bool tty = isatty(STDERR_FILENO) != 0;
    const double started = nowSeconds();
    Ran ran;
    std::string lost;
    for (std::size_t i = 0; i < caseCount; ++i) {
        if (settings.timeLimitSeconds > 0 && nowSeconds() - started >= settings.timeLimitSeconds) {
            ran.notReached = caseCount - i;
            break;
        }
        std::vector<CaseResult> produced;
        if (!lost.empty()) {
            CaseResult r = skippedCase(i);
            r.status = CaseStatus::Skipped;
            r.reason = lost;
            produced.push_back(r);
        } else {
            if (tty && !outputs.quiet)
                std::cerr << "\r[" << i + 1 << '/' << caseCount << "] running..." << std::flush;
            produced = runCase(i, ctx);
            if (!deviceUsable(lost))
                for (auto& r : produced)
                    if (r.status == CaseStatus::Passed)
                        r.status = CaseStatus::Crashed, r.reason = lost;
        }
        for (auto& r : produced) {
            if (!outputs.quiet)
                std::cerr << (tty ? "\r\033[K" : "") << workloads::progressLine(r, caseCount)
                          << '\n';
            ran.results.push_back(std::move(r));
        }
    }
    ran.seconds = nowSeconds() - started;
    return ran;
}

// The session's records attached to their cases, what is missing said, the recording written.
void finishSession(const std::string& tool, roofline::Session& session, const SweepOutputs& outputs,
                   std::vector<CaseResult>& results) {
    std::vector<roofline::KernelRecord> records = session.stop();
    const std::size_t orphans = workloads::attachRecords(results, std::move(records));
    if (orphans)
        std::cerr << tool << ": " << orphans << " records belonged to no case\n";
    std::size_t unmeasured = 0; // cases that ran under the profiler, yet have no records
    for (const auto& r : results)
        if ((r.status == CaseStatus::Passed || r.status == CaseStatus::VerifyFailed) &&
            r.records.empty())
            ++unmeasured;
    if (unmeasured)
        std::cerr << tool << ": " << unmeasured
                  << " cases ran but have no kernel records: their counters are missing "
                     "(and they are not SEER rows); write a recording (--record) and read "
                     "its coverage line to see where their launches went\n";
    if (session.replayMismatches())
        std::cerr << tool << ": " << session.replayMismatches()
                  << " replay groups differed between passes (see the records' notes)\n";
    if (outputs.recording.empty())
        return;
    try {
        session.save(outputs.recording);
        std::cerr << tool << ": recording written to " << outputs.recording
                  << " (evaluate with: roofline report " << outputs.recording << ")\n";
    } catch (const std::exception& e) {
        std::cerr << tool << ": " << e.what() << '\n';
    }
}

// The case table and its totals; the number of failed cases.
int printResults(const Ran& ran, const PhaseTimes& phases, std::size_t caseCount,
                 const RunSettings& settings, const SweepOutputs& outputs) {
    const std::vector<CaseResult>& results = ran.results;
    std::cout << '\n';
    workloads::printCaseTable(results, std::cout);
    int passed = 0, failed = 0, other = 0;
    for (const auto& r : results)
        (r.status == CaseStatus::Passed   ? passed
         : workloads::isFailure(r.status) ? failed
                                          : other)++;
    std::cout << "\n"
              << results.size() << " results: " << passed << " passed, " << failed
              << " failed verification or crashed, " << other
              << " not run (invalid, unsupported, no memory, skipped)\n";
    std::cout << phaseSummary(phases, ran.seconds, caseCount - ran.notReached) << '\n';
    if (ran.notReached)
        std::cout << "time limit (" << settings.timeLimitSeconds
                  << " s) reached: " << ran.notReached << " of " << caseCount << " cases not run"
                  << (outputs.seerCsv.empty() ? std::string()
                                              : "; run again with --resume --seer-csv " +
                                                    outputs.seerCsv + " to continue")
                  << '\n';
    return failed;
}

void writeOutputs(const std::string& tool, const std::string& deviceName,
                  const std::vector<CaseResult>& results, const SweepOutputs& outputs) {
    if (!outputs.casesCsv.empty())
        workloads::writeCasesCsv(results, outputs.casesCsv);
    if (!outputs.seerCsv.empty()) {
        const std::size_t added = seer::writeSeerCsv(results, outputs.seerCsv, outputs.resumed);
        std::cout << "wrote " << added << " SEER rows to " << outputs.seerCsv;
        if (outputs.resume)
            std::cout << " (" << outputs.resumed.size() + added << " in all)";
        std::cout << '\n';
    }
    if (!outputs.csv.empty())
        workloads::writeRecordsCsv(results, outputs.csv);
    if (!outputs.json.empty())
        workloads::writeJson(results, tool, deviceName, outputs.json);
    if (!outputs.plots.empty())
        for (const auto& file : workloads::writePlots(results, tool, outputs.plots))
            std::cout << "wrote " << file << '\n';
}

} // namespace

int runSweep(const std::string& tool, std::size_t caseCount, const RunSettings& settings,
             const SweepOutputs& outputs,
             const std::function<std::vector<CaseResult>(std::size_t, RunContext&)>& runCase,
             const std::function<CaseResult(std::size_t)>& skippedCase) {
    Resources res;
    std::string deviceName;
    if (!setUp(tool, res, deviceName))
        return 2;
    RunContext ctx;
    ctx.settings = settings;
    ctx.handle = res.handle;
    ctx.stream = res.stream;
    std::unique_ptr<roofline::Session> session;
    if (outputs.profile) {
        try {
            session = std::make_unique<roofline::Session>();
        } catch (const std::exception& e) {
            std::cerr << tool << ": profiling is off: " << e.what() << '\n';
        }
    }
    ctx.session = session.get();
    std::cerr << tool << ": " << caseCount << " cases on " << deviceName << " (cuDNN "
              << cudnnGetVersion() << "), "
              << (session ? "profiling: " + session->status() : std::string("not profiled"))
              << '\n';
    PhaseTimes phases;
    ctx.phases = &phases;
    Ran ran = runCases(caseCount, settings, outputs, runCase, skippedCase, ctx);
    if (session)
        finishSession(tool, *session, outputs, ran.results);
    const int failed = printResults(ran, phases, caseCount, settings, outputs);
    try {
        writeOutputs(tool, deviceName, ran.results, outputs);
    } catch (const std::exception& e) {
        std::cerr << tool << ": " << e.what() << '\n';
        return 2;
    }
    return failed > 0 ? 1 : 0;
}

} // namespace roofline::bench
