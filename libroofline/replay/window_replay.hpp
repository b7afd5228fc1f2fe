#pragma once
// Window replay (docs/design/0026-launches-no-step-covers.md): every admitted launch measured with
// no repeated step needed, one range each. A window of launches runs once as the program runs it
// -- pass 0 -- while each launch is recorded (collect/backend.hpp, recordLaunch). Before anything
// the recorded launches could not repeat -- a driver call that changes memory, a CUDA graph
// launch, a launch that cannot be recorded or is not admitted, a full image, the end -- the window
// closes, inside that call, the program waiting: the device's memory as the program left it is
// saved, each further pass restores the memory saved when the window opened and launches the
// recorded kernels again, and the program's memory is given back. Code loaded while a window was
// open (design 0005) makes every pass a relaunch on a fresh profiler. A launch whose signature
// has its samples, which did the same work, runs outside every window and takes their mean
// (replay/window_signatures).
#include "collect/strategy.hpp"
#include "replay/window_signatures.hpp"

namespace roofline::collect {

class WindowReplay final : public Strategy {
public:
    WindowReplay(Shared& shared, std::vector<DeviceSlot*> slots);

    void launch(DeviceSlot& slot, const Launch& l, const Stack& stack) override;
    void graphLaunch(DeviceSlot& slot) override;
    void memoryOperation(DeviceSlot& slot) override;
    void renewStaleProfiler(DeviceSlot& slot) override;
    bool profiling(const DeviceSlot& slot) const override;
    void finish() override;

    /// Passes a window may take before it is given up (a configuration that never says it has
    /// all its passes).
    static constexpr std::size_t kMaxPasses = 64;
    /// Launches in a row whose signature has its samples that an open window still measures
    /// before it closes to let the next run outside it: a window's passes cost about as much as
    /// this many ranges (a CUPTI Start and Stop per pass, ~14 ms, against ~1 ms a range and pass
    /// on an H200).
    static constexpr std::size_t kShareableInWindow = 16;

private:
    bool isOpen(const DeviceSlot& s) const noexcept {
        return s.index < open_.size() && open_[s.index];
    }
    /// The window begins: the device's work done, its memory saved, pass 0 started.
    void open(DeviceSlot& s);
    /// The window ends: its other passes relaunched, the program's memory given back, its ranges
    /// evaluated into its records. Nothing when none is open.
    void close(DeviceSlot& s);
    /// Passes 1.. (all of them, on a fresh profiler, when code was loaded meanwhile), between
    /// the memory saved before the window and the memory given back after it.
    void replay(DeviceSlot& s, bool all);
    /// A launch that runs unmeasured: the open window closes before it.
    void unmeasured(DeviceSlot& s, std::int64_t record, const std::string& why);
    /// Whether record `index` of `signature` is left to its signature's samples (the open window
    /// closed before it), rather than measured.
    bool shares(DeviceSlot& s, const std::string& signature, std::int64_t index);

    std::vector<bool> open_;                   // per slot: a window is open (its pass 0 running)
    std::vector<WindowSignatures> signatures_; // per slot
    std::vector<std::size_t> shareableRun_;    // per slot: such launches measured in a row
};

} // namespace roofline::collect
