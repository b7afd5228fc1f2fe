#pragma once
/// \file csv_rows.hpp
/// The workload files' CSV dialect: a header row, '#' comments, blank lines ignored, and cells that
/// may hold a list ("16;32;64") which expands into one case per value (cartesian product per row).

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace roofline::workloads {

/// A workload file or line that cannot be used; the message names the file, line and column.
class WorkloadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// One data row after list expansion: column name -> single value, plus where it came from.
struct CsvRow {
    std::map<std::string, std::string> cells;
    std::string source; ///< "file.csv:12"
    const std::string* find(const std::string& column) const;
};

/// Parses CSV text with a header row and expands list cells ("a;b;c") into the cartesian product.
/// Columns outside `known` are an error that lists the known ones.
std::vector<CsvRow> readCsvRows(const std::string& text, const std::string& sourceName,
                                const std::vector<std::string>& known);

std::vector<std::string> split(const std::string& text, char separator);
std::string trim(const std::string& text);

/// Integer parsing with the cell named in the error ("file.csv:3: column 'batch': 'x' is not an
/// integer"). `minimum` is the smallest accepted value.
long long parseInteger(const std::string& value, const std::string& what, long long minimum);

/// Turns an inline case, "key=value" pairs separated by spaces, into CSV text (header + one row)
/// for readCsvRows. List values are separated by ';'.
std::string specToCsv(const std::string& spec);

/// Reads a whole file; throws WorkloadError naming the path when it cannot be read.
std::string readTextFile(const std::string& path);

} // namespace roofline::workloads
