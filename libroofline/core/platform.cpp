#include "core/platform.hpp"

#include "core/json_number.hpp"

#include <roofline/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif
#include <linux/capability.h>
#include <sys/syscall.h>

namespace roofline::core {
namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return in ? s.str() : std::string();
}

std::string trim(std::string s) {
    const auto b = s.find_first_not_of(" \t\n");
    const auto e = s.find_last_not_of(" \t\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// /proc/cpuinfo as blocks of "key : value" per logical CPU.
std::vector<std::map<std::string, std::string>> cpuinfo() {
    std::vector<std::map<std::string, std::string>> cpus(1);
    std::istringstream in(readText("/proc/cpuinfo"));
    std::string line;
    while (std::getline(in, line)) {
        if (trim(line).empty()) {
            if (!cpus.back().empty())
                cpus.emplace_back();
            continue;
        }
        const auto colon = line.find(':');
        if (colon != std::string::npos)
            cpus.back()[trim(line.substr(0, colon))] = trim(line.substr(colon + 1));
    }
    if (cpus.back().empty())
        cpus.pop_back();
    return cpus;
}

int countEntries(const std::string& dir) {
    // /sys/devices/system/node/nodeN: "has_cpu" lists the nodes with CPUs ("0-1" or "0,2").
    const std::string text = trim(readText(dir));
    if (text.empty())
        return 0;
    int count = 0;
    std::istringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        const auto dash = part.find('-');
        count += dash == std::string::npos
                     ? 1
                     : std::atoi(part.c_str() + dash + 1) - std::atoi(part.c_str()) + 1;
    }
    return count;
}

#if defined(__x86_64__) || defined(__i386__)
struct Regs {
    unsigned a = 0, b = 0, c = 0, d = 0;
};
Regs cpuid(unsigned leaf, unsigned sub) {
    Regs r;
    if (!__get_cpuid_count(leaf, sub, &r.a, &r.b, &r.c, &r.d))
        return {};
    return r;
}
unsigned long long xcr0() {
    unsigned eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<unsigned long long>(edx) << 32) | eax;
}

void x86Isa(CpuPlatform& cpu) {
    const Regs l1 = cpuid(1, 0);
    const unsigned maxLeaf = cpuid(0, 0).a;
    const Regs l7 = maxLeaf >= 7 ? cpuid(7, 0) : Regs{};
    const Regs l71 = maxLeaf >= 7 && l7.a >= 1 ? cpuid(7, 1) : Regs{};
    const bool osxsave = (l1.c >> 27) & 1;
    const unsigned long long x = osxsave ? xcr0() : 0;
    const bool avxState = (x & 0x6) == 0x6;                  // SSE and AVX registers saved
    const bool avx512State = avxState && (x & 0xE0) == 0xE0; // opmask, ZMM halves
    const bool amxState = (x & 0x60000) == 0x60000;          // XTILECFG, XTILEDATA
    auto bit = [](unsigned reg, int b) { return ((reg >> b) & 1) != 0; };
    struct Feature {
        const char* name;
        bool present;
        bool enabled;
    };
    const Feature features[] = {
        {"sse4.2", bit(l1.c, 20), true},
        {"avx", bit(l1.c, 28), avxState},
        {"avx2", bit(l7.b, 5), avxState},
        {"fma", bit(l1.c, 12), avxState},
        {"f16c", bit(l1.c, 29), avxState},
        {"avx-vnni", bit(l71.a, 4), avxState},
        {"avx512f", bit(l7.b, 16), avx512State},
        {"avx512bw", bit(l7.b, 30), avx512State},
        {"avx512vl", bit(l7.b, 31), avx512State},
        {"avx512dq", bit(l7.b, 17), avx512State},
        {"avx512_vnni", bit(l7.c, 11), avx512State},
        {"avx512_bf16", bit(l71.a, 5), avx512State},
        {"avx512_fp16", bit(l7.d, 23), avx512State},
        {"amx_tile", bit(l7.d, 24), amxState},
        {"amx_bf16", bit(l7.d, 22), amxState},
        {"amx_int8", bit(l7.d, 25), amxState},
    };
    for (const Feature& f : features) {
        if (!f.present)
            continue;
        (f.enabled ? cpu.isa : cpu.isaDisabled).push_back(f.name);
    }
}
#endif

#if defined(__aarch64__)
void armIsa(CpuPlatform& cpu) {
    const unsigned long hw = getauxval(AT_HWCAP);
    const unsigned long hw2 = getauxval(AT_HWCAP2);
    auto add = [&](const char* name, bool on) {
        if (on)
            cpu.isa.push_back(name);
    };
    add("neon", hw & (1UL << 1)); // HWCAP_ASIMD
    add("asimdhp", hw & (1UL << 10));
    add("asimddp", hw & (1UL << 20));
    add("sve", hw & (1UL << 22));
    add("sve2", hw2 & (1UL << 1));
    add("bf16", hw2 & (1UL << 14));
    add("i8mm", hw2 & (1UL << 13));
}
#endif

