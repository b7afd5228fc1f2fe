// roofline-bench-overhead: what a complete per-kernel roofline of one training step costs, in
// each libroofline setting and under Nsight Compute, and how close the numbers are to ncu's.
//
// It runs the realistic training-step program (examples/training_step) as a child process:
//   1. plain (no profiling): the per-step baseline;
//   2. under libroofline in each setting (environment variables; --profile): the loop runs until
//      Session::needsPass() says one iteration is completely profiled; cost = session set-up +
//      every step's time above the plain step + stop (evaluation and saving);
//   3. when `ncu` is on the PATH: the same program under Nsight Compute with the same metrics,
//      --nvtx-include "Train step S/" (one step) and process-wide push/pop scopes, as users run
//      it; cost = its whole-process time above the plain run of the same steps.
//   4. attached for a long run (--attached-steps): the program unmodified under `roofline run`
//      with no flags, as a user leaves it attached to a long job: its median step time while
//      profiling and after the profile is complete (libroofline idle), beside the plain run's.
// Per kernel = cost / launches of one step. Accuracy: each setting's records are matched launch
// by launch with ncu's (kernel names, in order) and compared: FLOPs per kind (must be equal), bytes
// per level and time (ratios; both sides run the kernels without flushing caches).
//
//   roofline-bench-overhead [--program PATH] [--layers L] [--steps S] [--settings a,b,...]
//                           [--out DIR] [--no-ncu] [--roofline-cli PATH] [--attached-steps N]
#include "core/metric_catalog.hpp"
#include "core/recording.hpp"
#include "core/roofline_model.hpp"
#include "core/stopwatch.hpp"
#include "cupti/evaluate.hpp"
#include "report/recording_text.hpp"

#include "bench_helpers.hpp"

#include <roofline/kernel_record.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using bench_helpers::median;
using Clock = roofline::core::SteadyClock;
using roofline::FlopKind;
using roofline::KernelRecord;
using roofline::MemoryLevel;

struct Setting {
    std::string name;
    std::string env; // VAR=value pairs, space-separated, prefixed to the command
    std::string what;
};

// Every setting worth comparing (docs/benchmarks.md explains each).
const std::vector<Setting>& allSettings() {
    static const std::vector<Setting> s = {
        {"default", "", "iteration replay, tensor counters by detection, repeated launches reused"},
        {"no-reuse", "ROOFLINE_REUSE=0", "as default, every launch measured"},
        {"exact", "ROOFLINE_REUSE=0 ROOFLINE_TENSOR_COUNTERS=all",
         "every launch, every tensor counter (the full set's 7 passes)"},
        {"aligned", "ROOFLINE_ALIGN_PASSES=on", "as default, aligned passes from the start"},
        {"scope", "ROOFLINE_MODE=scope", "one record per step (not per kernel): the floor"},
    };
    return s;
}

using Run = bench_helpers::ChildRun;

// Each child runs under `timeout` (a setting that never completes its profile must not stall the
// benchmark: the training-step program loops while Session::needsPass() says so).
int gTimeoutSeconds = 300;

Run runCommand(const std::string& command, const fs::path& log) {
    return bench_helpers::runChild(command, log.string(), gTimeoutSeconds);
}

struct StepLog {
    std::vector<double> stepMs;
    double setupMs = 0, stopMs = 0;
    double peakMiB = 0;   // the process's peak resident host memory
    std::string costLine; // the session's own cost summary (ROOFLINE_LOG_LEVEL=info)
};

StepLog parseSteps(const std::string& out) {
    StepLog l;
    static const std::regex step(
        R"(^step (\d+) loss \S+ \(embedding backward grid \d+\) ([0-9.]+) ms)");
    static const std::regex setup(R"(^session set-up ([0-9.]+) ms)");
    static const std::regex stop(R"(^session stop ([0-9.]+) ms)");
    static const std::regex peak(R"(^peak host memory ([0-9]+) KiB)");
    std::istringstream in(out);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, step))
            l.stepMs.push_back(std::stod(m[2]));
        else if (std::regex_search(line, m, setup))
            l.setupMs = std::stod(m[1]);
        else if (std::regex_search(line, m, stop))
            l.stopMs = std::stod(m[1]);
        else if (std::regex_search(line, m, peak))
            l.peakMiB = std::stod(m[1]) / 1024.0;
        else if (line.find("libroofline: cost:") != std::string::npos)
            l.costLine = line.substr(line.find("cost:"));
    }
    return l;
}

