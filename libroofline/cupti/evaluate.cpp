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
    // Auto ranges are matched to launches by order. If CUPTI saw kernels our launch callbacks did
    // not (or the reverse), that order is unreliable: say so on every record of the chunk.
    std::vector<std::size_t> launchesPerChunk(rec.counterData.size(), 0);
    for (const auto& l : rec.launches)
        if (l.chunk >= 0)
            ++launchesPerChunk[static_cast<std::size_t>(l.chunk)];
    std::vector<std::string> chunkNote(rec.counterData.size());
    for (std::size_t c = 0; c < rec.counterData.size(); ++c) {
        if (rangesPerChunk[c] == launchesPerChunk[c])
            continue;
        chunkNote[c] = "CUPTI recorded " + std::to_string(rangesPerChunk[c]) +
                       " kernel ranges for " + std::to_string(launchesPerChunk[c]) +
                       " launches seen: names and scopes may be misattributed";
        core::log().warn("{}", chunkNote[c]);
    }

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
        if (!chunkNote[chunk].empty())
            records.back().note += (records.back().note.empty() ? "" : "; ") + chunkNote[chunk];
    }
    return records;
}

} // namespace roofline::cupti
