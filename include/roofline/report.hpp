#pragma once
/// \file report.hpp
/// Reporters for kernel records: a terminal table, CSV and JSON. Each writes to any std::ostream;
/// the path overloads write atomically (temp file + rename) and throw Error(Io) on failure.

#include <roofline/export.hpp>
#include <roofline/host_scope.hpp>
#include <roofline/kernel_record.hpp>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace roofline {

/// How records are summed into rows: every launch of one kernel name in one scope path (scope
/// paths carry the iteration scope's instance made uniform, so all iterations merge), of one
/// name, of one scope path, or each launch on its own.
/// Rows of a report. Kernel (the default): every launch of a kernel in a scope path, with the
/// numbered instances of every scope level merged ("Layer 0".."Layer 11" -> "Layer #"); NameScope:
/// the same with numbered scopes kept apart; Name, Scope; Launch: one row per launch.
/// Op: every launch of one framework operator (KernelRecord::op; backward apart from forward);
/// Module: of one module path (KernelRecord::module, forward and backward together).
enum class GroupBy { NameScope, Name, Scope, Launch, Kernel, Op, Module };
/// "kernel", "name+scope", "name", "scope", "launch", "op", "module" or "module:DEPTH"; throws
/// Error(InvalidArgument) naming the choices.
ROOFLINE_API GroupBy parseGroupBy(const std::string& text);
/// The depth of "module:DEPTH" (module paths cut after DEPTH names: "encoder.layers.3.linear1" at
/// 3 is "encoder.layers.3"); 0 for any other grouping (whole paths).
ROOFLINE_API std::size_t moduleDepthOf(const std::string& text);
/// `records` with every module path cut after `depth` names (0: unchanged).
ROOFLINE_API std::vector<KernelRecord> cutModules(std::vector<KernelRecord> records,
                                                  std::size_t depth);
ROOFLINE_API const char* toString(GroupBy by) noexcept;

/// Records summed per group, in order of first appearance: `kernels` holds the launches summed,
/// times, FLOPs and bytes are totals of the measured ones (so intensities and rates stay exact),
/// `bound` is classified against `ceilings`, `measured` is true when any launch was, `replay`
/// is the worst of the group's, and `note` counts what was not measured or was flagged.
/// GroupBy::Scope rows are named after their longest-running kernel. GroupBy::Launch returns the
/// records unchanged.
ROOFLINE_API std::vector<KernelRecord> groupRecords(const std::vector<KernelRecord>& records,
                                                    GroupBy by, const Ceilings& ceilings);

/// Records whose demangled name and scope path match: a plain text matches as a substring,
/// "regex:<ECMAScript>" anywhere in the string; "" matches everything. Throws
/// Error(InvalidArgument) for a bad regular expression.
ROOFLINE_API std::vector<KernelRecord> filterRecords(const std::vector<KernelRecord>& records,
                                                     const std::string& name,
                                                     const std::string& scope);

struct TableOptions {
    std::size_t maxRows = 0; ///< 0: all records
    bool sortByTime = false; ///< largest time first (the same as sortBy = "time")
    /// Column to sort by: "time", "mean", "launches", "share", "flops", "rate", "ai_l1",
    /// "ai_l2", "ai_dram", "name", "scope" or "" (order given; numbers sort largest first).
    std::string sortBy;
    /// Rows are groups (groupRecords): launches, total and mean time, % of time, a totals line.
    bool grouped = false;
    /// Characters per line; 0: $COLUMNS, else the terminal of standard output, standard error
    /// or /dev/tty, else 100.
    std::size_t width = 0;
    bool wide = false; ///< never shorten names
    /// Rows named by framework operator or module (GroupBy::Op, GroupBy::Module): names shown as
    /// they are ("aten::addmm"), not shortened as kernel names are.
    bool verbatimNames = false;
    std::string nameHeader = "kernel"; ///< the name column's heading
    /// Grouped tables: the time that "%time" divides by (the whole recording's when the rows
    /// are filtered); 0: the rows' own total.
    double totalSeconds = 0;
    /// Appended to every measured row's bound ("*" when the roofs in use lack a level: the
    /// caller explains it under the table).
    std::string boundMark;
};

/// Throws Error(InvalidArgument) naming the valid keys when `key` is not one of TableOptions'.
ROOFLINE_API void checkSortKey(const std::string& key);

/// Aligned table: kernel, scope, time, GFLOP/s, intensity at L1/L2/DRAM, bound. Names are
/// shortened in the middle (template arguments and parameter lists first) to fit the width;
/// notes of unmeasured records are listed once after the table.
ROOFLINE_API void printTable(const std::vector<KernelRecord>& records, std::ostream& out,
                             const TableOptions& options = {});
/// One row per record, one column per field; readable by pandas/spreadsheets unchanged.
ROOFLINE_API void writeCsv(const std::vector<KernelRecord>& records, std::ostream& out);
ROOFLINE_API void writeCsv(const std::vector<KernelRecord>& records, const std::string& path);
/// Where records come from, for JSON outputs: the device, the collection and the roofs.
struct ReportContext {
    std::string device, chip, mode, recording;
    std::string bytes = "nersc"; ///< L1/L2 byte definition: "nersc" or "ncu"
    std::size_t passes = 0;
    std::vector<std::string> metrics;
    Ceilings ceilings;
    /// The process that recorded ("rank 3 of 8 (RANK), pid 4242 on node7"); "" when the recording
    /// names none (older recordings, merged ones: each record has its rank).
    std::string process;
    /// The host side: the session's wall time and the host times per scope; written
    /// as a "host" object when not empty.
    double sessionSeconds = 0;
    std::vector<HostScope> hostScopes;
    /// libroofline's own measured work on the application's threads (already out of the
    /// scopes' times).
    double profilerSeconds = 0;
    double hostRunSeconds = 0; ///< the base of the host shares (Session::hostRunSeconds)
};
/// JSON schema of writeJson's output ("schema_version").
inline constexpr int kJsonSchemaVersion = 2;
/// {"schema_version":2,"records":[...]} with derived values and the raw metrics keyed by name.
ROOFLINE_API void writeJson(const std::vector<KernelRecord>& records, std::ostream& out);
/// The same with a "context" object: device, chip, mode, passes, metrics and the ceilings (every
/// roof, 0 where unknown) that decided each record's bound.
ROOFLINE_API void writeJson(const std::vector<KernelRecord>& records, std::ostream& out,
                            const ReportContext& context);
ROOFLINE_API void writeJson(const std::vector<KernelRecord>& records, const std::string& path);

} // namespace roofline
