#include "core/roofline_model.hpp"

#include "core/instruction_model.hpp"

#include <algorithm>
#include <unordered_map>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>

namespace roofline::core {
namespace {

constexpr double T = 1e12;

struct Datasheet {
    const char* name;
    const char* mustContain;    // substring of the device name
    const char* mustNotContain; // nullptr: none
    int smCount;
    double boostHz;
    // fp64, fp32, fp16, tensor fp64, tf32, fp16, bf16, fp8, int8 (dense, per second)
    std::array<double, kFlopKindCount> flops;
    double dramBytesPerSecond;
};

// Public datasheet figures (dense). L1 is estimated as 128 B/clk/SM; L2 has no datasheet figure.
const Datasheet kDatasheets[] = {
    {"NVIDIA H100 PCIe",
     "H100 PCIe",
     nullptr,
     114,
     1.755e9,
     {25.6 * T, 51.2 * T, 102.4 * T, 51.2 * T, 378 * T, 756 * T, 756 * T, 1513 * T, 1513 * T},
     2.0e12},
    {"NVIDIA H100 SXM5",
     "H100",
     "PCIe",
     132,
     1.98e9,
     {33.5 * T, 66.9 * T, 133.8 * T, 66.9 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T,
      1978.9 * T},
     3.35e12},
    {"NVIDIA H200 SXM",
     "H200",
     nullptr,
     132,
     1.98e9,
     {33.5 * T, 66.9 * T, 133.8 * T, 66.9 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T,
      1978.9 * T},
     4.8e12},
    {"NVIDIA A100 SXM4 80GB",
     "A100",
     "40GB",
     108,
     1.41e9,
     {9.7 * T, 19.5 * T, 78 * T, 19.5 * T, 156 * T, 312 * T, 312 * T, 0, 624 * T},
     2.039e12},
    {"NVIDIA A100 40GB",
     "A100",
     nullptr,
     108,
     1.41e9,
     {9.7 * T, 19.5 * T, 78 * T, 19.5 * T, 156 * T, 312 * T, 312 * T, 0, 624 * T},
     1.555e12},
    {"NVIDIA V100 SXM2",
     "V100",
     nullptr,
     80,
     1.53e9,
     {7.8 * T, 15.7 * T, 31.4 * T, 0, 0, 125 * T, 0, 0, 0},
     0.9e12},
};

constexpr double kL1BytesPerClockPerSm = 128.0;

} // namespace

std::vector<RoofRef> allRoofs() {
    std::vector<RoofRef> out;
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        out.push_back({true, k});
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        out.push_back({false, l});
    return out;
}

std::string roofName(RoofRef r) {
    return std::string(r.flop ? toString(static_cast<FlopKind>(r.index))
                              : toString(static_cast<MemoryLevel>(r.index)));
}

double rateOf(const Ceilings& c, RoofRef r) {
    return r.flop ? c.flopsPerSecond[r.index] : c.bytesPerSecond[r.index];
}

RoofSource sourceOf(const Ceilings& c, RoofRef r) {
    return r.flop ? c.flopSource[r.index] : c.byteSource[r.index];
}

void setRoof(Ceilings& c, RoofRef r, double perSecond, RoofSource source) {
    (r.flop ? c.flopsPerSecond[r.index] : c.bytesPerSecond[r.index]) = perSecond;
    (r.flop ? c.flopSource[r.index] : c.byteSource[r.index]) = source;
}

double warpIssuePerSecond(int multiprocessors, double smClockHz) {
    return multiprocessors > 0 && smClockHz > 0 ? 4.0 * multiprocessors * smClockHz : 0.0;
}

Ceilings datasheetCeilings(const DeviceInfo& device) {
    Ceilings c;
    for (const auto& d : kDatasheets) {
        if (device.name.find(d.mustContain) == std::string::npos)
            continue;
        if (d.mustNotContain && device.name.find(d.mustNotContain) != std::string::npos)
            continue;
        const int sms = device.smCount > 0 ? device.smCount : d.smCount;
        const double clock = device.smClockHz > 0 ? device.smClockHz : d.boostHz;
        const double scale = (sms * clock) / (d.smCount * d.boostHz);
        for (std::size_t k = 0; k < kFlopKindCount; ++k)
            c.flopsPerSecond[k] = d.flops[k] * scale;
        c.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::L1)] =
            kL1BytesPerClockPerSm * sms * clock;
        c.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::DRAM)] = d.dramBytesPerSecond;
        for (RoofRef roof : allRoofs())
            if (rateOf(c, roof) > 0)
                setRoof(c, roof, rateOf(c, roof), RoofSource::Datasheet);
        c.warpInstructionsPerSecond = warpIssuePerSecond(sms, clock);
        c.warpIssueSource = RoofSource::Datasheet;
        c.name = std::string(d.name) + " (datasheet)";
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "dense datasheet peaks scaled to %d SMs at %.0f MHz; L1 estimated as 128 "
                      "B/clk/SM; L2 unknown (no datasheet figure)",
                      sms, clock / 1e6);
        c.source = buf;
        return c;
    }
    c.name = device.name.empty() ? "unknown device" : device.name + " (no datasheet entry)";
    c.source = "no ceilings known for this device: bounds are reported as unknown";
    return c;
}

