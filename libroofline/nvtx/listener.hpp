#pragma once
// The NVTX listener: libroofline is an NVTX injection library (it exports
// InitializeInjectionNvtx2), so every NVTX instance in the process -- the application's, its
// libraries', libroofline's own -- reports push/pop, start/end and domain calls here, with no
// change at the call sites. When libroofline loads it points NVTX_INJECTION64_PATH at itself
// unless a tool (Nsight Systems/Compute) already set it; NVTX instances read that variable at
// their first call. The events go to the one registered Listener (collect/).
#include <cstdint>
#include <string>

namespace roofline::nvtx {

class Listener {
public:
    virtual ~Listener() = default;
    virtual void push(const char* domain, const char* name) noexcept = 0;
    virtual void pop(const char* domain) noexcept = 0;
    virtual void start(std::uint64_t id, const char* domain, const char* name) noexcept = 0;
    virtual void end(std::uint64_t id) noexcept = 0;
};

/// The listener events go to (null: none). Set once by collect/ at load.
void setListener(Listener* listener) noexcept;

/// NVTX instances that attached to libroofline so far.
int attachedInstances() noexcept;
/// Whether another tool owns NVTX (NVTX_INJECTION64_PATH pointed elsewhere when we loaded): its
/// ranges then reach that tool, not libroofline. Empty when libroofline is the injection.
const std::string& otherInjection() noexcept;

/// ProfileScope's own NVTX range, pushed through libroofline's NVTX instance only when another
/// tool owns NVTX (otherwise it would only come back to us). Never reported to the listener.
void pushOwn(const char* name) noexcept;
void popOwn() noexcept;
bool ownRangesVisible() noexcept;

} // namespace roofline::nvtx
