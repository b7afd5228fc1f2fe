#include "core/recording.hpp"

#include "core/json_number.hpp"

#include "core/atomic_file.hpp"

#include <roofline/error.hpp>

#include <nlohmann/json.hpp>
#include <zstd.h>

#include <array>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>

namespace roofline::core {
namespace {

// Layout (little-endian): "ROOFLINE" u32 version u32 sectionCount, then sections, each
// tag[4] u32 encoding u64 storedSize u64 rawSize u64 fnv1a64(raw) + storedSize bytes.
constexpr char kMagic[8] = {'R', 'O', 'O', 'F', 'L', 'I', 'N', 'E'};
constexpr std::uint32_t kRaw = 0;
constexpr std::uint32_t kZstd = 1;
constexpr int kZstdLevel = 3;

// Bounds on what a file may make the reader allocate (docs/recording-format.md, "Limits"): a
// crafted 44 KB file announced 126 MB of metadata, a 276 KB one four 256 MiB images.
constexpr std::uint64_t kMaxSectionBytes = 16ull << 30; // refuses absurd sizes from damaged headers
constexpr std::uint32_t kMaxSections = 65536;           // 3 + one per kept counter-data image
// META: parsing JSON takes ~25x its size in memory; real metadata compresses 3-110x.
constexpr std::uint64_t kMetaFloorBytes = 16ull << 20;
constexpr std::uint64_t kMetaRatio = 256;
// All sections together: real counter-data images compress up to ~180x.
constexpr std::uint64_t kTotalFloorBytes = 64ull << 20;
constexpr std::uint64_t kTotalRatio = 512;
// Names, scope paths, notes: real demangled kernel names reach a few KB (Eigen's tens of KB).
constexpr std::size_t kMaxTextBytes = 64u << 10;

// FNV-1a 64 with libroofline's offset basis 1469598103934665603 -- the standard basis
// 14695981039346656037 without its last digit, a slip of the first version kept so that older
// readers accept what we write. Readers accept both (docs/recording-format.md).
constexpr std::uint64_t kFnvBasis = 1469598103934665603ull;
constexpr std::uint64_t kFnvStandardBasis = 14695981039346656037ull;

std::uint64_t fnv1a(const std::uint8_t* data, std::size_t size, std::uint64_t basis = kFnvBasis) {
    std::uint64_t h = basis;
    for (std::size_t i = 0; i < size; ++i)
        h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

template <typename T> void put(std::ostream& out, T value) {
    std::array<char, sizeof(T)> bytes{};
    for (std::size_t i = 0; i < sizeof(T); ++i)
        bytes[i] = static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff);
    out.write(bytes.data(), bytes.size());
}

void writeSection(std::ostream& out, const char (&tag)[5], const std::uint8_t* data,
                  std::size_t size, bool compress) {
    std::vector<std::uint8_t> stored;
    std::uint32_t encoding = kRaw;
    if (compress && size > 0) {
        stored.resize(ZSTD_compressBound(size));
        const std::size_t n = ZSTD_compress(stored.data(), stored.size(), data, size, kZstdLevel);
        if (ZSTD_isError(n))
            throw Error(ErrorCode::Io,
                        std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
        stored.resize(n);
        encoding = kZstd;
    }
    const std::uint8_t* payload = encoding == kZstd ? stored.data() : data;
    const std::size_t storedSize = encoding == kZstd ? stored.size() : size;
    out.write(tag, 4);
    put<std::uint32_t>(out, encoding);
    put<std::uint64_t>(out, storedSize);
    put<std::uint64_t>(out, size);
    put<std::uint64_t>(out, fnv1a(data, size));
    out.write(reinterpret_cast<const char*>(payload), static_cast<std::streamsize>(storedSize));
}

nlohmann::json toJson(const DeviceInfo& d) {
    return {{"ordinal", d.ordinal},
            {"name", d.name},
            {"chip", d.chip},
            {"compute_capability",
             std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)},
            {"sm_count", d.smCount},
            {"sm_clock_hz", d.smClockHz},
            {"memory_clock_hz", d.memoryClockHz},
            {"memory_bus_width_bits", d.memoryBusWidthBits},
            {"l2_bytes", d.l2Bytes},
            {"memory_bytes", d.memoryBytes},
            {"driver_version", d.driverVersion},
            {"occupancy",
             {{"max_threads_per_sm", d.occupancy.maxThreadsPerSm},
              {"max_blocks_per_sm", d.occupancy.maxBlocksPerSm},
              {"registers_per_sm", d.occupancy.registersPerSm},
              {"shared_bytes_per_sm", d.occupancy.sharedBytesPerSm},
              {"reserved_shared_per_block", d.occupancy.reservedSharedPerBlock}}}};
}

DeviceInfo deviceFromJson(const nlohmann::json& j) {
    DeviceInfo d;
    d.ordinal = integerAt<int>(j, "ordinal");
    d.name = j.at("name").get<std::string>();
    d.chip = j.at("chip").get<std::string>();
    const auto cc = j.at("compute_capability").get<std::string>();
    const auto dot = cc.find('.');
    if (dot == std::string::npos)
        throw std::invalid_argument("compute_capability '" + cc + "'");
    d.computeMajor = std::stoi(cc.substr(0, dot));
    d.computeMinor = std::stoi(cc.substr(dot + 1));
    d.smCount = integerAt<int>(j, "sm_count");
    d.smClockHz = j.at("sm_clock_hz").get<double>();
    d.memoryClockHz = j.at("memory_clock_hz").get<double>();
    d.memoryBusWidthBits = integerAt<int>(j, "memory_bus_width_bits");
    d.l2Bytes = integerAt<std::uint64_t>(j, "l2_bytes");
    d.memoryBytes = integerAt<std::uint64_t>(j, "memory_bytes");
    d.driverVersion = integerAt<int>(j, "driver_version");
    if (j.contains("occupancy")) { // absent in older recordings
        const auto& o = j.at("occupancy");
        d.occupancy.maxThreadsPerSm = integerOr<int>(o, "max_threads_per_sm", 0);
        d.occupancy.maxBlocksPerSm = integerOr<int>(o, "max_blocks_per_sm", 0);
        d.occupancy.registersPerSm = integerOr<int>(o, "registers_per_sm", 0);
        d.occupancy.sharedBytesPerSm = integerOr<int>(o, "shared_bytes_per_sm", 0);
        d.occupancy.reservedSharedPerBlock = integerOr<int>(o, "reserved_shared_per_block", 0);
    }
    return d;
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
            {"iterations_run", c.iterationsRun},
            {"launches_covered", c.launchesCovered},
            {"first_iteration_skipped", c.firstIterationSkipped},
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

// At most kMaxTextBytes, cut at a character boundary, so that what is written can be read back.
std::string capped(const std::string& text) {
    if (text.size() <= kMaxTextBytes)
        return text;
    std::size_t end = kMaxTextBytes - 3;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end;
    return text.substr(0, end) + "...";
}

// A launch's text field, at most kMaxTextBytes long.
std::string textAt(const nlohmann::json& j, const char* key, bool required) {
    const auto it = j.find(key);
    if (it == j.end()) {
        if (required)
            throw std::out_of_range(std::string("no field '") + key + "'");
        return {};
    }
    auto text = it->get<std::string>();
    if (text.size() > kMaxTextBytes)
        throw std::length_error(std::string("'") + key + "' is " +
                                std::to_string(text.size()) + " bytes long (at most " +
                                std::to_string(kMaxTextBytes) + ")");
    return text;
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
    c.iterationsRun = integerAt<std::uint64_t>(j, "iterations_run");
    c.launchesCovered = integerAt<std::uint64_t>(j, "launches_covered");
    c.firstIterationSkipped = j.value("first_iteration_skipped", false); // absent before 0.1.x
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

class Reader {
public:
    Reader(std::istream& in, std::string what) : in_(in), what_(std::move(what)) {}

    [[noreturn]] void corrupt(const std::string& detail) const {
        throw Error(ErrorCode::CorruptRecording,
                    "'" + what_ + "' is not a usable libroofline recording: " + detail +
                        ". Re-record it, or check that the file was copied completely.");
    }

    void read(void* dst, std::size_t n, const char* field) {
        in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
        if (static_cast<std::size_t>(in_.gcount()) != n)
            corrupt(std::string("truncated while reading ") + field + " at byte " +
                    std::to_string(offset_));
        offset_ += n;
    }

    template <typename T> T get(const char* field) {
        std::array<unsigned char, sizeof(T)> b{};
        read(b.data(), b.size(), field);
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < sizeof(T); ++i)
            v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
        return static_cast<T>(v);
    }

    std::uint64_t offset() const { return offset_; }

private:
    std::istream& in_;
    std::string what_;
    std::uint64_t offset_ = 0;
};

struct Section {
    std::string tag;
    std::vector<std::uint8_t> data;
};

struct ReadTotals {
    std::uint64_t stored = 0, raw = 0;
};

Section readSection(Reader& r, std::size_t index, ReadTotals& totals) {
    Section s;
    char tag[4];
    const std::string where = "section #" + std::to_string(index);
    r.read(tag, 4, (where + " header").c_str());
    s.tag.assign(tag, 4);
    const auto encoding = r.get<std::uint32_t>("section encoding");
    const auto storedSize = r.get<std::uint64_t>("section size");
    const auto rawSize = r.get<std::uint64_t>("section size");
    const auto checksum = r.get<std::uint64_t>("section checksum");
    const std::string name = where + " ('" + s.tag + "')";
    if (storedSize > kMaxSectionBytes || rawSize > kMaxSectionBytes)
        r.corrupt(name + " claims an impossible size");
    if (encoding != kRaw && encoding != kZstd)
        r.corrupt(name + " has unknown encoding " + std::to_string(encoding));
    totals.stored += storedSize;
    totals.raw += rawSize;
    if (s.tag == "META" && rawSize > kMetaFloorBytes + kMetaRatio * storedSize)
        r.corrupt(name + " announces " + std::to_string(rawSize) + " bytes of metadata from " +
                  std::to_string(storedSize) + " (more than " + std::to_string(kMetaFloorBytes) +
                  " bytes + " + std::to_string(kMetaRatio) + "x what the file holds)");
    if (totals.raw > kTotalFloorBytes + kTotalRatio * totals.stored)
        r.corrupt(name + " brings what the sections decompress to " +
                  std::to_string(totals.raw) + " bytes from " + std::to_string(totals.stored) +
                  " in the file (more than " + std::to_string(kTotalFloorBytes) + " bytes + " +
                  std::to_string(kTotalRatio) + "x)");
    // Read in steps, so that what is allocated never runs ahead of what the file holds (a
    // damaged size field must not make us allocate gigabytes before the truncation shows).
    std::vector<std::uint8_t> stored;
    for (std::uint64_t done = 0; done < storedSize;) {
        const std::size_t step =
            static_cast<std::size_t>(std::min<std::uint64_t>(storedSize - done, 1u << 20));
        stored.resize(static_cast<std::size_t>(done) + step);
        r.read(stored.data() + done, step, name.c_str());
        done += step;
    }
    if (encoding == kZstd) {
        // The frame must announce the raw size (bounded above with the other sections').
        const unsigned long long announced = ZSTD_getFrameContentSize(stored.data(), stored.size());
        if (announced != rawSize)
            r.corrupt(name + " does not decompress (its frame announces another size)");
        s.data.resize(rawSize);
        const std::size_t n =
            ZSTD_decompress(s.data.data(), s.data.size(), stored.data(), stored.size());
        if (ZSTD_isError(n) || n != rawSize)
            r.corrupt(name + " does not decompress (" +
                      (ZSTD_isError(n) ? std::string(ZSTD_getErrorName(n)) : "size mismatch") +
                      ")");
    } else {
        if (storedSize != rawSize)
            r.corrupt(name + " sizes disagree");
        s.data = std::move(stored);
    }
    if (fnv1a(s.data.data(), s.data.size()) != checksum &&
        fnv1a(s.data.data(), s.data.size(), kFnvStandardBasis) != checksum)
        r.corrupt(name + " fails its checksum");
    return s;
}

nlohmann::json devicePeaksToJson(const std::vector<std::pair<std::string, double>>& peaks) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [metric, value] : peaks)
        j[metric] = value;
    return j;
}

std::vector<std::pair<std::string, double>> devicePeaksFromJson(const nlohmann::json& j,
                                                                Reader& r) {
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
        {"device", toJson(rec.device)},
        {"metrics", rec.metrics},
        {"passes", rec.passes},
        {"dropped_ranges", rec.droppedRanges},
        {"coverage", toJson(rec.coverage)},
        {"process", toJson(rec.process)},
        {"host", hostToJson(rec)},
        {"platform", rec.platform.cpu.threads > 0 ? platformToJson(rec.platform) : nlohmann::json()},
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
    const std::string metaText = meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

    out.write(kMagic, sizeof kMagic);
    put<std::uint32_t>(out, kRecordingVersion);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(3 + rec.counterData.size()));
    writeSection(out, "META", reinterpret_cast<const std::uint8_t*>(metaText.data()),
                 metaText.size(), true);
    writeSection(out, "CONF", rec.configImage.data(), rec.configImage.size(), true);
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
    writeSection(out, "VALS", values.data(), values.size(), true);
    for (const auto& chunk : rec.counterData)
        writeSection(out, "CDAT", chunk.data(), chunk.size(), true);
    if (!out)
        throw Error(ErrorCode::Io, "writing the recording failed");
}

