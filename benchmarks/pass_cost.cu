// Where the time of one iteration-replay pass goes, part by part, on this machine's GPU (raw
// CUPTI range profiler, auto range + user replay, as the collector drives it):
//   image set-up   profiler creation (Enable), counter-data image size and initialization,
//                  SetConfig; the first Start of a process (CUPTI's per-range state);
//   serialization  a pass over N tiny kernels with the time counters only, against the same
//                  kernels unprofiled;
//   range end      per range, for each metric group: the gap the GPU shows between two kernels
//                  (globaltimer stamps), the time the launch call blocks the program, the CPU
//                  the process burns while the pass runs, and Stop with its wait;
//   collection     decode (cuptiRangeProfilerDecodeData) per range;
//   evaluation     host evaluation per range (cuptiProfilerHostEvaluateToGpuValues);
//   flush kernels  the same pass with libroofline's L2 flush kernel before each kernel.
// The library's own bookkeeping on top of these is what roofline-bench-collector prints as
// "libroofline above raw CUPTI". docs/methodology.md ("What a profile costs") turns these parts
// into the cost model.
//   roofline-bench-pass-cost [--ranges N] [--capacity C] [--groups time,memory,...] [--cublas]
//                            [--parts FILE]
// --parts writes the parts of the cost model (core/cost_model.hpp) to FILE, for the set a session
// collects by default (`default`: the full set, tensor counters by detection): set-up, a
// profiler object's first Start (fixed, per range of its image -- from objects of 32 and 384
// ranges -- and the process's first object's extra), a pass's Start and Stop, a range per pass.
// `roofline-bench-predict` reads it.
// --cublas runs one cuBLAS GEMM first, so that the library's modules are loaded when the
// profilers start (as in a training program).
#include "core/cost_model.hpp"
#include "core/metric_catalog.hpp"
#include "core/tensor_inference.hpp"
#include "core/stopwatch.hpp"
#include "cupti/device.hpp"
#include "cupti/host.hpp"
#include "cupti/l2_flush.hpp"
#include "cupti/target.hpp"

#include "bench_helpers.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#if ROOFLINE_BENCH_CUBLAS
#include <cublas_v2.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

namespace cupti = roofline::cupti;
namespace core = roofline::core;
using bench_helpers::median;
using Clock = core::SteadyClock;
using core::msSince;

// One block that stamps the GPU's global timer as it starts and ends, spinning `ns` in between.
__global__ void stamped(unsigned long long* t, int i, unsigned ns) {
    unsigned long long s = 0, e = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(s));
    e = s;
    while (e - s < ns)
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(e));
    if (threadIdx.x == 0) {
        t[2 * i] = s;
        t[2 * i + 1] = e;
    }
}

double cpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct Kernels {
    unsigned long long* stamps = nullptr;
    int n = 0;
    explicit Kernels(int count) : n(count) {
        cudaMalloc(&stamps, sizeof(unsigned long long) * 2 * count);
    }
    ~Kernels() { cudaFree(stamps); }
    Kernels(const Kernels&) = delete;
    Kernels& operator=(const Kernels&) = delete;
    /// Launches the n kernels; returns the ms the launch calls took together.
    double launch(cupti::L2Flush* flush) const {
        double blocked = 0;
        for (int i = 0; i < n; ++i) {
            if (flush) {
                const cupti::OwnLaunches own;
                flush->launch(0);
            }
            const auto t0 = Clock::now();
            stamped<<<1, 32>>>(stamps, i, 2000);
            blocked += msSince(t0);
        }
        return blocked;
    }
    /// Median GPU gap between one kernel's end and the next one's start, ms.
    double gap() const {
        std::vector<unsigned long long> t(2 * n);
        cudaMemcpy(t.data(), stamps, sizeof(unsigned long long) * 2 * n, cudaMemcpyDeviceToHost);
        std::vector<double> gaps;
        for (int i = 1; i < n; ++i)
            gaps.push_back((t[2 * i] - t[2 * i - 1]) / 1e6);
        return median(gaps);
    }
};

// One pass's parts, ms.
struct Pass {
    double wall = 0, start = 0, launches = 0, stop = 0, wait = 0, cpu = 0, gap = 0;
    double startCpu = 0;
};

