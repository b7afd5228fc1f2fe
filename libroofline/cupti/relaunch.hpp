#pragma once
// Launches recorded to be launched again, and the device memory saved and restored around them:
// what window replay needs (docs/design/0026-launches-no-step-covers.md).
//
// A launch is recorded from its driver callback's parameters: each argument copied at the offset
// and size the driver gives (cuFuncGetParamInfo, or cuKernelGetParamInfo for the CUkernel handle
// the runtime passes as a function), a cuLaunchKernelEx's attributes, a cooperative launch as
// such, an argument buffer passed through `extra`. It is launched again as libroofline's own
// launch: the launch callbacks ignore it, CUPTI's profiler measures it. Device memory is saved
// and restored with CUPTI's checkpoint API (libcheckpoint, loaded at run time: the library loads
// without it, and window replay is then unavailable).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofline::cupti {

class RecordedLaunch {
public:
    RecordedLaunch();
    ~RecordedLaunch();
    RecordedLaunch(RecordedLaunch&&) noexcept;
    RecordedLaunch& operator=(RecordedLaunch&&) noexcept;

    /// The launch the driver callback `cbid` is making (`params`: its
    /// CUpti_CallbackData::functionParams, at API entry). False, with why, when it cannot be
    /// launched again.
    bool record(unsigned cbid, const void* params, std::string& why) noexcept;
    /// Launches it again, with the arguments it had (throws roofline::Error).
    void relaunch() const;

private:
    struct Data;
    std::unique_ptr<Data> d_;
};

/// The bytes of the arguments the launch of driver callback `cbid` passes (`params`: its
/// CUpti_CallbackData::functionParams, at API entry), appended to `bytes`: each argument at the
/// size the driver gives, or the `extra` buffer, with every word that holds the address of
/// memory the driver knows set to zero (core/launch_arguments.hpp; cuPointerGetAttributes, its
/// ranges cached). False when they cannot be read.
bool launchArguments(unsigned cbid, const void* params, std::string& bytes) noexcept;

/// The device memory of a context, saved once and restored as often as needed (CUPTI's
/// checkpoint: device and pinned host allocations). Freed by free() or the destructor.
class Checkpoint {
public:
    explicit Checkpoint(void* context);
    ~Checkpoint();
    Checkpoint(const Checkpoint&) = delete;
    Checkpoint& operator=(const Checkpoint&) = delete;

    void save();    ///< throws roofline::Error (out of memory: nothing is kept)
    void restore(); ///< the memory as saved; throws roofline::Error
    void free() noexcept;
    bool saved() const noexcept { return saved_; }

private:
    struct Handle;
    std::unique_ptr<Handle> h_;
    bool saved_ = false;
};

/// Whether the device of the current context has room for two checkpoints of what is allocated
/// on it (the memory before a window and after it) with 256 MiB to spare, so that neither goes to
/// host memory (seconds per window); false, with `why` (the figures), when not, or when the driver
/// cannot say.
bool checkpointsFit(std::string& why) noexcept;

/// Whether launches can be recorded and memory checkpointed in this process (the driver's argument
/// queries and CUPTI's checkpoint library); `why` says what is missing.
bool windowReplayAvailable(std::string* why = nullptr) noexcept;

/// Whether driver API call `cbid` changes what a window's relaunch would see or touch: an
/// allocation or a free, a copy or a set, a stream, context, module or library destroyed or
/// unloaded. Read once from CUPTI's callback names.
bool changesMemory(unsigned cbid) noexcept;
/// Whether driver API call `cbid`, with its callback's `params`, allocates or registers memory the
/// host can reach (pinned, mapped, managed: cuMemHostAlloc, cuMemAllocHost, cuMemHostRegister,
/// cuMemAllocManaged, cuMemCreate on a host location), which a checkpoint's restore would
/// restore too. One of changesMemory()'s calls.
bool allocatesHostVisible(unsigned cbid, const void* params) noexcept;
/// Every such call, for the launch tracker to follow.
const std::vector<unsigned>& memoryCallbacks() noexcept;

} // namespace roofline::cupti
