#pragma once
/// \file case_result.hpp
/// What a benchmark case produced -- status, verification, timings, analytic vs measured FLOPs,
/// and its kernels' hierarchical-roofline records -- and the reporters for a whole sweep. Pure C++.

#include <roofline/kernel_record.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace roofline::workloads {

/// Outcome of one case. Only VerifyFailed and Crashed make a sweep's exit code non-zero.
enum class CaseStatus {
    Passed,       ///< ran and matched the reference within tolerance
    VerifyFailed, ///< ran, but its result differs from the reference beyond tolerance
    Invalid,      ///< the shape cannot exist (reason says why)
    Unsupported,  ///< cuDNN has no engine for this combination, or refused it
    NoMemory,     ///< buffers or workspace do not fit in device memory
    Crashed,      ///< a CUDA error hit the device while it ran (the context may be lost)
    Skipped,      ///< not run because an earlier case left the device unusable
};
std::string toString(CaseStatus s);
bool isFailure(CaseStatus s);

struct CaseResult {
    int index = 0;         ///< position in the sweep, from 0
    std::string scope;     ///< ProfileScope name of the case, e.g. "c3.res2a_branch2a"
    std::string name;      ///< workload row name
    std::string workload;  ///< "conv2d", "conv3d", "lstm", ...
    std::string shape;     ///< ConvCase::shape() / RnnCase::shape()
    std::string pass;      ///< "fwd", "bwd-data", ...
    std::string precision; ///< "fp32", "tf32", ...
    std::string layout;    ///< "NHWC", "seq-major", ...
    std::string algorithm; ///< engine or algorithm chosen / tried, e.g. "eng1 (tensor_core)"
    std::string source;    ///< workload file and line
    /// SEER's one-line description ("batch in_channels in_width out_channels out_width
    /// kernel_width stride padding") when the case is a 2D convolution SEER can describe
    /// (square input, filter and stride, symmetric padding, no groups or dilation); "" otherwise.
    std::string seerConfig;
    /// --algo every: the engine's position in cuDNN's heuristic order for this case (0: the
    /// heuristic's pick); -1: not in its list, or not known.
    int heuristicRank = -1;
    long long layerCount = 1; ///< layers of the network with this shape (workload column `count`)

    CaseStatus status = CaseStatus::Passed;
    std::string reason; ///< one line when status is not Passed

    bool verified = false;  ///< a comparison with the reference ran
    double maxError = 0.0;  ///< max|result - reference| / max|reference|
    double tolerance = 0.0; ///< accepted maxError

    int repeats = 0;                 ///< timed runs after warm-up
    double eventMedianSeconds = 0.0; ///< median of the CUDA-event timed runs
    double eventMinSeconds = 0.0;
    std::vector<double> eventSeconds; ///< every timed run, in ascending order (violin plots)
    double workspaceBytes = 0.0;
    double analyticFlops = 0.0;

    std::vector<roofline::KernelRecord> records; ///< this case's kernels, in launch order

    std::string scopePath() const { return scope + "/" + pass; }
    double profiledSeconds() const; ///< sum of the records' times
    double measuredFlops() const;   ///< sum of the records' floating-point work (CUDA + tensor)
    double measuredTensorFlops() const;
    /// The case's kernels grouped by name, largest summed time first: an RNN step loop launches
    /// the same GEMM a hundred times, and the group is what dominates.
    struct KernelGroup {
        std::string name;
        std::size_t launches = 0;
        double seconds = 0.0;
        const roofline::KernelRecord* longest = nullptr; ///< its bound stands for the group
    };
    std::vector<KernelGroup> kernelGroups() const;
};

/// Moves each record into the case whose scopePath() it carries ("c3.x/fwd" or deeper).
/// Returns the number of records that belonged to no case.
std::size_t attachRecords(std::vector<CaseResult>& cases,
                          std::vector<roofline::KernelRecord> records);

/// One line per case: status, error, event time, profiled time, analytic and measured FLOPs,
/// the dominant kernel and its bound; a reason line under cases that did not pass.
void printCaseTable(const std::vector<CaseResult>& cases, std::ostream& out);
/// The line printed as each case finishes ("[ 3/40] c3.x fwd  passed  1.23 ms ...").
std::string progressLine(const CaseResult& c, std::size_t total);

/// One row per case (the table's columns, machine-readable).
void writeCasesCsv(const std::vector<CaseResult>& cases, const std::string& path);
/// One row per kernel record, prefixed by its case's columns; pandas reads it unchanged.
void writeRecordsCsv(const std::vector<CaseResult>& cases, const std::string& path);
/// {"tool":..., "device":..., "cases":[{..., "records":[...]}]}.
void writeJson(const std::vector<CaseResult>& cases, const std::string& tool,
               const std::string& device, const std::string& path);

} // namespace roofline::workloads