Pass onePass(cupti::RangeProfiler* p, const Kernels& k, cupti::L2Flush* flush, bool* all) {
    Pass r;
    cudaDeviceSynchronize();
    const double c0 = cpuMs();
    const auto t0 = Clock::now();
    if (p)
        p->start();
    r.start = msSince(t0);
    r.startCpu = cpuMs() - c0;
    r.launches = k.launch(flush);
    auto t1 = Clock::now();
    if (p)
        *all = p->stop();
    r.stop = msSince(t1);
    t1 = Clock::now();
    cudaDeviceSynchronize();
    r.wait = msSince(t1);
    r.wall = msSince(t0);
    r.cpu = cpuMs() - c0;
    r.gap = k.gap();
    return r;
}

struct GroupResult {
    std::size_t passes = 0, imageBytes = 0, capacity = 1; // the image and its ranges
    double create = 0, configure = 0, decode = 0, evaluate = 0;
    double firstStart = 0, firstStartCpu = 0; // the object's first Start: wall and process CPU
    Pass pass;                                // the mean of the passes
    std::size_t ranges = 0;
};

GroupResult runGroup(void* context, const cupti::Host& host,
                     const std::vector<std::string>& metrics, const Kernels& k,
                     std::size_t capacity, cupti::L2Flush* flush) {
    GroupResult g;
    const cupti::ConfigImage image = host.configImage(metrics);
    auto t0 = Clock::now();
    cupti::RangeProfiler p(context, {{metrics, image.bytes}}, capacity,
                           cupti::RangeMode::AutoUserReplay);
    g.create = msSince(t0); // Enable, image size and initialization, SetConfig
    g.imageBytes = p.counterData().size();
    g.capacity = capacity;
    for (int round = 0; round < 2; ++round) { // the first round warms up (code patching)
        t0 = Clock::now();
        p.configure();
        g.configure = msSince(t0);
        bool all = false;
        Pass sum;
        std::size_t passes = 0;
        while (!all && passes < 64) {
            const Pass one = onePass(&p, k, flush, &all);
            if (round == 0 && passes == 0) {
                g.firstStart = one.start;
                g.firstStartCpu = one.startCpu;
            }
            sum.wall += one.wall;
            sum.start += one.start;
            sum.launches += one.launches;
            sum.stop += one.stop;
            sum.wait += one.wait;
            sum.cpu += one.cpu;
            sum.gap += one.gap;
            ++passes;
        }
        const double n = static_cast<double>(passes);
        g.pass = {sum.wall / n, sum.start / n, sum.launches / n, sum.stop / n,
                  sum.wait / n, sum.cpu / n,   sum.gap / n};
        g.passes = passes;
        t0 = Clock::now();
        p.decode();
        g.decode = msSince(t0);
        t0 = Clock::now();
        g.ranges = host.rangeCount(p.counterData());
        for (std::size_t r = 0; r < g.ranges; ++r)
            host.evaluateValues(p.counterData(), r, metrics);
        g.evaluate = msSince(t0);
    }
    return g;
}

void printRow(const char* name, std::size_t metrics, const GroupResult& g, int n) {
    const double per = 1.0 / n;
    std::printf("%-13s %3zu %3zu | %8.1f %7.3f %7.3f %7.3f %6.2f %7.3f %7.3f | %7.3f %7.3f | %6.1f "
                "%6.0f\n",
                name, metrics, g.passes, g.pass.wall, g.pass.wall * per, g.pass.gap,
                g.pass.launches * per, g.pass.stop + g.pass.wait, g.pass.cpu * per, g.pass.start,
                g.ranges ? g.decode / g.ranges : 0.0, g.ranges ? g.evaluate / g.ranges : 0.0,
                g.configure,
                static_cast<double>(g.imageBytes) / 1024.0 / static_cast<double>(g.capacity));
}

const GroupResult* find(const std::vector<std::pair<std::string, GroupResult>>& results,
                        const char* name) {
    for (const auto& [group, r] : results)
        if (group == name)
            return &r;
    return nullptr;
}

