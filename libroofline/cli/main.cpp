// The `roofline` command: metric sets per chip, offline evaluation of recordings, charts and
// comparisons (no GPU needed), and `roofline ceilings` (measures the GPU it runs on).
#include "cli/commands.hpp"
#include "core/metric_catalog.hpp"
#include "cupti/host.hpp"
#include "cupti/platform.hpp"

#include <roofline/error.hpp>
#include <roofline/report.hpp>
#include <roofline/version.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace {

using namespace roofline;

int listChips() {
    const auto supported = cupti::Host::supportedChips();
    std::cout << "chip     family      CUPTI  validation\n";
    for (const auto& p : core::chipProfiles())
        for (const auto& chip : p.chips) {
            const bool ok = std::find(supported.begin(), supported.end(), chip) != supported.end();
            std::printf("%-8s %-11s %-6s %s\n", chip.c_str(), p.family.c_str(), ok ? "yes" : "no",
                        p.validation.c_str());
        }
    return 0;
}

int metrics(const std::string& chip, bool json) {
    const core::ChipProfile& profile = core::profileForChip(chip);
    const cupti::Host host(chip);
    const auto names = core::requiredMetrics(profile);
    const cupti::ConfigImage config = host.configImage(names);
    if (json) {
        nlohmann::json j = {{"chip", chip},
                            {"family", profile.family},
                            {"passes", config.passes},
                            {"validation", profile.validation}};
        for (const auto& n : names) {
            const auto p = host.properties(n);
            j["metrics"].push_back({{"name", n},
                                    {"type", p.type},
                                    {"unit", p.dimension},
                                    {"description", p.description}});
        }
        j["formulas"]["time_s"] = profile.cyclesMetric + " / " + profile.cycleRateMetric;
        j["formulas"]["gpu_duration_s"] = "1e-9 x " + profile.durationMetric;
        for (std::size_t k = 0; k < kFlopKindCount; ++k)
            j["formulas"]["flops_" + std::string(toString(static_cast<FlopKind>(k)))] =
                core::describe(profile.flops[k]);
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
            j["formulas"]["bytes_" + std::string(toString(static_cast<MemoryLevel>(l)))] =
                core::describe(profile.bytes[l]);
        if (!profile.dramReadMetric.empty()) {
            j["raw"]["dram_read_bytes"] = profile.dramReadMetric;
            j["raw"]["dram_write_bytes"] = profile.dramWriteMetric;
        }
        std::cout << j.dump(2) << '\n';
        return 0;
    }
    std::cout << "chip " << chip << " (" << profile.family << "): " << names.size() << " metrics, "
              << config.passes << " passes per profiled range\n"
              << "validation: " << profile.validation << "\n\nmetrics:\n";
    for (const auto& n : names) {
        const auto p = host.properties(n);
        std::printf("  %-52s %-10s %s\n", n.c_str(), p.dimension.c_str(), p.description.c_str());
    }
    std::cout << "\nformulas:\n";
    std::printf("  %-12s = %s / %s\n", "time_s", profile.cyclesMetric.c_str(),
                profile.cycleRateMetric.c_str());
    std::printf("  %-12s = 1e-9 x %s\n", "duration_s", profile.durationMetric.c_str());
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        std::printf("  %-12s = %s\n", std::string(toString(static_cast<FlopKind>(k))).c_str(),
                    core::describe(profile.flops[k]).c_str());
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        std::printf("  %-12s = %s\n",
                    ("bytes_" + std::string(toString(static_cast<MemoryLevel>(l)))).c_str(),
                    core::describe(profile.bytes[l]).c_str());
    if (!profile.dramReadMetric.empty())
        std::printf(
            "\nraw, beside the formulas (each record's metrics; roofline-conv --seer-csv):\n"
            "  %-16s = %s\n  %-16s = %s (their sum is bytes_DRAM)\n",
            "dram_read_bytes", profile.dramReadMetric.c_str(), "dram_write_bytes",
            profile.dramWriteMetric.c_str());
    return 0;
}