void saveRecording(const Recording& rec, const std::string& path) {
    writeFileAtomically(path, [&rec](std::ostream& out) { writeRecording(rec, out); });
}

std::string saveRecordingOnce(const Recording& rec, const std::string& path, long pid) {
    return writeFileOnce(path, pid, [&rec](std::ostream& out) { writeRecording(rec, out); });
}

Recording readRecording(std::istream& in, const std::string& what) {
    Reader r(in, what);
    char magic[8];
    in.read(magic, sizeof magic);
    if (in.gcount() != static_cast<std::streamsize>(sizeof magic) ||
        std::memcmp(magic, kMagic, sizeof magic) != 0)
        r.corrupt("it does not start with the ROOFLINE signature (not a recording?)");
    const auto version = r.get<std::uint32_t>("format version");
    if (version == 0 || version > kRecordingVersion)
        throw Error(ErrorCode::UnsupportedVersion,
                    "'" + what + "' uses recording format v" + std::to_string(version) +
                        "; this build of libroofline reads v1 to v" +
                        std::to_string(kRecordingVersion) + ". Use a newer libroofline.");
    const auto count = r.get<std::uint32_t>("section count");
    if (count < (version >= 2 ? 3u : 2u) || count > kMaxSections)
        r.corrupt("section count " + std::to_string(count) + " (a recording has 3 to " +
                  std::to_string(kMaxSections) + ", format v1 from 2)");

    Recording rec;
    rec.version = version;
    std::string metaText;
    bool haveConfig = false, haveValues = false;
    std::vector<std::uint8_t> valueBytes;
    ReadTotals totals;
    for (std::uint32_t i = 0; i < count; ++i) {
        Section s = readSection(r, i, totals);
        if (s.tag == "META" && i == 0)
            metaText.assign(s.data.begin(), s.data.end());
        else if (s.tag == "CONF" && !haveConfig)
            rec.configImage = std::move(s.data), haveConfig = true;
        else if (s.tag == "VALS" && version >= 2 && !haveValues)
            valueBytes = std::move(s.data), haveValues = true;
        else if (s.tag == "CDAT")
            rec.counterData.push_back(std::move(s.data));
        else
            r.corrupt("unexpected section '" + s.tag + "' at position " + std::to_string(i));
    }
    if (metaText.empty() || !haveConfig)
        r.corrupt("the META or CONF section is missing");
    try {
        const auto meta = parseBounded(metaText);
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
        std::size_t measured = 0;
        for (const auto& l : meta.at("launches")) {
            rec.launches.push_back(launchFromJson(l));
            measured += l.value("measured", false) ? 1 : 0;
        }
        const std::size_t row = rec.metrics.size() * sizeof(double);
        if (version >= 2 && (!haveValues || valueBytes.size() != measured * row))
            r.corrupt("its VALS section does not hold " + std::to_string(measured) + " rows of " +
                      std::to_string(rec.metrics.size()) + " values");
        std::size_t offset = 0;
        for (std::size_t i = 0; version >= 2 && i < rec.launches.size(); ++i) {
            if (!meta.at("launches")[i].value("measured", false))
                continue;
            auto& v = rec.launches[i].values;
            v.resize(rec.metrics.size());
            std::memcpy(v.data(), valueBytes.data() + offset, row);
            offset += row;
        }
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

std::string describeCaches(const std::string& f) {
    if (f == "kernel")
        return "kernel: L2 flushed before each measured kernel (as ncu --cache-control all): "
               "DRAM bytes from a cold cache";
    if (f == "on")
        return "on: L2 flushed before each pass; each kernel's DRAM bytes with the cache the "
               "kernels before it in the pass left";
    if (f == "off")
        return "off: each kernel's DRAM bytes with the cache the program left (its real traffic; "
               "ROOFLINE_CACHE_FLUSH=kernel: from a cold cache, as ncu measures)";
    return f;
}

std::string describe(const Coverage& c) {
    if (!c.known)
        return "";
    const std::uint64_t windows =
        c.launchesPerImage == 0 || c.iterationsPerPass > 1
            ? 1
            : (c.launchesPerIteration + c.launchesPerImage - 1) / c.launchesPerImage;
    std::string s = "one iteration = " + std::to_string(c.launchesPerIteration) + " launches" +
                    (c.launchesVaried ? " (varied between iterations)" : "") + ": " +
                    std::to_string(c.iterationsNeeded) + " iterations needed (";
    if (c.iterationsPerPass > 1)
        s += std::to_string(c.passes) + " passes x " + std::to_string(c.iterationsPerPass) +
             " iterations per pass";
    else
        s += std::to_string(windows) + (windows == 1 ? " window" : " windows") + " of " +
             std::to_string(c.launchesPerImage) + " ranges x " + std::to_string(c.passes) + " passes";
    s += "), " + std::to_string(c.iterationsRun) + " run, " + std::to_string(c.launchesCovered) +
         " of " + std::to_string(c.launchesPerIteration) + " launches covered" +
         (c.complete() ? " (complete)" : " (incomplete: run more iterations)");
    if (c.firstIterationSkipped)
        s += "; the first iteration was not measured (warm-up: lazily loaded kernels, validation, "
             "state created on first use)";
    return s;
}

} // namespace roofline::core
