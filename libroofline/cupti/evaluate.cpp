#include "cupti/evaluate.hpp"

#include "core/log.hpp"
#include "core/metric_catalog.hpp"
#include "cupti/host.hpp"

namespace roofline::cupti {

std::vector<KernelRecord> evaluateRecording(const core::Recording& rec) {
    const core::ChipProfile& profile = core::profileForChip(rec.chip);
    const Host host(rec.chip);
    const Ceilings ceilings = core::datasheetCeilings(rec.device);
    std::vector<std::size_t> rangesPerChunk;
    for (const auto& chunk : rec.counterData)
        rangesPerChunk.push_back(host.rangeCount(chunk));

    std::vector<KernelRecord> records;
    records.reserve(rec.launches.size());
    for (const auto& launch : rec.launches) {
        if (launch.chunk < 0) {
            records.push_back(core::unmeasuredRecord(
                launch,
                "counter-data image full: raise Options::maxKernels (ROOFLINE_MAX_KERNELS)"));
            continue;
        }
        const auto chunk = static_cast<std::size_t>(launch.chunk);
        if (launch.range >= rangesPerChunk[chunk]) {
            records.push_back(core::unmeasuredRecord(
                launch, "CUPTI recorded no range for this launch (dropped while decoding)"));
            continue;
        }
        const auto values = host.evaluate(rec.counterData[chunk], launch.range, rec.metrics);
        records.push_back(core::buildRecord(profile, launch, values, ceilings));
    }
    return records;
}

} // namespace roofline::cupti
