// The `roofline` command: metric sets per chip, offline evaluation of recordings, charts and
// comparisons (no GPU needed), and `roofline ceilings` (measures the GPU it runs on). Each
// subcommand declares its options in its own file (cli/*_cmd.cpp).
#include "cli/commands.hpp"

#include <roofline/error.hpp>
#include <roofline/version.hpp>

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace roofline;

// Every usage error exits with 2 and names what was wrong (CLI11's own codes are 100+).
int usageError(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    if (argc > 1 && argv[1][0] != '-') {
        const std::string word = argv[1];
        bool known = false;
        std::string commands;
        for (const CLI::App* sub : app.get_subcommands({})) {
            known = known || sub->get_name() == word;
            commands += (commands.empty() ? "" : ", ") + sub->get_name();
        }
        if (!known) {
            std::cerr << "roofline: unknown command '" << word << "' (commands: " << commands
                      << "; roofline --help)\n";
            return 2;
        }
    }
    std::cerr << "roofline: usage error: " << e.what() << " (roofline "
              << (argc > 1 && argv[1][0] != '-' ? std::string(argv[1]) + " " : std::string())
              << "--help)\n";
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"roofline " ROOFLINE_VERSION_STRING
                 ": hierarchical-roofline metrics, ceilings, reports, charts and comparisons"};
    app.require_subcommand(1);
    app.set_version_flag("--version", ROOFLINE_VERSION_STRING);
    const std::vector<cli::Command> commands = {
        cli::addMetrics(app), cli::addReport(app),   cli::addCompare(app), cli::addMerge(app),
        cli::addRun(app),     cli::addCeilings(app), cli::addPlatform(app)};
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) { // --help, --version
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return usageError(app, e, argc, argv);
    }
    try {
        for (const cli::Command& c : commands)
            if (c.app->parsed())
                return c.run();
        return 2; // require_subcommand(1): not reached
    } catch (const Error& e) {
        std::cerr << "roofline: error [" << toString(e.code()) << "]: " << e.what() << '\n';
        return e.code() == ErrorCode::InvalidArgument ? 2 : 1; // a usage error
    } catch (const std::exception& e) {
        std::cerr << "roofline: error: " << e.what() << '\n';
        return 1;
    }
}
