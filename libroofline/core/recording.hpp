#pragma once
// The recording: everything a Session measured, enough to evaluate it again anywhere with the
// CUPTI host API (no GPU). Format: docs/recording-format.md; the schema is core/recording.cpp,
// the file container core/recording_file.cpp, the text for people report/recording_text.hpp.

#include "core/device_info.hpp"
#include "core/output_path.hpp"
#include "core/platform.hpp"
#include "core/roofline_model.hpp"

#include <roofline/host_scope.hpp>

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace roofline::core {

inline constexpr std::uint32_t kRecordingVersion = 2;

/// Iteration replay: what a complete profile of one iteration needs and whether the run got there.
struct Coverage {
    bool known = false;                     ///< false: not iteration replay, or no iteration ended
    std::uint64_t launchesPerIteration = 0; ///< the last iteration's launches
    bool launchesVaried = false;            ///< later iterations launched different counts
    /// Launches one image holds: its ranges, over the two each launch takes when a flush kernel
    /// precedes it (stored as "ranges_per_image", its name since version 1).
    std::uint64_t launchesPerImage = 0;
    std::uint64_t passes = 0;
    std::uint64_t iterationsPerPass = 0;
    std::uint64_t iterationsNeeded = 0; ///< for every launch of one iteration, without restarts
    /// Replay windows a complete profile measures, as planned (repeated-launch reuse: its
    /// cycle's); 0: not planned -- every launch measured, window after window of an image.
    std::uint64_t windows = 0;
    /// Reuse: the cycle's last window and its first are measured as one across the iteration's
    /// end (counted once in `windows`).
    bool windowAcrossEnd = false;
    std::uint64_t iterationsRun = 0;
    std::uint64_t launchesCovered = 0; ///< of one iteration, by completed replay groups
    /// The session's first iteration was not measured (observed only, the default, or replaced
    /// because the next one launched other kernels): steady-state iterations were.
    bool firstIterationSkipped = false;
    /// Repeated-launch reuse: the launch signatures it told apart (those of one iteration, and
    /// the finer ones a signature whose samples differed was split into); 0: not known.
    std::uint64_t signatures = 0;
    /// Ranges the profile measured in all, every pass and window counted (0: not known).
    std::uint64_t rangesMeasured = 0;
    bool complete() const noexcept {
        return known && launchesPerIteration > 0 && launchesCovered >= launchesPerIteration;
    }
};

struct Recording {
    std::uint32_t version = kRecordingVersion;
    std::string libraryVersion;
    std::string createdUtc;          ///< ISO 8601
    std::string mode;                ///< "iteration-replay", "kernel-replay" or "scope-replay"
    std::string status = "counters"; ///< or "timing only: <cause>" (v2)
    std::string cacheFlush;          ///< "on" or "off": caches flushed before replay passes (v2)
    DeviceInfo device;
    std::string chip;
    std::vector<std::string> metrics; ///< metric names the config image schedules, in order
    std::string bytes = "nersc";      ///< byte definition of L1/L2 bytes: "nersc" or "ncu" (v2)
    std::uint64_t passes = 0;
    std::uint64_t droppedRanges = 0; ///< ranges CUPTI reported as dropped while decoding
    Coverage coverage;               ///< iteration replay (optional "coverage" object)
    /// The process that recorded (optional "process" object; pid 0: not recorded): its host,
    /// pid and launcher rank, so per-rank recordings of one job can be told apart and merged.
    ProcessIdentity process;
    std::vector<std::uint8_t> configImage;
    /// Raw counter-data images (v1: all of them; v2: the first ones, up to 64 MiB, kept for
    /// re-evaluation with CUPTI). v2 launches carry their evaluated values themselves.
    std::vector<std::vector<std::uint8_t>> counterData;
    std::vector<LaunchInfo> launches; ///< in launch order
    /// The host side (optional "host" object): the session's wall time from start to
    /// stop, and the wall and CPU time per scope.
    double sessionSeconds = 0;
    std::vector<HostScope> hostScopes;
    /// libroofline's own measured work on the application's threads (counter collection),
    /// inside scopes or not; the scopes' times exclude it (optional "profiler_s").
    double profilerSeconds = 0;
    /// The base of the host table's shares (Session::hostRunSeconds; optional "run_s", the
    /// session's time when absent).
    double hostRunSeconds = 0;
    /// The device's peak rates per cycle as CUPTI gave them when it was recorded (optional
    /// "device_peaks" object: metric -> value), for roofs from the device itself
    /// (core/device_peaks.hpp); empty: evaluate them from a kept image, if any.
    std::vector<std::pair<std::string, double>> devicePeaks;
    /// Ranks that shared the profile (Options::shareAcrossRanks; optional "share" object):
    /// this recording's rank among shareCount; shareCount 1: not shared.
    std::uint32_t shareIndex = 0, shareCount = 1;
    /// The platform the run happened on (optional "platform" object); cpu.threads 0:
    /// not recorded.
    Platform platform;
    /// What the framework hook reported about the run (optional "framework" object: key ->
    /// text), e.g. "torch" -> "2.11.0+cu130", "tf32.matmul" -> "off"; empty: none.
    std::map<std::string, std::string> framework;
};

/// Throws Error(Io) on stream failure.
void writeRecording(const Recording& recording, std::ostream& out);
/// Atomic (temp + rename).
void saveRecording(const Recording& recording, const std::string& path);
/// As saveRecording, but never over a recording another process of this run saved there
/// (core::writeFileOnce: then "<stem>.<pid>.rfl"). Returns the path written.
std::string saveRecordingOnce(const Recording& recording, const std::string& path, long pid);
/// `what` names the source in error messages. Throws Error(CorruptRecording) for anything
/// truncated, damaged or inconsistent, Error(UnsupportedVersion) for newer formats.
Recording readRecording(std::istream& in, const std::string& what);
Recording loadRecording(const std::string& path);

} // namespace roofline::core