// ---- ncu's CSV (--csv --page raw --print-units base) -------------------------------------------

std::vector<std::string> csvFields(const std::string& line) {
    std::vector<std::string> f;
    std::string cur;
    bool quoted = false;
    for (char c : line) {
        if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted) {
            f.push_back(cur);
            cur.clear();
        } else
            cur += c;
    }
    f.push_back(cur);
    return f;
}

double number(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    if (s.empty() || s == "n/a")
        return 0;
    try {
        return std::stod(s);
    } catch (...) {
        return 0;
    }
}

// ncu's rows as records, through the same formulas libroofline uses.
std::vector<KernelRecord> readNcu(const std::string& out, const roofline::core::ChipProfile& chip,
                                  const std::vector<std::string>& metrics) {
    std::vector<KernelRecord> records;
    std::istringstream in(out);
    std::string line;
    std::vector<std::string> header;
    bool units = false;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] != '"')
            continue; // ncu's own ==PROF== lines
        const auto f = csvFields(line);
        if (header.empty()) {
            header = f;
            units = true;
            continue;
        }
        if (units) { // the row after the header holds units
            units = false;
            continue;
        }
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < f.size(); ++i)
            row[header[i]] = f[i];
        roofline::core::LaunchInfo info;
        info.mangledName = row["Kernel Name"];
        info.name = info.mangledName;
        info.launchIndex = records.size();
        for (const auto& m : metrics)
            info.values.push_back(number(row[m]));
        records.push_back(
            roofline::core::recordFromLaunch(chip, info, metrics, roofline::Ceilings{}));
    }
    return records;
}

// ---- comparison ----------------------------------------------------------------------------

// Longest common subsequence of kernel names: pairs (ours, ncu).
std::vector<std::pair<std::size_t, std::size_t>> match(const std::vector<KernelRecord>& a,
                                                       const std::vector<KernelRecord>& b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<std::uint16_t>> t(n + 1, std::vector<std::uint16_t>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;)
        for (std::size_t j = m; j-- > 0;)
            t[i][j] = a[i].mangledName == b[j].mangledName
                          ? static_cast<std::uint16_t>(t[i + 1][j + 1] + 1)
                          : std::max(t[i + 1][j], t[i][j + 1]);
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = 0, j = 0; i < n && j < m;) {
        if (a[i].mangledName == b[j].mangledName) {
            out.emplace_back(i, j);
            ++i;
            ++j;
        } else if (t[i + 1][j] >= t[i][j + 1])
            ++i;
        else
            ++j;
    }
    return out;
}

struct Accuracy {
    std::size_t matched = 0, ours = 0, theirs = 0;
    std::size_t flopsEqual = 0;         // launches whose every FLOP kind equals ncu's (0.1%)
    std::size_t reusedMatched = 0;      // matched launches whose values were reused
    std::array<double, 3> bytesRatio{}; // totals, ours / ncu
    double timeRatio = 0;
    std::array<double, 3> bytesMedianErr{}; // median per-launch |ours/ncu - 1|
    std::string firstFlopDiff;
};

// The bounds the benchmark states (docs/benchmarks.md): FLOPs per kind equal on every matched
// launch; totals of L1 and L2 bytes within 5 %, DRAM bytes within 10 % (neither side controls
// the caches between kernels), time within 15 % (ncu serializes each kernel; clocks float).
struct Bounds {
    double l1 = 0.05, l2 = 0.05, dram = 0.10, time = 0.15;
};

bool close(double a, double b) {
    return std::fabs(a - b) <= 1e-3 * std::max({std::fabs(a), std::fabs(b), 1.0});
}

