#include "cudnn/cli_common.hpp"

#include "workloads/csv_rows.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#ifndef ROOFLINE_BENCH_CONFIG_DIR
#define ROOFLINE_BENCH_CONFIG_DIR "benchmarks/configs"
#endif

namespace roofline::bench {

namespace fs = std::filesystem;

void addCommonOptions(CLI::App& app, CommonCli& cli, bool withAlgo) {
    app.add_option("configs", cli.configs,
                   "workload files (CSV; roofline-conv also reads SEER's "
                   "one-line format)");
    app.add_option("--preset", cli.presets,
                   "bundled workload set(s) from benchmarks/configs "
                   "(see --list-presets)");
    app.add_option("--case", cli.specs,
                   "inline case as key=value pairs, lists with ';' (e.g. \"n=16;32 c=64 size=56 "
                   "k=64 kernel=3 pad=1\")");
    app.add_option("--batch", cli.batches,
                   "replace every case's batch size by each of these "
                   "(sweep)")
        ->delimiter(',');
    if (withAlgo)
        app.add_option("--algo", cli.algo,
                       "engine choice: heuristic (cuDNN's first suitable), exhaustive (time all, "
                       "keep the fastest), every (each engine its own case)")
            ->check(CLI::IsMember({"heuristic", "exhaustive", "every"}));
    app.add_option("--warmup", cli.settings.warmup, "untimed runs before timing")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--repeats", cli.settings.repeats, "CUDA-event timed runs (median reported)")
        ->check(CLI::PositiveNumber);
    app.add_option("--seed", cli.settings.seed, "seed of the random inputs");
    app.add_option("--tolerance", cli.settings.tolerance,
                   "accepted max|result-reference|/max|reference| (default: per precision)")
        ->check(CLI::PositiveNumber);
    app.add_option("--max-workspace", cli.maxWorkspaceMiB,
                   "largest workspace in MiB (default: free device memory)")
        ->check(CLI::PositiveNumber);
    app.add_flag("--no-verify", cli.noVerify, "skip the reference comparison");
    app.add_flag("--no-profile", cli.noProfile,
                 "time only: no libroofline session (no counters, no records)");
    app.add_option("--json", cli.outputs.json, "write cases with their kernel records as JSON");
    app.add_option("--csv", cli.outputs.csv,
                   "write one row per kernel record (case columns first)");
    app.add_option("--cases-csv", cli.outputs.casesCsv, "write one row per case");
    app.add_option("--seer-csv", cli.outputs.seerCsv,
                   "write the SEER data set: one row per verified 2D case and engine (use with "
                   "--algo every; roofline-seer fits it)");
    app.add_option("--plots", cli.outputs.plots,
                   "write PREFIX-layers.svg (time per layer, stacked by pass) and "
                   "PREFIX-timings.svg (violins of the timed runs per case and algorithm)");
    app.add_option("--record", cli.outputs.recording,
                   "save the libroofline recording (evaluate with roofline report)");
    app.add_option("--first", cli.first,
                   "run only the first N cases of the expanded list (a subset of a large set)")
        ->check(CLI::PositiveNumber);
    app.add_option("--time-limit", cli.settings.timeLimitSeconds,
                   "start no case after this many seconds; the outputs hold what ran (with "
                   "--resume, a long sweep in several runs)")
        ->check(CLI::PositiveNumber);
    app.add_flag("--quiet", cli.outputs.quiet, "no per-case progress lines");
    app.add_flag("--list", cli.list, "print the expanded cases and exit (no GPU needed)");
    app.add_flag("--list-presets", cli.listPresets, "print the bundled workload sets and exit");
}

bool finishCommonOptions(CommonCli& cli) {
    cli.settings.algo = cli.algo == "every"        ? AlgoMode::Every
                        : cli.algo == "exhaustive" ? AlgoMode::Exhaustive
                                                   : AlgoMode::Heuristic;
    cli.settings.verify = !cli.noVerify;
    cli.settings.maxWorkspace = static_cast<std::uint64_t>(cli.maxWorkspaceMiB * 1048576.0);
    cli.outputs.profile = !cli.noProfile;
    if (cli.listPresets)
        for (const auto& name : presetNames())
            std::cout << name << '\n';
    return cli.listPresets;
}

std::vector<std::string> presetNames() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(ROOFLINE_BENCH_CONFIG_DIR, ec))
        if (entry.path().extension() == ".csv" || entry.path().extension() == ".txt")
            names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string presetPath(const std::string& name) {
    if (fs::exists(name))
        return name;
    for (const char* ext : {".csv", ".txt"}) {
        const fs::path p = fs::path(ROOFLINE_BENCH_CONFIG_DIR) / (name + ext);
        if (fs::exists(p))
            return p.string();
    }
    std::string list;
    for (const auto& n : presetNames())
        list += (list.empty() ? "" : ", ") + n;
    throw workloads::WorkloadError("unknown preset '" + name + "' (bundled: " + list + ")");
}

} // namespace roofline::bench