Bound classify(const KernelRecord& r, const Ceilings& c) {
    Bound best;
    if (!r.measured || r.timeSeconds <= 0.0)
        return best;
    for (std::size_t k = 0; k < kFlopKindCount; ++k) {
        if (r.flops[k] <= 0.0 || c.flopsPerSecond[k] <= 0.0)
            continue;
        const double f = r.flops[k] / r.timeSeconds / c.flopsPerSecond[k];
        if (f > best.fractionOfPeak)
            best = {Bound::Kind::Compute, static_cast<FlopKind>(k), MemoryLevel::L1, f};
    }
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l) {
        if (r.bytes[l] <= 0.0 || c.bytesPerSecond[l] <= 0.0)
            continue;
        const double f = r.bytes[l] / r.timeSeconds / c.bytesPerSecond[l];
        if (f > best.fractionOfPeak)
            best = {Bound::Kind::Memory, FlopKind::FP32, static_cast<MemoryLevel>(l), f};
    }
    return best;
}

static KernelRecord identity(const LaunchInfo& launch) {
    KernelRecord r;
    r.launchIndex = launch.launchIndex;
    r.name = launch.name;
    r.mangledName = launch.mangledName;
    r.scopePath = launch.scopePath;
    r.scopePathRaw = launch.scopePathRaw.empty() ? launch.scopePath : launch.scopePathRaw;
    r.iteration = launch.iteration;
    r.position = launch.position;
    r.op = launch.op;
    r.phase = launch.phase;
    r.module = launch.module;
    r.shapes = launch.shapes;
    r.reusedSamples = launch.reusedSamples;
    r.replay = launch.replay;
    r.grid = launch.grid;
    r.block = launch.block;
    r.registersPerThread = launch.registersPerThread;
    r.sharedMemBytes = launch.sharedMemBytes;
    r.stream = launch.stream;
    r.threadId = launch.threadId;
    r.device = launch.device;
    r.rank = launch.rank;
    r.countersRank = launch.countersRank;
    r.scopeRecord = launch.scopeRecord;
    r.kernels = launch.kernels;
    r.note = launch.note;
    return r;
}

namespace {
void appendNote(KernelRecord& r, const std::string& text) {
    if (text.empty())
        return;
    r.note += (r.note.empty() ? "" : "; ") + text;
}
} // namespace

KernelRecord buildRecord(const ChipProfile& profile, const LaunchInfo& launch,
                         const MetricValues& values, const Ceilings& ceilings) {
    KernelRecord r = identity(launch);
    const double cycles = evaluate({{{profile.cyclesMetric, 1.0}}}, values);
    const double rate = evaluate({{{profile.cycleRateMetric, 1.0}}}, values);
    r.smClockHz = rate;
    r.timeSeconds = rate > 0.0 ? cycles / rate : 0.0;
    r.gpuDurationSeconds = evaluate({{{profile.durationMetric, 1.0}}}, values) * 1e-9;
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        r.flops[k] = profile.flops[k].empty() ? 0.0 : evaluate(profile.flops[k], values);
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        r.bytes[l] = profile.bytes[l].empty() ? 0.0 : evaluate(profile.bytes[l], values);
    r.metrics = values;
    r.measured = true;
    if (r.timeSeconds <= 0.0)
        appendNote(r, "zero elapsed cycles: rates and bound not computed");
    r.bound = classify(r, ceilings);
    r.instructions = instructionCounts(profile, values);
    r.instructionVerdicts = instructionVerdicts(r.instructions, r.timeSeconds, ceilings,
                                                launch.replay == ReplayStatus::Differs);
    return r;
}

KernelRecord unmeasuredRecord(const LaunchInfo& launch, std::string reason) {
    KernelRecord r = identity(launch);
    r.note.clear();
    appendNote(r, reason);
    appendNote(r, launch.note);
    if (launch.timingSeconds > 0.0) {
        r.timeSeconds = launch.timingSeconds;
        r.gpuDurationSeconds = launch.timingSeconds;
    }
    return r;
}