Accuracy compare(const std::vector<KernelRecord>& ours, const std::vector<KernelRecord>& ncu) {
    Accuracy acc;
    acc.ours = ours.size();
    acc.theirs = ncu.size();
    std::array<double, 3> ob{}, nb{};
    std::array<std::vector<double>, 3> err;
    double ot = 0, nt = 0;
    for (auto [i, j] : match(ours, ncu)) {
        const KernelRecord& a = ours[i];
        const KernelRecord& b = ncu[j];
        if (!a.measured)
            continue;
        ++acc.matched;
        acc.reusedMatched += a.reusedSamples > 0 ? 1 : 0;
        bool equal = true;
        for (std::size_t k = 0; k < roofline::kFlopKindCount; ++k)
            if (!close(a.flops[k], b.flops[k])) {
                equal = false;
                if (acc.firstFlopDiff.empty())
                    acc.firstFlopDiff = a.name.substr(0, 60) + " " +
                                        std::string(toString(static_cast<FlopKind>(k))) + ": " +
                                        std::to_string(a.flops[k]) + " vs ncu " +
                                        std::to_string(b.flops[k]);
            }
        acc.flopsEqual += equal ? 1 : 0;
        for (std::size_t l = 0; l < 3; ++l) {
            ob[l] += a.bytes[l];
            nb[l] += b.bytes[l];
            if (b.bytes[l] > 0)
                err[l].push_back(std::fabs(a.bytes[l] / b.bytes[l] - 1));
        }
        ot += a.timeSeconds;
        nt += b.timeSeconds;
    }
    for (std::size_t l = 0; l < 3; ++l) {
        acc.bytesRatio[l] = nb[l] > 0 ? ob[l] / nb[l] : 0;
        acc.bytesMedianErr[l] = median(err[l]);
    }
    acc.timeRatio = nt > 0 ? ot / nt : 0;
    return acc;
}

std::string verdict(const Accuracy& a, const Bounds& b) {
    std::string out;
    const auto check = [&](bool ok, const char* what) {
        if (!ok)
            out += (out.empty() ? "" : ", ") + std::string(what);
    };
    check(a.matched > 0 && a.flopsEqual == a.matched, "FLOPs");
    check(std::fabs(a.bytesRatio[0] - 1) <= b.l1, "L1");
    check(std::fabs(a.bytesRatio[1] - 1) <= b.l2, "L2");
    check(std::fabs(a.bytesRatio[2] - 1) <= b.dram, "DRAM");
    check(std::fabs(a.timeRatio - 1) <= b.time, "time");
    return out.empty() ? "within bounds" : "OUTSIDE bounds: " + out;
}

// Records of one complete iteration profile, in launch order within the iteration.
std::vector<KernelRecord> oneIteration(std::vector<KernelRecord> records) {
    // Windows of one iteration may be measured in different iterations, and reused records are
    // added at the end: the position within the iteration orders them.
    std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
        return a.position != b.position ? a.position < b.position : a.launchIndex < b.launchIndex;
    });
    return records;
}

// The program under `roofline run` for `steps` steps, in a setting: its median step time while
// profiling and after libroofline went idle (the "[roofline] process ..." line says after how
// many iterations), against the plain run's.
void attached(const std::string& cli, const std::string& base, const Setting& s, int steps,
              double plainMs, const fs::path& outDir) {
    const fs::path rec = outDir / ("attached-" + s.name + ".rfl");
    const Run r =
        runCommand("env OMP_NUM_THREADS=4 " + s.env + " '" + cli + "' run -o '" + rec.string() +
                       "' -- " + base + " --steps " + std::to_string(steps),
                   outDir / ("attached-" + s.name + ".log"));
    const StepLog l = parseSteps(r.out);
    std::smatch m;
    static const std::regex idle(R"(idle after (\d+) iterations)");
    const std::size_t after =
        std::regex_search(r.out, m, idle) ? std::stoul(m[1]) : l.stepMs.size();
    if (r.rc != 0 || l.stepMs.size() < 2) {
        std::printf("%-9s failed (rc %d): see %s/attached-%s.log\n", s.name.c_str(), r.rc,
                    outDir.c_str(), s.name.c_str());
        return;
    }
    const auto part = [&](std::size_t from, std::size_t to) {
        to = std::min(to, l.stepMs.size());
        return from < to ? median({l.stepMs.begin() + static_cast<std::ptrdiff_t>(from),
                                   l.stepMs.begin() + static_cast<std::ptrdiff_t>(to)})
                         : 0.0;
    };
    const double during = part(1, after), rest = part(after + 1, l.stepMs.size());
    char idleAfter[32] = "never", restText[48] = "-";
    if (after < l.stepMs.size())
        std::snprintf(idleAfter, sizeof idleAfter, "%zu", after);
    if (rest > 0)
        std::snprintf(restText, sizeof restText, "%.3f (%+.1f%%)", rest,
                      100 * (rest / plainMs - 1));
    std::printf("%-9s %10.3f %10.3f %10s %18s | %s\n", s.name.c_str(), plainMs, during, idleAfter,
                restText, s.what.c_str());
}