bool privileged() {
    if (::geteuid() == 0)
        return true;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capget, &header, data) != 0)
        return false;
    return (data[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32)) & 1;
}

} // namespace

const std::vector<std::string>& settingVariables() {
    static const std::vector<std::string> names = {"OMP_NUM_THREADS",
                                                   "OMP_PROC_BIND",
                                                   "OMP_PLACES",
                                                   "OMP_WAIT_POLICY",
                                                   "KMP_AFFINITY",
                                                   "KMP_BLOCKTIME",
                                                   "GOMP_SPINCOUNT",
                                                   "MKL_NUM_THREADS",
                                                   "MKL_DYNAMIC",
                                                   "MKL_ENABLE_INSTRUCTIONS",
                                                   "MKL_CBWR",
                                                   "OPENBLAS_NUM_THREADS",
                                                   "DNNL_MAX_CPU_ISA",
                                                   "ONEDNN_MAX_CPU_ISA",
                                                   "DNNL_VERBOSE",
                                                   "ONEDNN_VERBOSE",
                                                   "DNNL_DEFAULT_FPMATH_MODE",
                                                   "ONEDNN_DEFAULT_FPMATH_MODE",
                                                   "TORCH_NUM_THREADS",
                                                   "CUDA_VISIBLE_DEVICES",
                                                   "CUDA_LAUNCH_BLOCKING",
                                                   "CUDA_MODULE_LOADING",
                                                   "CUDA_DEVICE_MAX_CONNECTIONS",
                                                   "CUBLAS_WORKSPACE_CONFIG",
                                                   "NVIDIA_TF32_OVERRIDE"};
    return names;
}

CpuPlatform readCpu() {
    CpuPlatform cpu;
    utsname u{};
    if (::uname(&u) == 0)
        cpu.architecture = u.machine;
    const auto cpus = cpuinfo();
    std::set<std::string> sockets, cores;
    for (const auto& c : cpus) {
        auto get = [&](const char* k) {
            const auto it = c.find(k);
            return it == c.end() ? std::string() : it->second;
        };
        if (cpu.vendor.empty())
            cpu.vendor = get("vendor_id").empty() ? get("CPU implementer") : get("vendor_id");
        if (cpu.model.empty())
            cpu.model = get("model name");
        const std::string socket = get("physical id");
        sockets.insert(socket);
        cores.insert(socket + ":" + get("core id"));
    }
    cpu.threads = static_cast<int>(cpus.size());
    if (cpu.threads == 0)
        cpu.threads = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    // The /sys topology, when there is one, over /proc/cpuinfo (which arm64 lacks it in).
    std::set<std::string> sysSockets, sysCores;
    for (int i = 0; i < cpu.threads; ++i) {
        const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(i) + "/topology/";
        const std::string socket = trim(readText(dir + "physical_package_id"));
        const std::string core = trim(readText(dir + "core_id"));
        if (socket.empty() || core.empty())
            break;
        sysSockets.insert(socket);
        sysCores.insert(socket + ":" + core);
    }
    const bool sysKnown = !sysCores.empty();
    cpu.sockets = static_cast<int>(sysKnown ? sysSockets.size() : sockets.size());
    cpu.cores = static_cast<int>(sysKnown ? sysCores.size() : cores.size());
    cpu.numaNodes = countEntries("/sys/devices/system/node/has_cpu");
    if (cpu.numaNodes == 0)
        cpu.numaNodes = countEntries("/sys/devices/system/node/online");
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        cpu.allowedThreads = CPU_COUNT(&set);
#if defined(__x86_64__) || defined(__i386__)
    x86Isa(cpu);
#elif defined(__aarch64__)
    armIsa(cpu);
#endif
    return cpu;
}

std::vector<std::pair<std::string, std::string>> readSettings() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& name : settingVariables())
        if (const char* v = std::getenv(name.c_str()))
            out.emplace_back(name, v);
    return out;
}

std::string countersPermission(const std::string& params, bool isPrivileged) {
    if (params.empty())
        return "unknown: /proc/driver/nvidia/params is not readable (no NVIDIA driver here, or a "
               "container without it); the session says at start whether counters work";
    const auto at = params.find("RmProfilingAdminOnly:");
    if (at == std::string::npos)
        return "unknown: the driver's parameters do not say RmProfilingAdminOnly";
    const bool adminOnly = std::atoi(params.c_str() + at + 21) != 0;
    if (!adminOnly)
        return "yes (RmProfilingAdminOnly: 0: every user)";
    if (isPrivileged)
        return "yes (RmProfilingAdminOnly: 1, and this process is root or has CAP_SYS_ADMIN)";
    return "no: the driver restricts counters to administrators (RmProfilingAdminOnly: 1). Run "
           "as root or with CAP_SYS_ADMIN, or load the driver with "
           "NVreg_RestrictProfilingToAdminUsers=0 (docs/troubleshooting.md)";
}

