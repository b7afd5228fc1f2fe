#pragma once
// The instruction roofline of one kernel (Ding and Williams, PMBS 2019; docs/design/0023): its
// warp-instruction rate and intensities, its memory walls (global sectors and shared wavefronts
// per request, against what the threads' bytes would need), its thread efficiency, and the
// verdicts a kernel author can act on. Pure logic over the catalog's instruction counters.
#include "core/metric_catalog.hpp"
#include "core/metric_values.hpp"

#include <array>
#include <limits>
#include <string>
#include <vector>

namespace roofline::core {

/// What the instruction counters of one range say (NaN: not collected, or no denominator).
struct InstructionModel {
    static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
    double rate = kUnknown; ///< warp instructions per second of the kernel's time
    /// Warp instructions per transaction: L1 (global sectors + shared wavefronts), L2 and DRAM
    /// (sectors); NaN where the level saw none.
    std::array<double, 3> intensity{kUnknown, kUnknown, kUnknown};
    /// Global loads and stores: sectors per request, and the ideal (the threads' bytes / 32).
    double loadSectorsPerRequest = kUnknown, loadIdealSectors = kUnknown;
    double storeSectorsPerRequest = kUnknown, storeIdealSectors = kUnknown;
    /// Shared loads and stores: wavefronts per request, and the ideal (bytes / 128).
    double sharedLoadWavefrontsPerRequest = kUnknown, sharedLoadIdealWavefronts = kUnknown;
    double sharedStoreWavefrontsPerRequest = kUnknown, sharedStoreIdealWavefronts = kUnknown;
    /// Threads whose predicate was true per warp instruction, over 32.
    double threadEfficiency = kUnknown;
};

/// The group's counts in one range's values; not measured when the profile has no instruction
/// counters or the values lack any of them.
InstructionCounts instructionCounts(const ChipProfile& profile, const MetricValues& values);
/// The model of one launch's counts (`time` in seconds). Every field NaN when not measured.
InstructionModel instructionModel(const InstructionCounts& counts, double time);
/// instructionModel(instructionCounts(profile, values), time).
InstructionModel instructionModel(const ChipProfile& profile, const MetricValues& values,
                                  double time);

/// Verdicts, most telling first: "uncoalesced loads: 16.0 sectors per request (ideal 4.0)",
/// "4-way shared-memory bank conflicts on loads (4.0 wavefronts per request, ideal 1.0)",
/// "predicated: 41% of threads active", "issue-bound at 83% of the warp-issue ceiling".
/// `issueCeiling`: warp instructions per second of the device (NaN: unknown, no issue verdict).
/// Empty: nothing to act on, or no counters.
std::vector<std::string> instructionVerdicts(const InstructionModel& model, double issueCeiling);
/// The one verdict of a launch whose replay passes ran another grid or block: its counters come
/// from different launch shapes, so their ratios describe no launch.
inline constexpr const char* kPassesDiffer =
    "not judged: the replay passes ran it with another grid or block";
/// The verdicts of `counts` over `time` seconds against the ceilings' warp-issue rate (none when
/// unknown); `passesDiffer`: only kPassesDiffer.
std::vector<std::string> instructionVerdicts(const InstructionCounts& counts, double time,
                                             const Ceilings& ceilings, bool passesDiffer = false);

/// `sum` plus `add`, count by count (groups of launches: their totals keep every ratio exact);
/// measured only while both are.
void addCounts(InstructionCounts& sum, const InstructionCounts& add);

} // namespace roofline::core
