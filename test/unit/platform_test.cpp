// The platform report on the machine running the test: the ISA the CPU reports
// (cpuid) against the flags the kernel lists in /proc/cpuinfo, the topology, the thread settings
// from the environment, the counter permission from the driver's parameters, and the round trip
// through JSON and recordings.
#include "core/platform.hpp"
#include "core/recording.hpp"
#include "unit/minimal_recording.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

using namespace roofline;

namespace {

std::vector<std::string> cpuinfoFlags() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0) {
            std::istringstream words(line.substr(line.find(':') + 1));
            std::vector<std::string> out;
            for (std::string w; words >> w;)
                out.push_back(w);
            return out;
        }
    return {};
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST(Platform, MemoryAvailableComesFromMeminfo) {
    EXPECT_EQ(core::memoryAvailable("MemTotal:       24576000 kB\nMemFree:  1000 kB\n"
                                    "MemAvailable:   16777216 kB\nBuffers: 1 kB\n"),
              16ull << 30);
    EXPECT_EQ(core::memoryAvailable(""), 0u);
    EXPECT_EQ(core::memoryAvailable("MemAvailable: lots"), 0u);
    EXPECT_EQ(core::memoryAvailable("MemAvailable: 12 MB"), 0u);
    EXPECT_GT(core::readMemoryAvailable(), 0u); // Linux
}

TEST(Platform, TheIsaIsWhatTheKernelListsForThisCpu) {
    const core::CpuPlatform cpu = core::readCpu();
    const auto flags = cpuinfoFlags();
    if (flags.empty())
        GTEST_SKIP() << "no flags line in /proc/cpuinfo to compare with";
    // Our names -> /proc/cpuinfo's (the kernel lists what the CPU has and the OS enabled).
    const std::map<std::string, std::string> x86 = {{"sse4.2", "sse4_2"},
                                                    {"avx", "avx"},
                                                    {"avx2", "avx2"},
                                                    {"fma", "fma"},
                                                    {"f16c", "f16c"},
                                                    {"avx-vnni", "avx_vnni"},
                                                    {"avx512f", "avx512f"},
                                                    {"avx512bw", "avx512bw"},
                                                    {"avx512vl", "avx512vl"},
                                                    {"avx512dq", "avx512dq"},
                                                    {"avx512_vnni", "avx512_vnni"},
                                                    {"avx512_bf16", "avx512_bf16"},
                                                    {"avx512_fp16", "avx512_fp16"},
                                                    {"amx_tile", "amx_tile"},
                                                    {"amx_bf16", "amx_bf16"},
                                                    {"amx_int8", "amx_int8"}};
    const std::map<std::string, std::string> arm = {
        {"neon", "asimd"}, {"asimdhp", "asimdhp"}, {"asimddp", "asimddp"}, {"sve", "sve"},
        {"sve2", "sve2"},  {"bf16", "bf16"},       {"i8mm", "i8mm"}};
    const auto& names = cpu.architecture == "aarch64" ? arm : x86;
    for (const auto& [ours, kernel] : names) {
        SCOPED_TRACE(ours);
        EXPECT_EQ(contains(cpu.isa, ours), contains(flags, kernel));
    }
    std::printf("isa: ");
    for (const auto& i : cpu.isa)
        std::printf("%s ", i.c_str());
    std::printf("\n");
}

TEST(Platform, TheTopologyIsConsistent) {
    const core::CpuPlatform cpu = core::readCpu();
    EXPECT_FALSE(cpu.architecture.empty());
    EXPECT_EQ(cpu.threads, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
    EXPECT_GE(cpu.sockets, 1);
    EXPECT_GE(cpu.cores, cpu.sockets);
    EXPECT_LE(cpu.cores, cpu.threads);
    EXPECT_GE(cpu.allowedThreads, 1);
    EXPECT_LE(cpu.allowedThreads, cpu.threads);
}

TEST(Platform, ThreadSettingsComeFromTheEnvironment) {
    ::setenv("OMP_NUM_THREADS", "3", 1);
    ::setenv("DNNL_MAX_CPU_ISA", "AVX2", 1);
    const auto settings = core::readSettings();
    ::unsetenv("OMP_NUM_THREADS");
    ::unsetenv("DNNL_MAX_CPU_ISA");
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"OMP_NUM_THREADS", "3"}, {"DNNL_MAX_CPU_ISA", "AVX2"}};
    std::vector<std::pair<std::string, std::string>> ours;
    for (const auto& s : settings)
        if (s.first == "OMP_NUM_THREADS" || s.first == "DNNL_MAX_CPU_ISA")
            ours.push_back(s);
    EXPECT_EQ(ours, expected);
}

TEST(Platform, CounterPermissionFollowsTheDriverParameter) {
    const std::string restricted = "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n";
    const std::string open = "RmProfilingAdminOnly: 0\n";
    EXPECT_EQ(core::countersPermission(open, false).rfind("yes", 0), 0u);
    EXPECT_EQ(core::countersPermission(restricted, true).rfind("yes", 0), 0u);
    const std::string no = core::countersPermission(restricted, false);
    EXPECT_EQ(no.rfind("no:", 0), 0u);
    EXPECT_NE(no.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
    EXPECT_EQ(core::countersPermission("", false).rfind("unknown:", 0), 0u);
}

TEST(Platform, RoundTripsThroughJsonAndRecordings) {
    core::Platform p = core::readHostPlatform();
    p.gpus.push_back({0, "NVIDIA H100 80GB HBM3", 132, 9, 0, 1.98e9, 2.619e9, 85ull << 30});
    p.driverVersion = "580.159.04";
    p.cudnn = "9.19.0";
    const core::Platform back = core::platformFromJsonText(core::toJsonText(p), "test");
    EXPECT_EQ(back.cpu.isa, p.cpu.isa);
    EXPECT_EQ(back.cpu.cores, p.cpu.cores);
    ASSERT_EQ(back.gpus.size(), 1u);
    EXPECT_EQ(back.gpus[0].computeMajor, 9);
    EXPECT_EQ(back.gpus[0].memoryBytes, 85ull << 30);
    EXPECT_EQ(back.driverVersion, "580.159.04");
    core::Recording rec = test::minimalRecording();
    rec.platform = p;
    std::stringstream file;
    core::writeRecording(rec, file);
    const core::Recording r = core::readRecording(file, "test");
    EXPECT_EQ(r.platform.cpu.model, p.cpu.model);
    EXPECT_EQ(r.platform.gpus.size(), 1u);
    std::ostringstream text;
    core::printPlatform(r.platform, text);
    EXPECT_NE(text.str().find("gpu 0     NVIDIA H100 80GB HBM3: 132 SMs, compute capability 9.0"),
              std::string::npos)
        << text.str();
    EXPECT_THROW(core::platformFromJsonText("{\"cpu\": 3}", "bad"), Error);
}
