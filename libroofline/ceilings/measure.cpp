#include "ceilings/measure.hpp"

#include "ceilings/kernels.hpp"
#include "core/utc.hpp"

#include <roofline/error.hpp>
#include <roofline/version.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace roofline::ceilings {
namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw Error(ErrorCode::Cuda,
                    std::string(what) + " failed: " + cudaGetErrorString(status) +
                        " (roofline ceilings needs the GPU to itself; see docs/troubleshooting.md)",
                    static_cast<int>(status));
}

class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
        check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
        check(cudaMemset(ptr_, 0x3C, bytes), "cudaMemset");
    }
    ~DeviceBuffer() { cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    void* get() const { return ptr_; }
    std::size_t bytes() const { return bytes_; }

private:
    void* ptr_ = nullptr;
    std::size_t bytes_;
};

class EventPair {
public:
    EventPair() {
        check(cudaEventCreate(&start_), "cudaEventCreate");
        check(cudaEventCreate(&stop_), "cudaEventCreate");
    }
    ~EventPair() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    EventPair(const EventPair&) = delete;
    EventPair& operator=(const EventPair&) = delete;
    /// Seconds of one launch; negative when the launch was refused (error cleared).
    template <class F> double time(F&& launch) {
        check(cudaEventRecord(start_), "cudaEventRecord");
        const int status = launch();
        check(cudaEventRecord(stop_), "cudaEventRecord");
        const cudaError_t sync = cudaEventSynchronize(stop_);
        if (status != cudaSuccess) {
            cudaGetLastError();
            return -1.0;
        }
        check(sync, "a microbenchmark kernel");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
        return ms * 1e-3;
    }

private:
    cudaEvent_t start_{}, stop_{};
};

/// One timed configuration: work per second (0: refused) and the SM clock it ran at (0: not
/// probed).
struct Trial {
    double perSecond = 0;
    double smClockHz = 0;
};

/// One roof: the best rate over the configurations tried.
struct Best {
    core::RoofMeasurement m;
    void offer(const Trial& t, const std::string& kernel, const std::string& shape) {
        ++m.trials;
        if (t.perSecond > m.perSecond) {
            m.perSecond = t.perSecond;
            m.kernel = kernel;
            m.shape = shape;
            m.smClockHz = t.smClockHz;
        }
    }
};

class Sweep {
public:
    explicit Sweep(const SweepOptions& options) : options_(options), probe_(sizeof(ClockProbe)) {}

    /// Times `launch(iters)` with iters scaled so one launch lasts about secondsPerTrial (iters 0:
    /// a fixed-size launch, not scaled), keeps the best of three; with `probed`, reads the SM clock
    /// of the best run from the kernel's ClockProbe.
    template <class Launch, class Work>
    Trial rate(Launch&& launch, Work&& work, int iters, bool probed) {
        Trial trial;
        double t = events_.time([&] { return launch(iters); });
        if (t <= 0)
            return trial;
        // grow the trial until it lasts long enough to time well
        for (int grow = 0; iters > 0 && grow < 8 && t < options_.secondsPerTrial * 0.5; ++grow) {
            const double factor = std::clamp(options_.secondsPerTrial / t, 2.0, 64.0);
            const double next = std::min(iters * factor, 1.0e9);
            if (next <= iters)
                break;
            iters = static_cast<int>(next);
            t = events_.time([&] { return launch(iters); });
            if (t <= 0)
                return trial;
        }
        double best = t;
        for (int rep = 0; rep < 3; ++rep) {
            const double s = events_.time([&] { return launch(iters); });
            if (s > 0 && s < best) {
                best = s;
                if (probed)
                    trial.smClockHz = readClock();
            }
        }
        if (probed && trial.smClockHz == 0)
            trial.smClockHz = readClock();
        trial.perSecond = work(iters) / best;
        return trial;
    }

    ClockProbe* probe() { return static_cast<ClockProbe*>(probe_.get()); }

    void report(const core::RoofMeasurement& m) const {
        if (!options_.progress)
            return;
        char line[512];
        if (m.perSecond > 0)
            std::snprintf(line, sizeof line, "%-12s %9.1f %-7s  %s, %s (%d shapes)", m.roof.c_str(),
                          m.perSecond / 1e12, core::roofUnit(m.roof), m.kernel.c_str(),
                          m.shape.c_str(), m.trials);
        else
            std::snprintf(line, sizeof line, "%-12s not measured: %s", m.roof.c_str(),
                          m.note.c_str());
        options_.progress(line);
    }

private:
    double readClock() {
        ClockProbe p{};
        if (cudaMemcpy(&p, probe_.get(), sizeof p, cudaMemcpyDeviceToHost) != cudaSuccess)
            return 0;
        const double ns = double(p.ns1 - p.ns0);
        return ns > 0 ? double(p.cycles1 - p.cycles0) / (ns * 1e-9) : 0;
    }

