#include <roofline/error.hpp>
#include <roofline/options.hpp>

#include <cerrno>
#include <cstdlib>
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

template <typename E, std::size_t N>
E parseChoice(const char* variable, const char* text, const char* const (&names)[N],
              const E (&values)[N]) {
    std::string choices;
    for (std::size_t i = 0; i < N; ++i) {
        if (text == std::string(names[i]))
            return values[i];
        choices += (i ? "|" : "") + std::string(names[i]);
    }
    throw Error(ErrorCode::InvalidArgument,
                std::string(variable) + "='" + text + "' is not one of " + choices);
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

Options Options::fromEnvironment(Options o) {
    if (const char* v = std::getenv("ROOFLINE_MODE")) {
        static const char* const names[] = {"iteration",        "kernel",        "scope",
                                            "iteration-replay", "kernel-replay", "scope-replay"};
        static const CollectionMode values[] = {
            CollectionMode::IterationReplay, CollectionMode::KernelReplay,
            CollectionMode::ScopeReplay,     CollectionMode::IterationReplay,
            CollectionMode::KernelReplay,    CollectionMode::ScopeReplay};
        o.mode = parseChoice("ROOFLINE_MODE", v, names, values);
    }
    if (const char* v = std::getenv("ROOFLINE_METRICS")) {
        static const char* const names[] = {"full", "core", "memory", "time"};
        static const MetricSet values[] = {MetricSet::Full, MetricSet::Core, MetricSet::Memory,
                                           MetricSet::Time};
        o.metrics = parseChoice("ROOFLINE_METRICS", v, names, values);
    }
    if (const char* v = std::getenv("ROOFLINE_BYTES")) {
        static const char* const names[] = {"nersc", "ncu"};
        static const ByteDefinition values[] = {ByteDefinition::Nersc, ByteDefinition::Ncu};
        o.bytes = parseChoice("ROOFLINE_BYTES", v, names, values);
    }
    if (const char* v = std::getenv("ROOFLINE_DEVICE"))
        o.device = static_cast<int>(parseInteger("ROOFLINE_DEVICE", v, -1, 1023));
    if (const char* v = std::getenv("ROOFLINE_RANGES_PER_IMAGE"))
        o.rangesPerImage =
            static_cast<std::size_t>(parseInteger("ROOFLINE_RANGES_PER_IMAGE", v, 1, 4096));
    if (const char* v = std::getenv("ROOFLINE_ITERATION_RANGE"))
        o.iterationRange = v;
    if (const char* v = std::getenv("ROOFLINE_ITERATIONS_PER_PASS"))
        o.iterationsPerPass =
            static_cast<std::size_t>(parseInteger("ROOFLINE_ITERATIONS_PER_PASS", v, 0, 1 << 20));
    if (const char* v = std::getenv("ROOFLINE_SCOPE_LEVELS"))
        o.scopeLevels = static_cast<std::size_t>(parseInteger("ROOFLINE_SCOPE_LEVELS", v, 1, 16));
    if (const char* v = std::getenv("ROOFLINE_NVTX_INCLUDE"))
        o.nvtxInclude = splitList(v);
    if (const char* v = std::getenv("ROOFLINE_NVTX_EXCLUDE"))
        o.nvtxExclude = splitList(v);
    if (const char* v = std::getenv("ROOFLINE_KERNEL_NAME"))
        o.kernelName = v;
    if (const char* v = std::getenv("ROOFLINE_LAUNCH_SKIP"))
        o.launchSkip =
            static_cast<std::uint64_t>(parseInteger("ROOFLINE_LAUNCH_SKIP", v, 0, 1LL << 62));
    if (const char* v = std::getenv("ROOFLINE_LAUNCH_COUNT"))
        o.launchCount =
            static_cast<std::uint64_t>(parseInteger("ROOFLINE_LAUNCH_COUNT", v, 0, 1LL << 62));
    if (const char* v = std::getenv("ROOFLINE_CACHE_FLUSH")) {
        static const char* const names[] = {"auto", "on", "off", "kernel"};
        static const CacheFlush values[] = {CacheFlush::Auto, CacheFlush::On, CacheFlush::Off,
                                            CacheFlush::Kernel};
        o.cacheFlush = parseChoice("ROOFLINE_CACHE_FLUSH", v, names, values);
    }
    if (const char* v = std::getenv("ROOFLINE_OUTPUT"))
        o.outputPath = v;
    if (const char* v = std::getenv("ROOFLINE_FLUSH_ON_EXIT"))
        o.flushOnExit = parseBool("ROOFLINE_FLUSH_ON_EXIT", v);
    if (const char* v = std::getenv("ROOFLINE_NVTX"))
        o.listenNvtx = parseBool("ROOFLINE_NVTX", v);
    if (const char* v = std::getenv("ROOFLINE_PUSH_POP_SCOPE")) {
        static const char* const names[] = {"thread", "process"};
        static const bool values[] = {false, true};
        o.processScopes = parseChoice("ROOFLINE_PUSH_POP_SCOPE", v, names, values);
    }
    if (const char* v = std::getenv("ROOFLINE_HOST_TIMING")) {
        static const char* const names[] = {"cpu", "wall", "off"};
        static const HostTiming values[] = {HostTiming::Cpu, HostTiming::Wall, HostTiming::Off};
        o.hostTiming = parseChoice("ROOFLINE_HOST_TIMING", v, names, values);
    }
    if (const char* v = std::getenv("ROOFLINE_FIRST_ITERATION")) {
        static const char* const names[] = {"skip", "skip-if-different", "measure"};
        static const FirstIteration values[] = {
            FirstIteration::Skip, FirstIteration::SkipIfDifferent, FirstIteration::Measure};
        o.firstIteration = parseChoice("ROOFLINE_FIRST_ITERATION", v, names, values);
    }
    if (const char* v = std::getenv("ROOFLINE_ALIGN_PASSES")) {
        static const char* const names[] = {"auto", "on", "off", "1", "0"};
        static const AlignPasses values[] = {AlignPasses::Auto, AlignPasses::On, AlignPasses::Off,
                                             AlignPasses::On, AlignPasses::Off};
        o.alignPasses = parseChoice("ROOFLINE_ALIGN_PASSES", v, names, values);
    }
    if (const char* v = std::getenv("ROOFLINE_TENSOR_COUNTERS")) {
        static const char* const names[] = {"detect", "all"};
        static const TensorCounters values[] = {TensorCounters::Detect, TensorCounters::All};
        o.tensorCounters = parseChoice("ROOFLINE_TENSOR_COUNTERS", v, names, values);
    }
    if (const char* v = std::getenv("ROOFLINE_KEEP_IMAGES"))
        o.keepImagesMiB =
            static_cast<std::size_t>(parseInteger("ROOFLINE_KEEP_IMAGES", v, 0, 65536));
    if (const char* v = std::getenv("ROOFLINE_REUSE"))
        o.reuseSamples = static_cast<std::size_t>(parseInteger("ROOFLINE_REUSE", v, 0, 1000));
    if (const char* v = std::getenv("ROOFLINE_IDLE_WHEN_COMPLETE"))
        o.idleWhenComplete = parseBool("ROOFLINE_IDLE_WHEN_COMPLETE", v);
    if (const char* v = std::getenv("ROOFLINE_GRAPH_NODES"))
        o.launchGraphNodes = parseBool("ROOFLINE_GRAPH_NODES", v);
    if (const char* v = std::getenv("ROOFLINE_SHARE_RANKS"))
        o.shareAcrossRanks = parseBool("ROOFLINE_SHARE_RANKS", v);
    if (const char* v = std::getenv("ROOFLINE_TORCH_HOOK"))
        o.torchHook = parseBool("ROOFLINE_TORCH_HOOK", v);
    return o;
}

} // namespace roofline
