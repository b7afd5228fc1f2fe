#pragma once
// Per-rank recordings of one job (torchrun, mpirun, Slurm) merged into one recording whose
// launches carry their rank: pure logic, no CUDA.
#include "core/recording.hpp"

#include <string>
#include <vector>

namespace roofline::core {

/// One recording to merge and the name errors use for it (its path).
struct MergeInput {
    std::string name;
    Recording recording;
};

/// The launches of every input, in input order, each with its rank: the launcher's rank the
/// recording names (Recording::process), or for recordings without one their position among the
/// inputs. The inputs must agree on what makes values comparable -- chip, metrics, byte
/// definition, collection mode -- and carry evaluated values (format v2); two inputs of the same
/// rank, a merged recording given again, or a disagreement are refused with Error(InvalidArgument)
/// naming the files and the field. Raw counter-data images are not carried over (the values are),
/// nor is coverage (each rank's stays in its own file); dropped ranges add up, passes are the
/// largest.
///
/// Recordings of ranks that shared the profile (Recording::shareCount, all the same): each
/// launch another rank measured (LaunchInfo::countersRank, no values) gets the values of that
/// rank's launch at the same place of the iteration (position, kernel and block; a grid that
/// differs there is named in the note), or else the mean of that rank's measured launches of the
/// same kernel, grid, block and scope; its note says which. One left without (that rank's recording not given, or nothing like it measured
/// there) keeps none and its note says why.
Recording mergeRecordings(std::vector<MergeInput> inputs);

/// The note of a launch whose counters rank `rank` measures (ranks sharing the profile), until
/// a merge fills them in.
std::string awaitingCountersNote(int rank);

/// The rank a merge gives the recording at `position` among its inputs: the launcher's rank the
/// recording names, else `position`.
int mergeRank(const Recording& recording, std::size_t position) noexcept;

} // namespace roofline::core
