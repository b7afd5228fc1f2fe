#include "core/demangle.hpp"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace roofline::core {

std::string demangle(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

} // namespace roofline::core
