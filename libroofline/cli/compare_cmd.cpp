// `roofline compare A B`: kernels of two recordings matched, what changed from A to B.
#include "cli/commands.hpp"

#include "core/atomic_file.hpp"
#include "report/compare.hpp"
#include "report/gate.hpp"
#include "report/roofline_chart.hpp"

#include <roofline/error.hpp>

#include <iostream>

namespace roofline::cli {
namespace {

void describe(std::ostream& out, const char* which, const std::string& file, const Evaluated& e) {
    out << which << "  " << file << ": " << e.records.size() << " kernel records, "
        << e.recording.device.name << ", " << e.recording.createdUtc << "; roofs "
        << e.ceilings.used.name << '\n';
}

} // namespace

int compare(const CompareArgs& args) {
    report::GateOptions gate;
    for (const auto& rule : args.failIf) // a malformed rule is refused before any work
        gate.rules.push_back(report::parseGateRule(rule));
    gate.minShare = args.minSharePercent / 100.0;
    if (gate.rules.empty() && (!args.noise.empty() || !args.summary.empty()))
        throw Error(ErrorCode::InvalidArgument,
                    "--noise and --summary belong to the regression gate: give at least one "
                    "--fail-if rule");
    if (args.summary == "-" && args.csv == "-")
        throw Error(ErrorCode::InvalidArgument,
                    "--csv and --summary cannot both write to standard output ('-')");
    core::refuseOverwritingInputs(args.summary, "the summary", {args.before, args.after});
    core::refuseOverwritingInputs(args.csv, "the CSV", {args.before, args.after});
    core::refuseOverwritingInputs(args.chart, "the chart", {args.before, args.after});
    if (!args.chart.empty())
        report::checkChartPath(args.chart);
    // With the CSV on standard output, everything meant for people goes to standard error.
    std::ostream& human = args.csv == "-" || args.summary == "-" ? std::cerr : std::cout;
    const Evaluated a = evaluate(args.before, args.ceilings);
    const Evaluated b = evaluate(args.after, args.ceilings);
    describe(human, "A", args.before, a);
    describe(human, "B", args.after, b);
    if (a.records.empty() || b.records.empty()) {
        human << "nothing to compare: " << (a.records.empty() ? "A" : "B")
              << " holds no kernel records (no kernel ran inside a profiled scope)\n";
        if (!gate.rules.empty())
            throw Error(ErrorCode::InvalidState,
                        "the regression gate has nothing to check: " +
                            std::string(a.records.empty() ? "A" : "B") + " holds no kernel records");
        return 0;
    }
    for (const auto& file : args.noise)
        gate.repeats.push_back(
            cutModules(evaluate(file, args.ceilings).records, moduleDepthOf(args.by)));
    const report::Comparison c = report::compareRecords(
        cutModules(a.records, moduleDepthOf(args.by)),
        cutModules(b.records, moduleDepthOf(args.by)), report::parseGroupBy(args.by));
    human << '\n';
    report::CompareTableOptions table;
    table.wide = args.wide;
    report::printComparison(c, a.ceilings.used, b.ceilings.used, human, args.top, table);
    writeOutput(args.csv, "CSV", human, [&](std::ostream& out) {
        report::writeComparisonCsv(c, a.ceilings.used, b.ceilings.used, out);
    });
    int status = 0;
    if (!gate.rules.empty()) {
        const report::GateResult verdict =
            report::evaluateGate(c, a.ceilings.used, b.ceilings.used, gate);
        report::printGate(verdict, gate, human);
        if (!args.summary.empty())
            writeOutput(args.summary, "summary", human, [&](std::ostream& out) {
                report::writeGateMarkdown(verdict, gate, c, args.before, args.after, out);
            });
        status = verdict.passed() ? 0 : report::kGateFailedExit;
    }
    if (!args.chart.empty()) {
        const std::string subtitle = "A: " + args.before + "   B: " + args.after;
        const auto specs = report::comparisonCharts(c, b.ceilings.used, args.top, subtitle);
        if (specs.empty())
            human << "no chart written: no kernel of B has both measured time and "
                     "floating-point work\n";
        else
            for (const auto& file :
                 report::writeCharts(specs, args.chart, "roofline compare", subtitle))
                human << "wrote " << file << '\n';
    }
    return status;
}

} // namespace roofline::cli