    const SweepOptions& options_;
    EventPair events_;
    DeviceBuffer probe_;
};

std::string shapeText(Shape s, const char* perThread = nullptr, int value = 0) {
    char buf[128];
    if (perThread)
        std::snprintf(buf, sizeof buf, "%d blocks x %d threads, %d %s", s.blocks, s.threads, value,
                      perThread);
    else
        std::snprintf(buf, sizeof buf, "%d blocks x %d threads", s.blocks, s.threads);
    return buf;
}

/// Launch shapes: threads per block x blocks per SM, at most `maxThreadsPerSm` per SM.
std::vector<Shape> shapes(int sms, const std::vector<int>& threads,
                          const std::vector<int>& blocksPerSm, int maxThreadsPerSm) {
    std::vector<Shape> out;
    for (int t : threads)
        for (int b : blocksPerSm)
            if (t * b <= maxThreadsPerSm)
                out.push_back({sms * b, t});
    return out;
}

} // namespace

namespace {

// The device measure() runs on (its properties), after checking there is one.
cudaDeviceProp selectDevice(int device) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        throw Error(ErrorCode::NoDevice,
                    "roofline ceilings measures the GPU it runs on, and there is none here (no "
                    "CUDA device or driver); run it on the machine with the GPU, or use `roofline "
                    "ceilings --show` to print the cached and bundled ceilings");
    }
    if (device < 0 || device >= count)
        throw Error(ErrorCode::NoDevice, "no CUDA device " + std::to_string(device) +
                                             " (this machine has " + std::to_string(count) + ")");
    check(cudaSetDevice(device), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    return prop;
}

// What the ceilings are measured on: the device, its clocks and the driver.
core::MeasuredCeilings describeDevice(const cudaDeviceProp& prop, int device, bool quick) {
    int clockKHz = 0, memoryKHz = 0, driver = 0;
    cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, device);
    cudaDeviceGetAttribute(&memoryKHz, cudaDevAttrMemoryClockRate, device);
    cudaDriverGetVersion(&driver);
    core::MeasuredCeilings out;
    out.deviceName = prop.name;
    out.computeMajor = prop.major;
    out.computeMinor = prop.minor;
    out.smCount = prop.multiProcessorCount;
    out.maxSmClockHz = clockKHz * 1e3;
    out.memoryClockHz = memoryKHz * 1e3;
    out.driverVersion = driver;
    out.createdUtc = core::utcNow();
    out.libraryVersion = ROOFLINE_VERSION_STRING;
    out.quick = quick;
    return out;
}

// One sweep of the device's roofs, family by family; each roof's best run goes into `out`.
class Roofs {
public:
    Roofs(const SweepOptions& options, const cudaDeviceProp& prop, core::MeasuredCeilings& out)
        : prop_(prop), out_(out), sweep_(options), quick_(options.quick),
          sms_(prop.multiProcessorCount), maxPerSm_(prop.maxThreadsPerMultiProcessor),
          streamShapes_(quick_ ? shapes(sms_, {1024}, {2}, maxPerSm_)
                               : shapes(sms_, {256, 512, 1024}, {1, 2, 4}, maxPerSm_)),
          unrolls_(quick_ ? std::vector<int>{4} : std::vector<int>{1, 2, 4, 8}) {}

    void cudaCores();
    void tensorCores();
    void fp64TensorCores();
    void l1AndShared();
    void l2();
    void dram();

private:
    void finish(Best& b, const std::string& roof) {
        b.m.roof = roof;
        if (b.m.perSecond <= 0 && b.m.note.empty())
            b.m.note = "every configuration was refused by the device";
        sweep_.report(b.m);
        out_.roofs.push_back(b.m);
    }

    const cudaDeviceProp& prop_;
    core::MeasuredCeilings& out_;
    Sweep sweep_;
    const bool quick_;
    const int sms_, maxPerSm_;
    // The L2 and DRAM streams' launch shapes and unrolls.
    const std::vector<Shape> streamShapes_;
    const std::vector<int> unrolls_;
};