std::uint64_t memoryAvailable(const std::string& meminfo) {
    const std::string key = "MemAvailable:";
    const auto at = meminfo.find(key);
    if (at == std::string::npos)
        return 0;
    std::istringstream line(meminfo.substr(at + key.size(), 64));
    std::uint64_t kib = 0;
    std::string unit;
    if (!(line >> kib >> unit) || unit != "kB" || kib > (std::uint64_t{1} << 50))
        return 0;
    return kib * 1024;
}

std::uint64_t readMemoryAvailable() {
    return memoryAvailable(readText("/proc/meminfo"));
}

Platform readHostPlatform() {
    Platform p;
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0)
        p.hostName = host;
    utsname u{};
    if (::uname(&u) == 0)
        p.os = std::string(u.sysname) + " " + u.release;
    p.cpu = readCpu();
    p.settings = readSettings();
    p.counters = countersPermission(readText("/proc/driver/nvidia/params"), privileged());
    return p;
}

nlohmann::json platformToJson(const Platform& p) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& g : p.gpus)
        gpus.push_back({{"ordinal", g.ordinal},
                        {"name", g.name},
                        {"sm_count", g.smCount},
                        {"compute_capability",
                         std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor)},
                        {"sm_clock_hz", g.smClockHz},
                        {"memory_clock_hz", g.memoryClockHz},
                        {"memory_bytes", g.memoryBytes}});
    nlohmann::json settings = nlohmann::json::object();
    for (const auto& [k, v] : p.settings)
        settings[k] = v;
    return {{"host", p.hostName},
            {"os", p.os},
            {"cpu",
             {{"architecture", p.cpu.architecture},
              {"vendor", p.cpu.vendor},
              {"model", p.cpu.model},
              {"sockets", p.cpu.sockets},
              {"cores", p.cpu.cores},
              {"threads", p.cpu.threads},
              {"numa_nodes", p.cpu.numaNodes},
              {"allowed_threads", p.cpu.allowedThreads},
              {"isa", p.cpu.isa},
              {"isa_not_enabled_by_os", p.cpu.isaDisabled}}},
            {"settings", settings},
            {"gpus", gpus},
            {"gpu_note", p.gpuNote},
            {"nvidia_driver", p.driverVersion},
            {"cuda_driver_api", p.cudaDriverApi},
            {"cuda_build", p.cudaBuild},
            {"cupti", p.cupti},
            {"cudnn", p.cudnn},
            {"counters", p.counters}};
}

std::string toJsonText(const Platform& p) {
    return platformToJson(p).dump(2);
}

Platform platformFromJsonText(const std::string& text, const std::string& what) {
    nlohmann::json j;
    try {
        j = parseBounded(text);
    } catch (const std::exception& e) {
        throw Error(ErrorCode::CorruptRecording,
                    what + ": its platform description is malformed (" + e.what() + ")");
    }
    return platformFromJson(j, what);
}

Platform platformFromJson(const nlohmann::json& j, const std::string& what) {
    try {
        Platform p;
        p.hostName = j.value("host", "");
        p.os = j.value("os", "");
        const auto& c = j.at("cpu");
        p.cpu.architecture = c.value("architecture", "");
        p.cpu.vendor = c.value("vendor", "");
        p.cpu.model = c.value("model", "");
        p.cpu.sockets = integerOr<int>(c, "sockets", 0);
        p.cpu.cores = integerOr<int>(c, "cores", 0);
        p.cpu.threads = integerOr<int>(c, "threads", 0);
        p.cpu.numaNodes = integerOr<int>(c, "numa_nodes", 0);
        p.cpu.allowedThreads = integerOr<int>(c, "allowed_threads", 0);
        p.cpu.isa = c.value("isa", std::vector<std::string>{});
        p.cpu.isaDisabled = c.value("isa_not_enabled_by_os", std::vector<std::string>{});
        // Each JSON value is bound to a name before it is iterated: a range-for over
        // `j.value(...).items()` walks a proxy of a temporary destroyed before the loop body.
        const nlohmann::json settings = j.value("settings", nlohmann::json::object());
        for (const auto& [k, v] : settings.items())
            p.settings.emplace_back(k, v.get<std::string>());
        // A JSON object keeps its keys sorted: back to settingVariables() order, others last.
        const auto rank = [](const std::string& name) {
            const auto& known = settingVariables();
            return std::find(known.begin(), known.end(), name) - known.begin();
        };
        std::stable_sort(p.settings.begin(), p.settings.end(), [&](const auto& a, const auto& b) {
            return rank(a.first) < rank(b.first);
        });
        const nlohmann::json gpus = j.value("gpus", nlohmann::json::array());
        for (const auto& g : gpus) {
            GpuPlatform x;
            x.ordinal = integerOr<int>(g, "ordinal", 0);
            x.name = g.value("name", "");
            x.smCount = integerOr<int>(g, "sm_count", 0);
            const std::string cc = g.value("compute_capability", "0.0");
            x.computeMajor = std::atoi(cc.c_str());
            x.computeMinor =
                cc.find('.') == std::string::npos ? 0 : std::atoi(cc.c_str() + cc.find('.') + 1);
            x.smClockHz = g.value("sm_clock_hz", 0.0);
            x.memoryClockHz = g.value("memory_clock_hz", 0.0);
            x.memoryBytes = integerOr<std::uint64_t>(g, "memory_bytes", 0);
            p.gpus.push_back(x);
        }
        p.gpuNote = j.value("gpu_note", "");
        p.driverVersion = j.value("nvidia_driver", "");
        p.cudaDriverApi = j.value("cuda_driver_api", "");
        p.cudaBuild = j.value("cuda_build", "");
        p.cupti = j.value("cupti", "");
        p.cudnn = j.value("cudnn", "");
        p.counters = j.value("counters", "");
        return p;
    } catch (const std::exception& e) {
        throw Error(ErrorCode::CorruptRecording,
                    what + ": its platform description is malformed (" + e.what() + ")");
    }
}

