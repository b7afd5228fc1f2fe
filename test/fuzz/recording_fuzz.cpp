// Fuzz target: the recording reader (core::readRecording) and, for recordings that store their
// values (format v2), turning them into records and every report output; and the sampled job's
// streamed recording (core::readSampledRecording) on the same input. v1 recordings' raw
// images go to CUPTI in a child process (cupti/evaluate.cpp), which this target does not run.
#include "core/metric_catalog.hpp"
#include "core/recording.hpp"
#include "core/sampled_recording.hpp"

#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>

namespace {

// Every value of every batch read (a reader that returned a recording returns a walkable one).
void readSampled(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        const core::SampledRecording rec = core::readSampledRecording(in, "fuzz input");
        double sum = 0;
        for (const auto& b : rec.batches) {
            for (const auto& s : b.steps)
                for (std::size_t m = 0; m < rec.header.counters.size(); ++m)
                    sum += s.values.at(m) + s.between.at(m);
            for (const auto& l : b.launches)
                for (std::size_t m = 0; m < rec.header.counters.size(); ++m)
                    sum += l.values.at(m);
        }
        (void)sum;
    } catch (const Error&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    readSampled(data, size);
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        const core::Recording rec = core::readRecording(in, "fuzz input");
        if (rec.version < 2 || rec.metrics.empty())
            return 0;
        const core::ChipProfile& profile = core::profileForChip(rec.chip);
        Ceilings ceilings;
        ceilings.bytesPerSecond = {1e13, 1e13, 3e12};
        ceilings.flopsPerSecond.fill(1e14);
        std::vector<KernelRecord> records;
        for (const auto& l : rec.launches)
            records.push_back(l.values.size() == rec.metrics.size()
                                  ? core::recordFromLaunch(profile, l, rec.metrics, ceilings)
                                  : core::unmeasuredRecord(l, "no values"));
        std::ostringstream out;
        TableOptions table;
        table.width = 120;
        printTable(records, out, table);
        table.grouped = true;
        printTable(groupRecords(records, GroupBy::NameScope, ceilings), out, table);
        writeCsv(records, out);
        writeJson(records, out);
    } catch (const Error&) {
        // a clear error is the expected outcome for damaged input
    }
    return 0;
}
