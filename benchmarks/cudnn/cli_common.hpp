#pragma once
/// \file cli_common.hpp
/// Command-line options shared by roofline-conv and roofline-rnn (CLI11).

#include "cudnn/sweep.hpp"

#include <CLI/CLI.hpp>

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
    std::vector<std::string> configs;
    std::vector<std::string> presets;
    std::vector<std::string> specs;
    std::vector<long long> batches;
};

/// Adds the shared options to `app`.
void addCommonOptions(CLI::App& app, CommonCli& cli, bool withAlgo);
/// Applies parsed values (algo mode, workspace, verify/profile switches) to settings/outputs.
void finishCommonOptions(CommonCli& cli);
/// Path of a bundled preset ("resnet50" -> <configs>/resnet50.csv), or the name itself if it is a
/// file. Throws WorkloadError listing the presets when neither exists.
std::string presetPath(const std::string& name);
/// Names of the bundled presets.
std::vector<std::string> presetNames();

} // namespace roofline::bench
