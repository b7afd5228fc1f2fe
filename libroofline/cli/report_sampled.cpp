// `roofline report FILE.rfs`: a sampled job's steps (docs/design/0029) -- the per-step table,
// its CSV and its chart.
#include "cli/commands.hpp"

#include "core/ceilings_file.hpp"
#include "core/recording.hpp"
#include "core/sampled_figures.hpp"
#include "core/sampled_recording.hpp"
#include "report/sampled_steps.hpp"

#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include <iostream>

namespace roofline::cli {

core::CeilingsChoice ceilingsFor(const core::SampledRecording& rec, const std::string& ceilings) {
    core::Recording device; // what the roofs are chosen by
    device.device = rec.header.device;
    return ceilingsFor(device, ceilings);
}

int reportSampled(const ReportArgs& args) {
    if (args.host || !args.hostCsv.empty())
        throw Error(ErrorCode::InvalidArgument,
                    "'" + args.file + "' is a sampled job's recording: its report is the steps' "
                    "table, --csv (steps), --json (kernels per step) and --chart (--host is a "
                    "replay recording's)");
    std::ostream& human = args.csv == "-" || args.json == "-" ? std::cerr : std::cout;
    const core::SampledRecording rec = core::readSampledRecording(args.file);
    const core::CeilingsChoice roofs = ceilingsFor(rec, args.ceilings);
    const core::SampledFigures figures = core::figuresOf(rec, roofs.used);
    const std::size_t rows =
        args.top == ReportArgs::kDefaultTop ? 40 : (args.top == 0 ? figures.steps.size() : args.top);
    human << "recording " << args.file << '\n';
    report::printSampledSteps(rec, figures, human, rows);
    // Per kernel signature, per step: every launch of every written step, the gaps between them.
    std::vector<KernelRecord> kernels = core::sampledRecords(rec, figures, roofs.used);
    if (!kernels.empty()) {
        human << "\nkernels per step (sampled: every launch of the " << figures.steps.size()
              << " steps written, by kernel and scope; FLOPs are estimates)\n";
        TableOptions table;
        table.sortBy = "time";
        table.maxRows = args.top == ReportArgs::kDefaultTop ? 25 : args.top;
        table.wide = args.wide;
        printTable(kernels, human, table);
    }
    writeOutput(args.csv, "CSV", human,
                [&](std::ostream& o) { report::writeSampledCsv(figures, o); });
    writeOutput(args.json, "JSON", human, [&](std::ostream& o) { writeJson(kernels, o); });
    writeOutput(args.chart, "chart", human,
                [&](std::ostream& o) { report::writeSampledChart(rec, figures, o); });
    return 0;
}

} // namespace roofline::cli