// What the command line gave.
struct Args {
    std::string program, cli, outDir = "bench-overhead";
    int layers = 12, steps = 4;
    std::string settingsList;
    bool noNcu = false;
    int attachedSteps = 100;
};

// The plain run: its step times (step 0 apart: it validates) and the whole process.
struct Plain {
    Run run;
    StepLog steps;
    double step0 = 0, stepN = 0;
};

// Nsight Compute's records of the last step, and what they cost.
struct Oracle {
    std::vector<KernelRecord> records;
    double perKernel = 0; // ms above the plain run, per kernel
};

// One libroofline setting's records of one iteration.
struct Row {
    Setting s;
    std::vector<KernelRecord> records;
};

Oracle runNcu(const Args& a, const std::string& base, const Plain& plain) {
    Oracle o;
    const bool haveNcu = !a.noNcu && std::system("command -v ncu > /dev/null 2>&1") == 0;
    if (!haveNcu) {
        std::printf("ncu: %s\n", a.noNcu ? "not run (--no-ncu)" : "not on the PATH: no oracle");
        return o;
    }
    const roofline::core::ChipProfile& chip = roofline::core::profileForChip("GH100");
    const std::vector<std::string> metrics = roofline::core::requiredMetrics(chip);
    std::string list;
    for (const auto& m : metrics)
        list += (list.empty() ? "" : ",") + m;
    const std::string cmd =
        "ncu --csv --page raw --print-units base --print-kernel-base mangled "
        "--clock-control none --cache-control none --nvtx --nvtx-push-pop-scope process "
        "--nvtx-include 'Train step " +
        std::to_string(a.steps - 1) + "/' --metrics " + list + " " + base + " --steps " +
        std::to_string(a.steps);
    const Run ncu = runCommand(cmd, fs::path(a.outDir) / "ncu.csv");
    o.records = readNcu(ncu.out, chip, metrics);
    const std::size_t kernels = o.records.size();
    const double cost = ncu.wallMs - plain.run.wallMs;
    o.perKernel = kernels ? cost / static_cast<double>(kernels) : 0;
    std::printf("ncu (21 metrics, one step, --clock-control none --cache-control none): %zu "
                "kernels, %.0f ms above the plain run, %.1f ms per kernel (rc %d)\n",
                kernels, cost, o.perKernel, ncu.rc);
    return o;
}

