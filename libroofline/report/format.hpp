#pragma once
// Shared by the reporters: the column set and number formatting, so table, CSV and JSON agree.
#include <roofline/kernel_record.hpp>

#include <string>

namespace roofline::report {
/// "%.6g" without locale surprises; finite values only (non-finite print as 0).
std::string number(double value);
/// Engineering-style short form for tables: 1.23e+09 -> "1.23G".
std::string shortNumber(double value);
/// Seconds as milliseconds with three decimals: 1.769e-3 -> "1.769".
std::string milliseconds(double seconds);
/// `part` as a percentage of `whole`, one decimal and a percent sign: "12.5%" ("0.0%" when `whole`
/// is not positive).
std::string percent(double part, double whole);
/// A CSV cell: quoted (quotes doubled) when it holds a comma, quote or line break.
std::string csvCell(const std::string& s);
/// `s` cut to `width` characters for a table column, "..." marking the cut.
std::string fit(const std::string& s, std::size_t width);
/// `s` shortened to `width` characters in the middle ("head...tail"), so names that differ at
/// the end stay distinct; template argument lists are elided first ("k<...>") when that suffices.
std::string shorten(const std::string& s, std::size_t width, bool elideTemplates = true);
/// A kernel's name for narrow columns: no return type, namespaces or argument list
/// ("void ns::k<float>(int)" -> "k<float>"). Full names stay in CSV and JSON.
std::string displayName(const std::string& demangled);
} // namespace roofline::report
