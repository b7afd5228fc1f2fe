#pragma once
#include <string>
namespace roofline::core {
/// Itanium C++ demangling; returns the input when it is not a mangled name (e.g. extern "C").
std::string demangle(const std::string& mangled);
} // namespace roofline::core
