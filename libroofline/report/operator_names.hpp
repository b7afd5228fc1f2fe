#pragma once
// Framework operator labels cut to a table's column by whole operators: a compiled kernel's fused
// operators (`aten::_to_copy+aten::native_layer_norm+aten::add [backward]`) keep the first ones
// that fit, then "+.."; an operator too long alone loses its namespace, then whole words from its
// end (`_scaled_dot_product_cudnn.. [backward]`). A phase suffix (" [backward]") always stays.
#include <cstddef>
#include <string>
#include <string_view>

namespace roofline::report {

/// Whether `name` is a list of framework operators joined by '+' ("aten::addmm",
/// "aten::native_layer_norm+aten::add [backward]"), each `namespace::name`.
bool operatorLabel(std::string_view name) noexcept;

/// `name` (an operatorLabel) in at most `width` characters. `keep` (> 0, when the label must be
/// told apart from another that starts alike): that operator stays too, after the first
/// (`aten::_to_copy+..+aten::mul+.. [backward]`).
std::string fitOperators(const std::string& name, std::size_t width,
                         std::size_t keep = std::string::npos);

/// The index of the first operator where two operator labels differ (npos: none).
std::size_t firstOperatorDifference(const std::string& a, const std::string& b);

} // namespace roofline::report