// The parts in words, from the groups that isolate them.
void printParts(const std::vector<std::pair<std::string, GroupResult>>& results, int n,
                double plainPerKernel) {
    const GroupResult* time = find(results, "time");
    const GroupResult* l1 = find(results, "l1tex");
    const GroupResult* sass = find(results, "sass");
    const GroupResult* memory = find(results, "memory");
    const GroupResult* flush = find(results, "memory+flush");
    const GroupResult* full = find(results, "full");
    if (!time)
        return;
    const auto perRange = [n](const GroupResult* g) { return g->pass.wall / n; };
    std::printf("\nparts (ms):\n");
    std::printf("  serialization and range boundaries, time counters only: %.3f per range "
                "(unprofiled %.3f per kernel)\n",
                perRange(time) - plainPerKernel, plainPerKernel);
    std::printf("  fixed per pass (Start, Stop and its wait), time counters: %.2f per pass\n",
                time->pass.start + time->pass.stop + time->pass.wait);
    if (l1)
        std::printf("  range end with SM counters (l1tex alone), above time counters: %.3f per "
                    "range, the GPU idle %.3f of it, the launch call blocked %.3f\n",
                    perRange(l1) - perRange(time), l1->pass.gap - time->pass.gap,
                    (l1->pass.launches - time->pass.launches) / n);
    if (sass)
        std::printf("  SASS-patched FLOP counters, above time counters: %.3f per range, %.2f "
                    "per pass\n",
                    perRange(sass) - perRange(time),
                    sass->pass.start + sass->pass.stop + sass->pass.wait);
    if (memory)
        std::printf("  collection (decode) %.4f per range; evaluation %.4f per range (memory "
                    "set), image set-up (initialize + SetConfig) %.2f per image\n",
                    memory->decode / n, memory->evaluate / n, memory->configure);
    if (full)
        std::printf("  the full set: %zu passes, %.3f per range and pass, evaluation %.3f per "
                    "range\n",
                    full->passes, perRange(full), full->evaluate / n);
    if (flush && memory)
        std::printf("  flush kernel before each kernel: %.3f per kernel (its own range)\n",
                    perRange(flush) - perRange(memory));
}

// One Start and Stop of a fresh profiler object on `context` with `metrics`, no kernel between:
// the Start's wall ms.
double firstStartOf(void* context, const cupti::Host& host, const std::vector<std::string>& metrics,
                    std::size_t capacity) {
    const cupti::ConfigImage image = host.configImage(metrics);
    cupti::RangeProfiler p(context, {{metrics, image.bytes}}, capacity,
                           cupti::RangeMode::AutoUserReplay);
    const auto t0 = Clock::now();
    p.start();
    const double ms = msSince(t0);
    p.stop();
    return ms;
}

// Whether the first Start's cost belongs to the object, the configuration or the process: a
// configuration started before on a destroyed object, a fresh one, and one started first on a
// second context of the same device.
void printFirstStarts(void* context, const cupti::Host& host, std::size_t capacity) {
    const std::vector<std::string> a = {"dram__bytes_read.sum"}, b = {"dram__bytes_write.sum"},
                                   c = {"lts__t_sectors.sum"};
    std::printf("\nfirst Start of a fresh object, ms:\n");
    std::printf("  a new configuration:                 %7.1f\n",
                firstStartOf(context, host, a, capacity));
    std::printf("  the same configuration, new object:  %7.1f\n",
                firstStartOf(context, host, a, capacity));
    std::printf("  another new configuration:           %7.1f\n",
                firstStartOf(context, host, b, capacity));
    CUdevice device = 0;
    CUcontext other = nullptr;
    cuDeviceGet(&device, 0);
    CUctxCreateParams params{};
    if (cuCtxCreate(&other, &params, 0, device) != CUDA_SUCCESS) {
        std::printf("  (no second context)\n");
        return;
    }
    const auto t0 = Clock::now();
    const double there = firstStartOf(other, host, c, capacity);
    cuCtxDestroy(other);
    cuCtxSetCurrent(static_cast<CUcontext>(context));
    std::printf("  a new configuration, second context: %7.1f (with the context: %.1f)\n", there,
                msSince(t0));
    std::printf("  then on this context:                %7.1f\n",
                firstStartOf(context, host, c, capacity));
}