// Every usage error exits with 2 and names what was wrong (CLI11's own codes are 100+).
int usageError(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    if (argc > 1 && argv[1][0] != '-') {
        const std::string word = argv[1];
        bool known = false;
        std::string commands;
        for (const CLI::App* sub : app.get_subcommands({})) {
            known = known || sub->get_name() == word;
            commands += (commands.empty() ? "" : ", ") + sub->get_name();
        }
        if (!known) {
            std::cerr << "roofline: unknown command '" << word << "' (commands: " << commands
                      << "; roofline --help)\n";
            return 2;
        }
    }
    std::cerr << "roofline: usage error: " << e.what() << " (roofline "
              << (argc > 1 && argv[1][0] != '-' ? std::string(argv[1]) + " " : std::string())
              << "--help)\n";
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"roofline " ROOFLINE_VERSION_STRING
                 ": hierarchical-roofline metrics, ceilings, reports, charts and comparisons"};
    app.require_subcommand(1);
    app.set_version_flag("--version", ROOFLINE_VERSION_STRING);

    auto* metricsCmd = app.add_subcommand("metrics", "the metric set, formulas and pass count");
    std::string chip;
    bool listChipsFlag = false, jsonOut = false;
    metricsCmd->add_option("--chip", chip, "CUPTI chip name, e.g. GH100 (H100), GA100, GV100");
    metricsCmd->add_flag("--list-chips", listChipsFlag, "chips in the catalog and their status");
    metricsCmd->add_flag("--json", jsonOut, "machine-readable output");

    auto* reportCmd = app.add_subcommand("report", "evaluate a recording and print its kernels");
    cli::ReportArgs report;
    reportCmd->add_option("file", report.file, "recording written by Session::save()")->required();
    reportCmd->add_option("--csv", report.csv,
                          "also write all records as CSV (FILE, or - for standard output: the "
                          "table then goes to standard error)");
    reportCmd->add_option("--json", report.json,
                          "also write all records as JSON (FILE, or - for standard output)");
    reportCmd->add_flag("--brief", report.brief,
                        "a short header (recording, device, coverage, roofs' source) instead of "
                        "the roofs table and the platform");
    reportCmd->add_option("--chart", report.chart,
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
        ->check([](const std::string& v) {
            try {
                parseGroupBy(v);
                return std::string();
            } catch (const std::exception& e) {
                return std::string(e.what());
            }
        })
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

    auto* compareCmd = app.add_subcommand(
        "compare", "match the kernels of two recordings and show what changed from A to B");
    cli::CompareArgs compare;
    compareCmd->add_option("A", compare.before, "the baseline recording")->required();
    compareCmd->add_option("B", compare.after, "the recording compared with it")->required();
    compareCmd
        ->add_option("--by,--group-by", compare.by,
                     "match key: name+scope (default), kernel (numbered scopes merged: "
                     "Layer # for Layer 0..N), name, or scope (all kernels of a "
                     "scope together: use it when B runs other kernels, e.g. another "
                     "cuDNN engine at another batch size), op (framework operator), module or "
                     "module:DEPTH (module path)")
        ->check([](const std::string& v) {
            try {
                if (parseGroupBy(v) == GroupBy::Launch)
                    return std::string("launch is no match key");
                return std::string();
            } catch (const std::exception& e) {
                return std::string(e.what());
            }
        })
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

    auto* mergeCmd = app.add_subcommand(
        "merge", "merge per-rank recordings of one job (torchrun, mpirun, Slurm) into one, each "
                 "launch with its rank");
    cli::MergeArgs merge;
    mergeCmd->add_option("recordings", merge.inputs, "the recordings, one per rank")
        ->required()
        ->expected(2, 1 << 20);
    mergeCmd->add_option("--output,-o", merge.output, "the merged recording to write")->required();

    auto* runCmd = app.add_subcommand(
        "run", "profile an unmodified program (C++ or python3 ...): every process of it that "
               "launches a CUDA kernel saves its own recording at exit");
    cli::RunArgs run;
    // Each option is one ROOFLINE_* variable of the profiled processes (docs/configuration.md).
    struct RunOption {
        const char* flag;
        const char* variable;
        const char* help;
    };
    static const RunOption kRunOptions[] = {
        {"--mode", "ROOFLINE_MODE", "iteration | kernel | scope (default iteration)"},
        {"--metrics", "ROOFLINE_METRICS", "full | core | memory | time"},
        {"--bytes", "ROOFLINE_BYTES", "nersc | ncu: the L1/L2 byte counters"},
        {"--device", "ROOFLINE_DEVICE",
         "CUDA device ordinal, -1 every device (default: the one the process launches on)"},
        {"--output,-o", "ROOFLINE_OUTPUT",
         "recording path pattern: %p pid, %h host, %r rank, %q{VAR}, %% (default "
         "roofline-rank%r.rfl under a launcher, roofline-%h-%p.rfl otherwise)"},
        {"--ranges-per-image", "ROOFLINE_RANGES_PER_IMAGE", "ranges per counter-data image"},
        {"--iteration-range", "ROOFLINE_ITERATION_RANGE",
         "the NVTX range whose instances are the iterations (default: the outermost)"},
        {"--iterations-per-pass", "ROOFLINE_ITERATIONS_PER_PASS", "iterations one pass spans"},
        {"--scope-levels", "ROOFLINE_SCOPE_LEVELS", "scope replay: nesting levels measured"},
        {"--nvtx-include", "ROOFLINE_NVTX_INCLUDE",
         "NVTX include filters (Nsight Compute syntax; "
         "several separated by ';')"},
        {"--nvtx-exclude", "ROOFLINE_NVTX_EXCLUDE", "NVTX exclude filters"},
        {"--kernel-name", "ROOFLINE_KERNEL_NAME", "kernel name or regex:PATTERN"},
        {"--launch-skip", "ROOFLINE_LAUNCH_SKIP", "admitted launches to skip first"},
        {"--launch-count", "ROOFLINE_LAUNCH_COUNT", "admitted launches to profile (0: all)"},
        {"--cache-flush", "ROOFLINE_CACHE_FLUSH", "auto | on | off | kernel"},
        {"--nvtx", "ROOFLINE_NVTX", "1 | 0: listen to the program's NVTX ranges"},
        {"--push-pop-scope", "ROOFLINE_PUSH_POP_SCOPE",
         "process (default under run) | thread: whose open ranges a launch belongs to"},
        {"--first-iteration", "ROOFLINE_FIRST_ITERATION", "skip | skip-if-different | measure"},
        {"--host-timing", "ROOFLINE_HOST_TIMING",
         "cpu | wall | off: host time per scope (cpu adds the thread CPU clock)"},
        {"--align-passes", "ROOFLINE_ALIGN_PASSES", "auto | on | off"},
        {"--tensor-counters", "ROOFLINE_TENSOR_COUNTERS", "detect | all"},
        {"--keep-images", "ROOFLINE_KEEP_IMAGES", "MiB of raw counter-data images to keep"},
        {"--reuse", "ROOFLINE_REUSE", "samples per repeated launch signature, 0: every launch"},
        {"--graph-nodes", "ROOFLINE_GRAPH_NODES",
         "1 | 0: while measuring, CUDA graph launches run as their nodes, so graph kernels get "
         "counters (default 1)"},
        {"--share-ranks", "ROOFLINE_SHARE_RANKS",
         "1 | 0: data-parallel ranks each measure a share of the launches; roofline merge "
         "assembles the whole profile (default 0)"},
        {"--log-level", "ROOFLINE_LOG_LEVEL", "warn | info | debug"},
    };
    std::vector<std::string> runValues(std::size(kRunOptions));
    for (std::size_t i = 0; i < std::size(kRunOptions); ++i)
        runCmd->add_option(kRunOptions[i].flag, runValues[i],
                           std::string(kRunOptions[i].help) + " [" + kRunOptions[i].variable + "]");
    bool timingOnly = false;
    runCmd->add_flag("--timing-only", timingOnly,
                     "kernel names, scopes and durations, no counters [ROOFLINE_TIMING_ONLY=1]");
    runCmd->add_option("--library", run.library,
                       "libroofline.so to inject (default: ROOFLINE_LIBRARY, or the one beside "
                       "this roofline)");
    runCmd->add_flag("--dry-run", run.dryRun, "print the environment and command, run nothing");
    runCmd->add_option("command", run.command, "the program and its arguments (after --)")
        ->required();
    runCmd->positionals_at_end();

    auto* ceilingsCmd = app.add_subcommand(
        "ceilings", "measure this GPU's roofs with microbenchmarks and cache them (needs a GPU)");
    cli::CeilingsArgs ceilings;
    ceilingsCmd->add_option("--device", ceilings.device, "CUDA device ordinal")
        ->check(CLI::Range(0, 1023))
        ->capture_default_str();
    ceilingsCmd->add_flag("--quick", ceilings.quick,
                          "a few launch shapes per roof (seconds): lower bounds of the full sweep");
    ceilingsCmd->add_option("--output,-o", ceilings.output,
                            "write here instead of the cache file (with --show: print this file)");
    ceilingsCmd->add_flag("!--no-save", ceilings.save, "measure and print, write nothing");
    ceilingsCmd->add_flag("--show", ceilings.show,
                          "print cached ceilings without measuring (no GPU needed)");

    auto* platformCmd = app.add_subcommand(
        "platform", "the host CPU (ISA, cores, NUMA), thread settings, GPUs, driver and library "
                    "versions, and whether counters may be read (no GPU needed)");
    bool platformJson = false;
    platformCmd->add_flag("--json", platformJson, "machine-readable output");

    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) { // --help, --version
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return usageError(app, e, argc, argv);
    }
    try {
        if (metricsCmd->parsed()) {
            if (listChipsFlag)
                return listChips();
            if (chip.empty()) {
                std::cerr << "roofline metrics: give --chip NAME (or --list-chips)\n";
                return 2;
            }
            return metrics(chip, jsonOut);
        }
        if (ceilingsCmd->parsed())
            return cli::ceilings(ceilings);
        if (platformCmd->parsed()) {
            const core::Platform p = cupti::readPlatform(true);
            if (platformJson)
                std::cout << core::toJsonText(p) << '\n';
            else
                core::printPlatform(p, std::cout);
            return 0;
        }
        if (compareCmd->parsed())
            return cli::compare(compare);
        if (mergeCmd->parsed())
            return cli::merge(merge);
        if (runCmd->parsed()) {
            for (std::size_t i = 0; i < runValues.size(); ++i)
                if (!runValues[i].empty())
                    run.variables.emplace_back(kRunOptions[i].variable, runValues[i]);
            if (timingOnly)
                run.variables.emplace_back("ROOFLINE_TIMING_ONLY", "1");
            return cli::run(run); // returns only when the command could not be run
        }
        return cli::report(report);
    } catch (const Error& e) {
        std::cerr << "roofline: error [" << toString(e.code()) << "]: " << e.what() << '\n';
        return e.code() == ErrorCode::InvalidArgument ? 2 : 1; // a usage error
    } catch (const std::exception& e) {
        std::cerr << "roofline: error: " << e.what() << '\n';
        return 1;
    }
}