void printPlatform(const Platform& p, std::ostream& out) {
    auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v)
            s += (s.empty() ? "" : " ") + x;
        return s.empty() ? std::string("-") : s;
    };
    const CpuPlatform& c = p.cpu;
    out << "host      " << p.hostName << " (" << p.os << ")\n"
        << "cpu       " << c.model << " [" << c.vendor << ", " << c.architecture << "]\n"
        << "          " << c.sockets << " socket(s), " << c.cores << " core(s), " << c.threads
        << " thread(s), " << c.numaNodes << " NUMA node(s); this process may use "
        << c.allowedThreads << "\n"
        << "isa       " << join(c.isa) << "\n";
    if (!c.isaDisabled.empty())
        out << "          in the CPU but not enabled by the OS (unusable): " << join(c.isaDisabled)
            << "\n";
    // What the math libraries can use, in their terms.
    auto has = [&](const char* n) {
        return std::find(c.isa.begin(), c.isa.end(), n) != c.isa.end();
    };
    if (c.architecture == "x86_64")
        out << "          oneDNN/MKL top ISA: "
            << (has("amx_tile") && has("amx_bf16") ? "AMX (avx512_core_amx)"
                : has("avx512_bf16")               ? "AVX-512 with BF16 (avx512_core_bf16)"
                : has("avx512_vnni")               ? "AVX-512 with VNNI (avx512_core_vnni)"
                : has("avx512bw") && has("avx512vl") && has("avx512dq") ? "AVX-512 (avx512_core)"
                : has("avx2") && has("fma")                             ? "AVX2 with FMA (avx2)"
                : has("sse4.2")                                         ? "SSE4.2 (sse41)"
                                                                        : "below SSE4.2")
            << "\n";
    out << "threads   ";
    if (p.settings.empty())
        out << "no OpenMP/MKL/oneDNN/CUDA settings in the environment (libraries choose: "
               "usually one thread per core)";
    for (std::size_t i = 0; i < p.settings.size(); ++i)
        out << (i ? ", " : "") << p.settings[i].first << "=" << p.settings[i].second;
    out << "\n";
    if (p.gpus.empty())
        out << "gpus      none" << (p.gpuNote.empty() ? "" : ": " + p.gpuNote) << "\n";
    for (const auto& g : p.gpus) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "gpu %d     %s: %d SMs, compute capability %d.%d, SM clock %.0f MHz, "
                      "memory %.1f GiB at %.0f MHz\n",
                      g.ordinal, g.name.c_str(), g.smCount, g.computeMajor, g.computeMinor,
                      g.smClockHz / 1e6, static_cast<double>(g.memoryBytes) / (1u << 30),
                      g.memoryClockHz / 1e6);
        out << line;
    }
    out << "software  NVIDIA driver " << (p.driverVersion.empty() ? "-" : p.driverVersion)
        << ", CUDA driver API " << (p.cudaDriverApi.empty() ? "-" : p.cudaDriverApi)
        << ", built with CUDA " << (p.cudaBuild.empty() ? "-" : p.cudaBuild) << ", CUPTI "
        << (p.cupti.empty() ? "-" : p.cupti) << ", cuDNN " << (p.cudnn.empty() ? "-" : p.cudnn)
        << "\n"
        << "counters  " << p.counters << "\n";
}

} // namespace roofline::core
