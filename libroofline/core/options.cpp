#include <roofline/error.hpp>
#include <roofline/options.hpp>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace roofline {
namespace {

long long parseInteger(const char* variable, const char* text, long long min, long long max) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max)
        throw Error(ErrorCode::InvalidArgument,
                    std::string(variable) + "='" + text + "' is not an integer in [" +
                        std::to_string(min) + ", " + std::to_string(max) + "]");
    return value;
}

} // namespace

const char* toString(CollectionMode mode) noexcept {
    switch (mode) {
    case CollectionMode::KernelReplay:
        return "kernel-replay";
    }
    return "unknown";
}

Options Options::fromEnvironment(Options o) {
    if (const char* v = std::getenv("ROOFLINE_DEVICE"))
        o.device = static_cast<int>(parseInteger("ROOFLINE_DEVICE", v, 0, 1023));
    if (const char* v = std::getenv("ROOFLINE_MAX_KERNELS"))
        o.maxKernels =
            static_cast<std::size_t>(parseInteger("ROOFLINE_MAX_KERNELS", v, 1, 1 << 20));
    if (const char* v = std::getenv("ROOFLINE_OUTPUT"))
        o.outputPath = v;
    if (const char* v = std::getenv("ROOFLINE_MODE")) {
        if (std::string(v) != "kernel-replay")
            throw Error(ErrorCode::InvalidArgument,
                        std::string("ROOFLINE_MODE='") + v +
                            "' is not a collection mode this build has (kernel-replay)");
        o.mode = CollectionMode::KernelReplay;
    }
    return o;
}

} // namespace roofline
