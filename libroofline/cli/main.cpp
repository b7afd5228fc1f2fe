// The `roofline` command: metric sets per chip and offline evaluation of recordings. Needs no GPU.
#include "core/metric_catalog.hpp"
#include "core/recording.hpp"
#include "cupti/evaluate.hpp"
#include "cupti/host.hpp"

#include <roofline/error.hpp>
#include <roofline/report.hpp>
#include <roofline/version.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace {

using namespace roofline;

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
    return 0;
}

int report(const std::string& file, const std::string& csv, const std::string& json,
           std::size_t top, bool sortByTime) {
    const core::Recording rec = core::loadRecording(file);
    const auto records = cupti::evaluateRecording(rec);
    const Ceilings ceilings = core::datasheetCeilings(rec.device);
    std::size_t measured = 0;
    for (const auto& r : records)
        measured += r.measured ? 1 : 0;
    std::cout << "recording " << file << " (format v" << rec.version << ", libroofline "
              << rec.libraryVersion << ", " << rec.createdUtc << ")\n"
              << "device    " << rec.device.name << " (" << rec.chip << ", " << rec.device.smCount
              << " SMs), mode " << rec.mode << ", " << rec.metrics.size() << " metrics in "
              << rec.passes << " passes\n"
              << "kernels   " << records.size() << " launched in scopes, " << measured
              << " measured, " << rec.droppedRanges << " ranges dropped by CUPTI\n"
              << "ceilings  " << ceilings.name << ": " << ceilings.source << "\n\n";
    printTable(records, std::cout, {top, sortByTime});
    if (!csv.empty())
        writeCsv(records, csv), std::cout << "wrote " << csv << '\n';
    if (!json.empty())
        writeJson(records, json), std::cout << "wrote " << json << '\n';
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"roofline " ROOFLINE_VERSION_STRING
                 ": hierarchical-roofline metrics and reports (no GPU needed)"};
    app.require_subcommand(1);
    app.set_version_flag("--version", ROOFLINE_VERSION_STRING);

    auto* metricsCmd = app.add_subcommand("metrics", "the metric set, formulas and pass count");
    std::string chip;
    bool listChipsFlag = false, jsonOut = false;
    metricsCmd->add_option("--chip", chip, "CUPTI chip name, e.g. GH100 (H100), GA100, GV100");
    metricsCmd->add_flag("--list-chips", listChipsFlag, "chips in the catalog and their status");
    metricsCmd->add_flag("--json", jsonOut, "machine-readable output");

    auto* reportCmd = app.add_subcommand("report", "evaluate a recording and print its kernels");
    std::string file, csv, json;
    std::size_t top = 0;
    bool sortByTime = false;
    reportCmd->add_option("file", file, "recording written by Session::save()")->required();
    reportCmd->add_option("--csv", csv, "also write all records as CSV");
    reportCmd->add_option("--json", json, "also write all records as JSON");
    reportCmd->add_option("--top", top, "show only the first N rows (0: all)");
    reportCmd->add_flag("--sort-time", sortByTime, "largest time first");

    CLI11_PARSE(app, argc, argv);
    try {
        if (metricsCmd->parsed()) {
            if (listChipsFlag)
                return listChips();
            if (chip.empty()) {
                std::cerr << "roofline metrics: give --chip NAME (or --list-chips)\n";
                return 2;
            }
            return metrics(chip, jsonOut);
        }
        return report(file, csv, json, top, sortByTime);
    } catch (const Error& e) {
        std::cerr << "roofline: error [" << toString(e.code()) << "]: " << e.what() << '\n';
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "roofline: error: " << e.what() << '\n';
        return 1;
    }
}
