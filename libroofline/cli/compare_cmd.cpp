// `roofline compare A B`: kernels of two recordings matched, what changed from A to B.
#include "cli/commands.hpp"

#include "core/atomic_file.hpp"
#include "core/sampled_recording.hpp"
#include "report/compare.hpp"
#include "report/gate.hpp"
#include "report/roofline_chart.hpp"

#include <roofline/error.hpp>

#include <iostream>
#include <CLI/CLI.hpp>
#include <roofline/report.hpp>
#include <memory>

namespace roofline::cli {
namespace {

void describe(std::ostream& out, const char* which, const std::string& file, const Evaluated& e) {
    out << which << "  " << file << ": " << e.records.size() << " kernel records, "
        << e.recording.device.name << ", "
        << (e.sampled ? std::string("sampled (kernels per step)") : e.recording.createdUtc)
        << "; roofs " << e.ceilings.used.name << '\n';
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
    if (core::isSampledRecording(args.before) != core::isSampledRecording(args.after))
        throw Error(ErrorCode::InvalidArgument,
                    "'" + args.before + "' and '" + args.after +
                        "': one is a sampled job's recording, the other a replayed one -- their "
                        "values are not measured alike; compare sampled with sampled");
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

Command addCompare(CLI::App& app) {
    auto* compareCmd = app.add_subcommand(
        "compare", "match the kernels of two recordings and show what changed from A to B");
    const auto args = std::make_shared<CompareArgs>();
    CompareArgs& compare = *args;
    compareCmd->add_option("A", compare.before, "the baseline recording")->required();
    compareCmd->add_option("B", compare.after, "the recording compared with it")->required();
    compareCmd
        ->add_option("--by,--group-by", compare.by,
                     "match key: name+scope (default), kernel (numbered scopes merged: "
                     "Layer # for Layer 0..N), name, or scope (all kernels of a "
                     "scope together: use it when B runs other kernels, e.g. another "
                     "cuDNN engine at another batch size), op (framework operator), module or "
                     "module:DEPTH (module path)")
        ->check([](const std::string& v) { return groupByError(v, false); })
        ->capture_default_str();
    compareCmd->add_flag("--wide", compare.wide,
                         "never shorten kernel names or scope paths, keep every column");
    compareCmd->add_option("--top", compare.top, "rows by combined time (0: all)")
        ->check(CLI::Range(0, 100000000))
        ->capture_default_str();
    compareCmd->add_option("--chart", compare.chart,
                           "also draw both on the roofline, A to B joined: FILE.svg or FILE.html");
    compareCmd->add_option("--csv", compare.csv, "also write the comparison as CSV ('-': stdout)");
    compareCmd->add_option("--fail-if", compare.failIf,
                           "regression gate, repeatable: exit 3 when a matched group breaks the "
                           "rule -- time:+10% (its time up more than 10%), time:+50us, total:+5%, "
                           "roof:-5 (its share of its roof down more than 5 points), dram:+20%, "
                           "l2:+20%, l1:+20%, flops:+10%");
    compareCmd->add_option("--noise", compare.noise,
                           "another recording of A's configuration, repeatable: relative time "
                           "limits widen to twice each group's spread among A and these");
    compareCmd->add_option("--gate-min-share", compare.minSharePercent,
                           "groups under this % of A's time are not checked by --fail-if")
        ->check(CLI::Range(0.0, 100.0))
        ->capture_default_str();
    compareCmd->add_option("--summary", compare.summary,
                           "write the gate's verdict as Markdown (for a CI job to post; '-': "
                           "stdout)");
    compareCmd->add_option("--ceilings", compare.ceilings,
                           "roofs for both recordings from this file (roofline ceilings -o FILE); "
                           "'device': each GPU's own peak rates; 'datasheet': datasheet peaks "
                           "only");

    return {compareCmd, [args] { return cli::compare(*args); }};
}

} // namespace roofline::cli
