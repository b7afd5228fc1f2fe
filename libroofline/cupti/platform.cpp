#include "cupti/platform.hpp"

#include "cupti/driver.hpp"

#include <cuda.h>
#include <cupti.h>

#include <dlfcn.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace roofline::cupti {
namespace {

std::string versionText(int v) { // 13000 -> "13.0"
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..." ->
// "580.159.04": the first word of digits and dots after "Module".
std::string nvidiaDriverVersion() {
    std::ifstream in("/proc/driver/nvidia/version");
    std::string line;
    if (!std::getline(in, line))
        return "";
    const auto at = line.find("Module");
    std::istringstream words(line.substr(at == std::string::npos ? 0 : at));
    for (std::string w; words >> w;)
        if (!w.empty() && std::isdigit(static_cast<unsigned char>(w[0])) &&
            w.find_first_not_of("0123456789.") == std::string::npos && w.find('.') != w.npos)
            return w;
    return "";
}

// The version of the cuDNN the process would load (`load`) or has loaded, or why there is none.
std::string cudnnVersion(bool load) {
    for (const char* lib : {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"}) {
        void* h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL | (load ? 0 : RTLD_NOLOAD));
        if (!h)
            continue;
        using GetVersion = std::size_t (*)();
        const auto get = reinterpret_cast<GetVersion>(dlsym(h, "cudnnGetVersion"));
        std::string out;
        if (get) {
            const std::size_t v = get(); // 9.10.2 -> 91002 (cuDNN 9), 8.9.7 -> 8907 (cuDNN 8)
            out = v >= 90000 ? std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) +
                                   "." + std::to_string(v % 100)
                             : std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 100) +
                                   "." + std::to_string(v % 100);
        }
        dlclose(h);
        if (!out.empty())
            return out + " (" + lib + ")";
    }
    return load ? "not found" : "not loaded by this process";
}

} // namespace

core::Platform readPlatform(bool loadCudnn) {
    core::Platform p = core::readHostPlatform();
    p.cudaBuild = versionText(CUDA_VERSION);
    uint32_t cuptiVersion = 0;
    if (cuptiGetVersion(&cuptiVersion) == CUPTI_SUCCESS)
        p.cupti = "API " + std::to_string(cuptiVersion);
    p.cudnn = cudnnVersion(loadCudnn);
    p.driverVersion = nvidiaDriverVersion();
    const DriverApi* d = driver();
    if (!d) {
        p.gpuNote = driverLoadError();
        return p;
    }
    int version = 0;
    if (d->init(0) != CUDA_SUCCESS) {
        p.gpuNote = "cuInit failed: no usable NVIDIA GPU or driver";
        return p;
    }
    if (d->driverGetVersion(&version) == CUDA_SUCCESS)
        p.cudaDriverApi = versionText(version);
    int count = 0;
    if (d->deviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        p.gpuNote = "the driver sees no device (CUDA_VISIBLE_DEVICES?)";
        return p;
    }
    for (int i = 0; i < count; ++i) {
        CUdevice dev = 0;
        if (d->deviceGet(&dev, i) != CUDA_SUCCESS)
            continue;
        core::GpuPlatform g;
        g.ordinal = i;
        char name[256] = {};
        if (d->deviceGetName(name, sizeof name - 1, dev) == CUDA_SUCCESS)
            g.name = name;
        auto attribute = [&](CUdevice_attribute a) {
            int v = 0;
            return d->deviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
        };
        g.smCount = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
        g.computeMajor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
        g.computeMinor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
        g.smClockHz = 1e3 * attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
        g.memoryClockHz = 1e3 * attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
        std::size_t bytes = 0;
        if (d->deviceTotalMem(&bytes, dev) == CUDA_SUCCESS)
            g.memoryBytes = bytes;
        p.gpus.push_back(g);
    }
    return p;
}

} // namespace roofline::cupti
