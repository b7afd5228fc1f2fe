// The recording's schema (docs/recording-format.md): what its sections hold -- the metadata as
// JSON, the config image, the measured values, kept counter-data images -- written and read
// back field by field. The file container is core/recording_file.cpp, the text for people
// report/recording_text.cpp.
#include "core/recording.hpp"
#include "core/recording_file.hpp"

#include "core/device_json.hpp"
#include "core/json_number.hpp"

#include "core/atomic_file.hpp"

#include <roofline/error.hpp>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>

namespace roofline::core {
namespace {

// Corrupt-recording errors naming the source.
struct Corrupt {
    const std::string& what;
    [[noreturn]] void corrupt(const std::string& detail) const { corruptRecording(what, detail); }
};

// A recording has META, CONF and (v2) VALS, then its counter-data images.
std::uint32_t minSections(std::uint32_t version) {
    return version >= 2 ? 3u : 2u;
}

nlohmann::json toJson(const Coverage& c) {
    if (!c.known)
        return nullptr;
    return {{"launches_per_iteration", c.launchesPerIteration},
            {"launches_varied", c.launchesVaried},
            {"ranges_per_image", c.launchesPerImage},
            {"passes", c.passes},
            {"iterations_per_pass", c.iterationsPerPass},
            {"iterations_needed", c.iterationsNeeded},
            {"windows", c.windows},
            {"window_across_end", c.windowAcrossEnd},
            {"iterations_run", c.iterationsRun},
            {"launches_covered", c.launchesCovered},
            {"first_iteration_skipped", c.firstIterationSkipped},
            {"signatures", c.signatures},
            {"ranges_measured", c.rangesMeasured},
            {"complete", c.complete()}};
}

nlohmann::json toJson(const ProcessIdentity& p) {
    if (p.pid == 0)
        return nullptr;
    return {{"host", p.host},
            {"pid", p.pid},
            {"rank", p.rank},
            {"local_rank", p.localRank},
            {"world_size", p.worldSize},
            {"rank_variable", p.rankVariable}};
}

ProcessIdentity processFromJson(const nlohmann::json& j) {
    ProcessIdentity p;
    if (!j.is_object())
        return p;
    p.host = j.at("host").get<std::string>();
    p.pid = integerAt<long>(j, "pid");
    p.rank = integerAt<int>(j, "rank");
    p.localRank = integerAt<int>(j, "local_rank");
    p.worldSize = integerAt<int>(j, "world_size");
    p.rankVariable = j.at("rank_variable").get<std::string>();
    return p;
}



nlohmann::json hostToJson(const Recording& rec) {
    if (rec.sessionSeconds <= 0 && rec.hostScopes.empty())
        return nullptr;
    nlohmann::json scopes = nlohmann::json::array();
    for (const HostScope& s : rec.hostScopes)
        scopes.push_back({{"scope", capped(s.scopePath)},
                          {"thread", s.threadId},
                          {"calls", s.calls},
                          {"wall_s", s.wallSeconds},
                          {"self_wall_s", s.selfWallSeconds},
                          {"cpu_s", s.cpuSeconds},
                          {"self_cpu_s", s.selfCpuSeconds},
                          {"gpu_s", s.gpuSeconds},
                          {"launches", s.launches},
                          {"kernels", s.kernels},
                          {"profiled_calls", s.profiledCalls},
                          {"profiled_times", s.profiledTimes},
                          {"profiler_s", s.profilerSeconds},
                          {"first_wall_s", s.firstWallSeconds},
                          {"first_profiled", s.firstProfiled},
                          {"steady_calls", s.steadyCalls},
                          {"steady_wall_s", s.steadyWallSeconds},
                          {"steady_cpu_s", s.steadyCpuSeconds}});
    return {{"session_s", rec.sessionSeconds},
            {"run_s", rec.hostRunSeconds},
            {"profiler_s", rec.profilerSeconds},
            {"scopes", scopes}};
}

void hostFromJson(const nlohmann::json& j, Recording& rec) {
    if (!j.is_object())
        return;
    rec.sessionSeconds = j.at("session_s").get<double>();
    // absent before libroofline measured its own work and left profiled instances out
    rec.profilerSeconds = j.value("profiler_s", 0.0);
    rec.hostRunSeconds = j.value("run_s", rec.sessionSeconds);
    for (const auto& x : j.at("scopes")) {
        HostScope s;
        s.scopePath = textAt(x, "scope", true);
        s.threadId = integerAt<std::uint64_t>(x, "thread");
        s.calls = integerAt<std::uint64_t>(x, "calls");
        s.wallSeconds = x.at("wall_s").get<double>();
        s.selfWallSeconds = x.at("self_wall_s").get<double>();
        s.cpuSeconds = x.at("cpu_s").get<double>();
        s.selfCpuSeconds = x.at("self_cpu_s").get<double>();
        s.gpuSeconds = x.at("gpu_s").get<double>();
        s.launches = integerAt<std::uint64_t>(x, "launches");
        s.kernels = integerAt<std::uint64_t>(x, "kernels");
        s.profilerSeconds = x.value("profiler_s", 0.0);
        s.profiledCalls = integerOr<std::uint64_t>(x, "profiled_calls", 0);
        s.profiledTimes = x.value("profiled_times", false);
        // the steady state: absent before libroofline sampled instances
        s.firstWallSeconds = x.value("first_wall_s", -1.0);
        s.firstProfiled = x.value("first_profiled", false);
        s.steadyCalls = integerOr<std::uint64_t>(x, "steady_calls", 0);
        s.steadyWallSeconds = x.value("steady_wall_s", -1.0);
        s.steadyCpuSeconds = x.value("steady_cpu_s", -1.0);
        rec.hostScopes.push_back(std::move(s));
    }
}

Coverage coverageFromJson(const nlohmann::json& j) {
    Coverage c;
    if (!j.is_object())
        return c;
    c.known = true;
    c.launchesPerIteration = integerAt<std::uint64_t>(j, "launches_per_iteration");
    c.launchesVaried = j.at("launches_varied").get<bool>();
    c.launchesPerImage = integerAt<std::uint64_t>(j, "ranges_per_image");
    c.passes = integerAt<std::uint64_t>(j, "passes");
    c.iterationsPerPass = integerAt<std::uint64_t>(j, "iterations_per_pass");
    c.iterationsNeeded = integerAt<std::uint64_t>(j, "iterations_needed");
    if (j.contains("windows")) // absent before 0.1.x: not planned
        c.windows = integerAt<std::uint64_t>(j, "windows");
    c.windowAcrossEnd = j.value("window_across_end", false);
    c.iterationsRun = integerAt<std::uint64_t>(j, "iterations_run");
    c.launchesCovered = integerAt<std::uint64_t>(j, "launches_covered");
    c.firstIterationSkipped = j.value("first_iteration_skipped", false); // absent before 0.1.x
    if (j.contains("signatures")) // absent in older recordings: not known
        c.signatures = integerAt<std::uint64_t>(j, "signatures");
    if (j.contains("ranges_measured"))
        c.rangesMeasured = integerAt<std::uint64_t>(j, "ranges_measured");
    return c;
}

nlohmann::json toJson(const LaunchInfo& l) {
    return {{"index", l.launchIndex},
            {"name", capped(l.name)},
            {"mangled", capped(l.mangledName)},
            {"scope", capped(l.scopePath)},
            {"scope_raw", capped(l.scopePathRaw)},
            {"iteration", l.iteration},
            {"position", l.position},
            {"reused_samples", l.reusedSamples},
            {"replay", static_cast<int>(l.replay)},
            {"grid", {l.grid.x, l.grid.y, l.grid.z}},
            {"block", {l.block.x, l.block.y, l.block.z}},
            {"registers", l.registersPerThread},
            {"shared_mem_bytes", l.sharedMemBytes},
            {"stream", l.stream},
            {"chunk", l.chunk},
            {"range", l.range},
            {"thread", l.threadId},
            {"device", l.device},
            {"rank", l.rank},
            {"counters_rank", l.countersRank},
            {"scope_record", l.scopeRecord},
            {"kernels", l.kernels},
            {"measured", !l.values.empty()},
            {"note", capped(l.note)},
            {"timing_seconds", l.timingSeconds},
            {"op", capped(l.op)},
            {"phase", capped(l.phase)},
            {"module", capped(l.module)},
            {"shapes", capped(l.shapes)}};
}

Dim3 dimFromJson(const nlohmann::json& j) {
    if (!j.is_array() || j.size() != 3)
        throw std::invalid_argument("a dim3 must be [x, y, z]");
    return {integerOf<std::uint32_t>(j.at(0), "dim"), integerOf<std::uint32_t>(j.at(1), "dim"),
            integerOf<std::uint32_t>(j.at(2), "dim")};
}

LaunchInfo launchFromJson(const nlohmann::json& j) {
    LaunchInfo l;
    l.launchIndex = integerAt<std::uint64_t>(j, "index");
    l.name = textAt(j, "name", true);
    l.mangledName = textAt(j, "mangled", true);
    l.scopePath = textAt(j, "scope", true);
    l.scopePathRaw = textAt(j, "scope_raw", false); // absent in older recordings
    l.iteration = integerOr<std::int64_t>(j, "iteration", -1);
    l.position = integerOr<std::int64_t>(j, "position", -1);
    l.reusedSamples = integerOr<std::uint32_t>(j, "reused_samples", 0);
    l.rank = integerOr<int>(j, "rank", -1);                  // absent in older recordings
    l.countersRank = integerOr<int>(j, "counters_rank", -1); // absent in older recordings
    const int replay = integerOr<int>(j, "replay", 0);
    l.replay = replay == 1   ? ReplayStatus::Differs
               : replay == 2 ? ReplayStatus::Unmatched
                             : ReplayStatus::Clean;
    l.grid = dimFromJson(j.at("grid"));
    l.block = dimFromJson(j.at("block"));
    l.registersPerThread = integerOr<int>(j, "registers", -1); // absent in older recordings
    l.sharedMemBytes =
        integerOr<std::uint64_t>(j, "shared_mem_bytes", 0); // absent in older recordings
    l.stream = integerAt<std::uint64_t>(j, "stream");
    l.chunk = integerAt<int>(j, "chunk");
    l.range = integerAt<std::uint32_t>(j, "range");
    // v2 fields
    l.threadId = integerOr<std::uint64_t>(j, "thread", 0);
    l.device = integerOr<int>(j, "device", 0);
    l.scopeRecord = j.value("scope_record", false);
    l.kernels = integerOr<std::uint32_t>(j, "kernels", 1);
    l.note = textAt(j, "note", false);
    l.timingSeconds = j.value("timing_seconds", 0.0);
    l.op = textAt(j, "op", false); // absent in older recordings
    l.phase = textAt(j, "phase", false);
    l.module = textAt(j, "module", false);
    l.shapes = textAt(j, "shapes", false);
    return l;
}

nlohmann::json devicePeaksToJson(const std::vector<std::pair<std::string, double>>& peaks) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [metric, value] : peaks)
        j[metric] = value;
    return j;
}