// One setting's profiled step: its cost line in the table, and its records (none if it failed).
void runSetting(const Args& a, const std::string& base, const Setting& s, const Plain& plain,
                const Oracle& oracle, std::vector<Row>& rows) {
    // Process-wide push/pop scopes: the program runs backward on a worker thread.
    const std::string common = "env ROOFLINE_PUSH_POP_SCOPE=process ROOFLINE_LOG_LEVEL=info ";
    const fs::path rec = fs::path(a.outDir) / (s.name + ".rfl");
    const Run r = runCommand(common + s.env + " " + base + " --steps 1 --profile --output '" +
                                 rec.string() + "'",
                             fs::path(a.outDir) / (s.name + ".log"));
    const StepLog l = parseSteps(r.out);
    if (r.rc != 0 || l.stepMs.empty() || !fs::exists(rec)) {
        std::printf("%-9s failed (rc %d): see %s/%s.log\n", s.name.c_str(), r.rc, a.outDir.c_str(),
                    s.name.c_str());
        return;
    }
    double above = 0;
    for (std::size_t i = 0; i < l.stepMs.size(); ++i)
        above += l.stepMs[i] - (i == 0 ? plain.step0 : plain.stepN);
    const double cost = l.setupMs + above + l.stopMs;
    roofline::core::Recording recording = roofline::core::loadRecording(rec.string());
    const std::size_t kernels = recording.coverage.launchesPerIteration;
    std::vector<KernelRecord> records;
    try {
        records = roofline::cupti::evaluateRecording(recording, roofline::Ceilings{});
    } catch (const std::exception& e) {
        std::printf("%-9s: evaluating %s failed: %s\n", s.name.c_str(), rec.string().c_str(),
                    e.what());
    }
    const double perKernel = kernels ? cost / static_cast<double>(kernels) : 0;
    // Host memory for profiling state: the peak above the plain run's.
    std::printf("%-9s %5zu %6llu %8.0f %8.0f %9.0f %8.0f %10.2f %7.1fx %9.1f %8.0f | %s\n",
                s.name.c_str(), l.stepMs.size(), static_cast<unsigned long long>(recording.passes),
                l.setupMs, above, l.stopMs, cost, perKernel,
                perKernel > 0 && oracle.perKernel > 0 ? oracle.perKernel / perKernel : 0,
                above / static_cast<double>(l.stepMs.size()), l.peakMiB - plain.steps.peakMiB,
                s.what.c_str());
    if (!l.costLine.empty())
        std::printf("%-9s   %s; %s\n", "", roofline::report::describe(recording.coverage).c_str(),
                    l.costLine.c_str());
    rows.push_back({s, oneIteration(std::move(records))});
}

void accuracyTable(const char* title, const std::vector<Row>& rows,
                   const std::vector<KernelRecord>& reference, const std::string& skip) {
    std::printf("\n%s\n", title);
    std::printf("%-9s %8s %12s %8s %8s %8s %8s %22s\n", "setting", "matched", "FLOPs equal", "L1",
                "L2", "DRAM", "time", "median |err| L1/L2/DRAM");
    for (const Row& row : rows) {
        if (row.s.name == "scope" || row.s.name == skip)
            continue; // scope: one record per step, nothing to match per kernel
        const Accuracy a = compare(row.records, reference);
        const std::string reused =
            a.reusedMatched ? " (" + std::to_string(a.reusedMatched) + " reused)" : "";
        std::printf("%-9s %4zu/%-3zu %8zu/%-3zu %8.3f %8.3f %8.3f %8.3f %8.3f/%.3f/%.3f%s\n",
                    row.s.name.c_str(), a.matched, a.theirs, a.flopsEqual, a.matched,
                    a.bytesRatio[0], a.bytesRatio[1], a.bytesRatio[2], a.timeRatio,
                    a.bytesMedianErr[0], a.bytesMedianErr[1], a.bytesMedianErr[2], reused.c_str());
        std::printf("%-9s   %s\n", "", verdict(a, Bounds{}).c_str());
        if (!a.firstFlopDiff.empty())
            std::printf("%-9s   first FLOP difference: %s\n", "", a.firstFlopDiff.c_str());
    }
}

void attachedRuns(const Args& a, const fs::path& self, const std::string& base,
                  const std::vector<Setting>& settings) {
    const std::string cli =
        a.cli.empty() ? (self.parent_path() / "libroofline" / "roofline").string() : a.cli;
    const Run longPlain = runCommand(base + " --steps " + std::to_string(a.attachedSteps),
                                     fs::path(a.outDir) / "attached-plain.log");
    const StepLog lp = parseSteps(longPlain.out);
    const double plainMs =
        lp.stepMs.size() > 2 ? median({lp.stepMs.begin() + 1, lp.stepMs.end()}) : 0;
    std::printf("\nattached to a %d-step run (`roofline run`, no flags but the setting's, "
                "OMP_NUM_THREADS=4): median step time, ms\n",
                a.attachedSteps);
    std::printf("%-9s %10s %10s %10s %18s | %s\n", "setting", "plain", "profiling", "idle after",
                "after", "what");
    for (const Setting& s : settings)
        if (s.name == "default" || s.name == "no-reuse")
            attached(cli, base, s, a.attachedSteps, plainMs, a.outDir);
}

