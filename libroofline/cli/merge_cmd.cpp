// `roofline merge A.rfl B.rfl ... -o OUT.rfl`: per-rank recordings of one job in one recording,
// each launch with its rank.
#include "cli/commands.hpp"

#include "core/atomic_file.hpp"
#include "core/merge.hpp"
#include "core/sampled_recording.hpp"

#include <iostream>
#include <map>
#include <CLI/CLI.hpp>
#include <memory>

namespace roofline::cli {

int merge(const MergeArgs& args) {
    if (!args.inputs.empty() && core::isSampledRecording(args.inputs.front()))
        return mergeSampled(args);
    core::refuseOverwritingInputs(args.output, "the merged recording", args.inputs);
    std::vector<core::MergeInput> inputs;
    for (const auto& file : args.inputs)
        inputs.push_back({file, core::loadRecording(file)});
    std::map<int, std::string> sources;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto& p = inputs[i].recording.process;
        sources[core::mergeRank(inputs[i].recording, i)] =
            inputs[i].name + (p.pid != 0 ? " (" + core::describe(p) + ")" : " (no process named)");
    }
    const core::Recording merged = core::mergeRecordings(std::move(inputs));
    std::map<int, std::size_t> launches;
    std::size_t shared = 0, unfilled = 0; // ranks that shared the profile
    for (const auto& l : merged.launches) {
        ++launches[l.rank];
        if (l.countersRank >= 0)
            ++(l.values.empty() ? unfilled : shared);
    }
    for (const auto& [rank, source] : sources)
        std::cout << "rank " << rank << ": " << launches[rank] << " launches from " << source
                  << '\n';
    if (shared + unfilled > 0)
        std::cout << "the ranks shared the profile: " << shared
                  << " launches took their counters from the rank that measured them"
                  << (unfilled > 0 ? ", " + std::to_string(unfilled) +
                                         " found none (their notes say why; merge every rank's "
                                         "recording)"
                                   : std::string())
                  << '\n';
    core::saveRecording(merged, args.output);
    std::cout << "wrote " << args.output << " (" << merged.launches.size() << " launches of "
              << sources.size() << " ranks; roofline report " << args.output
              << " shows each rank's time and the kernels that differ most)\n";
    return 0;
}

Command addMerge(CLI::App& app) {
    auto* mergeCmd = app.add_subcommand(
        "merge", "merge per-rank recordings of one job (torchrun, mpirun, Slurm) into one, each "
                 "launch with its rank");
    const auto args = std::make_shared<MergeArgs>();
    MergeArgs& merge = *args;
    mergeCmd->add_option("recordings", merge.inputs, "the recordings, one per rank")
        ->required()
        ->expected(2, 1 << 20);
    mergeCmd->add_option("--output,-o", merge.output,
                         "the merged recording to write (sampled recordings: the ranks' steps "
                         "aligned, as CSV)")
        ->required();

    return {mergeCmd, [args] { return cli::merge(*args); }};
}

} // namespace roofline::cli
