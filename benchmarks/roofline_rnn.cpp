// roofline-rnn: cuDNN recurrent layers (RNN relu/tanh, LSTM, GRU; forward, backward-data,
// backward-weights) as benchmark cases, each verified against a double-precision reference, timed
// with CUDA events and profiled with libroofline. docs/benchmarks.md has the guide.

#include "cudnn/cli_common.hpp"
#include "cudnn/rnn_runner.hpp"
#include "workloads/csv_rows.hpp"
#include "workloads/rnn_case.hpp"

#include <cstdio>
#include <iostream>

using namespace roofline;
using workloads::RnnCase;

int main(int argc, char** argv) {
    CLI::App app{"roofline-rnn: cuDNN RNN, LSTM and GRU layers on the hierarchical roofline.\n"
                 "Each case is verified against a reference, timed (CUDA events, median) and "
                 "profiled by libroofline; the exit code is 1 only when a case failed "
                 "verification or crashed.",
                 "roofline-rnn"};
    bench::CommonCli cli;
    std::string precisions = "fp32", passes = "all";
    bench::addCommonOptions(app, cli, false);
    app.add_option("--precision", precisions,
                   "fp32, tf32, fp16 (bf16 is tried; cuDNN may refuse it), comma list, for cases "
                   "whose file sets none");
    app.add_option("--pass", passes, "fwd, bwd-data, bwd-weights or all (comma list)");
    app.footer("Examples:\n"
               "  roofline-rnn --preset rnn1d_nersc --precision fp16 --json lstm.json\n"
               "  roofline-rnn --case \"cell=lstm;gru layers=2 hidden=512 seq=50 batch=64 "
               "direction=bi\"\n"
               "Profiling follows the ROOFLINE_* environment variables (docs/configuration.md).");
    CLI11_PARSE(app, argc, argv);
    if (bench::finishCommonOptions(cli))
        return 0; // --list-presets
    workloads::RnnDefaults defaults;
    try {
        defaults.precisions = workloads::parsePrecisionList(precisions, "--precision");
        defaults.passes = workloads::parseRnnPasses(passes, "--pass");
    } catch (const workloads::WorkloadError& e) {
        std::cerr << "roofline-rnn: " << e.what() << '\n';
        return 2;
    }
    std::vector<RnnCase> cases;
    if (!bench::collectCases<RnnCase>(
            cli, "roofline-rnn",
            [&](const std::string& text, const std::string& source) {
                return workloads::parseRnnWorkload(text, source, defaults);
            },
            [&](const std::string& spec) { return workloads::parseRnnSpec(spec, defaults); },
            &RnnCase::batch, cases))
        return 2;
    if (cli.list) {
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const auto r = bench::rnnCaseHeader(cases[i], static_cast<int>(i));
            std::printf("%4zu  %-24s %-11s %-5s %-36s %10.4g GFLOP\n", i, r.scope.c_str(),
                        r.pass.c_str(), r.precision.c_str(), r.shape.c_str(),
                        r.analyticFlops / 1e9);
        }
        return 0;
    }
    return bench::runSweep(
        "roofline-rnn", cases.size(), cli.settings, cli.outputs,
        [&](std::size_t i, bench::RunContext& ctx) {
            return bench::runRnnCase(cases[i], static_cast<int>(i), ctx);
        },
        [&](std::size_t i) { return bench::rnnCaseHeader(cases[i], static_cast<int>(i)); });
}
