// Where raw CUPTI's per-kernel cost goes, metric group by metric group (no libroofline collector):
// for each group it prints the passes, the time of one pass over n auto ranges (auto range + user
// replay) for two values of n -- hence the cost per range per pass and the fixed cost per pass --,
// the same with one user range pushed around each kernel (user range + user replay), decode and
// host-evaluation time per range, and the cost of creating a profiler object. It is how the
// choices of docs/design/0008-fewer-passes.md were measured.
//   roofline-bench-cupti-floor [--small N] [--large N] [--groups a,b,...] [--sparse k,...]
//                              [--kind 0|1|2] [--idle]
// --sparse: instead, passes over `large` kernels with a user range around every k-th kernel only
// (what a window costs that measures only some of the launches it holds); --kind: which kernel of
// the cycle is ranged (0 FFMA, 1 copy, 2 DFMA); --idle: the device is waited for before each
// ranged kernel's range is pushed (the kernels before it have finished).
#include "core/metric_catalog.hpp"
#include "core/stopwatch.hpp"
#include "cupti/device.hpp"
#include "cupti/host.hpp"
#include "cupti/target.hpp"

#include "bench_helpers.hpp"

#include "floor_workload.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = roofline::core::SteadyClock;
using roofline::core::msSince;

using bench_floor::Workload;

struct Group {
    std::string name;
    std::vector<std::string> metrics;
};

// One group of passes over n kernels; returns ms per pass (mean), and decode/evaluate ms.
struct PassTimes {
    std::size_t passes = 0;
    double perPass = 0, decode = 0, evaluate = 0;
    std::size_t ranges = 0;
};

// `userRanges`: a user range around every `every`-th kernel (1: each one); the others run inside the
// pass with no range of their own.
struct Ranged {
    int every = 1;     ///< a user range around every `every`-th kernel
    int kind = 0;      ///< the one whose index modulo `every` is this
    bool idle = false; ///< the device waited for before the range is pushed
};

PassTimes runGroup(roofline::cupti::RangeProfiler& p, const roofline::cupti::Host& host,
                   const std::vector<std::string>& metrics, const Workload& w, int n,
                   bool userRanges, Ranged ranged_ = {}) {
    PassTimes t;
    p.configure();
    cudaDeviceSynchronize();
    double total = 0;
    bool all = false;
    while (!all && t.passes < 64) {
        const auto t0 = Clock::now();
        p.start();
        for (int i = 0; i < n; ++i) {
            const bool ranged = userRanges && i % ranged_.every == ranged_.kind;
            if (ranged && ranged_.idle)
                cudaDeviceSynchronize();
            if (ranged)
                p.pushRange(("k" + std::to_string(i)).c_str());
            w.kernel(i);
            if (ranged)
                p.popRange();
        }
        all = p.stop();
        cudaDeviceSynchronize();
        total += msSince(t0);
        ++t.passes;
    }
    t.perPass = total / static_cast<double>(t.passes);
    auto t1 = Clock::now();
    p.decode();
    t.decode = msSince(t1);
    t1 = Clock::now();
    t.ranges = host.rangeCount(p.counterData());
    for (std::size_t r = 0; r < t.ranges; ++r)
        host.evaluateValues(p.counterData(), r, metrics);
    t.evaluate = msSince(t1);
    return t;
}

} // namespace

