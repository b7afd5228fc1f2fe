// Fuzz target: the recording reader (core::readRecording) and, for recordings that store their
// values (format v2), turning them into records and every report output. v1 recordings' raw
// images go to CUPTI in a child process (cupti/evaluate.cpp), which this target does not run.
#include "core/metric_catalog.hpp"
#include "core/recording.hpp"

#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
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
