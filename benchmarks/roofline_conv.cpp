// roofline-conv: cuDNN convolutions (2D and 3D; forward, backward-data, backward-filter) as
// benchmark cases, each verified against a reference, timed with CUDA events and profiled with
// libroofline (one hierarchical-roofline record per kernel). docs/benchmarks.md has the guide.

#include "cudnn/cli_common.hpp"
#include "cudnn/conv_runner.hpp"
#include "seer/cases.hpp"
#include "workloads/conv_case.hpp"
#include "workloads/csv_rows.hpp"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>

using namespace roofline;
using workloads::ConvCase;

namespace {

// What the command line gave beside the options every sweep shares.
struct ConvArgs {
    std::string precisions = "fp32", layouts = "nchw", passes = "all";
    bool seerOnly = false;
};

void defineOptions(CLI::App& app, bench::CommonCli& cli, ConvArgs& a) {
    bench::addCommonOptions(app, cli, true);
    app.add_option("--precision", a.precisions,
                   "fp32, tf32, fp16, bf16 (comma list) for cases whose file sets none");
    app.add_option("--layout", a.layouts, "nchw/nhwc (ncdhw/ndhwc in 3D), comma list");
    app.add_option("--pass", a.passes, "fwd, bwd-data, bwd-filter or all (comma list)");
    app.add_option("--engines", cli.settings.engines,
                   "with --algo every: only these cuDNN engines (global indices, comma list; "
                   "cases list which engines passed)")
        ->delimiter(',')
        ->check(CLI::NonNegativeNumber);
    app.add_flag("--seer-only", a.seerOnly,
                 "only the cases SEER's parameters describe (square 2D, ungrouped, undilated): "
                 "the others give no --seer-csv row, and --resume would run them every time");
    app.add_flag("--resume", cli.outputs.resume,
                 "with --seer-csv: keep the data set already in that file, skip the cases it "
                 "holds (same configuration, pass and precision) and add the new rows");
    app.footer("Examples:\n"
               "  roofline-conv --preset resnet50 --precision fp16 --layout nhwc --json r50.json\n"
               "  roofline-conv --case \"n=32 c=64 size=56 k=64 kernel=3 pad=1\" --algo every\n"
               "  roofline-conv seer_layers.txt --pass fwd --record seer.rfl\n"
               "  roofline-conv --preset seer_random --algo every --pass fwd --seer-csv s.csv \\\n"
               "      --time-limit 300 --resume     (again until no case is left)\n"
               "Profiling follows the ROOFLINE_* environment variables (docs/configuration.md).");
}

// --resume: the cases the SEER data set does not hold yet. An exit status when there is
// nothing to run or the data set cannot be read; -1 to go on.
int resume(bench::CommonCli& cli, std::vector<ConvCase>& cases) {
    if (cli.outputs.seerCsv.empty()) {
        std::cerr << "roofline-conv: --resume continues a SEER data set: give it with "
                     "--seer-csv FILE\n";
        return 2;
    }
    try {
        const std::size_t before = cases.size();
        if (std::filesystem::exists(cli.outputs.seerCsv)) // absent: a first run
            cli.outputs.resumed = seer::readDatasetFile(cli.outputs.seerCsv);
        cases = seer::casesNotIn(cases, cli.outputs.resumed);
        std::cerr << "roofline-conv: resuming " << cli.outputs.seerCsv << ": "
                  << before - cases.size() << " of " << before << " cases already there, "
                  << cases.size() << " to run\n";
    } catch (const std::exception& e) {
        std::cerr << "roofline-conv: cannot resume: " << e.what() << '\n';
        return 2;
    }
    if (cases.empty()) {
        std::cout << "every case is already in " << cli.outputs.seerCsv << '\n';
        return 0;
    }
    return -1;
}

void list(const std::vector<ConvCase>& cases) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto r = bench::convCaseHeader(cases[i], static_cast<int>(i));
        const std::string why = cases[i].invalidReason();
        std::printf("%4zu  %-24s %-10s %-5s %-6s %-40s %10.4g GFLOP%s%s\n", i, r.scope.c_str(),
                    r.pass.c_str(), r.precision.c_str(), r.layout.c_str(), r.shape.c_str(),
                    r.analyticFlops / 1e9, why.empty() ? "" : "  invalid: ", why.c_str());
    }
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"roofline-conv: cuDNN convolutions on the hierarchical roofline.\n"
                 "Each case is verified against a reference, timed (CUDA events, median) and "
                 "profiled by libroofline; the exit code is 1 only when a case failed "
                 "verification or crashed.",
                 "roofline-conv"};
    bench::CommonCli cli;
    ConvArgs a;
    defineOptions(app, cli, a);
    CLI11_PARSE(app, argc, argv);
    if (bench::finishCommonOptions(cli))
        return 0; // --list-presets
    workloads::ConvDefaults defaults;
    try {
        defaults.precisions = workloads::parsePrecisionList(a.precisions, "--precision");
        defaults.layouts = workloads::parseConvLayouts(a.layouts, "--layout");
        defaults.passes = workloads::parseConvPasses(a.passes, "--pass");
    } catch (const workloads::WorkloadError& e) {
        std::cerr << "roofline-conv: " << e.what() << '\n';
        return 2;
    }
    std::vector<ConvCase> cases;
    if (!bench::collectCases<ConvCase>(
            cli, "roofline-conv",
            [&](const std::string& text, const std::string& source) {
                return workloads::parseConvWorkload(text, source, defaults);
            },
            [&](const std::string& spec) { return workloads::parseConvSpec(spec, defaults); },
            &ConvCase::n, cases,
            a.seerOnly ? std::function<bool(const ConvCase&)>(
                             [](const ConvCase& c) { return !c.seerLine().empty(); })
                       : nullptr,
            "--seer-only (square 2D, ungrouped, undilated convolutions)"))
        return 2;
    if (cli.outputs.resume)
        if (const int status = resume(cli, cases); status >= 0)
            return status;
    if (cli.list) {
        list(cases);
        return 0;
    }
    return bench::runSweep(
        "roofline-conv", cases.size(), cli.settings, cli.outputs,
        [&](std::size_t i, bench::RunContext& ctx) {
            return bench::runConvCase(cases[i], static_cast<int>(i), ctx);
        },
        [&](std::size_t i) { return bench::convCaseHeader(cases[i], static_cast<int>(i)); });
}
