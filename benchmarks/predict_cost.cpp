// roofline-bench-predict: does the cost model explain what a profile costs? It runs a program
// plain and under `roofline run` (no flags) in alternating pairs, reads each profiled run's counts
// from the session's cost line (profiler objects, passes, range-passes), predicts its cost from
// the machine's parts (core/cost_model.hpp; `roofline-bench-pass-cost --parts FILE` measures
// them), and prints the prediction beside the measured cost: the profiled run's wall time above
// the plain run's. Medians over the pairs; the verdict is whether they agree within 25 %.
//
//   roofline-bench-predict --parts FILE [--pairs N] [--roofline-cli PATH] [--out DIR]
//                          [--timeout S] -- PROGRAM [ARGS...]
#include "core/cost_model.hpp"

#include "bench_helpers.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace core = roofline::core;
using bench_helpers::median;
using bench_helpers::shellQuoted;

std::string readFile(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// `roofline` beside this benchmark's build tree, else on the PATH.
std::string defaultCli(const char* argv0) {
    const fs::path here = fs::absolute(argv0).parent_path();
    for (const fs::path& p : {here / "../libroofline/roofline", here / "roofline"})
        if (fs::exists(p))
            return fs::canonical(p).string();
    return "roofline";
}

} // namespace

static int run(int argc, char** argv) {
    CLI::App app{"What a profile costs, predicted and measured, in alternating pairs"};
    std::string partsFile, cli = defaultCli(argv[0]), out = "roofline-predict";
    int pairs = 5, timeoutS = 600;
    std::vector<std::string> program;
    app.add_option("--parts", partsFile, "the machine's parts (roofline-bench-pass-cost --parts)")
        ->required();
    app.add_option("--pairs", pairs, "plain/profiled pairs")->check(CLI::Range(1, 50));
    app.add_option("--roofline-cli", cli, "the roofline command");
    app.add_option("--out", out, "where logs and recordings go");
    app.add_option("--timeout", timeoutS, "seconds each run may take")->check(CLI::Range(1, 86400));
    app.add_option("program", program, "the program and its arguments (after --)")->required();
    app.allow_extras(false);
    CLI11_PARSE(app, argc, argv);
    const core::CostParts parts = core::costPartsFromJson(readFile(partsFile), partsFile);
    fs::create_directories(out);
    std::string command;
    for (const std::string& a : program)
        command += (command.empty() ? "" : " ") + shellQuoted(a);
    std::printf("parts (%s, %s set; ms): set-up %.1f; an object %.1f + %.3f per image range, the "
                "process's first %.1f more; pass %.2f, range %.3f\n",
                parts.chip.c_str(), parts.metrics.c_str(), parts.setupMs, parts.objectMs,
                parts.objectRangeMs, parts.firstObjectMs, parts.passMs, parts.rangeMs);
    std::printf("%4s %8s %9s %9s | %7s %6s %6s %12s | %9s %9s %9s %9s %10s | %6s\n", "pair",
                "plain s", "profiled", "cost ms", "objects", "ranges", "passes", "range-passes",
                "set-up", "objects", "passes", "ranges", "predicted", "ratio");
    std::vector<double> measured, predicted, plainS, profiledS;
    for (int i = 0; i < pairs; ++i) {
        const auto plain = bench_helpers::runChild(
            command, (fs::path(out) / ("plain" + std::to_string(i) + ".log")).string(), timeoutS);
        const fs::path rfl = fs::path(out) / ("profiled" + std::to_string(i) + ".rfl");
        const auto prof = bench_helpers::runChild(
            "env ROOFLINE_LOG_LEVEL=info " + shellQuoted(cli) + " run -o " +
                shellQuoted(rfl.string()) + " -- " + command,
            (fs::path(out) / ("profiled" + std::to_string(i) + ".log")).string(), timeoutS);
        core::CostCounts c;
        if (plain.rc != 0 || prof.rc != 0 || !core::countsFromCostLine(prof.out, c)) {
            std::printf("%4d plain rc %d, profiled rc %d%s: see %s\n", i, plain.rc, prof.rc,
                        prof.rc == 0 ? ", no cost line" : "", out.c_str());
            continue;
        }
        const core::CostPrediction p = core::predictCost(parts, c);
        const double cost = (prof.wallMs - plain.wallMs);
        measured.push_back(cost);
        predicted.push_back(p.total());
        plainS.push_back(plain.wallMs / 1e3);
        profiledS.push_back(prof.wallMs / 1e3);
        std::printf("%4d %8.2f %9.2f %9.0f | %7zu %6zu %6zu %12zu | %9.0f %9.0f %9.0f %9.0f "
                    "%10.0f | %6.2f\n",
                    i, plain.wallMs / 1e3, prof.wallMs / 1e3, cost, c.objects, c.objectRanges, c.passes,
                    c.rangePasses,
                    p.setupMs, p.objectsMs, p.passesMs, p.rangesMs, p.total(),
                    cost > 0 ? p.total() / cost : 0.0);
        std::fflush(stdout);
    }
    if (measured.empty()) {
        std::printf("no pair completed\n");
        return 1;
    }
    // The measured cost: the median profiled run above the median plain run (a pair's own
    // difference carries both runs' noise).
    const double m = (median(profiledS) - median(plainS)) * 1e3, p = median(predicted);
    const double ratio = m > 0 ? p / m : 0;
    std::printf("medians: plain %.2f s, profiled %.2f s: measured %.0f ms (pairs' median %.0f), "
                "predicted %.0f ms, predicted/measured %.2f: %s\n",
                median(plainS), median(profiledS), m, median(measured), p, ratio,
                std::abs(ratio - 1) <= 0.25 ? "within 25 %" : "NOT within 25 %");
    return 0;
}

int main(int argc, char** argv) {
    return bench_helpers::guardedMain("roofline-bench-predict", run, argc, argv);
}