// CUDA-core FMA: FP64, FP32, FP16 (packed half2), and the warp-issue roof from FP32's best.
void Roofs::cudaCores() {
    const auto fmaShapes = quick_
                               ? shapes(sms_, {256}, {4, 8}, maxPerSm_)
                               : shapes(sms_, {128, 256, 512, 1024}, {1, 2, 4, 8, 16}, maxPerSm_);
    const std::vector<int> fmaChains = quick_ ? std::vector<int>{8} : std::vector<int>{4, 8, 16};
    for (auto [kind, roof] : {std::pair{Fma::FP64, FlopKind::FP64},
                              {Fma::FP32, FlopKind::FP32},
                              {Fma::FP16x2, FlopKind::FP16}}) {
        Best best;
        for (const Shape& s : fmaShapes)
            for (int chains : fmaChains) {
                const Fma k = kind;
                const Trial r = sweep_.rate(
                    [&](int iters) { return launchFma(k, chains, s, iters, sweep_.probe()); },
                    [&](int iters) { return fmaWork(k, chains, s, iters); }, 64, true);
                best.offer(r, toString(kind), shapeText(s, "chains", chains));
            }
        finish(best, std::string(toString(roof)));
        if (kind == Fma::FP32) {
            // The instruction roofline's ceiling: independent FFMAs issue one warp instruction
            // per scheduler per cycle, so the best FP32 run is issue-bound. Its warp
            // instructions are the FFMAs over 32 threads (2 FLOPs each); the loop's few others
            // (one per kFmaUnroll x chains FFMAs) are left out, so the rate is a lower bound.
            Best issue = best;
            issue.m.perSecond = best.m.perSecond / 64.0;
            issue.m.kernel = std::string(toString(kind)) + " (warp instructions: FFMAs / 32)";
            finish(issue, std::string(core::kWarpIssueRoof));
        }
    }
}

// Tensor cores: wgmma needs Hopper (sm_90a).
void Roofs::tensorCores() {
    const bool hopper = prop_.major == 9 && prop_.minor == 0;
    const bool wgmma = hopper && mmaBuilt(Mma::BF16);
    const auto wgmmaShapes =
        quick_ ? std::vector<Shape>{{sms_ * 2, 128}}
               : std::vector<Shape>{{sms_, 128}, {sms_ * 2, 128}, {sms_ * 3, 128}, {sms_, 256}};
    for (auto [kind, roof] : {std::pair{Mma::FP16, FlopKind::TensorFP16},
                              {Mma::BF16, FlopKind::TensorBF16},
                              {Mma::TF32, FlopKind::TensorTF32},
                              {Mma::FP8, FlopKind::TensorFP8},
                              {Mma::INT8, FlopKind::TensorINT8}}) {
        Best best;
        if (!wgmma) {
            best.m.note = hopper ? "this build lacks the sm_90a wgmma kernels"
                                 : "tensor-core microbenchmarks exist for Hopper (sm_90) only; "
                                   "datasheet roof used";
        } else {
            for (const Shape& s : wgmmaShapes) {
                const Mma k = kind;
                const Trial r = sweep_.rate(
                    [&](int iters) { return launchMma(k, 1, s, iters, sweep_.probe()); },
                    [&](int iters) { return mmaWork(k, 1, s, iters); }, 16, true);
                best.offer(r, toString(kind), shapeText(s));
            }
        }
        finish(best, std::string(toString(roof)));
    }
}

// FP64 tensor cores: DMMA exists from sm_80.
void Roofs::fp64TensorCores() {
    Best best;
    if (prop_.major < 8) {
        best.m.note = "FP64 tensor cores need compute capability 8.0 or newer";
    } else {
        const auto dmmaShapes = quick_ ? shapes(sms_, {256}, {2}, maxPerSm_)
                                       : shapes(sms_, {128, 256, 512}, {1, 2, 4}, maxPerSm_);
        const std::vector<int> chains = quick_ ? std::vector<int>{4} : std::vector<int>{2, 4, 8};
        std::vector<Mma> kinds{Mma::FP64_m8n8k4};
        if (prop_.major >= 9)
            kinds.push_back(Mma::FP64_m16n8k16);
        for (Mma kind : kinds)
            for (const Shape& s : dmmaShapes)
                for (int c : chains) {
                    const Trial r = sweep_.rate(
                        [&](int iters) { return launchMma(kind, c, s, iters, sweep_.probe()); },
                        [&](int iters) { return mmaWork(kind, c, s, iters); }, 16, true);
                    best.offer(r, toString(kind), shapeText(s, "chains", c));
                }
    }
    finish(best, std::string(toString(FlopKind::TensorFP64)));
}

