// `roofline metrics` (the metric set, formulas and passes of a chip) and `roofline platform` (the
// host, its GPUs and what may be read of them).
#include "cli/commands.hpp"
#include "core/metric_catalog.hpp"
#include "core/platform.hpp"
#include "cupti/host.hpp"
#include "cupti/platform.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace roofline::cli {
namespace {

int listChips() {
    const auto supported = cupti::Host::supportedChips();
    std::cout << "chip     family      CUPTI  validation\n";
    for (const auto& p : core::chipProfiles())
        for (const auto& chip : p.chips) {
            const bool ok = std::find(supported.begin(), supported.end(), chip) != supported.end();
            std::printf("%-8s %-11s %-6s %s\n", chip.c_str(), p.family.c_str(), ok ? "yes" : "no",
                        p.validation.c_str());
        }
    return 0;
}

int metrics(const std::string& chip, bool json) {
    const core::ChipProfile& profile = core::profileForChip(chip);
    const cupti::Host host(chip);
    const auto names = core::requiredMetrics(profile);
    const cupti::ConfigImage config = host.configImage(names);
    if (json) {
        nlohmann::json j = {{"chip", chip},
                            {"family", profile.family},
                            {"passes", config.passes},
                            {"validation", profile.validation}};
        for (const auto& n : names) {
            const auto p = host.properties(n);
            j["metrics"].push_back({{"name", n},
                                    {"type", p.type},
                                    {"unit", p.dimension},
                                    {"description", p.description}});
        }
        j["formulas"]["time_s"] = profile.cyclesMetric + " / " + profile.cycleRateMetric;
        j["formulas"]["gpu_duration_s"] = "1e-9 x " + profile.durationMetric;
        for (std::size_t k = 0; k < kFlopKindCount; ++k)
            j["formulas"]["flops_" + std::string(toString(static_cast<FlopKind>(k)))] =
                core::describe(profile.flops[k]);
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
            j["formulas"]["bytes_" + std::string(toString(static_cast<MemoryLevel>(l)))] =
                core::describe(profile.bytes[l]);
        if (!profile.dramReadMetric.empty()) {
            j["raw"]["dram_read_bytes"] = profile.dramReadMetric;
            j["raw"]["dram_write_bytes"] = profile.dramWriteMetric;
        }
        std::cout << j.dump(2) << '\n';
        return 0;
    }
    std::cout << "chip " << chip << " (" << profile.family << "): " << names.size() << " metrics, "
              << config.passes << " passes per profiled range\n"
              << "validation: " << profile.validation << "\n\nmetrics:\n";
    for (const auto& n : names) {
        const auto p = host.properties(n);
        std::printf("  %-52s %-10s %s\n", n.c_str(), p.dimension.c_str(), p.description.c_str());
    }
    std::cout << "\nformulas:\n";
    std::printf("  %-12s = %s / %s\n", "time_s", profile.cyclesMetric.c_str(),
                profile.cycleRateMetric.c_str());
    std::printf("  %-12s = 1e-9 x %s\n", "duration_s", profile.durationMetric.c_str());
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        std::printf("  %-12s = %s\n", std::string(toString(static_cast<FlopKind>(k))).c_str(),
                    core::describe(profile.flops[k]).c_str());
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        std::printf("  %-12s = %s\n",
                    ("bytes_" + std::string(toString(static_cast<MemoryLevel>(l)))).c_str(),
                    core::describe(profile.bytes[l]).c_str());
    if (!profile.dramReadMetric.empty())
        std::printf(
            "\nraw, beside the formulas (each record's metrics; roofline-conv --seer-csv):\n"
            "  %-16s = %s\n  %-16s = %s (their sum is bytes_DRAM)\n",
            "dram_read_bytes", profile.dramReadMetric.c_str(), "dram_write_bytes",
            profile.dramWriteMetric.c_str());
    return 0;
}

struct MetricsArgs {
    std::string chip;
    bool listChips = false, json = false;
};

} // namespace

Command addMetrics(CLI::App& app) {
    auto* metricsCmd = app.add_subcommand("metrics", "the metric set, formulas and pass count");
    const auto args = std::make_shared<MetricsArgs>();
    metricsCmd->add_option("--chip", args->chip,
                           "CUPTI chip name, e.g. GH100 (H100), GA100, GV100");
    metricsCmd->add_flag("--list-chips", args->listChips, "chips in the catalog and their status");
    metricsCmd->add_flag("--json", args->json, "machine-readable output");
    return {metricsCmd, [args] {
                if (args->listChips)
                    return listChips();
                if (args->chip.empty()) {
                    std::cerr << "roofline metrics: give --chip NAME (or --list-chips)\n";
                    return 2;
                }
                return metrics(args->chip, args->json);
            }};
}

Command addPlatform(CLI::App& app) {
    auto* platformCmd = app.add_subcommand(
        "platform", "the host CPU (ISA, cores, NUMA), thread settings, GPUs, driver and library "
                    "versions, and whether counters may be read (no GPU needed)");
    const auto json = std::make_shared<bool>(false);
    platformCmd->add_flag("--json", *json, "machine-readable output");
    return {platformCmd, [json] {
                const core::Platform p = cupti::readPlatform(true);
                if (*json)
                    std::cout << core::toJsonText(p) << '\n';
                else
                    core::printPlatform(p, std::cout);
                return 0;
            }};
}

} // namespace roofline::cli