namespace {

namespace cupti = roofline::cupti;
namespace core = roofline::core;

// The metric groups measured: the session's sets and the counters they are made of.
std::vector<Group> metricGroups(const std::string& chip) {
    const core::ChipProfile& profile = core::profileForChip(chip);
    const auto timeSet = core::requiredMetrics(profile, roofline::MetricSet::Time);
    const auto memory = core::requiredMetrics(profile, roofline::MetricSet::Memory);
    const auto coreSet = core::requiredMetrics(profile, roofline::MetricSet::Core);
    const auto full = core::requiredMetrics(profile, roofline::MetricSet::Full);
    std::vector<std::string> sass;
    for (const auto& m : coreSet)
        if (m.rfind("sm__sass", 0) == 0)
            sass.push_back(m);
    const std::vector<std::string> mma = {
        "sm__inst_executed_pipe_tensor_op_dmma.sum", "sm__inst_executed_pipe_tensor_op_gmma.sum",
        "sm__inst_executed_pipe_tensor_op_hmma.sum", "sm__inst_executed_pipe_tensor_op_imma.sum"};
    auto plus = [](std::vector<std::string> a, const std::vector<std::string>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    return {
        {"time", timeSet},
        {"memory", memory},
        {"sass", sass},
        {"mma", mma},
        {"core", coreSet},
        {"core+mma", plus(coreSet, mma)},
        {"bf16", {"sm__ops_path_tensor_src_bf16_dst_fp32.sum"}},
        {"fp16", {"sm__ops_path_tensor_src_fp16.sum"}},
        {"full", full},
    };
}

// One group's row: passes over `small` and `large` auto ranges (the cost per range and the fixed
// cost per pass), the same with user ranges, decode and evaluation.
void measureGroup(void* context, const cupti::Host& host, const Group& g, Workload& w, int small,
                  int large) {
    const cupti::ConfigImage image = host.configImage(g.metrics);
    auto t0 = Clock::now();
    cupti::RangeProfiler autoP(context, {{g.metrics, image.bytes}}, static_cast<std::size_t>(large),
                               cupti::RangeMode::AutoUserReplay);
    const double create = msSince(t0);
    runGroup(autoP, host, g.metrics, w, small, false); // warm-up (SASS patching)
    const PassTimes a = runGroup(autoP, host, g.metrics, w, small, false);
    const PassTimes b = runGroup(autoP, host, g.metrics, w, large, false);
    autoP.disable();
    cupti::RangeProfiler userP(context, {{g.metrics, image.bytes}}, static_cast<std::size_t>(large),
                               cupti::RangeMode::UserUserReplay);
    runGroup(userP, host, g.metrics, w, small, true);
    const PassTimes u = runGroup(userP, host, g.metrics, w, large, true);
    userP.disable();
    const double perRange = (b.perPass - a.perPass) / (large - small);
    std::printf("%-9s %7zu %6zu | %9.2f %9.2f %10.3f %9.2f | %9.2f %10.3f | %8.2f %9.3f"
                "  (create %.0f ms)\n",
                g.name.c_str(), g.metrics.size(), b.passes, a.perPass, b.perPass, perRange,
                a.perPass - perRange * small, u.perPass, u.perPass / large, b.decode,
                b.ranges ? b.evaluate / b.ranges : 0.0, create);
}


// Windows that hold more launches than they measure: one pass over `large` kernels with a user
// range around every k-th kernel only (an FFMA kernel each time), against auto ranges around every
// kernel. Prints ms per pass, ms per measured kernel, and the metrics whose ranged values differ
// from the same kernel's auto-range values (by more than 0.1 %: the largest relative difference).
void measureSparse(void* context, const cupti::Host& host, const Group& g, Workload& w, int large,
                   const std::vector<int>& everies, int kind, bool idle) {
    const cupti::ConfigImage image = host.configImage(g.metrics);
    const auto cap = static_cast<std::size_t>(large);
    cupti::RangeProfiler autoP(context, {{g.metrics, image.bytes}}, cap,
                               cupti::RangeMode::AutoUserReplay);
    runGroup(autoP, host, g.metrics, w, large, false); // warm-up (SASS patching)
    const PassTimes a = runGroup(autoP, host, g.metrics, w, large, false);
    const std::vector<double> reference =
        host.evaluateValues(autoP.counterData(), static_cast<std::size_t>(kind), g.metrics);
    autoP.disable();
    std::printf("%-9s auto ranges on all %d kernels: %.2f ms per pass (%zu passes)\n",
                g.name.c_str(), large, a.perPass, a.passes);
    for (int every : everies) {
        cupti::RangeProfiler userP(context, {{g.metrics, image.bytes}}, cap,
                                   cupti::RangeMode::UserUserReplay);
        const Ranged ranged{every, kind % every, idle};
        runGroup(userP, host, g.metrics, w, large, true, ranged); // warm-up
        const PassTimes u = runGroup(userP, host, g.metrics, w, large, true, ranged);
        std::vector<double> worst(g.metrics.size(), 0.0);
        for (std::size_t r = 0; r < u.ranges; ++r) {
            const std::vector<double> v = host.evaluateValues(userP.counterData(), r, g.metrics);
            for (std::size_t m = 0; m < v.size() && m < reference.size(); ++m)
                if (reference[m] != 0)
                    worst[m] = std::max(worst[m],
                                        std::abs(v[m] - reference[m]) / std::abs(reference[m]));
        }
        std::string differ; // the metrics whose ranged values are not the auto range's
        for (std::size_t m = 0; m < worst.size(); ++m)
            if (worst[m] > 1e-3)
                differ += " " + g.metrics[m] + "(" + std::to_string(worst[m]) + ")";
        userP.disable();
        std::printf("%-9s user range on every %3d-th kernel (kind %d%s): %zu ranges, %.2f ms per pass "
                    "(%.3f ms per ranged kernel; all-auto %.3f per kernel); metrics whose values "
                    "differ from the auto range's:%s\n",
                    g.name.c_str(), every, kind, idle ? ", device idle first" : "", u.ranges,
                    u.perPass,
                    u.ranges ? u.perPass / static_cast<double>(u.ranges) : 0.0,
                    a.perPass / large, differ.empty() ? " none" : differ.c_str());
    }
}

} // namespace

int main(int argc, char** argv) {
    int small = 6, large = 96;
    std::vector<std::string> only;
    std::vector<int> sparse; // --sparse 3,12,48: user ranges around every k-th kernel only
    int kind = 0;
    bool idle = false;
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--idle"))
            idle = true;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--idle")) {
            --i;
            continue;
        }
        if (!std::strcmp(argv[i], "--small"))
            small = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--large"))
            large = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--groups"))
            only = bench_helpers::commaList(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--sparse"))
            for (const std::string& k : bench_helpers::commaList(argv[i + 1]))
                sparse.push_back(std::max(1, std::atoi(k.c_str())));
        else if (!std::strcmp(argv[i], "--kind"))
            kind = std::max(0, std::min(2, std::atoi(argv[i + 1])));
    }
    void* context = nullptr;
    try {
        cupti::openDevice(0, &context);
        cupti::initializeProfiler();
    } catch (const std::exception& e) {
        std::printf("roofline-bench-cupti-floor: nothing to measure: %s\n", e.what());
        return 0;
    }
    const std::string chip = cupti::chipName(0);
    const cupti::Host host(chip);
    const std::vector<Group> groups = metricGroups(chip);
    Workload w;
    for (int i = 0; i < 8; ++i)
        w.kernel(i);
    cudaDeviceSynchronize();
    std::printf("chip %s; kernels ~%s; n = %d and %d ranges per pass\n", chip.c_str(),
                "FFMA, 16 MiB copy, DFMA", small, large);
    std::printf("%-9s %7s %6s | %9s %9s %10s %9s | %9s %10s | %8s %9s\n", "group", "metrics",
                "passes", "pass(n1)", "pass(n2)", "ms/range", "fixed", "user(n2)", "ms/urange",
                "decode", "eval/rng");
    for (const Group& g : groups) {
        if (!only.empty() && std::find(only.begin(), only.end(), g.name) == only.end())
            continue;
        try {
            if (!sparse.empty())
                measureSparse(context, host, g, w, large, sparse, kind, idle);
            else
                measureGroup(context, host, g, w, small, large);
        } catch (const std::exception& e) {
            std::printf("%-9s failed: %s\n", g.name.c_str(), e.what());
        }
    }
    // Plain launches for scale.
    auto t0 = Clock::now();
    for (int i = 0; i < large; ++i)
        w.kernel(i);
    cudaDeviceSynchronize();
    std::printf("unprofiled: %.3f ms for %d kernels\n", msSince(t0), large);
    cupti::deinitializeProfiler();
    cupti::releasePrimaryContext(0);
    return 0;
}
