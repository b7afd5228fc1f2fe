#pragma once
// The platform a run happened on: the host CPU as the CPU itself reports it (model,
// sockets, cores, threads, NUMA nodes, the vector ISA deep-learning math libraries dispatch on),
// the thread settings of OpenMP, MKL, oneDNN and friends, and the GPUs with their driver and
// library versions. The CPU side is read here (pure C++, Linux); the GPU side is filled in by
// cupti/platform.cpp.
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <utility>
#include <vector>

namespace roofline::core {

struct CpuPlatform {
    std::string architecture; ///< "x86_64", "aarch64"
    std::string vendor, model;
    int sockets = 0, cores = 0, threads = 0, numaNodes = 0;
    int allowedThreads = 0; ///< CPUs this process may run on (affinity mask)
    /// Extensions present and enabled by the OS, in the order readCpu() looks for them.
    std::vector<std::string> isa;
    /// Present in the CPU but not enabled by the OS (AVX-512 or AMX state not saved: unusable).
    std::vector<std::string> isaDisabled;
};

struct GpuPlatform {
    int ordinal = 0;
    std::string name;
    int smCount = 0, computeMajor = 0, computeMinor = 0;
    double smClockHz = 0, memoryClockHz = 0;
    std::uint64_t memoryBytes = 0;
};

struct Platform {
    std::string hostName, os; ///< os: kernel name and release
    CpuPlatform cpu;
    /// Thread and ISA settings from the environment that are set (name, value), in
    /// settingVariables() order.
    std::vector<std::pair<std::string, std::string>> settings;
    std::vector<GpuPlatform> gpus;
    std::string gpuNote; ///< why no GPU is listed, when none is
    std::string driverVersion, cudaDriverApi, cudaBuild, cupti, cudnn;
    /// Whether this process may read GPU performance counters: "yes", or "no: <why and fix>", or
    /// "unknown: <why>".
    std::string counters;
};

/// The environment variables reported (thread counts, affinity, ISA caps, CUDA settings).
const std::vector<std::string>& settingVariables();

/// The CPU as it reports itself (cpuid / hwcaps, /proc/cpuinfo, /sys topology).
CpuPlatform readCpu();
/// The set variables of settingVariables().
std::vector<std::pair<std::string, std::string>> readSettings();
/// The host part of a Platform: host name, OS, CPU, settings and the counter permission as the
/// NVIDIA driver's parameters say (/proc/driver/nvidia/params, RmProfilingAdminOnly).
Platform readHostPlatform();
/// The counter permission from the text of /proc/driver/nvidia/params (empty text: not readable)
/// and whether this process is privileged (root or CAP_SYS_ADMIN).
std::string countersPermission(const std::string& nvidiaParams, bool privileged);

/// MemAvailable of a /proc/meminfo text, bytes; 0 when it says none.
std::uint64_t memoryAvailable(const std::string& meminfo);
/// This host's memory available (/proc/meminfo), bytes; 0: unknown.
std::uint64_t readMemoryAvailable();

void printPlatform(const Platform& p, std::ostream& out);
std::string toJsonText(const Platform& p);
/// The document toJsonText writes (a recording's "platform" object).
nlohmann::json platformToJson(const Platform& p);
/// Throws Error(CorruptRecording) naming `what` on malformed input.
Platform platformFromJsonText(const std::string& text, const std::string& what);
/// The same from a parsed document (a recording's "platform" object).
Platform platformFromJson(const nlohmann::json& j, const std::string& what);

} // namespace roofline::core
