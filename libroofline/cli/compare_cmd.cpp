// `roofline compare A B`: kernels of two recordings matched, what changed from A to B.
#include "cli/commands.hpp"

#include "core/atomic_file.hpp"
#include "report/compare.hpp"
#include "report/roofline_chart.hpp"

#include <roofline/chart.hpp>

#include <iostream>

namespace roofline::cli {
namespace {

bool endsWithHtml(const std::string& path) {
    return path.size() >= 5 && (path.compare(path.size() - 5, 5, ".html") == 0 ||
                                path.compare(path.size() - 5, 5, ".HTML") == 0);
}

void describe(const char* which, const std::string& file, const Evaluated& e) {
    std::cout << which << "  " << file << ": " << e.records.size() << " kernel records, "
              << e.recording.device.name << ", " << e.recording.createdUtc << "; roofs "
              << e.ceilings.used.name << '\n';
}

} // namespace

int compare(const CompareArgs& args) {
    const Evaluated a = evaluate(args.before);
    const Evaluated b = evaluate(args.after);
    describe("A", args.before, a);
    describe("B", args.after, b);
    if (a.records.empty() || b.records.empty()) {
        std::cout << "nothing to compare: " << (a.records.empty() ? "A" : "B")
                  << " holds no kernel records (no kernel ran inside a profiled scope)\n";
        return 0;
    }
    const report::Comparison c =
        report::compareRecords(a.records, b.records, report::parseGroupBy(args.by));
    std::cout << '\n';
    report::printComparison(c, a.ceilings.used, b.ceilings.used, std::cout, args.top);
    if (!args.csv.empty()) {
        core::writeFileAtomically(args.csv, [&](std::ostream& out) {
            report::writeComparisonCsv(c, a.ceilings.used, b.ceilings.used, out);
        });
        std::cout << "wrote " << args.csv << '\n';
    }
    if (!args.chart.empty()) {
        const std::string subtitle = "A: " + args.before + "   B: " + args.after;
        const auto specs = report::comparisonCharts(c, b.ceilings.used, args.top, subtitle);
        if (specs.empty()) {
            std::cout << "no chart written: no kernel of B has both measured time and "
                         "floating-point work\n";
            return 0;
        }
        if (endsWithHtml(args.chart)) {
            std::vector<std::string> svgs;
            for (const auto& s : specs)
                svgs.push_back(report::renderRoofline(s, false));
            saveChart(args.chart, report::htmlPage("roofline compare", svgs, subtitle));
            std::cout << "wrote " << args.chart << '\n';
        } else {
            std::string stem = args.chart;
            if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".svg") == 0)
                stem.resize(stem.size() - 4);
            for (const auto& s : specs) {
                std::string family = report::toString(s.family);
                for (char& ch : family)
                    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                const std::string file =
                    specs.size() == 1 ? args.chart : stem + "-" + family + ".svg";
                saveChart(file, report::renderRoofline(s, true));
                std::cout << "wrote " << file << '\n';
            }
        }
    }
    return 0;
}

} // namespace roofline::cli
