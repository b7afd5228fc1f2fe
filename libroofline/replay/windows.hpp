#pragma once
// Launches measured in recorded windows (docs/design/0026-launches-no-step-covers.md), no
// repeated step needed, one range each: the mechanics window replay (replay/window_replay) is
// made of, and that iteration replay uses for the launches no step covers. A window of launches
// runs once as the program runs it -- pass 0 -- while each launch is recorded (collect/backend.hpp,
// recordLaunch). A CUDA graph launched as its nodes (cupti/graph_replay.hpp) is such launches, one
// per kernel node. Before anything the recorded launches could not repeat -- a driver call that
// changes memory (a graph's memset and copy nodes included), a graph that runs as it is, a launch
// that cannot be recorded or is not admitted, a full image, the end -- the window closes, inside that call, the program waiting: the device's memory
// as the program left it is saved, each further pass restores the memory saved when the window
// opened and launches the recorded kernels again, and the program's memory is given back. Code
// loaded while a window was open (design 0005) makes every pass a relaunch on a fresh profiler. A
// launch whose signature has its samples, which did the same work, runs outside every window and
// takes their mean (replay/window_signatures). Pure logic: no CUDA, no CUPTI.
#include "collect/shared.hpp"
#include "replay/window_signatures.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace roofline::collect {

class Windows {
public:
    /// A closed window's image evaluated into its members' records (the owning strategy's
    /// Strategy::recordLaunchRanges, with its tensor counters by detection); true when the
    /// window's MMA work needs counters the set lacked, and `last` is false: the window is
    /// measured again (every pass, on the profiler the grown set re-created) and this called
    /// once more.
    using RecordRanges = std::function<bool(DeviceSlot&, bool last)>;
    /// How a window that cannot open (its memory not saved, its pass not started), or whose
    /// replay fails after the program's memory was given back, ends: the device turned to timing
    /// only (window replay: windows are all it measures), or the windows stopped on that device,
    /// its profiler re-created and the rest of the session's measuring going on (iteration
    /// replay's windows outside the steps). A replay that could not give the memory back turns
    /// the device to timing only either way.
    enum class OnFailure { TimingOnly, StopWindows };
    /// `what`: what the windows measure, for the log ("window replay").
    Windows(Shared& shared, std::size_t slots, const char* what, RecordRanges recordRanges,
            OnFailure onFailure = OnFailure::TimingOnly);

    /// An admitted launch on `slot`, measured in a window (opened when none is), or left to its
    /// signature's samples; a launch that cannot be launched again, or that would open a window
    /// the device's memory has no room to save (CounterBackend::checkpointsFit), runs unmeasured
    /// and says why.
    void launch(DeviceSlot& slot, const Launch& l, const Stack& stack);
    /// The open window on `slot` closes (nothing when none is). Never throws: a failure turns
    /// the device to timing only.
    void close(DeviceSlot& slot) noexcept;
    /// Code was loaded since the profiler was enabled: an open window closes, its passes
    /// relaunched on a fresh profiler, and the profiler is re-created.
    void renewStaleProfiler(DeviceSlot& slot);
    bool isOpen(const DeviceSlot& s) const noexcept {
        return s.index < open_.size() && open_[s.index];
    }
    /// OnFailure::StopWindows: a window could not open or replay on `s`, so none opens there
    /// again; why (empty: none failed).
    const std::string& stopped(const DeviceSlot& s) const noexcept { return stopped_[s.index]; }
    /// The stop: open windows close, launches that took their signature's samples get them.
    void finish(const std::vector<DeviceSlot*>& slots);

    /// Passes a window may take before it is given up (a configuration that never says it has
    /// all its passes).
    static constexpr std::size_t kMaxPasses = 64;
    /// Launches in a row whose signature has its samples that an open window still measures
    /// before it closes to let the next run outside it: a window's passes cost about as much as
    /// this many ranges (a CUPTI Start and Stop per pass, ~14 ms, against ~1 ms a range and pass
    /// on an H200).
    static constexpr std::size_t kShareableInWindow = 16;

private:
    /// The window begins: the device's work done, its memory saved, pass 0 started. False where
    /// that failed and the windows stop (OnFailure::StopWindows); else a failure throws.
    bool open(DeviceSlot& s);
    /// The window ends: its other passes relaunched, the program's memory given back, its ranges
    /// evaluated into its records.
    void closeOpen(DeviceSlot& s);
    /// Passes 1.. (all of them when `all`: on a fresh profiler, when code was loaded meanwhile,
    /// or on the one a grown metric set re-created), between the memory saved before the window
    /// and the memory given back after it.
    enum class Passes { Later, AllFresh, AllGrown };
    void replay(DeviceSlot& s, Passes passes);
    /// OnFailure::StopWindows: the windows stop on `s` (`why`), the window's launches without
    /// values say so, and the profiler is re-created for what else the session measures.
    void stopWindows(DeviceSlot& s, const std::string& why);
    /// A launch that runs unmeasured: the open window closes before it.
    void unmeasured(DeviceSlot& s, std::int64_t record, const std::string& why);
    /// Whether record `index` of `signature` is left to its signature's samples (the open window
    /// closed before it), rather than measured.
    bool shares(DeviceSlot& s, const std::string& signature, std::int64_t index);

    Shared& shared_;
    const char* what_;
    RecordRanges recordRanges_;
    OnFailure onFailure_;
    std::vector<std::string> stopped_; // per slot: why no window opens there again
    std::vector<bool> open_;                   // per slot: a window is open (its pass 0 running)
    std::vector<WindowSignatures> signatures_; // per slot
    std::vector<std::size_t> shareableRun_;    // per slot: such launches measured in a row
    bool memoryBack_ = true; // the last replay left the device holding the program's memory
};

} // namespace roofline::collect
