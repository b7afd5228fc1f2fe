// `roofline report FILE`: evaluate a recording, print its kernels, write CSV/JSON/charts.
#include "cli/commands.hpp"

#include "core/ceilings_file.hpp"
#include "core/recording.hpp"
#include "cupti/evaluate.hpp"
#include "report/ceilings_table.hpp"

#include <roofline/chart.hpp>
#include <roofline/report.hpp>

#include <iostream>

namespace roofline::cli {

Evaluated evaluate(const std::string& file) {
    Evaluated e;
    e.recording = core::loadRecording(file);
    e.ceilings = core::chooseCeilings(e.recording.device);
    if (!e.ceilings.warning.empty())
        std::cerr << "roofline: warning: " << e.ceilings.warning << '\n';
    e.records = cupti::evaluateRecording(e.recording, e.ceilings.used);
    return e;
}

int report(const ReportArgs& args) {
    const Evaluated e = evaluate(args.file);
    const core::Recording& rec = e.recording;
    const auto& records = e.records;
    std::size_t measured = 0;
    for (const auto& r : records)
        measured += r.measured ? 1 : 0;
    std::cout << "recording " << args.file << " (format v" << rec.version << ", libroofline "
              << rec.libraryVersion << ", " << rec.createdUtc << ")\n"
              << "device    " << rec.device.name << " (" << rec.chip << ", " << rec.device.smCount
              << " SMs), mode " << rec.mode << ", " << rec.metrics.size() << " metrics in "
              << rec.passes << " passes\n"
              << "kernels   " << records.size() << " launched in scopes, " << measured
              << " measured, " << rec.droppedRanges << " ranges dropped by CUPTI\n"
              << (rec.coverage.known ? "coverage  " + core::describe(rec.coverage) + "\n" : "")
              << "ceilings  " << e.ceilings.used.name << ": " << e.ceilings.used.source << "\n";
    report::printCeilings(e.ceilings, std::cout, false);
    std::cout << '\n';
    if (records.empty()) {
        std::cout << "no kernels in this recording: no kernel ran inside a profiled scope (check "
                     "the NVTX filters and that the work ran between Session start and stop)\n";
        return 0;
    }
    printTable(records, std::cout, {args.top, args.sortByTime});
    if (!args.csv.empty())
        writeCsv(records, args.csv), std::cout << "wrote " << args.csv << '\n';
    if (!args.json.empty())
        writeJson(records, args.json), std::cout << "wrote " << args.json << '\n';
    if (!args.chart.empty()) {
        ChartOptions options;
        options.labels = args.labels;
        options.subtitle =
            args.file + " on " + rec.device.name + "; roofs: " + e.ceilings.used.name;
        const ChartFiles charts = writeRooflineChart(records, e.ceilings.used, args.chart, options);
        for (const auto& n : charts.notes)
            std::cout << "chart: " << n << '\n';
        for (const auto& f : charts.files)
            std::cout << "wrote " << f << '\n';
    }
    return 0;
}

} // namespace roofline::cli
