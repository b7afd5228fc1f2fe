// `roofline ceilings`: measure the roofs of the GPU it runs on, cache them, print them.
#include "cli/commands.hpp"

#include "ceilings/measure.hpp"
#include "core/bundled_ceilings.hpp"
#include "core/ceilings_file.hpp"
#include "report/ceilings_table.hpp"

#include <roofline/error.hpp>

#include <filesystem>
#include <iostream>
#include <CLI/CLI.hpp>
#include <memory>

namespace roofline::cli {
namespace {

core::DeviceInfo deviceOf(const core::MeasuredCeilings& m) {
    core::DeviceInfo d;
    d.name = m.deviceName;
    d.smCount = m.smCount;
    d.smClockHz = m.maxSmClockHz;
    d.computeMajor = m.computeMajor;
    d.computeMinor = m.computeMinor;
    return d;
}

void show(const core::MeasuredCeilings& m, const std::string& path, std::ostream& out) {
    const core::CeilingsChoice choice = core::choiceWith(deviceOf(m), m, path);
    out << "ceilings of " << m.deviceName << " (" << m.smCount << " SMs, max SM clock "
        << static_cast<int>(m.maxSmClockHz / 1e6 + 0.5) << " MHz), measured " << m.createdUtc
        << (m.quick ? " with --quick" : "") << " in " << static_cast<int>(m.seconds + 0.5)
        << " s by libroofline " << m.libraryVersion << "\n"
        << "file " << path << "\n\n";
    report::printCeilings(choice, out, true);
}

} // namespace

int ceilings(const CeilingsArgs& args) {
    if (args.show) {
        // -o FILE: that file. Else what reports use: a file measured on this machine for the
        // device first, else the one bundled for its model -- both listed, each saying which.
        const bool cached = args.output.empty();
        std::vector<std::string> files;
        if (!cached) {
            files.push_back(args.output);
        } else {
            const std::string dir = core::ceilingsCacheDir();
            std::error_code ec;
            if (!dir.empty())
                for (const auto& e : std::filesystem::directory_iterator(dir, ec))
                    if (e.path().filename().string().rfind("ceilings-", 0) == 0)
                        files.push_back(e.path().string());
            if (files.empty())
                std::cout << "no ceilings measured on this machine in '" << dir
                          << "' (`roofline ceilings` on a GPU measures them; "
                             "ROOFLINE_CEILINGS_DIR sets the folder)\n\n";
        }
        for (const auto& f : files)
            show(core::loadCeilings(f), f, std::cout), std::cout << '\n';
        if (cached)
            for (const auto& b : core::bundledCeilingsFiles()) {
                const std::string name = std::string("bundled: ") + b.name;
                show(core::ceilingsFromJson(b.json, name), name, std::cout);
                std::cout << "reports use these for this GPU model when this machine has no "
                             "measured file for it\n\n";
            }
        return 0;
    }
    ceilings::SweepOptions options;
    options.device = args.device;
    options.quick = args.quick;
    options.progress = [](const std::string& line) { std::cout << "  " << line << std::endl; };
    std::cout << "measuring ceilings" << (args.quick ? " (quick sweep)" : "")
              << ": keeping the best rate per roof over launch shapes and work per thread\n";
    const core::MeasuredCeilings m = ceilings::measure(options);
    std::string path = args.output.empty() ? core::ceilingsCachePath(m.deviceName) : args.output;
    if (!args.save) {
        path = "(not saved)";
    } else if (path.empty()) {
        std::cerr << "roofline ceilings: no cache folder (HOME, XDG_CACHE_HOME and "
                     "ROOFLINE_CEILINGS_DIR are unset): give --output FILE\n";
        show(m, "(not saved)", std::cout);
        return 2;
    } else {
        const auto parent = std::filesystem::path(path).parent_path();
        std::error_code ec;
        if (!parent.empty())
            std::filesystem::create_directories(parent, ec);
        core::saveCeilings(m, path);
    }
    std::cout << '\n';
    show(m, path, std::cout);
    if (args.save)
        std::cout << "\nwrote " << path
                  << "\nreports on this device now use these roofs (ROOFLINE_CEILINGS=FILE picks "
                     "another file)\n";
    return 0;
}

Command addCeilings(CLI::App& app) {
    auto* ceilingsCmd = app.add_subcommand(
        "ceilings", "measure this GPU's roofs with microbenchmarks and cache them (needs a GPU)");
    const auto args = std::make_shared<CeilingsArgs>();
    CeilingsArgs& ceilings = *args;
    ceilingsCmd->add_option("--device", ceilings.device, "CUDA device ordinal")
        ->check(CLI::Range(0, 1023))
        ->capture_default_str();
    ceilingsCmd->add_flag("--quick", ceilings.quick,
                          "a few launch shapes per roof (seconds): lower bounds of the full sweep");
    ceilingsCmd->add_option("--output,-o", ceilings.output,
                            "write here instead of the cache file (with --show: print this file)");
    ceilingsCmd->add_flag("!--no-save", ceilings.save, "measure and print, write nothing");
    ceilingsCmd->add_flag("--show", ceilings.show,
                          "print cached ceilings without measuring (no GPU needed)");

    return {ceilingsCmd, [args] { return cli::ceilings(*args); }};
}

} // namespace roofline::cli
