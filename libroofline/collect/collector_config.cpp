#include "collect/collector_config.hpp"

namespace roofline::collect {

namespace {

// The plain mechanisms: the first iteration measured, measuring going on after completion (the
// session's options skip the first and idle once complete).
Settings plainSettings() {
    Settings s;
    s.options.firstIteration = FirstIteration::Measure;
    s.options.idleWhenComplete = false;
    return s;
}

} // namespace

CollectorConfig::CollectorConfig() : CollectorConfig(plainSettings()) {}

CollectorConfig::CollectorConfig(const Settings& settings)
    : Settings(settings), filter(settings.options.nvtxInclude, settings.options.nvtxExclude,
                                 settings.options.kernelName),
      keepImageBytes(settings.options.keepImagesMiB << 20) {}

} // namespace roofline::collect
