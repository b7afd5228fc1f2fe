#include "core/host_scopes.hpp"

#include "core/scope_names.hpp"

#include <unordered_map>

namespace roofline {

std::string hostBound(const HostScope& s) {
    const double wall = s.hostWallPerCall();
    if (wall <= 0)
        return "";
    // busy: CPU time at least half the wall time -- in the steady state when it was measured
    const bool steady = s.steadyCalls > 0 && s.steadyWallSeconds > 0 && s.steadyCpuSeconds >= 0;
    const bool busy = steady ? s.steadyCpuSeconds >= 0.5 * s.steadyWallSeconds
                             : s.cpuSeconds >= 0 && s.wallSeconds > 0 &&
                                   s.cpuSeconds >= 0.5 * s.wallSeconds;
    if (s.kernels == 0 && s.launches > 0)
        return "unmeasured"; // kernels launched, none with a record: the GPU's share unknown
    if (s.kernels == 0) {
        if (s.cpuSeconds < 0)
            return "host";
        return busy ? "cpu" : "wait";
    }
    if (s.gpuPerCall() >= 0.8 * wall)
        return "gpu";
    if (s.cpuSeconds < 0)
        return "host";
    return busy ? "launch" : "wait";
}

namespace core {

std::string hostScopeKey(std::string_view path) {
    const std::size_t slash = path.find('/');
    const std::string first(path.substr(0, slash));
    std::string key = separatedInstance(first) ? uniformInstance(first) : first;
    if (slash != std::string_view::npos)
        key.append(path.substr(slash));
    return key;
}

std::string hostScopeKey(const KernelRecord& r) {
    return hostScopeKey(r.scopePathRaw.empty() ? r.scopePath : r.scopePathRaw);
}

void attachKernelTime(std::vector<HostScope>& scopes, const std::vector<KernelRecord>& records) {
    std::unordered_map<std::string, std::vector<HostScope*>> byKey;
    for (HostScope& s : scopes)
        byKey[s.scopePath].push_back(&s);
    for (const KernelRecord& r : records) {
        if (r.scopeRecord)
            continue; // a scope's own total (scope replay) repeats its kernels
        // The GPU's elapsed time for the kernel (gpu__time_duration), what the host waits for;
        // the roofline time (SM cycles / rate) when a record has no duration.
        const double seconds = r.gpuDurationSeconds > 0 ? r.gpuDurationSeconds : r.timeSeconds;
        if (seconds <= 0)
            continue;
        std::string key = hostScopeKey(r);
        // The record's scope and each of its parents.
        while (!key.empty()) {
            if (auto it = byKey.find(key); it != byKey.end())
                for (HostScope* s : it->second)
                    if (s->threadId == 0 || s->threadId == r.threadId) {
                        s->gpuSeconds += seconds;
                        ++s->kernels;
                    }
            const std::size_t slash = key.rfind('/');
            key.resize(slash == std::string::npos ? 0 : slash);
        }
    }
}

} // namespace core
} // namespace roofline
