#pragma once
// Every setting of a profiled process in one table (core/options.cpp): its Options field, its
// ROOFLINE_* variable, its `roofline run` flag, how its text is read and written, its default and
// its help. Options::fromEnvironment() and `roofline run` both read it, and a test checks
// docs/configuration.md's settings table against it (test/unit/option_table_test.cpp).
#include <roofline/options.hpp>

#include <string>
#include <vector>

namespace roofline::core {

struct OptionRow {
    /// The Options field, or what docs/configuration.md names in its place for a variable read
    /// elsewhere ("(logging)": ROOFLINE_LOG_LEVEL is read by core/log.cpp).
    const char* name;
    const char* variable; ///< ROOFLINE_*
    const char* flag;     ///< `roofline run`'s flag (CLI11 syntax: "--output,-o"); nullptr: none
    /// Sets the field from the variable's text; throws Error(InvalidArgument) naming the
    /// variable and what it accepts. nullptr: the variable is read elsewhere.
    void (*parse)(Options& options, const char* text);
    /// The field's value as the variable would say it (parse(format(o)) leaves o unchanged).
    std::string (*format)(const Options& options);
    const char* defaultCell; ///< the default as docs/configuration.md's table shows it
    const char* help;        ///< one line for `roofline run --help`
    /// Whether the field belongs to Options (name is then its field name).
    bool field() const noexcept { return parse != nullptr; }
};

/// Every row, in docs/configuration.md's order.
const std::vector<OptionRow>& optionTable();

/// The row of `variable`, or nullptr.
const OptionRow* optionRow(const std::string& variable) noexcept;

} // namespace roofline::core
