// `roofline report FILE`: evaluate a recording, print its kernels, write CSV/JSON/charts.
#include "cli/commands.hpp"
#include "report/roofline_chart.hpp"

#include "core/atomic_file.hpp"
#include "core/ceilings_file.hpp"
#include "core/metric_catalog.hpp"
#include "core/recording.hpp"
#include "core/sampled_figures.hpp"
#include "core/sampled_recording.hpp"
#include "core/roofline_model.hpp"
#include "cupti/evaluate.hpp"
#include "report/ceilings_table.hpp"
#include "report/columns.hpp"
#include "report/operators.hpp"
#include "report/ranks.hpp"
#include "report/recording_text.hpp"

#include <roofline/chart.hpp>
#include <roofline/report.hpp>

#include <roofline/error.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

namespace roofline::cli {

core::CeilingsChoice ceilingsFor(const core::Recording& rec, const std::string& ceilings) {
    const core::DeviceInfo& device = rec.device;
    core::CeilingsChoice choice;
    // The device's peaks are evaluated (a CUPTI host evaluation of the kept image) only where a
    // roof would otherwise come from the datasheet.
    const auto peaks = [&rec] { return cupti::devicePeakCeilings(rec, true); };
    if (ceilings.empty()) {
        choice = core::chooseCeilings(device);
        if (core::wantsDevicePeaks(choice))
            choice = core::chooseCeilings(device, peaks());
    } else if (ceilings == core::kDatasheetCeilings) {
        choice = core::datasheetChoice(device);
    } else if (ceilings == core::kDeviceCeilings) {
        choice = core::deviceChoice(device, peaks());
    } else {
        core::MeasuredCeilings m = core::loadCeilings(ceilings); // unreadable: an error
        if (!device.name.empty() && m.deviceName != device.name)
            std::cerr << "roofline: warning: --ceilings '" << ceilings << "' was measured on '"
                      << m.deviceName << "', the recording on '" << device.name
                      << "': its roofs are used as asked\n";
        choice = core::choiceWith(device, m, ceilings);
        if (core::wantsDevicePeaks(choice))
            choice = core::choiceWith(device, std::move(m), ceilings, peaks());
    }
    if (!choice.warning.empty())
        std::cerr << "roofline: warning: " << choice.warning << '\n';
    return choice;
}

Evaluated evaluate(const std::string& file, const std::string& ceilings) {
    Evaluated e;
    // A sampled job's recording: its device, and its kernels per step as records.
    std::optional<core::SampledRecording> sampled;
    if (core::isSampledRecording(file)) {
        sampled = core::readSampledRecording(file);
        e.recording.device = sampled->header.device;
        e.sampled = true;
    } else {
        e.recording = core::loadRecording(file);
    }
    e.ceilings = ceilingsFor(e.recording, ceilings);
    e.records = sampled ? core::sampledRecords(*sampled, e.ceilings.used)
                        : cupti::evaluateRecording(e.recording, e.ceilings.used);
    return e;
}

// "--name 'X'", "--scope 'Y'" or both, joined by `both`.
std::string filtersText(const ReportArgs& args, const char* both) {
    return (args.name.empty() ? "" : "--name '" + args.name + "'") +
           (args.name.empty() || args.scope.empty() ? "" : both) +
           (args.scope.empty() ? "" : "--scope '" + args.scope + "'");
}

const char* rowsDescription(GroupBy by) {
    switch (by) {
    case GroupBy::Kernel:
        return "each kernel per scope path, numbered scopes merged (Layer 0..N: Layer #)";
    case GroupBy::NameScope:
        return "each kernel per scope path";
    case GroupBy::Name:
        return "each kernel, all scopes together";
    case GroupBy::Scope:
        return "each scope path, all its kernels together";
    case GroupBy::Launch:
        return "one per launch";
    case GroupBy::Op:
        return "each framework operator (aten::addmm), backward kernels apart, under the "
               "operator they differentiate";
    case GroupBy::Module:
        return "each module path (encoder.layers.3.linear1; module:DEPTH cuts paths), forward "
               "and backward together";
    }
    return "";
}

// "PyTorch 2.11.0+cu130; autocast bfloat16; TF32: matmul off, cuDNN on".
std::string frameworkText(const std::map<std::string, std::string>& facts) {
    const auto get = [&](const char* key) { return report::factOf(facts, key); };
    std::string text = get("torch").empty() ? "" : "PyTorch " + get("torch");
    if (!get("autocast").empty())
        text += (text.empty() ? "" : "; ") + std::string("autocast ") + get("autocast");
    if (!get("tf32.matmul").empty() || !get("tf32.cudnn").empty())
        text += (text.empty() ? "" : "; ") + std::string("TF32: matmul ") +
                (get("tf32.matmul").empty() ? "?" : get("tf32.matmul")) + ", cuDNN " +
                (get("tf32.cudnn").empty() ? "?" : get("tf32.cudnn"));
    if (text.empty())
        for (const auto& [key, value] : facts)
            text += (text.empty() ? "" : "; ") + key + " " + value;
    return text;
}

bool hasOperators(const std::vector<KernelRecord>& records) {
    return std::any_of(records.begin(), records.end(),
                       [](const KernelRecord& r) { return !r.op.empty() || !r.module.empty(); });
}

std::string missingRoofNote(const Ceilings& c) {
    std::string missing;
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        if (!(c.bytesPerSecond[l] > 0))
            missing +=
                (missing.empty() ? "" : ", ") + std::string(toString(static_cast<MemoryLevel>(l)));
    if (missing.empty())
        return "";
    return "bound: no " + missing + " roof in '" + c.name +
           "' -- a kernel limited there shows its next roof instead; measure the roofs with "
           "`roofline ceilings` on the GPU and pass them with --ceilings FILE";
}

void writeOutput(const std::string& path, const char* what, std::ostream& human,
                 const std::function<void(std::ostream&)>& write) {
    if (path.empty())
        return;
    if (path == "-") {
        write(std::cout);
        std::cout.flush();
        return;
    }
    core::writeFileAtomically(path, write);
    human << "wrote " << what << ' ' << path << '\n';
}

namespace {

// Outputs that cannot be written are refused before any work: two on standard output, one over
// an input, a chart that is neither SVG nor HTML.
void checkOutputs(const ReportArgs& args) {
    if ((args.csv == "-") + (args.json == "-") + (args.hostCsv == "-") > 1)
        throw Error(ErrorCode::InvalidArgument,
                    "--csv, --json and --host-csv: only one of them can write to standard output "
                    "('-'); give the others a file path");
    for (const auto& [out, what] :
         {std::pair{args.csv, "the CSV"}, std::pair{args.json, "the JSON"},
          std::pair{args.chart, "the chart"}, std::pair{args.hostCsv, "the host CSV"}})
        core::refuseOverwritingInputs(out, what, {args.file});
    if (args.chart == "-")
        throw Error(ErrorCode::InvalidArgument,
                    "--chart needs a file path (FILE.svg or FILE.html), not '-'");
    if (!args.chart.empty())
        report::checkChartPath(args.chart); // before any work: out.png is refused, not renamed
}

// The recording's header: file, device, bytes, kernels, caches, coverage, process, framework,
// ceilings.
std::string headerText(const ReportArgs& args, const Evaluated& e,
                       const std::vector<KernelRecord>& records) {
    const core::Recording& rec = e.recording;
    const std::size_t measured = static_cast<std::size_t>(std::count_if(
        records.begin(), records.end(), [](const KernelRecord& r) { return r.measured; }));
    std::ostringstream header;
    header << "recording " << args.file << " (format v" << rec.version << ", libroofline "
           << rec.libraryVersion << ", " << rec.createdUtc << ")\n"
           << "device    " << rec.device.name << " (" << rec.chip << ", " << rec.device.smCount
           << " SMs), mode " << rec.mode << ", " << rec.metrics.size() << " metrics in "
           << rec.passes << " passes\n"
           << "bytes     " << rec.bytes << ": "
           << (rec.metrics.empty()
                   ? std::string("-")
                   : core::describeBytes(core::withBytes(
                         core::profileForChip(rec.chip),
                         rec.bytes == "ncu" ? ByteDefinition::Ncu : ByteDefinition::Nersc)))
           << "\n"
           << "kernels   " << records.size() << " launched in scopes, " << measured << " measured, "
           << rec.droppedRanges << " ranges dropped by CUPTI\n"
           << "caches    " << report::describeCaches(rec.cacheFlush) << "\n"
           << (rec.coverage.known ? "coverage  " + report::describe(rec.coverage) + "\n" : "")
           << (rec.process.pid != 0 ? "process   " + core::describe(rec.process) + "\n" : "")
           << (rec.framework.empty() ? "" : "framework " + frameworkText(rec.framework) + "\n")
           << "ceilings  " << e.ceilings.used.name << ": " << e.ceilings.used.source << "\n";
    return header.str();
}

// The kernel table of `records` grouped `by`, with the ranks' spread and the framework's
// operators after it.
void printKernels(const ReportArgs& args, const Evaluated& e,
                  const std::vector<KernelRecord>& records, GroupBy by, std::size_t top,
                  std::size_t width, std::ostream& human) {
    TableOptions table;
    table.maxRows = top;
    table.sortByTime = args.sortByTime;
    table.sortBy = args.sort.empty() && by != GroupBy::Launch ? "time" : args.sort;
    table.grouped = by != GroupBy::Launch;
    table.wide = args.wide;
    table.verbatimNames = report::frameworkRows(by);
    if (table.verbatimNames)
        table.nameHeader = by == GroupBy::Op ? "operator" : "module";
    else if (by == GroupBy::Scope) // one row per scope, named by its longest-running kernel
        table.nameHeader = "top kernel";
    const std::string missing = missingRoofNote(e.ceilings.used);
    if (!missing.empty())
        table.boundMark = "*";
    for (const auto& r : e.records) // "%time": of everything profiled, filtered or not
        table.totalSeconds += r.timeSeconds > 0 ? r.timeSeconds : 0;
    if (table.grouped)
        human << report::wrapLines(
            std::string("rows      ") + rowsDescription(by) +
                " (--group-by kernel|name+scope|name|scope|op|module[:DEPTH]|launch)\n",
            width);
    printTable(groupRecords(records, by, e.ceilings.used), human, table);
    if (!missing.empty())
        human << "  * " << missing << '\n';
    // A merged recording: each rank's time, and the kernels the slowest rank holds up.
    report::printRanks(records, by == GroupBy::Launch ? GroupBy::NameScope : by, human,
                       top == 0 ? 10 : top);
    if (by == GroupBy::Op)
        report::printTensorCoreUse(records, e.recording.framework, human, top);
    else if (by != GroupBy::Module && hasOperators(records))
        human << '\n'
              << report::wrapLines("framework operators and modules are recorded: --group-by "
                                   "op (with tensor-core use) or --group-by module[:DEPTH] "
                                   "sums them\n",
                                   width);
}

// `--host`: the host time of each scope, and libroofline's own share of the session.
void printHost(const ReportArgs& args, const core::Recording& rec, std::size_t top,
               std::size_t width, std::ostream& human) {
    human << "\nhost time per scope (" << rec.hostScopes.size() << " scope(s) and thread(s))\n";
    const std::size_t hostWidth = args.wide ? 100000 : report::terminalWidth();
    if (rec.sessionSeconds <= 0)
        human << report::wrapLines(
            "this recording has no host side: it was made before libroofline timed scopes "
            "on the host, or with ROOFLINE_HOST_TIMING=off\n",
            width);
    else
        printHostTable(rec.hostScopes, rec.hostRunSeconds, human, top, hostWidth);
    if (rec.profilerSeconds > 0) {
        char line[300];
        std::snprintf(line, sizeof line,
                      "session %.3f ms (start to stop), of which libroofline's measured work "
                      "on the application's threads %.3f ms; the shares' base %.3f ms\n",
                      rec.sessionSeconds * 1e3, rec.profilerSeconds * 1e3,
                      rec.hostRunSeconds * 1e3);
        human << report::wrapLines(line, width);
    }
}

// What the JSON says about the recording beside its records.
ReportContext reportContext(const ReportArgs& args, const Evaluated& e) {
    const core::Recording& rec = e.recording;
    ReportContext context;
    context.sessionSeconds = rec.sessionSeconds;
    context.profilerSeconds = rec.profilerSeconds;
    context.hostRunSeconds = rec.hostRunSeconds;
    context.hostScopes = rec.hostScopes;
    context.recording = args.file;
    context.device = rec.device.name;
    if (rec.process.pid != 0)
        context.process = core::describe(rec.process);
    context.chip = rec.chip;
    context.mode = rec.mode;
    context.passes = rec.passes;
    context.metrics = rec.metrics;
    context.ceilings = e.ceilings.used;
    context.bytes = rec.bytes;
    return context;
}

// `--chart FILE`: the roofline charts of `records`, and the files written.
void writeCharts(const ReportArgs& args, const Evaluated& e,
                 const std::vector<KernelRecord>& records, GroupBy by, std::ostream& human) {
    ChartOptions options;
    options.labels = args.labels;
    options.groupBy = by;
    options.hostScopes = e.recording.hostScopes;
    options.subtitle = args.file + " on " + e.recording.device.name +
                       "; roofs: " + e.ceilings.used.name + "; bytes: " + e.recording.bytes;
    const ChartFiles charts = writeRooflineChart(records, e.ceilings.used, args.chart, options);
    for (const auto& n : charts.notes)
        human << "chart: " << n << '\n';
    for (const auto& f : charts.files)
        human << "wrote " << f << '\n';
}

} // namespace

int report(const ReportArgs& args) {
    checkOutputs(args);
    if (core::isSampledRecording(args.file))
        return reportSampled(args);
    // With CSV or JSON on standard output, everything meant for people goes to standard error.
    std::ostream& human =
        args.csv == "-" || args.json == "-" || args.hostCsv == "-" ? std::cerr : std::cout;
    const GroupBy by = parseGroupBy(args.groupBy);
    const std::size_t top = args.top != ReportArgs::kDefaultTop ? args.top
                            : by == GroupBy::Launch             ? 0
                                                                : 25;
    const Evaluated e = evaluate(args.file, args.ceilings);
    const core::Recording& rec = e.recording;
    const bool filtered = !args.name.empty() || !args.scope.empty();
    const std::vector<KernelRecord> records =
        cutModules(filtered ? filterRecords(e.records, args.name, args.scope) : e.records,
                   moduleDepthOf(args.groupBy));
    // The header's lines fit the terminal as the table does (--wide: as they are).
    const std::size_t width = args.wide ? 0 : report::terminalWidth();
    human << report::wrapLines(headerText(args, e, records), width);
    if (!args.brief) {
        report::printCeilings(e.ceilings, human, false);
        if (rec.platform.cpu.threads > 0) {
            std::ostringstream platform;
            core::printPlatform(rec.platform, platform);
            human << report::wrapLines(platform.str(), width);
        }
    }
    human << '\n';
    if (filtered)
        human << "filter    " << records.size() << " of " << e.records.size() << " records ("
              << filtersText(args, " ") << ")\n\n";
    if (records.empty())
        human << (filtered ? "no record matches the filters; "
                           : "no kernels in this recording: no kernel ran inside a profiled scope "
                             "(check the NVTX filters and that the work ran between Session "
                             "start and stop); ")
              << "outputs asked for are written empty\n";
    else
        printKernels(args, e, records, by, top, width, human);
    if (args.host)
        printHost(args, rec, top, width, human);
    writeOutput(args.csv, "CSV", human, [&](std::ostream& o) { writeCsv(records, o); });
    writeOutput(args.hostCsv, "host CSV", human,
                [&](std::ostream& o) { writeHostCsv(rec.hostScopes, rec.hostRunSeconds, o); });
    writeOutput(args.json, "JSON", human,
                [&](std::ostream& o) { writeJson(records, o, reportContext(args, e)); });
    if (!args.chart.empty())
        writeCharts(args, e, records, by, human);
    if (filtered && records.empty() && !e.records.empty()) {
        // On standard error whatever went to standard output, and a status a script can test.
        std::cerr << "roofline report: no record matches " << filtersText(args, " and ") << " (of "
                  << e.records.size() << "; a first one is " << e.records.front().name << " in '"
                  << e.records.front().scopePath << "')\n";
        return 1;
    }
    return 0;
}

std::string groupByError(const std::string& value, bool launch) {
    try {
        if (parseGroupBy(value) == GroupBy::Launch && !launch)
            return "launch is no match key";
        return "";
    } catch (const std::exception& e) {
        return e.what();
    }
}

Command addReport(CLI::App& app) {
    auto* reportCmd = app.add_subcommand("report", "evaluate a recording and print its kernels");
    const auto args = std::make_shared<ReportArgs>();
    ReportArgs& report = *args;
    reportCmd->add_option("file", report.file, "recording written by Session::save()")->required();
    reportCmd->add_option("--csv", report.csv,
                          "also write all records as CSV (FILE, or - for standard output: the "
                          "table then goes to standard error)");
    reportCmd->add_option("--json", report.json,
                          "also write all records as JSON (FILE, or - for standard output)");
    reportCmd->add_flag("--brief", report.brief,
                        "a short header (recording, device, coverage, roofs' source) instead of "
                        "the roofs table and the platform");
    reportCmd->add_option(
        "--chart", report.chart,
        "also draw the hierarchical roofline: FILE.html (every chart in one page, "
        "with hover details) or FILE.svg (one file per precision family drawn: "
        "FILE-fp64.svg, FILE-fp32.svg, FILE-fp16.svg, FILE-tensor.svg; FILE.svg "
        "itself when only one is); other extensions are refused");
    reportCmd->add_option("--labels", report.labels, "label the N kernels with most time (chart)")
        ->check(CLI::Range(0, 50))
        ->capture_default_str();
    reportCmd
        ->add_option("--top", report.top,
                     "show only the N rows with most time, the rest summed in one line (0: all; "
                     "default 25, all with --group-by launch)")
        ->check(CLI::Range(0, 100000000));
    reportCmd
        ->add_option("--group-by", report.groupBy,
                     "rows of the table: kernel (every launch of a kernel in a scope path, the "
                     "numbered instances of every scope level merged: Layer 0..11 -> Layer #), "
                     "name+scope (numbered scopes kept apart), name, scope, op (framework "
                     "operator: aten::addmm; with a tensor-core summary), module (module path: "
                     "encoder.layers.3.linear1), module:DEPTH (paths cut after DEPTH names), or "
                     "launch (one row per launch)")
        ->check([](const std::string& v) { return groupByError(v, true); })
        ->capture_default_str();
    reportCmd->add_option("--name", report.name,
                          "only kernels whose name contains TEXT (or matches regex:PATTERN)");
    reportCmd->add_option("--scope", report.scope,
                          "only kernels whose scope path contains TEXT (or matches regex:PATTERN)");
    reportCmd
        ->add_option("--sort", report.sort,
                     "table column, largest first: time, mean, launches, share, flops, rate, "
                     "ai_l1, ai_l2, ai_dram; or name, scope (default: time for groups, launch "
                     "order for --group-by launch)")
        ->check(CLI::IsMember({"time", "mean", "launches", "share", "flops", "rate", "ai_l1",
                               "ai_l2", "ai_dram", "name", "scope"}));
    reportCmd->add_option("--ceilings", report.ceilings,
                          "roofs from this file (roofline ceilings -o FILE) instead of the cache, "
                          "the bundled roofs or $ROOFLINE_CEILINGS; 'device': the GPU's own peak "
                          "rates from the recording's counters; 'datasheet': datasheet peaks only "
                          "(default: measured roofs where known, device peaks, then datasheet)");
    reportCmd->add_flag("--sort-time", report.sortByTime, "largest time first (--sort time)");
    reportCmd->add_flag("--host", report.host,
                        "also print the host side: wall and CPU time per scope (self, total, % "
                        "of the run, per call) beside its kernels' GPU time");
    reportCmd->add_option("--host-csv", report.hostCsv, "write the host time per scope as CSV");
    reportCmd->add_flag("--wide", report.wide,
                        "never shorten names (default: fit the terminal width, $COLUMNS)");

    return {reportCmd, [args] { return cli::report(*args); }};
}

} // namespace roofline::cli
