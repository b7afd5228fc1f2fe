#include "core/atomic_file.hpp"
#include "report/instruction_fields.hpp"

#include <roofline/report.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <ostream>

namespace roofline {
namespace {

double finite(double v) {
    return std::isfinite(v) ? v : 0.0;
}

nlohmann::json boundJson(const Bound& b) {
    nlohmann::json j = {{"fraction_of_peak", finite(b.fractionOfPeak)}};
    switch (b.kind) {
    case Bound::Kind::Unknown:
        j["kind"] = "unknown";
        break;
    case Bound::Kind::Compute:
        j["kind"] = "compute", j["roof"] = toString(b.flop);
        break;
    case Bound::Kind::Memory:
        j["kind"] = "memory", j["roof"] = toString(b.level);
        break;
    }
    if (b.limiter != Limiter::None)
        j["limiter"] = toString(b.limiter);
    return j;
}

nlohmann::json recordsJson(const std::vector<KernelRecord>& records) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : records) {
        nlohmann::json flops, bytes, intensity, byteRate, metrics;
        for (std::size_t k = 0; k < kFlopKindCount; ++k)
            flops[std::string(toString(static_cast<FlopKind>(k)))] = finite(r.flops[k]);
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l) {
            const auto level = static_cast<MemoryLevel>(l);
            const std::string key(toString(level));
            bytes[key] = finite(r.bytes[l]);
            intensity[key] = finite(r.intensity(level));
            byteRate[key] = finite(r.byteRate(level));
        }
        for (const auto& [name, value] : r.metrics)
            metrics[name] = finite(value);
        all.push_back({{"launch_index", r.launchIndex},
                       {"name", r.name},
                       {"mangled_name", r.mangledName},
                       {"scope", r.scopePath},
                       {"scope_raw", r.scopePathRaw},
                       {"iteration", r.iteration},
                       {"position", r.position},
                       {"reused_samples", r.reusedSamples},
                       {"replay", toString(r.replay)},
                       {"grid", {r.grid.x, r.grid.y, r.grid.z}},
                       {"block", {r.block.x, r.block.y, r.block.z}},
                       {"registers", r.registersPerThread},
                       {"shared_mem_bytes", r.sharedMemBytes},
                       {"resident_blocks", r.residentBlocksPerSm},
                       {"waves", finite(r.waves)},
                       {"stream", r.stream},
                       {"thread_id", r.threadId},
                       {"device", r.device},
                       {"rank", r.rank},
                       {"counters_rank", r.countersRank},
                       {"lacks", r.lacks},
                       {"op", r.op},
                       {"phase", r.phase},
                       {"module", r.module},
                       {"shapes", r.shapes},
                       {"kernel_id", r.kernelId},
                       {"scope_record", r.scopeRecord},
                       {"kernels", r.kernels},
                       {"measured", r.measured},
                       {"note", r.note},
                       {"time_s", finite(r.timeSeconds)},
                       {"gpu_duration_s", finite(r.gpuDurationSeconds)},
                       {"sm_clock_hz", finite(r.smClockHz)},
                       {"flops", flops},
                       {"total_flops", finite(r.totalFlops())},
                       {"tensor_flops", finite(r.tensorFlops())},
                       {"tensor_share", finite(r.tensorShare())},
                       {"no_fp_work", r.noFloatingPointWork()},
                       {"bytes", bytes},
                       {"intensity", intensity},
                       {"flop_rate", finite(r.flopRate())},
                       {"byte_rate", byteRate},
                       {"bound", boundJson(r.bound)},
                       {"instructions", report::instructionJson(r)},
                       {"metrics", metrics.is_null() ? nlohmann::json::object() : metrics}});
    }
    return all;
}

} // namespace

void writeJson(const std::vector<KernelRecord>& records, std::ostream& out) {
    out << nlohmann::json{{"schema_version", kJsonSchemaVersion}, {"records", recordsJson(records)}}
               .dump(2)
        << '\n';
}

void writeJson(const std::vector<KernelRecord>& records, std::ostream& out,
               const ReportContext& c) {
    nlohmann::json flops, bytes;
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        flops[std::string(toString(static_cast<FlopKind>(k)))] =
            finite(c.ceilings.flopsPerSecond[k]);
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        bytes[std::string(toString(static_cast<MemoryLevel>(l)))] =
            finite(c.ceilings.bytesPerSecond[l]);
    const nlohmann::json context = {{"recording", c.recording},
                                    {"device", c.device},
                                    {"chip", c.chip},
                                    {"mode", c.mode},
                                    {"passes", c.passes},
                                    {"byte_definition", c.bytes},
                                    {"metrics", c.metrics},
                                    {"process", c.process},
                                    {"ceilings",
                                     {{"name", c.ceilings.name},
                                      {"source", c.ceilings.source},
                                      {"flops_per_second", flops},
                                      {"bytes_per_second", bytes}}}};
    nlohmann::json document = {{"schema_version", kJsonSchemaVersion},
                               {"context", context},
                               {"records", recordsJson(records)}};
    if (!c.hostScopes.empty()) {
        auto optionalSeconds = [](double v) {
            return v < 0 ? nlohmann::json() : nlohmann::json(finite(v));
        };
        nlohmann::json scopes = nlohmann::json::array();
        for (const HostScope& s : c.hostScopes) {
            // null: kernels launched, none with a record
            const auto gpuKnown = [&s](double v) {
                return s.gpuKnown() ? nlohmann::json(finite(v)) : nlohmann::json();
            };
            scopes.push_back(nlohmann::json{{"scope", s.scopePath},
                                            {"thread_id", s.threadId},
                                            {"calls", s.calls},
                                            {"wall_s", finite(s.wallSeconds)},
                                            {"self_wall_s", finite(s.selfWallSeconds)},
                                            {"cpu_s", optionalSeconds(s.cpuSeconds)},
                                            {"self_cpu_s", optionalSeconds(s.selfCpuSeconds)},
                                            {"gpu_s", finite(s.gpuSeconds)},
                                            {"launches", s.launches},
                                            {"kernels", s.kernels},
                                            {"gpu_per_call_s", gpuKnown(s.gpuPerCall())},
                                            {"gpu_idle_share", gpuKnown(s.gpuIdleShare())},
                                            {"bound", hostBound(s)},
                                            {"profiled_calls", s.profiledCalls},
                                            {"profiled_times", s.profiledTimes},
                                            {"profiler_s", finite(s.profilerSeconds)}});
        }
        document["host"] = {{"session_s", finite(c.sessionSeconds)},
                            {"run_s", finite(c.hostRunSeconds)},
                            {"profiler_s", finite(c.profilerSeconds)},
                            {"scopes", scopes}};
    }
    out << document.dump(2) << '\n';
}

void writeJson(const std::vector<KernelRecord>& records, const std::string& path) {
    core::writeFileAtomically(path, [&](std::ostream& out) { writeJson(records, out); });
}

} // namespace roofline