void defineOptions(CLI::App& app, Args& a) {
    app.add_option("--program", a.program, "the training-step program (default: beside this one)");
    app.add_option("--roofline-cli", a.cli, "the roofline CLI (default: beside this one)");
    app.add_option("--layers", a.layers,
                   "transformer layers of the training step (12: GPT-2 small)");
    app.add_option("--steps", a.steps, "steps of the plain run; ncu profiles the last one");
    app.add_option("--settings", a.settingsList, "comma-separated subset of the settings");
    app.add_option("--out", a.outDir, "directory for logs, recordings and ncu's CSV");
    app.add_flag("--no-ncu", a.noNcu, "do not run Nsight Compute even when it is on the PATH");
    app.add_option("--timeout", gTimeoutSeconds, "seconds each run may take (default 300)");
    app.add_option("--attached-steps", a.attachedSteps,
                   "steps of the runs under `roofline run` that measure the cost once the profile "
                   "is complete (0: none)");
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"roofline-bench-overhead: the cost of a complete per-kernel roofline of one "
                 "training step, per libroofline setting and under ncu, with accuracy against ncu"};
    Args a;
    defineOptions(app, a);
    CLI11_PARSE(app, argc, argv);
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // each line as it is printed (logs, pipes)
    if (a.steps < 2) {
        std::fprintf(stderr, "--steps must be at least 2 (step 0 differs: validation)\n");
        return 2;
    }
    const fs::path self = fs::absolute(fs::path(argv[0])).parent_path();
    if (a.program.empty())
        a.program = (self.parent_path() / "examples" / "train_step").string();
    if (!fs::exists(a.program)) {
        std::fprintf(stderr, "training-step program not found: %s (pass --program)\n",
                     a.program.c_str());
        return 2;
    }
    fs::create_directories(a.outDir);
    const std::string base = "'" + a.program + "' --layers " + std::to_string(a.layers);
    std::vector<Setting> settings;
    for (const Setting& s : allSettings())
        if (a.settingsList.empty() ||
            ("," + a.settingsList + ",").find("," + s.name + ",") != std::string::npos)
            settings.push_back(s);

    // 1. plain
    Plain plain;
    plain.run =
        runCommand(base + " --steps " + std::to_string(a.steps), fs::path(a.outDir) / "plain.log");
    plain.steps = parseSteps(plain.run.out);
    if (plain.run.rc != 0 || plain.steps.stepMs.size() < 2) {
        std::fprintf(stderr, "the plain run failed (rc %d): see %s/plain.log\n", plain.run.rc,
                     a.outDir.c_str());
        return 1;
    }
    plain.step0 = plain.steps.stepMs[0];
    plain.stepN = median({plain.steps.stepMs.begin() + 1, plain.steps.stepMs.end()});
    std::printf("training step: %s, %d layers; plain: %.1f ms per step (step 0 %.1f ms), whole "
                "process %.0f ms for %d steps\n",
                a.program.c_str(), a.layers, plain.stepN, plain.step0, plain.run.wallMs, a.steps);
    // 2. ncu first: its records are the oracle for every setting.
    const Oracle oracle = runNcu(a, base, plain);
    // 3. libroofline settings
    std::printf("\n%-9s %5s %6s %8s %8s %9s %8s %10s %8s %9s %8s | %s\n", "setting", "iters",
                "passes", "set-up", "steps+", "stop", "cost", "ms/kernel", "vs ncu", "ms/iter",
                "+MiB", "what");
    std::vector<Row> rows;
    for (const Setting& s : settings)
        runSetting(a, base, s, plain, oracle, rows);
    if (a.attachedSteps > 2)
        attachedRuns(a, self, base, settings);
    for (const Row& row : rows)
        if (row.s.name == "exact")
            accuracyTable("against exact (every launch and every counter, measured by libroofline "
                          "the same way): what detection and reuse change",
                          rows, row.records, "exact");
    if (!oracle.records.empty())
        accuracyTable("accuracy against ncu, launch by launch (kernels matched by name in order; "
                      "bytes and time: ours/ncu over the matched launches)",
                      rows, oracle.records, "");
    return 0;
}
