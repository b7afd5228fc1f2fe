#include "core/option_table.hpp"

#include <roofline/error.hpp>
#include <roofline/options.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

namespace roofline {
namespace {

long long parseInteger(const char* variable, const char* text, long long min, long long max) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max)
        throw Error(ErrorCode::InvalidArgument,
                    std::string(variable) + "='" + text + "' is not an integer in [" +
                        std::to_string(min) + ", " + std::to_string(max) + "]");
    return value;
}

bool parseBool(const char* variable, const char* text) {
    const std::string t = text;
    if (t == "1" || t == "on" || t == "true" || t == "yes")
        return true;
    if (t == "0" || t == "off" || t == "false" || t == "no")
        return false;
    throw Error(ErrorCode::InvalidArgument,
                std::string(variable) + "='" + text + "' is not a boolean (1|0|on|off)");
}

std::vector<std::string> splitList(const char* text) {
    std::vector<std::string> out;
    std::string current;
    for (const char* p = text; *p; ++p) {
        if (*p == ';') {
            if (!current.empty())
                out.push_back(current);
            current.clear();
        } else {
            current += *p;
        }
    }
    if (!current.empty())
        out.push_back(current);
    return out;
}

} // namespace

const char* toString(CollectionMode mode) noexcept {
    switch (mode) {
    case CollectionMode::IterationReplay:
        return "iteration-replay";
    case CollectionMode::KernelReplay:
        return "kernel-replay";
    case CollectionMode::ScopeReplay:
        return "scope-replay";
    case CollectionMode::WindowReplay:
        return "window-replay";
    case CollectionMode::Sample:
        return "sample";
    }
    return "unknown";
}

const char* toString(MetricSet set) noexcept {
    switch (set) {
    case MetricSet::Full:
        return "full";
    case MetricSet::Core:
        return "core";
    case MetricSet::Memory:
        return "memory";
    case MetricSet::Time:
        return "time";
    }
    return "unknown";
}

const char* toString(CacheFlush flush) noexcept {
    switch (flush) {
    case CacheFlush::Auto:
        return "auto";
    case CacheFlush::On:
        return "on";
    case CacheFlush::Off:
        return "off";
    case CacheFlush::Kernel:
        return "kernel";
    }
    return "unknown";
}

const char* toString(ByteDefinition bytes) noexcept {
    return bytes == ByteDefinition::Ncu ? "ncu" : "nersc";
}

const char* toString(TensorCounters counters) noexcept {
    return counters == TensorCounters::Detect ? "detect" : "all";
}

const char* toString(AlignPasses align) noexcept {
    switch (align) {
    case AlignPasses::Auto:
        return "auto";
    case AlignPasses::On:
        return "on";
    case AlignPasses::Off:
        return "off";
    }
    return "unknown";
}

const char* toString(OutsideSteps outside) noexcept {
    switch (outside) {
    case OutsideSteps::Auto:
        return "auto";
    case OutsideSteps::Window:
        return "window";
    case OutsideSteps::Skip:
        return "skip";
    }
    return "unknown";
}

const char* toString(FirstIteration first) noexcept {
    switch (first) {
    case FirstIteration::Skip:
        return "skip";
    case FirstIteration::SkipIfDifferent:
        return "skip-if-different";
    case FirstIteration::Measure:
        return "measure";
    }
    return "unknown";
}

