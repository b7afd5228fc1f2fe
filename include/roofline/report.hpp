#pragma once
/// \file report.hpp
/// Reporters for kernel records: a terminal table, CSV and JSON. Each writes to any std::ostream;
/// the path overloads write atomically (temp file + rename) and throw Error(Io) on failure.

#include <roofline/export.hpp>
#include <roofline/kernel_record.hpp>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace roofline {

struct TableOptions {
    std::size_t maxRows = 0; ///< 0: all records
    bool sortByTime = false; ///< largest time first (default: launch order)
};

/// Aligned table: kernel, scope, time, GFLOP/s, intensity at L1/L2/DRAM, bound.
ROOFLINE_API void printTable(const std::vector<KernelRecord>& records, std::ostream& out,
                             const TableOptions& options = {});
/// One row per record, one column per field; readable by pandas/spreadsheets unchanged.
ROOFLINE_API void writeCsv(const std::vector<KernelRecord>& records, std::ostream& out);
ROOFLINE_API void writeCsv(const std::vector<KernelRecord>& records, const std::string& path);
/// {"records":[...]} with derived values and the raw metrics keyed by name.
ROOFLINE_API void writeJson(const std::vector<KernelRecord>& records, std::ostream& out);
ROOFLINE_API void writeJson(const std::vector<KernelRecord>& records, const std::string& path);

} // namespace roofline
