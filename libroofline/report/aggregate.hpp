#pragma once
// Records grouped into kernels: every launch of one kernel in one scope (or by name or scope
// only) summed, for charts and comparisons. Totals, so rates and intensities stay exact.
#include <roofline/kernel_record.hpp>
#include <roofline/report.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace roofline::report {

using roofline::GroupBy;
using roofline::parseGroupBy;

/// The precision families charts are drawn for (issue: FP64, FP32, FP16, tensor).
enum class Family { FP64, FP32, FP16, Tensor };
inline constexpr std::size_t kFamilyCount = 4;
const char* toString(Family family) noexcept;
bool inFamily(FlopKind kind, Family family) noexcept;

struct KernelGroup {
    std::string key;            ///< what matched: name + '\t' + scope, name, or scope
    std::string name;           ///< demangled name (GroupBy::Scope: the longest-running kernel's)
    std::uint32_t kernelId = 0; ///< that kernel's KernelRecord::kernelId (op, module: the row's)
    std::string scope;
    std::size_t launches = 0;   ///< records summed (measured or not)
    std::size_t unmeasured = 0; ///< of which had no counter values
    std::size_t differing = 0;  ///< of which replay passes differed (values kept, see notes)
    std::size_t unmatched = 0;  ///< of which replay passes could not be matched (no values)
    std::size_t reused = 0;     ///< of which reuse the mean of other launches' measurements
    double minSeconds = 0, maxSeconds = 0; ///< the shortest and longest measured launch
    double seconds = 0;                    ///< sum of the measured records' time
    double gpuSeconds = 0;                 ///< sum of their gpu__time_duration
    double clockTimesSeconds = 0; ///< sum of clock x time (time-weighted mean clock: / seconds)
    std::array<double, kFlopKindCount> flops{};
    std::array<double, kMemoryLevelCount> bytes{};
    /// The limiter of its longest measured launch (the one of maxSeconds; below every roof:
    /// what its shape says).
    Limiter limiter = Limiter::None;
    /// What some measured record of the group has no value for (KernelRecord::lacks, merged).
    std::string lacks;
    /// The instruction roofline's counts summed (measured when every measured record has them).
    InstructionCounts instructions;

    double totalFlops() const noexcept;  ///< floating point, CUDA + tensor cores
    double tensorShare() const noexcept; ///< tensor-core share of totalFlops (0 when none)
    double flopsIn(Family family) const noexcept;
    /// The family with the most FLOPs; false when the group has no floating-point work.
    bool dominantFamily(Family& family) const noexcept;
    /// The bound against `ceilings` (as classify() does for one record); below every roof, the
    /// limiter of its longest launch (latency where that one was not below every roof).
    Bound bound(const Ceilings& ceilings) const noexcept;
};

/// The quantities of `a` and `b` (KernelRecord::lacks lists), each once.
std::string mergeLacks(const std::string& a, const std::string& b);

/// `scopePath` with the numbered instance of every level made uniform ("Train step #/forward/Layer
/// 3" -> "Train step #/forward/Layer #"; identifiers such as "conv2" stay).
std::string mergedInstances(const std::string& scopePath);

/// Rows named by the framework (operator or module): their names are shown as they are, never
/// shortened as kernel names are, and they have no scope.
inline bool frameworkRows(GroupBy by) noexcept {
    return by == GroupBy::Op || by == GroupBy::Module;
}

/// The row of a record grouped by operator: "aten::addmm", "aten::addmm [backward]",
/// "(no operator)"; by module: its path or "(no module)".
std::string opLabel(const KernelRecord& r);
std::string moduleLabel(const KernelRecord& r);

/// Groups in order of first appearance. Unmeasured records count in launches/unmeasured only.
std::vector<KernelGroup> aggregate(const std::vector<KernelRecord>& records, GroupBy by);

/// Time of all groups (the denominator of time shares).
double totalSeconds(const std::vector<KernelGroup>& groups) noexcept;

} // namespace roofline::report
