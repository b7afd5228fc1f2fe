#pragma once
/// \file csv_rows.hpp
/// The workload files' CSV dialect: a header row, '#' comments, blank lines ignored, and cells that
/// may hold a list ("16;32;64") which expands into one case per value (cartesian product per row).

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
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
/// A CSV cell: quoted ("a, b" -> "\"a, b\"", inner quotes doubled) only when it must be.
std::string csvQuoted(const std::string& cell);
/// One CSV line's cells, quoted cells unquoted (the inverse of csvQuoted per cell).
std::vector<std::string> splitCsvLine(const std::string& line);
std::string trim(const std::string& text);
std::string lowerCase(std::string text);

/// Parses a list of keywords ("fwd,bwd-data" or "fwd;bwd-data", any case). Each keyword maps to one
/// or more values ("all" -> every pass); an unknown one throws WorkloadError with `hint`.
template <class T>
std::vector<T> parseKeywords(const std::string& text, const std::string& what,
                             const std::vector<std::pair<std::string, std::vector<T>>>& keywords,
                             const std::string& hint) {
    std::vector<T> out;
    for (const auto& item : split(text, text.find(';') != std::string::npos ? ';' : ',')) {
        const std::string key = lowerCase(item);
        bool found = false;
        for (const auto& [name, values] : keywords)
            if (name == key) {
                out.insert(out.end(), values.begin(), values.end());
                found = true;
                break;
            }
        if (!found)
            throw WorkloadError(what + ": unknown value '" + item + "' (" + hint + ")");
    }
    return out;
}

/// Integer parsing with the cell named in the error ("file.csv:3: column 'batch': 'x' is not an
/// integer"). `minimum` is the smallest accepted value.
long long parseInteger(const std::string& value, const std::string& what, long long minimum);

/// Turns an inline case, "key=value" pairs separated by spaces, into CSV text (header + one row)
/// for readCsvRows. List values are separated by ';'.
std::string specToCsv(const std::string& spec);

/// Reads a whole file; throws WorkloadError naming the path when it cannot be read.
std::string readTextFile(const std::string& path);

} // namespace roofline::workloads
