#pragma once
/// \file session.hpp
/// A profiling session: owns the CUPTI profiler for one device while it lives.

#include <roofline/export.hpp>
#include <roofline/host_scope.hpp>
#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofline {

/// Profiles the kernels launched inside scopes -- ProfileScope objects and the application's own
/// NVTX ranges -- between construction and stop(), in the Options' collection mode.
/// One Session may be active per process. Bad options throw roofline::Error; everything else
/// (no GPU, counters restricted to admins, another profiler, a failure mid-run) degrades to
/// timing-only records with one logged message naming the cause and the fix. stop() and the
/// destructor never throw; a session still active at exit or on SIGINT/SIGTERM is stopped and
/// its recording saved (Options::outputPath).
///
///     roofline::Session session;                     // Options::fromEnvironment()
///     for (int step = 0; step < steps; ++step) {     // iteration replay: step i runs pass i
///         roofline::ProfileScope scope{"step"};
///         trainStep();
///     }
///     for (const auto& r : session.stop()) std::cout << r.name << ' ' << r.totalFlops() << '\n';
///     session.save("run.rfl");                       // evaluate later: roofline report run.rfl
///
/// Code that is not a loop replays itself with the helper:
///
///     while (session.needsPass()) { roofline::ProfileScope s{"region"}; work(); }
class ROOFLINE_API Session {
public:
    explicit Session(Options options = Options::fromEnvironment());
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    Session(Session&&) = delete;
    Session& operator=(Session&&) = delete;

    /// Ends collection, evaluates the counters and returns the records (per-kernel modes: one per
    /// profiled launch, in launch order; scope replay: one per scope instance). Records without
    /// counters say why in their note. Later calls return the same records. Saves to
    /// Options::outputPath when set.
    const std::vector<KernelRecord>& stop();

    /// Replay helper for code that is not a loop: true while the replay group in progress needs
    /// another pass of the region (always true on the first call, false after the last pass).
    /// Each pass must open one outermost scope around all its work (the iteration scope): several
    /// outermost scopes in one pass read as several iterations, whose launches then misalign
    /// with the other passes' and lose their counters. To profile several regions in the same
    /// passes, open a scope around them: `{ ProfileScope all{"case"}; { ProfileScope a{"a"};
    /// ... } { ProfileScope b{"b"}; ... } }`. Every loop's outermost scope is an iteration,
    /// whatever its name ("c0.conv1_2" then "c1.conv2_1": two cases, each measured).
    bool needsPass() noexcept;

    /// Writes the recording (config image, evaluated values, launches, device) for offline
    /// evaluation with `roofline report`. Requires stop(). Written atomically (temp + rename).
    /// A sampling session (CollectionMode::Sample) wrote its recording as it ran, to
    /// Options::outputPath (a .rfs): save() throws Error(InvalidState) saying where.
    void save(const std::string& path) const;

    bool stopped() const noexcept;
    bool countersAvailable() const noexcept;           ///< false: timing-only (see status())
    std::string status() const; ///< "counters", "sampled", or "timing only: <cause>"
    std::size_t droppedKernels() const noexcept;       ///< records without counter values
    std::uint64_t droppedRanges() const noexcept;      ///< ranges CUPTI reported dropped
    std::uint64_t replayMismatches() const noexcept;   ///< replay groups whose passes differed
    std::uint64_t unbalancedNvtxPops() const noexcept; ///< NVTX pops with no push
    std::size_t passes() const noexcept;               ///< replay passes per group
    CollectionMode mode() const noexcept;
    std::string chip() const;                  ///< e.g. "GH100"
    std::string deviceName() const;            ///< e.g. "NVIDIA H100 80GB HBM3"
    const Ceilings& ceilings() const noexcept; ///< roofs the records' bounds refer to
    /// The host side after stop(): wall and CPU time per scope and thread, with the
    /// GPU time of the kernels launched inside (Options::hostTiming); empty before stop().
    const std::vector<HostScope>& hostScopes() const noexcept;
    /// Host wall time from the session's start to stop() (0 before it).
    double sessionSeconds() const noexcept;
    /// libroofline's own measured work on the application's threads while collecting counters
    /// (pass boundaries, decoding, launch serialization), in seconds after stop(); hostScopes()
    /// already exclude it.
    double profilerSeconds() const noexcept;
    /// The base of the host table's shares (printHostTable's runSeconds): sessionSeconds()
    /// without the profiled instances of outermost scopes, which hostScopes() leave out when
    /// there are others, and without libroofline's work outside scopes.
    double hostRunSeconds() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace roofline
