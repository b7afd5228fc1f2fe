#pragma once
// Where a launch is: its scope path, and which pushed range opens an iteration. Without an
// iteration range that is the outermost range a library did not open (libraryDomain) -- unless
// the first one was numbered ("Train step 0"): then only ranges of its family are iterations (a
// worker thread's own "Layer 3" or a top-level "checkpoint" between steps never is), and unless a
// program drives the replay with Session::needsPass(): then every outermost range is one. Counts
// iterations and the launches each one had; the steady iteration is the count most iterations
// after the first had. Pure: no CUDA.
#include "collect/frame.hpp"
#include "collect/records.hpp"
#include "core/nvtx_filter.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace roofline::collect {

/// The domain of the steps libroofline finds in the launch stream of a program that opens no range
/// of its own (scopes/found_steps): each such frame opens an iteration.
inline constexpr const char* kFoundStepDomain = "libroofline.step";

/// Domains of libraries' own ranges (NCCL, cuDNN, cuBLAS, ...): they describe calls into the
/// library, never a program's iteration.
bool libraryDomain(std::string_view domain) noexcept;

class IterationModel {
public:
    explicit IterationModel(std::string iterationRange) : range_(std::move(iterationRange)) {}

    const std::string& range() const noexcept { return range_; }
    /// The program loops on needsPass() (it drives the replay loops itself): each pass opens one
    /// iteration, and every outermost range is one, numbered or not ("c0.conv1_2" then
    /// "c1.conv2_1": one case each, not instances of a first one's family).
    void driveByHelper() noexcept { helper_ = true; }
    bool drivenByHelper() const noexcept { return helper_; }

    // ---- scopes ----
    /// The range just pushed (`stack.back()`) was seen: it opens an iteration or not (its
    /// `iteration` and `instance` set). Returns whether it does.
    bool pushed(Stack& stack);
    /// A start/end range (nvtxRangeStart/End) opened or closed.
    void rangeStarted(std::uint64_t id, const std::string& domain, const std::string& name);
    void rangeEnded(std::uint64_t id) { startEnd_.erase(id); }
    bool insideAnyScope(const Stack& stack) const noexcept {
        return !stack.empty() || !startEnd_.empty();
    }
    /// The iteration scope's index in `stack` (stack.size(): none).
    std::size_t iterationIndex(const Stack& stack) const;
    /// Scope names from `from` on, joined by '/'; the iteration scope's instance made uniform
    /// ("Train step #") unless `raw`.
    std::string path(const Stack& stack, std::size_t from = 0, bool raw = false) const;
    /// The path with every instance number made uniform ("Train step #/Layer #"; identifiers such
    /// as "conv2" stay): launches of identical layers share it.
    std::string uniformPath(const Stack& stack) const;
    /// The record's scope: the uniform path, the raw one when it differs, the iteration instance.
    void setScope(core::LaunchInfo& info, const Stack& stack) const;
    /// The ranges as the NVTX filter sees them.
    std::vector<core::NvtxRange> views(const Stack& stack) const;
    std::vector<core::NvtxRange> startEndViews() const;
    /// At the end: records of an unnumbered outermost scope keep the names as opened.
    void settlePaths(RecordStore& records) const;

    // ---- iterations ----
    /// An iteration scope opened on `thread`; true when it is the outermost open one (the
    /// iteration begins).
    bool opened(std::uint64_t thread);
    /// An iteration scope closed; true when no other is open (the iteration ends).
    bool closed();
    bool inside() const noexcept { return open_ > 0; }
    std::uint64_t thread() const noexcept { return thread_; }
    /// Iterations begun (1: the first).
    std::uint64_t seen() const noexcept { return seen_; }
    /// Iterations ended (counted by countLaunches).
    std::uint64_t ended() const noexcept { return ended_; }
    /// An iteration ended after `launches` launches.
    void countLaunches(std::uint64_t launches);
    /// The launches of the iteration most iterations look like.
    std::uint64_t steadyLaunches() const;
    bool launchesVaried() const noexcept { return varied_; }
    bool anyCounted() const noexcept { return !counts_.empty(); }

private:
    bool isIterationFrame(const Stack& stack);

    std::string range_; // the configured iteration range; "": the outermost scope
    std::map<std::uint64_t, Frame> startEnd_;
    std::int64_t scopes_ = 0; // iteration scopes opened (their instance when unnumbered)
    // Without an iteration range: the uniform name of the first outermost range when it was
    // numbered ("Train step #"); other outermost ranges are then not iterations.
    std::string family_;
    bool familyDecided_ = false;
    bool helper_ = false; // driveByHelper()
    // Numbered iteration scopes opened, per uniform name (up to 3 names each: enough to decide).
    std::map<std::string, std::set<std::string>> numbered_;
    int open_ = 0;
    std::uint64_t thread_ = 0, seen_ = 0, ended_ = 0, last_ = 0;
    bool varied_ = false;
    // Launches per iteration after the first: iterations that launched that many, and the last
    // of them.
    std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> counts_;
    std::uint64_t firstLaunches_ = 0;
    static constexpr std::size_t kMaxLaunchCounts = 1024;
};

} // namespace roofline::collect
