#include "cupti/evaluate.hpp"

#include "core/log.hpp"
#include "core/metric_catalog.hpp"
#include "cupti/host.hpp"

#include <memory>

namespace roofline::cupti {

std::vector<KernelRecord> evaluateRecording(const core::Recording& rec, const Ceilings& ceilings) {
    std::vector<KernelRecord> records;
    records.reserve(rec.launches.size());
    if (rec.metrics.empty()) { // timing-only recording
        for (const auto& launch : rec.launches)
            records.push_back(core::unmeasuredRecord(launch, ""));
        return records;
    }
    const core::ChipProfile& profile = core::profileForChip(rec.chip);

    // v1 recordings hold raw images only: evaluate them with the CUPTI host API. Auto ranges are
    // matched to launches by order; if CUPTI saw kernels our launch callbacks did not (or the
    // reverse), that order is unreliable: say so on every record of the chunk.
    std::unique_ptr<Host> host;
    std::vector<std::size_t> rangesPerChunk;
    std::vector<std::string> chunkNote(rec.counterData.size());
    if (rec.version < 2) {
        host = std::make_unique<Host>(rec.chip);
        for (const auto& chunk : rec.counterData)
            rangesPerChunk.push_back(host->rangeCount(chunk));
        std::vector<std::size_t> launchesPerChunk(rec.counterData.size(), 0);
        for (const auto& l : rec.launches)
            if (l.chunk >= 0)
                ++launchesPerChunk[static_cast<std::size_t>(l.chunk)];
        for (std::size_t c = 0; c < rec.counterData.size(); ++c) {
            if (rangesPerChunk[c] == launchesPerChunk[c])
                continue;
            chunkNote[c] = "CUPTI recorded " + std::to_string(rangesPerChunk[c]) +
                           " kernel ranges for " + std::to_string(launchesPerChunk[c]) +
                           " launches seen: names and scopes may be misattributed";
            core::log().warn("{}", chunkNote[c]);
        }
    }

    for (const auto& stored : rec.launches) {
        if (!host || !stored.values.empty()) {
            records.push_back(core::recordFromLaunch(profile, stored, rec.metrics, ceilings));
            continue;
        }
        if (stored.chunk < 0) {
            // A launch without values says why in its note (replay mismatch, dropped range);
            // one without a note had no room in the counter-data image.
            records.push_back(core::unmeasuredRecord(
                stored, stored.note.empty() ? "counter-data image full: raise "
                                              "Options::maxKernels (ROOFLINE_MAX_KERNELS)"
                                            : ""));
            continue;
        }
        const auto chunk = static_cast<std::size_t>(stored.chunk);
        if (stored.range >= rangesPerChunk[chunk]) {
            records.push_back(core::unmeasuredRecord(
                stored, "CUPTI recorded no range for this launch (dropped while decoding)"));
            continue;
        }
        core::LaunchInfo launch = stored;
        launch.values = host->evaluateValues(rec.counterData[chunk], launch.range, rec.metrics);
        records.push_back(core::recordFromLaunch(profile, launch, rec.metrics, ceilings));
        if (!chunkNote[chunk].empty())
            records.back().note += (records.back().note.empty() ? "" : "; ") + chunkNote[chunk];
    }
    return records;
}

} // namespace roofline::cupti
