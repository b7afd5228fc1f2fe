#pragma once
// The `roofline` subcommands. Each declares its own options on the command line (add*: in its
// own file) and returns what runs it once parsed; main.cpp runs the one given.
#include "core/ceilings_file.hpp"
#include "core/recording.hpp"
#include "core/sampled_recording.hpp"

#include <roofline/kernel_record.hpp>

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace roofline::cli {

/// A subcommand declared on the command line, and what runs it once it was parsed.
struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;
};
Command addReport(CLI::App& app);
Command addCompare(CLI::App& app);
Command addMerge(CLI::App& app);
Command addRun(CLI::App& app);
Command addCeilings(CLI::App& app);
/// What is wrong with a --group-by value ("" when nothing; `launch`: one row per launch is a
/// grouping here), for a CLI11 check.
std::string groupByError(const std::string& value, bool launch);
Command addMetrics(CLI::App& app);  ///< cli/info_cmd.cpp
Command addPlatform(CLI::App& app); ///< cli/info_cmd.cpp

struct CeilingsArgs {
    int device = 0;
    bool quick = false;
    bool show = false;
    bool save = true;
    std::string output; ///< file to write (default: the per-device cache file)
};
int ceilings(const CeilingsArgs& args);

struct ReportArgs {
    std::string file, csv, json, chart;
    /// Rows shown (0: all); kDefaultTop: 25, all with --group-by launch.
    static constexpr std::size_t kDefaultTop = static_cast<std::size_t>(-1);
    std::size_t top = kDefaultTop;
    bool sortByTime = false;
    std::size_t labels = 5;
    std::string groupBy = "kernel";
    std::string name, scope; ///< filters: substring or "regex:..."
    std::string sort;        ///< table column ("" : time when grouped, launch order otherwise)
    bool wide = false;
    bool brief = false;   ///< a short header: no roofs table, no platform
    std::string ceilings; ///< a ceilings file (roofline ceilings -o) instead of the cache
    bool host = false;    ///< print the host time per scope
    std::string hostCsv;  ///< write it as CSV
};
int report(const ReportArgs& args);
/// The report of a sampled job's recording (report() hands it over): the steps' table, --csv and
/// --chart.
int reportSampled(const ReportArgs& args);

/// A recording evaluated against the device's ceilings (measured when cached, else datasheet).
struct Evaluated {
    core::Recording recording;
    core::CeilingsChoice ceilings;
    std::vector<KernelRecord> records;
    bool sampled = false; ///< a sampled job's recording: its kernels per step (only the device read)
};
/// The roofs for `rec`'s device: `ceilings` a ceilings file, "datasheet", "device", or "" (the
/// cache, else the datasheet, with the device's peaks where a roof would be the datasheet's); a
/// file that exists but does not fit, and one measured on another device, warned about.
core::CeilingsChoice ceilingsFor(const core::Recording& rec, const std::string& ceilings);
/// The same for a sampled job's recording (its header's device).
core::CeilingsChoice ceilingsFor(const core::SampledRecording& rec, const std::string& ceilings);
/// `ceilings`: a ceilings file to use instead of the cache ("": $ROOFLINE_CEILINGS or the cache);
/// one that cannot be read is an error, one measured on another device a warning.
Evaluated evaluate(const std::string& file, const std::string& ceilings = "");
/// Writes a CSV or JSON output through `write`: `path` "-" is standard output, "" nothing; a file
/// is written atomically and "wrote <what> <path>" goes to `human`.
void writeOutput(const std::string& path, const char* what, std::ostream& human,
                 const std::function<void(std::ostream&)>& write);
/// "bound: no L2 roof ..." when the roofs in use lack one; "" otherwise.
std::string missingRoofNote(const Ceilings& ceilings);

struct CompareArgs {
    std::string before, after, chart, csv;
    std::string by = "name+scope";
    std::size_t top = 20;
    std::string ceilings;
    bool wide = false; ///< never shorten names or scopes
    std::vector<std::string> failIf; ///< regression gate rules (report/gate.hpp)
    std::vector<std::string> noise;  ///< other recordings of A's configuration
    double minSharePercent = 1.0;    ///< groups under this % of A's time are not checked
    std::string summary;             ///< the gate's Markdown summary ("-": stdout)
};
/// 0, or report::kGateFailedExit when a --fail-if rule is broken.
int compare(const CompareArgs& args);

struct MergeArgs {
    std::vector<std::string> inputs;
    std::string output;
};
int merge(const MergeArgs& args);
/// merge() on sampled recordings: the ranks' steps aligned, printed and written as CSV.
int mergeSampled(const MergeArgs& args);

struct RunArgs {
    /// ROOFLINE_* variables from the options given (name, value).
    std::vector<std::pair<std::string, std::string>> variables;
    std::vector<std::string> command;
    std::string library; ///< libroofline.so to inject ("": ROOFLINE_LIBRARY, or beside roofline)
    bool dryRun = false; ///< print the variables and the command instead of running it
};
/// The directory of the PyTorch hook (sitecustomize.py) for the `roofline` in `programDir`: its
/// build tree's python/ or the installed share/roofline/python; "" when neither exists.
std::string findTorchHook(const std::string& programDir);
/// Execs the command with libroofline injected; returns only when that fails (126, 127).
int run(const RunArgs& args);
/// Where `roofline run` looks for libroofline.so, relative to the directory of `roofline`.
std::vector<std::string> injectionCandidates(const std::string& programDir);

} // namespace roofline::cli