namespace core {
namespace {

// A choice's accepted words and what each means; the first word of each value is how it is
// written back.
template <typename E> struct Word {
    const char* text;
    E value;
};

template <typename E, std::size_t N>
E choose(const char* variable, const char* text, const Word<E> (&words)[N]) {
    std::string choices;
    for (const Word<E>& w : words) {
        if (std::strcmp(text, w.text) == 0)
            return w.value;
        choices += (choices.empty() ? "" : "|") + std::string(w.text);
    }
    throw Error(ErrorCode::InvalidArgument,
                std::string(variable) + "='" + text + "' is not one of " + choices);
}

template <typename E, std::size_t N> std::string wordOf(E value, const Word<E> (&words)[N]) {
    for (const Word<E>& w : words)
        if (w.value == value)
            return w.text;
    return "?";
}

const Word<CollectionMode> kModes[] = {{"iteration", CollectionMode::IterationReplay},
                                       {"kernel", CollectionMode::KernelReplay},
                                       {"scope", CollectionMode::ScopeReplay},
                                       {"window", CollectionMode::WindowReplay},
                                       {"sample", CollectionMode::Sample},
                                       {"iteration-replay", CollectionMode::IterationReplay},
                                       {"kernel-replay", CollectionMode::KernelReplay},
                                       {"scope-replay", CollectionMode::ScopeReplay},
                                       {"window-replay", CollectionMode::WindowReplay}};
const Word<MetricSet> kMetricSets[] = {{"full", MetricSet::Full},
                                       {"core", MetricSet::Core},
                                       {"memory", MetricSet::Memory},
                                       {"time", MetricSet::Time}};
const Word<ByteDefinition> kBytes[] = {{"nersc", ByteDefinition::Nersc},
                                       {"ncu", ByteDefinition::Ncu}};
const Word<CacheFlush> kFlushes[] = {{"auto", CacheFlush::Auto},
                                     {"on", CacheFlush::On},
                                     {"off", CacheFlush::Off},
                                     {"kernel", CacheFlush::Kernel}};
const Word<bool> kScopes[] = {{"thread", false}, {"process", true}};
const Word<HostTiming> kHostTimings[] = {
    {"cpu", HostTiming::Cpu}, {"wall", HostTiming::Wall}, {"off", HostTiming::Off}};
const Word<FirstIteration> kFirstIterations[] = {
    {"skip", FirstIteration::Skip},
    {"skip-if-different", FirstIteration::SkipIfDifferent},
    {"measure", FirstIteration::Measure}};
const Word<AlignPasses> kAligns[] = {{"auto", AlignPasses::Auto},
                                     {"on", AlignPasses::On},
                                     {"off", AlignPasses::Off},
                                     {"1", AlignPasses::On},
                                     {"0", AlignPasses::Off}};
const Word<OutsideSteps> kOutsides[] = {
    {"auto", OutsideSteps::Auto}, {"window", OutsideSteps::Window}, {"skip", OutsideSteps::Skip}};
const Word<TensorCounters> kTensorCounters[] = {{"detect", TensorCounters::Detect},
                                                {"all", TensorCounters::All}};

// "full", "core+instructions", "+instructions" (the full set and the group).
void parseMetrics(Options& o, const char* text) {
    const std::string t = text;
    const std::string group = "+instructions";
    const bool with =
        t.size() >= group.size() && t.compare(t.size() - group.size(), group.size(), group) == 0;
    const std::string set = with ? t.substr(0, t.size() - group.size()) : t;
    try {
        o.metrics = set.empty() && with ? MetricSet::Full
                                        : choose("ROOFLINE_METRICS", set.c_str(), kMetricSets);
    } catch (const Error& e) {
        throw Error(ErrorCode::InvalidArgument,
                    std::string(e.what()) + ", each optionally followed by +instructions");
    }
    o.instructionMetrics = with;
}

std::string joinList(const std::vector<std::string>& list) {
    std::string out;
    for (const auto& item : list)
        out += (out.empty() ? "" : ";") + item;
    return out;
}

// One row per field: F the field, VAR its variable, and how its text reads.
#define ROOFLINE_CHOICE(F, VAR, WORDS)                                                             \
    [](Options& o, const char* t) { o.F = choose(VAR, t, WORDS); },                                \
        [](const Options& o) { return wordOf(o.F, WORDS); }
#define ROOFLINE_INTEGER(F, VAR, MIN, MAX)                                                         \
    [](Options& o, const char* t) {                                                                \
        o.F = static_cast<decltype(o.F)>(parseInteger(VAR, t, MIN, MAX));                          \
    },                                                                                             \
        [](const Options& o) { return std::to_string(o.F); }
#define ROOFLINE_BOOL(F, VAR)                                                                      \
    [](Options& o, const char* t) { o.F = parseBool(VAR, t); },                                    \
        [](const Options& o) { return std::string(o.F ? "1" : "0"); }
#define ROOFLINE_TEXT(F)                                                                           \
    [](Options& o, const char* t) { o.F = t; }, [](const Options& o) { return o.F; }
#define ROOFLINE_LIST(F)                                                                           \
    [](Options& o, const char* t) { o.F = splitList(t); },                                         \
        [](const Options& o) { return joinList(o.F); }

} // namespace

// The table, as data: one row per setting, in docs/configuration.md's order.
const OptionRow kRows[] = {
    {"mode", "ROOFLINE_MODE", "--mode", ROOFLINE_CHOICE(mode, "ROOFLINE_MODE", kModes),
     "`iteration`", "iteration | kernel | scope | window | sample (default iteration)"},
    {"metrics", "ROOFLINE_METRICS", "--metrics",
     [](Options& o, const char* t) { parseMetrics(o, t); },
     [](const Options& o) {
         return wordOf(o.metrics, kMetricSets) +
                std::string(o.instructionMetrics ? "+instructions" : "");
     },
     "`full`",
     "full | core | memory | time, each optionally `+instructions` (the instruction "
     "roofline's counters; `+instructions` alone: full and them)"},
    {"bytes", "ROOFLINE_BYTES", "--bytes", ROOFLINE_CHOICE(bytes, "ROOFLINE_BYTES", kBytes),
     "`nersc`", "nersc | ncu: the L1/L2 byte counters"},
    {"device", "ROOFLINE_DEVICE", "--device", ROOFLINE_INTEGER(device, "ROOFLINE_DEVICE", -1, 1023),
     "`0`", "CUDA device ordinal, -1 every device (default: the one the process launches on)"},
    {"rangesPerImage", "ROOFLINE_RANGES_PER_IMAGE", "--ranges-per-image",
     ROOFLINE_INTEGER(rangesPerImage, "ROOFLINE_RANGES_PER_IMAGE", 1, 4096), "`96`",
     "ranges per counter-data image"},
    {"rangesPerImageMax", "ROOFLINE_RANGES_PER_IMAGE_MAX", "--ranges-per-image-max",
     ROOFLINE_INTEGER(rangesPerImageMax, "ROOFLINE_RANGES_PER_IMAGE_MAX", 0, 4096), "`0` (auto)",
     "with reuse, the most ranges an image grows to where that takes fewer windows; 0: from "
     "the memory available"},
    {"iterationRange", "ROOFLINE_ITERATION_RANGE", "--iteration-range",
     ROOFLINE_TEXT(iterationRange), "empty",
     "the NVTX range whose instances are the iterations (default: the outermost)"},
    {"iterationsPerPass", "ROOFLINE_ITERATIONS_PER_PASS", "--iterations-per-pass",
     ROOFLINE_INTEGER(iterationsPerPass, "ROOFLINE_ITERATIONS_PER_PASS", 0, 1 << 20), "`0` (auto)",
     "iterations one pass spans"},
    {"scopeLevels", "ROOFLINE_SCOPE_LEVELS", "--scope-levels",
     ROOFLINE_INTEGER(scopeLevels, "ROOFLINE_SCOPE_LEVELS", 1, 16), "`1`",
     "scope replay: nesting levels measured"},
    {"nvtxInclude", "ROOFLINE_NVTX_INCLUDE", "--nvtx-include", ROOFLINE_LIST(nvtxInclude), "none",
     "NVTX include filters (Nsight Compute syntax; "
     "several separated by ';')"},
    {"nvtxExclude", "ROOFLINE_NVTX_EXCLUDE", "--nvtx-exclude", ROOFLINE_LIST(nvtxExclude), "none",
     "NVTX exclude filters"},
    {"kernelName", "ROOFLINE_KERNEL_NAME", "--kernel-name", ROOFLINE_TEXT(kernelName), "empty",
     "kernel name or regex:PATTERN"},
    {"launchSkip", "ROOFLINE_LAUNCH_SKIP", "--launch-skip",
     ROOFLINE_INTEGER(launchSkip, "ROOFLINE_LAUNCH_SKIP", 0, 1LL << 62), "`0`",
     "admitted launches to skip first"},
    {"launchCount", "ROOFLINE_LAUNCH_COUNT", "--launch-count",
     ROOFLINE_INTEGER(launchCount, "ROOFLINE_LAUNCH_COUNT", 0, 1LL << 62), "`0` (all)",
     "admitted launches to profile (0: all)"},
    {"cacheFlush", "ROOFLINE_CACHE_FLUSH", "--cache-flush",
     ROOFLINE_CHOICE(cacheFlush, "ROOFLINE_CACHE_FLUSH", kFlushes), "`auto`",
     "auto | on | off | kernel"},
    {"outputPath", "ROOFLINE_OUTPUT", "--output,-o", ROOFLINE_TEXT(outputPath), "empty",
     "recording path pattern: %p pid, %h host, %r rank, %q{VAR}, %% (default "
     "roofline-rank%r.rfl under a launcher, roofline-%h-%p.rfl otherwise)"},
    {"flushOnExit", "ROOFLINE_FLUSH_ON_EXIT", nullptr,
     ROOFLINE_BOOL(flushOnExit, "ROOFLINE_FLUSH_ON_EXIT"), "`1`",
     "1 | 0: stop and save at exit and on SIGINT/SIGTERM"},
    {"listenNvtx", "ROOFLINE_NVTX", "--nvtx", ROOFLINE_BOOL(listenNvtx, "ROOFLINE_NVTX"), "`1`",
     "1 | 0: listen to the program's NVTX ranges"},
    {"processScopes", "ROOFLINE_PUSH_POP_SCOPE", "--push-pop-scope",
     ROOFLINE_CHOICE(processScopes, "ROOFLINE_PUSH_POP_SCOPE", kScopes), "`thread`",
     "process (default under run) | thread: whose open ranges a launch belongs to"},
    {"hostTiming", "ROOFLINE_HOST_TIMING", "--host-timing",
     ROOFLINE_CHOICE(hostTiming, "ROOFLINE_HOST_TIMING", kHostTimings), "`cpu`",
     "cpu | wall | off: host time per scope (cpu adds the thread CPU clock)"},
    {"firstIteration", "ROOFLINE_FIRST_ITERATION", "--first-iteration",
     ROOFLINE_CHOICE(firstIteration, "ROOFLINE_FIRST_ITERATION", kFirstIterations), "`skip`",
     "skip | skip-if-different | measure"},
    {"alignPasses", "ROOFLINE_ALIGN_PASSES", "--align-passes",
     ROOFLINE_CHOICE(alignPasses, "ROOFLINE_ALIGN_PASSES", kAligns), "`auto`", "auto | on | off"},
    {"tensorCounters", "ROOFLINE_TENSOR_COUNTERS", "--tensor-counters",
     ROOFLINE_CHOICE(tensorCounters, "ROOFLINE_TENSOR_COUNTERS", kTensorCounters), "`detect`",
     "detect | all"},
    {"reuseSamples", "ROOFLINE_REUSE", "--reuse",
     ROOFLINE_INTEGER(reuseSamples, "ROOFLINE_REUSE", 0, 1000), "`2`",
     "samples per repeated launch signature, 0: every launch"},
    {"outsideSteps", "ROOFLINE_OUTSIDE_STEPS", "--outside-steps",
     ROOFLINE_CHOICE(outsideSteps, "ROOFLINE_OUTSIDE_STEPS", kOutsides), "`auto`",
     "auto | window | skip: launches no step covers measured in windows (auto: under roofline "
     "run)"},
    {"launchGraphNodes", "ROOFLINE_GRAPH_NODES", "--graph-nodes",
     ROOFLINE_BOOL(launchGraphNodes, "ROOFLINE_GRAPH_NODES"), "`1`",
     "1 | 0: while measuring, CUDA graph launches run as their nodes, so graph kernels get "
     "counters (default 1)"},
    {"shareAcrossRanks", "ROOFLINE_SHARE_RANKS", "--share-ranks",
     ROOFLINE_BOOL(shareAcrossRanks, "ROOFLINE_SHARE_RANKS"), "`0`",
     "1 | 0: data-parallel ranks each measure a share of the launches; roofline merge "
     "assembles the whole profile (default 0)"},
    {"idleWhenComplete", "ROOFLINE_IDLE_WHEN_COMPLETE", nullptr,
     ROOFLINE_BOOL(idleWhenComplete, "ROOFLINE_IDLE_WHEN_COMPLETE"), "`1`",
     "1 | 0: idle once every launch of one iteration has its record"},
    {"keepImagesMiB", "ROOFLINE_KEEP_IMAGES", "--keep-images",
     ROOFLINE_INTEGER(keepImagesMiB, "ROOFLINE_KEEP_IMAGES", 0, 65536), "`0`",
     "MiB of raw counter-data images to keep"},
    {"timingOnly", "ROOFLINE_TIMING_ONLY", nullptr,
     ROOFLINE_BOOL(timingOnly, "ROOFLINE_TIMING_ONLY"), "`0`",
     "1: no counters, kernel durations only"},
    {"reenableOnCodeLoad", "ROOFLINE_REENABLE_ON_CODE_LOAD", nullptr,
     ROOFLINE_BOOL(reenableOnCodeLoad, "ROOFLINE_REENABLE_ON_CODE_LOAD"), "`1`",
     "0: no profiler re-creation after code loads (reproduces a CUPTI crash)"},
    {"samplePeriodUs", "ROOFLINE_SAMPLE_PERIOD_US", "--sample-period-us",
     ROOFLINE_INTEGER(samplePeriodUs, "ROOFLINE_SAMPLE_PERIOD_US", 10, 1000000), "`1000`",
     "sampling mode: microseconds of GPU time between samples"},
    {"sampleWriteSteps", "ROOFLINE_SAMPLE_WRITE_STEPS", "--sample-write-steps",
     ROOFLINE_INTEGER(sampleWriteSteps, "ROOFLINE_SAMPLE_WRITE_STEPS", 1, 1000000), "`100`",
     "sampling mode: steps between two appends to the recording"},
    {"sampleWriteSeconds", "ROOFLINE_SAMPLE_WRITE_SECONDS", "--sample-write-seconds",
     ROOFLINE_INTEGER(sampleWriteSeconds, "ROOFLINE_SAMPLE_WRITE_SECONDS", 1, 86400), "`30`",
     "sampling mode: seconds between two appends to the recording"},
    {"sampleRingSteps", "ROOFLINE_SAMPLE_RING", "--sample-ring",
     ROOFLINE_INTEGER(sampleRingSteps, "ROOFLINE_SAMPLE_RING", 1, 4096), "`16`",
     "sampling mode: last steps whose launches are held one by one"},
    {"sampleKernelRecords", "ROOFLINE_SAMPLE_RECORDS", "--sample-records",
     ROOFLINE_INTEGER(sampleKernelRecords, "ROOFLINE_SAMPLE_RECORDS", 0, 1000000), "`1`",
     "sampling mode: kernel records on every step (1), one in N, or 0: measured"},
    {"(diagnostic)", "ROOFLINE_SAMPLE_BUFFER_MB", nullptr, nullptr, nullptr, "unset",
     "the sampling mode's device buffer in MiB (1-4096)"},
    {"(diagnostic)", "ROOFLINE_SAMPLE_DECODE_MS", nullptr, nullptr, nullptr, "unset",
     "how often the sampling mode decodes the device's buffer, in ms (10-600000)"},
    {"(diagnostic)", "ROOFLINE_SAMPLE_SOURCES", nullptr, nullptr, nullptr, "unset",
     "activity: the sampling mode reads the kernels' records and no counters"},
    {"(diagnostic)", "ROOFLINE_TRACE_NVTX", nullptr, nullptr, nullptr, "unset",
     "1: one line per NVTX push and pop"},
    {"(diagnostic)", "ROOFLINE_TRACE_CODE_LOADS", nullptr, nullptr, nullptr, "unset",
     "1: one line per module load, launch and range-profiler call"},
    {"(`roofline run`)", "ROOFLINE_LIBRARY", nullptr, nullptr, nullptr, "unset",
     "the libroofline.so that roofline run injects"},
    {"torchHook", "ROOFLINE_TORCH_HOOK", nullptr, ROOFLINE_BOOL(torchHook, "ROOFLINE_TORCH_HOOK"),
     "`1`", "1 | 0: name each kernel's PyTorch operator and module"},
    {"(logging)", "ROOFLINE_LOG_LEVEL", "--log-level", nullptr, nullptr, "`warn`",
     "warn | info | debug"},
    {"(roofs)", "ROOFLINE_CEILINGS", nullptr, nullptr, nullptr, "unset",
     "a ceilings file to compare records with"},
    {"(roofs)", "ROOFLINE_CEILINGS_DIR", nullptr, nullptr, nullptr,
     "`$XDG_CACHE_HOME/roofline` or `~/.cache/roofline`",
     "where measured roofs are cached per device"},
};

const std::vector<OptionRow>& optionTable() {
    static const std::vector<OptionRow> rows(std::begin(kRows), std::end(kRows));
    return rows;
}

#undef ROOFLINE_CHOICE
#undef ROOFLINE_INTEGER
#undef ROOFLINE_BOOL
#undef ROOFLINE_TEXT
#undef ROOFLINE_LIST

const OptionRow* optionRow(const std::string& variable) noexcept {
    for (const OptionRow& row : optionTable())
        if (variable == row.variable)
            return &row;
    return nullptr;
}

} // namespace core

Options Options::fromEnvironment(Options o) {
    for (const core::OptionRow& row : core::optionTable())
        if (row.field())
            if (const char* v = std::getenv(row.variable); v && *v) // empty: not set
                row.parse(o, v);
    return o;
}

} // namespace roofline
