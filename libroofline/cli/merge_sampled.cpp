// `roofline merge A.rfs B.rfs ... -o STEPS.csv`: a sampled job's ranks, their steps aligned by
// index, each step's slowest rank and its excess (docs/design/0029).
#include "cli/commands.hpp"

#include "core/atomic_file.hpp"
#include "core/sampled_figures.hpp"
#include "core/sampled_recording.hpp"
#include "report/sampled_ranks.hpp"

#include <roofline/error.hpp>

#include <iostream>

namespace roofline::cli {

int mergeSampled(const MergeArgs& args) {
    core::refuseOverwritingInputs(args.output, "the ranks' steps", args.inputs);
    std::vector<report::RankSteps> ranks;
    for (std::size_t i = 0; i < args.inputs.size(); ++i) {
        const std::string& file = args.inputs[i];
        if (!core::isSampledRecording(file))
            throw Error(ErrorCode::InvalidArgument,
                        "'" + file + "' is not a sampled job's recording, and '" +
                            args.inputs.front() +
                            "' is: merge sampled recordings with sampled ones, replayed with "
                            "replayed ones");
        const core::SampledRecording rec = core::readSampledRecording(file);
        const int rank = rec.header.rank >= 0 ? rec.header.rank : static_cast<int>(i);
        ranks.push_back({rank, file, core::figuresOf(rec, ceilingsFor(rec, "").used)});
    }
    const report::AlignedRanks aligned = report::alignRanks(ranks);
    report::printAlignedRanks(aligned, std::cout);
    writeOutput(args.output, "the ranks' steps (CSV)", std::cout,
                [&](std::ostream& o) { report::writeAlignedCsv(aligned, o); });
    return 0;
}

} // namespace roofline::cli