// The cost model's parts (core/cost_model.hpp) from the default set's group, into `file`.
void writeParts(const std::string& file, void* context, const cupti::Host& host,
                const std::vector<std::string>& metrics,
                const std::vector<std::pair<std::string, GroupResult>>& results, int n,
                double initMs, std::size_t capacity, const std::string& chip) {
    const GroupResult* g = find(results, "default");
    if (!g || results.empty()) {
        std::printf("--parts: the default set's group did not run: no parts written\n");
        return;
    }
    core::CostParts parts;
    const auto t0 = Clock::now();
    host.configImage(metrics); // the session builds its configuration images at set-up
    parts.setupMs = initMs + msSince(t0);
    // A later object's first Start at two image sizes: fixed + per range; the process's first
    // object (the first group's) costs more.
    constexpr std::size_t kSmall = 32, kLarge = 384;
    const double small = firstStartOf(context, host, metrics, kSmall);
    const double large = firstStartOf(context, host, metrics, kLarge);
    parts.objectRangeMs = std::max(0.0, (large - small) / static_cast<double>(kLarge - kSmall));
    parts.objectMs = std::max(0.0, small - parts.objectRangeMs * kSmall);
    // This process's first object costs more than the fit (its first Start is printed above);
    // a session's first object did not (H200: 253 ms for 32 ranges against 241 fitted, 450-476
    // ms for two against 480), so the prediction takes none.
    const double firstExtra = std::max(0.0, results.front().second.firstStart - parts.objectMs -
                                                parts.objectRangeMs * static_cast<double>(capacity));
    parts.firstObjectMs = 0;
    // A pass's own Start and Stop; the wait after Stop is the GPU finishing the pass's kernels,
    // which the ranges' part holds.
    parts.passMs = g->pass.start + g->pass.stop;
    parts.rangeMs = std::max(0.0, g->pass.wall - parts.passMs) / n;
    parts.chip = chip;
    parts.metrics = "default";
    std::FILE* f = std::fopen(file.c_str(), "w");
    const std::string text = core::toJson(parts);
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
        std::printf("--parts: could not write %s\n", file.c_str());
        if (f)
            std::fclose(f);
        return;
    }
    std::fclose(f);
    std::printf("\ncost parts (ms) written to %s: set-up %.1f; an object's first Start %.1f + "
                "%.3f per image range (%.1f at %zu, %.1f at %zu; this process's first %.1f more, "
                "not taken); pass %.2f, range %.3f\n",
                file.c_str(), parts.setupMs, parts.objectMs, parts.objectRangeMs, small, kSmall,
                large, kLarge, firstExtra, parts.passMs, parts.rangeMs);
}

} // namespace