std::vector<std::pair<std::string, double>> devicePeaksFromJson(const nlohmann::json& j,
                                                                const Corrupt& r) {
    std::vector<std::pair<std::string, double>> out;
    if (!j.is_object())
        r.corrupt("its device_peaks entry is not an object");
    for (const auto& [metric, value] : j.items()) {
        if (!value.is_number())
            r.corrupt("its device peak '" + metric + "' is not a number");
        out.emplace_back(metric, value.get<double>());
    }
    return out;
}

} // namespace

void writeRecording(const Recording& rec, std::ostream& out) {
    nlohmann::json meta = {
        {"format_version", rec.version},
        {"library_version", rec.libraryVersion},
        {"created_utc", rec.createdUtc},
        {"mode", rec.mode},
        {"status", rec.status},
        {"cache_flush", rec.cacheFlush},
        {"byte_definition", rec.bytes},
        {"chip", rec.chip},
        {"device", deviceToJson(rec.device)},
        {"metrics", rec.metrics},
        {"passes", rec.passes},
        {"dropped_ranges", rec.droppedRanges},
        {"coverage", toJson(rec.coverage)},
        {"process", toJson(rec.process)},
        {"host", hostToJson(rec)},
        {"platform",
         rec.platform.cpu.threads > 0 ? platformToJson(rec.platform) : nlohmann::json()},
        {"device_peaks", devicePeaksToJson(rec.devicePeaks)},
        {"share", rec.shareCount > 1
                      ? nlohmann::json{{"rank", rec.shareIndex}, {"ranks", rec.shareCount}}
                      : nlohmann::json()},
        {"framework", rec.framework.empty() ? nlohmann::json() : nlohmann::json(rec.framework)},
        {"counter_data_chunks", rec.counterData.size()},
        {"launches", nlohmann::json::array()}};
    for (const auto& l : rec.launches)
        meta["launches"].push_back(toJson(l));
    // Names are the program's bytes (NVTX ranges need not be UTF-8): invalid sequences become
    // U+FFFD rather than failing the whole recording.
    const std::string metaText =
        meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

    SectionWriter sections(out, kRecordingVersion,
                           static_cast<std::uint32_t>(3 + rec.counterData.size()));
    sections.add("META", reinterpret_cast<const std::uint8_t*>(metaText.data()), metaText.size());
    sections.add("CONF", rec.configImage.data(), rec.configImage.size());
    // VALS: the measured launches' values, one row of metrics.size() doubles each, in order.
    std::vector<std::uint8_t> values;
    for (const auto& l : rec.launches)
        if (!l.values.empty()) {
            if (l.values.size() != rec.metrics.size())
                throw Error(ErrorCode::InvalidArgument,
                            "launch " + std::to_string(l.launchIndex) + " has " +
                                std::to_string(l.values.size()) + " values for " +
                                std::to_string(rec.metrics.size()) + " metrics");
            const auto* p = reinterpret_cast<const std::uint8_t*>(l.values.data());
            values.insert(values.end(), p, p + l.values.size() * sizeof(double));
        }
    sections.add("VALS", values.data(), values.size());
    for (const auto& chunk : rec.counterData)
        sections.add("CDAT", chunk.data(), chunk.size());
    if (!out)
        throw Error(ErrorCode::Io, "writing the recording failed");
}