// L1 (global loads that hit in L1) and shared memory: a small window per block, read again and
// again.
void Roofs::l1AndShared() {
    const auto localShapes = quick_ ? shapes(sms_, {512}, {2}, maxPerSm_)
                                    : shapes(sms_, {256, 512, 1024}, {1, 2, 4}, maxPerSm_);
    const std::vector<std::uint32_t> windows =
        quick_ ? std::vector<std::uint32_t>{16384} : std::vector<std::uint32_t>{8192, 16384, 32768};
    DeviceBuffer window(64 * 1024);
    for (auto [kind, roof] : {std::pair{Local::L1, "L1"}, {Local::Shared, "shared"}}) {
        Best best;
        for (const Shape& s : localShapes)
            for (std::uint32_t w : windows) {
                const Local k = kind;
                const Trial r =
                    sweep_.rate([&](int reps) { return launchLocal(k, s, window.get(), w, reps); },
                                [&](int reps) { return localWork(k, s, reps); }, 64, false);
                char text[160];
                std::snprintf(text, sizeof text, "%s, %u KiB window", shapeText(s).c_str(),
                              w / 1024);
                best.offer(r, toString(kind), text);
            }
        finish(best, roof);
    }
}

// L2: working sets of an eighth and a quarter of L2, read with ld.global.cg (L1 bypassed).
void Roofs::l2() {
    const std::size_t l2 = static_cast<std::size_t>(prop_.l2CacheSize);
    Best best;
    std::vector<std::size_t> sets;
    for (std::size_t f : quick_ ? std::vector<std::size_t>{4} : std::vector<std::size_t>{8, 4})
        sets.push_back(std::max<std::size_t>(l2 / f, 1 << 20) & ~std::size_t(15));
    DeviceBuffer buffer(*std::max_element(sets.begin(), sets.end()));
    for (std::size_t bytes : sets)
        for (const Shape& s : streamShapes_)
            for (int u : unrolls_) {
                const std::uint64_t n = bytes / 16;
                const Trial r = sweep_.rate(
                    [&](int reps) {
                        return launchStream(Stream::ReadL2, u, s, buffer.get(), nullptr, n, reps);
                    },
                    [&](int reps) { return streamWork(Stream::ReadL2, n, reps); }, 4, false);
                char text[160];
                std::snprintf(text, sizeof text, "%s, unroll %d, %.1f MiB working set",
                              shapeText(s).c_str(), u, double(bytes) / 1048576.0);
                best.offer(r, toString(Stream::ReadL2), text);
            }
    finish(best, "L2");
}

// DRAM: read and copy through buffers far larger than L2.
void Roofs::dram() {
    const std::size_t l2 = static_cast<std::size_t>(prop_.l2CacheSize);
    std::size_t freeBytes = 0, totalBytes = 0;
    check(cudaMemGetInfo(&freeBytes, &totalBytes), "cudaMemGetInfo");
    std::size_t bytes = quick_ ? std::size_t(512) << 20 : std::size_t(2) << 30;
    bytes = std::min(bytes, freeBytes / 4) & ~std::size_t(15);
    Best best;
    if (bytes < 8 * l2) {
        best.m.note = "not enough free device memory for buffers 8x larger than L2";
    } else {
        DeviceBuffer a(bytes), b(bytes);
        const std::uint64_t n = bytes / 16;
        for (Stream kind : {Stream::Read, Stream::Copy})
            for (const Shape& s : streamShapes_)
                for (int u : unrolls_) {
                    // one pass over the buffer per launch: a second pass could hit in L2
                    const Trial r = sweep_.rate(
                        [&](int) { return launchStream(kind, u, s, a.get(), b.get(), n, 1); },
                        [&](int) { return streamWork(kind, n, 1); }, 0, false);
                    char text[160];
                    std::snprintf(text, sizeof text, "%s, unroll %d, %.0f MiB",
                                  shapeText(s).c_str(), u, double(bytes) / 1048576.0);
                    best.offer(r, toString(kind), text);
                }
    }
    finish(best, "DRAM");
}

} // namespace

core::MeasuredCeilings measure(const SweepOptions& options) {
    const cudaDeviceProp prop = selectDevice(options.device);
    const auto started = std::chrono::steady_clock::now();
    core::MeasuredCeilings out = describeDevice(prop, options.device, options.quick);
    Roofs roofs(options, prop, out);
    roofs.cudaCores();
    roofs.tensorCores();
    roofs.fp64TensorCores();
    roofs.l1AndShared();
    roofs.l2();
    roofs.dram();
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return out;
}

} // namespace roofline::ceilings