KernelRecord recordFromLaunch(const ChipProfile& profile, const LaunchInfo& launch,
                              const std::vector<std::string>& metrics, const Ceilings& ceilings) {
    if (launch.values.empty() || launch.values.size() != metrics.size())
        return unmeasuredRecord(launch, launch.note.empty() ? "no counter values" : "");
    MetricValues values; // what the metric set collected and measured
    for (std::size_t i = 0; i < metrics.size(); ++i)
        if (!std::isnan(launch.values[i])) // NaN: collected, but no pass measured it
            values[metrics[i]] = launch.values[i];
    // The formulas need every term: those without a value count as 0, and the record says which
    // quantities they feed -- not collected by the set, or collected and not measured (lacks).
    MetricValues padded = values;
    std::vector<std::string> missing, lacking;
    const auto collected = [&](const std::string& m) {
        return std::find(metrics.begin(), metrics.end(), m) != metrics.end();
    };
    auto pad = [&](const Formula& f, const std::string& what) {
        bool absent = false, unmeasured = false;
        for (const auto& t : f.terms)
            if (padded.emplace(t.metric, 0.0).second) {
                absent = true;
                unmeasured = unmeasured || collected(t.metric);
            }
        std::vector<std::string>& list = unmeasured ? lacking : missing;
        if (absent && std::find(list.begin(), list.end(), what) == list.end())
            list.push_back(what);
    };
    pad({{{profile.cyclesMetric, 1.0}}}, "time");
    pad({{{profile.cycleRateMetric, 1.0}}}, "time");
    pad({{{profile.durationMetric, 1.0}}}, "duration");
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        pad(profile.flops[k], isTensor(static_cast<FlopKind>(k)) ? "tensor FLOPs" : "FLOPs");
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        pad(profile.bytes[l], "bytes");
    KernelRecord r = buildRecord(profile, launch, padded, ceilings);
    // The instruction group is all or nothing: collected and partly unmeasured, it lacks. (Only
    // a record without counts needs the search, and only where the set holds the group.)
    if (!r.instructions.measured && !profile.instructions.empty() &&
        collected(profile.instructions.warpInstructions))
        for (const std::string& m : instructionMetrics(profile))
            if (!values.count(m) && collected(m)) {
                lacking.push_back("instructions");
                break;
            }
    r.metrics = std::move(values);
    const auto join = [](const std::vector<std::string>& list) {
        std::string text;
        for (const auto& w : list)
            text += (text.empty() ? "" : ", ") + w;
        return text;
    };
    if (!missing.empty())
        appendNote(r, "not collected by this metric set: " + join(missing));
    if (!lacking.empty()) {
        r.lacks = join(lacking);
        appendNote(r, "partial: no value for " + r.lacks + " (not measured)");
        if (r.lacks.find("time") != std::string::npos)
            r.bound = Bound{}; // no rate without a time
    }
    return r;
}

void addOccupancy(std::vector<KernelRecord>& records, const DeviceInfo& device) {
    for (KernelRecord& r : records) {
        if (r.registersPerThread >= 0) {
            const std::uint64_t threads = std::uint64_t{r.block.x} * r.block.y * r.block.z;
            r.residentBlocksPerSm = residentBlocksPerSm(device.occupancy, threads,
                                                        r.registersPerThread, r.sharedMemBytes);
            r.waves = waves(std::uint64_t{r.grid.x} * r.grid.y * r.grid.z, r.residentBlocksPerSm,
                            device.smCount);
        }
        r.bound = belowEveryRoof(r.bound, shapeLimiter(r, device));
    }
}

void assignKernelIds(std::vector<KernelRecord>& records) {
    std::vector<std::size_t> order(records.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return records[a].launchIndex < records[b].launchIndex;
    });
    std::unordered_map<std::string, std::uint32_t> ids;
    for (const std::size_t i : order) {
        records[i].kernelId =
            ids.emplace(records[i].name, static_cast<std::uint32_t>(ids.size())).first->second;
    }
}

Limiter shapeLimiter(const KernelRecord& r, const DeviceInfo& device) {
    if (r.scopeRecord) // many kernels: no one launch shape
        return Limiter::Latency;
    const double blocks = double(r.grid.x) * r.grid.y * r.grid.z;
    const double threads = double(r.block.x) * r.block.y * r.block.z;
    if (device.smCount > 0 && blocks < device.smCount)
        return Limiter::FewBlocks;
    if (r.residentBlocksPerSm > 0 && device.smCount > 0) {
        if (blocks < 0.5 * r.residentBlocksPerSm * device.smCount)
            return Limiter::FewBlocks;
        const double maxWarps = device.occupancy.maxThreadsPerSm / 32.0;
        const double warps = r.residentBlocksPerSm * std::ceil(threads / 32.0);
        if (maxWarps > 0 && warps < 0.25 * maxWarps)
            return Limiter::Occupancy;
    }
    if (r.registersPerThread < 0 || !device.occupancy.known())
        return Limiter::ShapeUnknown; // "latency" would be a guess
    return Limiter::Latency;
}

Bound belowEveryRoof(Bound bound, Limiter shape) {
    const bool below = bound.kind != Bound::Kind::Unknown && bound.fractionOfPeak < kBelowEveryRoof;
    bound.limiter = below ? (shape == Limiter::None ? Limiter::Latency : shape) : Limiter::None;
    return bound;
}

} // namespace roofline::core
