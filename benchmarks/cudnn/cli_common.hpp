#pragma once
/// \file cli_common.hpp
/// Command-line options shared by roofline-conv and roofline-rnn (CLI11).

#include "cudnn/sweep.hpp"

#include "workloads/csv_rows.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <functional>
#include <iostream>

#include <string>
#include <vector>

namespace roofline::bench {

struct CommonCli {
    RunSettings settings;
    SweepOutputs outputs;
    std::string algo = "heuristic";
    double maxWorkspaceMiB = 0.0;
    bool noVerify = false;
    bool noProfile = false;
    bool list = false;
    bool listPresets = false;
    std::vector<std::string> configs;
    std::vector<std::string> presets;
    std::vector<std::string> specs;
    std::vector<long long> batches;
    std::size_t first = 0; ///< --first: only the first cases of the expanded list (0: all)
};

/// Adds the shared options to `app`.
void addCommonOptions(CLI::App& app, CommonCli& cli, bool withAlgo);
/// Applies parsed values (algo mode, workspace, verify/profile switches) to settings/outputs.
/// Returns true when the program is done (--list-presets printed the bundled sets).
bool finishCommonOptions(CommonCli& cli);
/// Path of a bundled preset ("resnet50" -> <configs>/resnet50.csv), or the name itself if it is a
/// file. Throws WorkloadError listing the presets when neither exists.
std::string presetPath(const std::string& name);
/// Names of the bundled presets.
std::vector<std::string> presetNames();

/// The cases named on the command line, in order: presets, files, inline cases; then the --batch
/// sweep replaces `Case::*batch` by each value, and only the cases `keep` accepts (when given)
/// remain before --first takes its share (`keepName` names the filter when it leaves none). Bad
/// workload text: prints the error and returns false (the caller exits with 2).
template <class Case>
bool collectCases(
    const CommonCli& cli, const std::string& tool,
    const std::function<std::vector<Case>(const std::string&, const std::string&)>& parseText,
    const std::function<std::vector<Case>(const std::string&)>& parseSpec, long long Case::*batch,
    std::vector<Case>& cases, const std::function<bool(const Case&)>& keep = nullptr,
    const std::string& keepName = "") {
    try {
        auto add = [&](std::vector<Case> more) {
            cases.insert(cases.end(), more.begin(), more.end());
        };
        for (const auto& p : cli.presets) {
            const std::string path = presetPath(p);
            add(parseText(workloads::readTextFile(path), path));
        }
        for (const auto& f : cli.configs)
            add(parseText(workloads::readTextFile(f), f));
        for (const auto& s : cli.specs)
            add(parseSpec(s));
    } catch (const workloads::WorkloadError& e) {
        std::cerr << tool << ": " << e.what() << '\n';
        return false;
    }
    if (!cli.batches.empty()) {
        std::vector<Case> swept;
        for (const auto& c : cases)
            for (long long b : cli.batches) {
                swept.push_back(c);
                swept.back().*batch = b;
            }
        cases = std::move(swept);
    }
    if (keep) {
        const std::size_t before = cases.size();
        cases.erase(
            std::remove_if(cases.begin(), cases.end(), [&](const Case& c) { return !keep(c); }),
            cases.end());
        if (before > 0 && cases.empty()) {
            std::cerr << tool << ": " << keepName << " leaves none of the " << before << " cases\n";
            return false;
        }
    }
    if (cli.first > 0 && cases.size() > cli.first)
        cases.resize(cli.first);
    if (cases.empty()) {
        std::cerr << tool << ": no cases: give a workload file, --preset or --case (see --help)\n";
        return false;
    }
    return true;
}

} // namespace roofline::bench