void saveRecording(const Recording& rec, const std::string& path) {
    writeFileAtomically(path, [&rec](std::ostream& out) { writeRecording(rec, out); });
}

std::string saveRecordingOnce(const Recording& rec, const std::string& path, long pid) {
    return writeFileOnce(path, pid, [&rec](std::ostream& out) { writeRecording(rec, out); });
}

namespace {

// A recording's sections in place: META first, one CONF, one VALS (version 2 on), any number of
// CDAT; anything else is refused.
struct Sections {
    std::string meta;
    bool haveConfig = false, haveValues = false;
    std::vector<std::uint8_t> values;
};

Sections placeSections(std::vector<FileSection>& sections, std::uint32_t version, Recording& rec,
                       const Corrupt& r) {
    Sections placed;
    for (std::size_t i = 0; i < sections.size(); ++i) {
        FileSection& s = sections[i];
        if (s.tag == "META" && i == 0)
            placed.meta.assign(s.data.begin(), s.data.end());
        else if (s.tag == "CONF" && !placed.haveConfig)
            rec.configImage = std::move(s.data), placed.haveConfig = true;
        else if (s.tag == "VALS" && version >= 2 && !placed.haveValues)
            placed.values = std::move(s.data), placed.haveValues = true;
        else if (s.tag == "CDAT")
            rec.counterData.push_back(std::move(s.data));
        else
            r.corrupt("unexpected section '" + s.tag + "' at position " + std::to_string(i));
    }
    if (placed.meta.empty() || !placed.haveConfig)
        r.corrupt("the META or CONF section is missing");
    return placed;
}

// What META says of the recording as a whole (not its launches).
void recordingFromJson(const nlohmann::json& meta, Recording& rec, const Corrupt& r,
                       const std::string& what) {
    rec.libraryVersion = meta.at("library_version").get<std::string>();
    rec.createdUtc = meta.at("created_utc").get<std::string>();
    rec.mode = meta.at("mode").get<std::string>();
    rec.status = meta.value("status", std::string("counters"));
    rec.cacheFlush = meta.value("cache_flush", std::string("off"));
    rec.bytes = meta.value("byte_definition", std::string("nersc"));
    if (rec.bytes != "nersc" && rec.bytes != "ncu")
        r.corrupt("its byte definition '" + rec.bytes + "' is unknown");
    rec.chip = meta.at("chip").get<std::string>();
    rec.device = deviceFromJson(meta.at("device"));
    rec.metrics = meta.at("metrics").get<std::vector<std::string>>();
    rec.passes = integerAt<std::uint64_t>(meta, "passes");
    rec.droppedRanges = integerAt<std::uint64_t>(meta, "dropped_ranges");
    if (meta.contains("coverage")) // absent in older recordings
        rec.coverage = coverageFromJson(meta.at("coverage"));
    if (meta.contains("process")) // absent in older recordings
        rec.process = processFromJson(meta.at("process"));
    if (meta.contains("host")) // absent in older recordings
        hostFromJson(meta.at("host"), rec);
    if (meta.contains("device_peaks")) // absent in older recordings
        rec.devicePeaks = devicePeaksFromJson(meta.at("device_peaks"), r);
    if (meta.contains("share") && meta.at("share").is_object()) { // absent: not shared
        rec.shareIndex = integerAt<std::uint32_t>(meta.at("share"), "rank");
        rec.shareCount = integerAt<std::uint32_t>(meta.at("share"), "ranks");
        if (rec.shareCount < 2 || rec.shareIndex >= rec.shareCount)
            r.corrupt("its share names rank " + std::to_string(rec.shareIndex) + " of " +
                      std::to_string(rec.shareCount));
    }
    if (meta.contains("platform") && meta.at("platform").is_object())
        rec.platform = platformFromJson(meta.at("platform"), what);
    // absent in older recordings
    if (meta.contains("framework") && meta.at("framework").is_object())
        for (const auto& [key, value] : meta.at("framework").items()) {
            if (!value.is_string())
                r.corrupt("its framework fact '" + key + "' is not a string");
            rec.framework[key] = value.get<std::string>();
        }
    if (integerAt<std::size_t>(meta, "counter_data_chunks") != rec.counterData.size())
        r.corrupt("META announces a different number of counter-data chunks than the file has");
}

// The launches META lists, each measured one with its row of VALS.
void launchesFromJson(const nlohmann::json& meta, const Sections& placed, std::uint32_t version,
                      Recording& rec, const Corrupt& r) {
    std::size_t measured = 0;
    for (const auto& l : meta.at("launches")) {
        rec.launches.push_back(launchFromJson(l));
        measured += l.value("measured", false) ? 1 : 0;
    }
    const std::size_t row = rec.metrics.size() * sizeof(double);
    if (version >= 2 && (!placed.haveValues || placed.values.size() != measured * row))
        r.corrupt("its VALS section does not hold " + std::to_string(measured) + " rows of " +
                  std::to_string(rec.metrics.size()) + " values");
    std::size_t offset = 0;
    for (std::size_t i = 0; version >= 2 && i < rec.launches.size(); ++i) {
        if (!meta.at("launches")[i].value("measured", false))
            continue;
        auto& v = rec.launches[i].values;
        v.resize(rec.metrics.size());
        std::memcpy(v.data(), placed.values.data() + offset, row);
        offset += row;
    }
}

} // namespace

Recording readRecording(std::istream& in, const std::string& what) {
    const Corrupt r{what};
    std::uint32_t version = 0;
    std::vector<FileSection> sections =
        readSections(in, what, ContainerRules{kRecordingVersion, &minSections}, version);
    Recording rec;
    rec.version = version;
    const Sections placed = placeSections(sections, version, rec, r);
    try {
        const auto meta = parseBounded(placed.meta);
        recordingFromJson(meta, rec, r, what);
        launchesFromJson(meta, placed, version, rec, r);
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        r.corrupt(std::string("its metadata is malformed (") + e.what() + ")");
    }
    if (rec.metrics.empty() && rec.status == "counters")
        r.corrupt("it lists no metrics");
    for (const auto& l : rec.launches)
        if (l.chunk >= static_cast<int>(rec.counterData.size()) || l.chunk < -1)
            r.corrupt("launch " + std::to_string(l.launchIndex) + " refers to chunk " +
                      std::to_string(l.chunk) + " which does not exist");
    return rec;
}

Recording loadRecording(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(ErrorCode::Io, "cannot open recording '" + path + "': " + std::strerror(errno));
    return readRecording(in, path);
}

} // namespace roofline::core
