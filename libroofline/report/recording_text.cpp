#include "report/recording_text.hpp"

namespace roofline::report {

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

std::string describe(const core::Coverage& c) {
    if (!c.known)
        return "";
    const std::uint64_t windows =
        c.windows > 0 ? c.windows
        : c.launchesPerImage == 0 || c.iterationsPerPass > 1
            ? 1
            : (c.launchesPerIteration + c.launchesPerImage - 1) / c.launchesPerImage;
    std::string s = "one iteration = " + std::to_string(c.launchesPerIteration) + " launches" +
                    (c.signatures > 0 ? " of " + std::to_string(c.signatures) + " signatures"
                                      : std::string()) +
                    (c.launchesVaried ? " (varied between iterations)" : "") + ": " +
                    std::to_string(c.iterationsNeeded) + " iterations needed (";
    if (c.iterationsPerPass > 1)
        s += std::to_string(c.passes) + " passes x " + std::to_string(c.iterationsPerPass) +
             " iterations per pass";
    else
        s += std::to_string(windows) + (windows == 1 ? " window" : " windows") +
             (c.windows > 0 ? " of up to " : " of ") + std::to_string(c.launchesPerImage) +
             " ranges x " + std::to_string(c.passes) + " passes" +
             (c.windowAcrossEnd ? ", one across the iteration's end" : "");
    s += "), " + std::to_string(c.iterationsRun) + " run, " + std::to_string(c.launchesCovered) +
         " of " + std::to_string(c.launchesPerIteration) + " launches covered" +
         (c.complete()                  ? " (complete)"
          : c.launchesPerIteration == 0 ? " (its iterations launch no kernel: nothing measured)"
                                        : " (incomplete: run more iterations)");
    if (c.rangesMeasured > 0)
        s += "; " + std::to_string(c.rangesMeasured) + " ranges measured";
    if (c.firstIterationSkipped)
        s += "; the first iteration was not measured (warm-up: lazily loaded kernels, validation, "
             "state created on first use)";
    return s;
}

} // namespace roofline::report