static int run(int argc, char** argv) {
    int n = 96;
    std::size_t capacity = 0;
    std::vector<std::string> only;
    std::string partsFile;
    bool cublas = false;
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--cublas"))
            cublas = true;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--ranges"))
            n = std::max(2, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--capacity"))
            capacity = static_cast<std::size_t>(std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--groups"))
            only = bench_helpers::commaList(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--parts"))
            partsFile = argv[i + 1];
    }
    if (!partsFile.empty() && std::find(only.begin(), only.end(), "default") == only.end() &&
        !only.empty())
        only.push_back("default"); // the parts are the default set's
    if (capacity < static_cast<std::size_t>(n))
        capacity = static_cast<std::size_t>(n);
    cudaSetDevice(0);
    cudaFree(nullptr); // the primary context, current on this thread (the flush kernel loads there)
    void* context = nullptr;
    const core::DeviceInfo device = cupti::openDevice(0, &context);
    auto t0 = Clock::now();
    cupti::initializeProfiler();
    const double init = msSince(t0);
    const std::string chip = cupti::chipName(0);
    const cupti::Host host(chip);
    const core::ChipProfile& profile = core::profileForChip(chip);
    cupti::L2Flush flush(device.l2Bytes); // before any range profiler exists (design 0005)
    if (cublas) {
#if ROOFLINE_BENCH_CUBLAS
        cublasHandle_t h = nullptr;
        float* m = nullptr;
        const int d = 1024;
        cudaMalloc(&m, sizeof(float) * d * d * 3);
        cudaMemset(m, 0, sizeof(float) * d * d * 3);
        const float one = 1, zero = 0;
        cublasCreate(&h);
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, d, d, d, &one, m, d, m + d * d, d, &zero,
                    m + 2 * d * d, d);
        cudaDeviceSynchronize();
        std::printf("cuBLAS loaded (one SGEMM of %d)\n", d);
#else
        std::printf("--cublas: built without cuBLAS\n");
#endif
    }

    Kernels k(n);
    onePass(nullptr, k, nullptr, nullptr); // loads the module
    std::vector<double> plain, plainGap;
    for (int i = 0; i < 5; ++i) {
        const Pass p = onePass(nullptr, k, nullptr, nullptr);
        plain.push_back(p.wall);
        plainGap.push_back(p.gap);
    }
    std::printf("chip %s; %d one-block kernels of 2 us per pass; images of %zu ranges\n",
                chip.c_str(), n, capacity);
    std::printf(
        "profiler initialization %.1f ms; unprofiled: %.3f ms per kernel, GPU gap %.4f ms\n", init,
        median(plain) / n, median(plainGap));

    const auto sets = [&](roofline::MetricSet s) { return core::requiredMetrics(profile, s); };
    const std::vector<std::string> timeSet = sets(roofline::MetricSet::Time);
    std::vector<std::string> sass;
    for (const auto& m : sets(roofline::MetricSet::Core))
        if (m.rfind("sm__sass", 0) == 0)
            sass.push_back(m);
    struct Group {
        std::string name;
        std::vector<std::string> metrics;
        bool flush = false;
    };
    const std::vector<Group> groups = {
        {"time", timeSet},
        {"sass", sass},
        {"dram", {"dram__bytes.sum"}},
        {"lts", {"lts__t_bytes.sum"}},
        {"l1tex", {"l1tex__t_bytes.sum"}},
        {"cycles", {"sm__cycles_elapsed.avg"}},
        {"memory", sets(roofline::MetricSet::Memory)},
        {"bf16", {"sm__ops_path_tensor_src_bf16_dst_fp32.sum"}},
        {"full", sets(roofline::MetricSet::Full)},
        {"default", core::initialMetrics(profile, roofline::MetricSet::Full, true)},
        {"memory+flush", sets(roofline::MetricSet::Memory), true},
    };
    std::printf("\n%-13s %3s %3s | %8s %7s %7s %7s %6s %7s %7s | %7s %7s | %6s %6s\n", "group",
                "met", "pas", "pass ms", "ms/rng", "gpu gap", "launch", "stop+w", "cpu/rng",
                "start", "decode", "eval", "config", "KiB/r");
    std::printf("%-13s %3s %3s | %8s %7s %7s %7s %6s %7s %7s | %7s %7s | %6s %6s\n", "", "", "",
                "(mean)", "", "(med)", "/range", "", "", "", "/range", "/range", "ms", "");
    std::string firstStarts;
    std::vector<std::pair<std::string, GroupResult>> results;
    for (const Group& g : groups) {
        if (!only.empty() && std::find(only.begin(), only.end(), g.name) == only.end())
            continue;
        try {
            const GroupResult r =
                runGroup(context, host, g.metrics, k, capacity, g.flush ? &flush : nullptr);
            printRow(g.name.c_str(), g.metrics.size(), r, n);
            results.emplace_back(g.name, r);
            char line[160];
            std::snprintf(line, sizeof line, "\n  %-13s %6.1f ms (CPU %6.1f ms; creation %5.1f ms)",
                          g.name.c_str(), r.firstStart, r.firstStartCpu, r.create);
            firstStarts += line;
        } catch (const std::exception& e) {
            std::printf("%-13s failed: %s\n", g.name.c_str(), e.what());
        }
    }
    std::printf("first Start of each group's profiler object:%s\n", firstStarts.c_str());
    printParts(results, n, median(plain) / n);
    // What image capacity changes: the memory group, the same n ranges, 4x the capacity.
    if (only.empty()) {
        const GroupResult r =
            runGroup(context, host, sets(roofline::MetricSet::Memory), k, capacity * 4, nullptr);
        printRow("memory@4xcap", sets(roofline::MetricSet::Memory).size(), r, n);
        std::printf(
            "(memory@4xcap: image of %zu ranges, created in %.1f ms, first start %.1f ms)\n",
            capacity * 4, r.create, r.firstStart);
    }
    if (only.empty() || std::find(only.begin(), only.end(), "first") != only.end())
        printFirstStarts(context, host, capacity);
    if (!partsFile.empty())
        writeParts(partsFile, context, host,
                   core::initialMetrics(profile, roofline::MetricSet::Full, true), results, n,
                   init, capacity, chip);
    cupti::deinitializeProfiler();
    cupti::releasePrimaryContext(0);
    return 0;
}

int main(int argc, char** argv) {
    return bench_helpers::guardedMain("roofline-bench-pass-cost", run, argc, argv);
}
