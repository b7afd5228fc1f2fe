#include "report/sampled_ranks.hpp"

#include "report/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <ostream>

namespace roofline::report {
namespace {

using core::medianOf;

constexpr std::size_t kRankColumns = 8;

} // namespace

AlignedRanks alignRanks(const std::vector<RankSteps>& ranks, double share) {
    AlignedRanks a;
    std::map<std::uint64_t, std::vector<double>> byStep;
    const double none = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> all;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        a.ranks.push_back(ranks[r].rank);
        a.files.push_back(ranks[r].file);
        std::vector<double> mine;
        for (const core::StepFigures& s : ranks[r].figures.steps) {
            auto& row = byStep[s.index];
            row.resize(ranks.size(), none);
            row[r] = s.seconds;
            mine.push_back(s.seconds);
            all.push_back(s.seconds);
        }
        a.medianSeconds.push_back(medianOf(mine));
    }
    a.slowestIn.assign(ranks.size(), 0);
    a.medianStep = medianOf(all);
    for (auto& [index, seconds] : byStep) {
        seconds.resize(ranks.size(), none);
        if (std::any_of(seconds.begin(), seconds.end(), [](double s) { return std::isnan(s); })) {
            ++a.partial;
            continue;
        }
        AlignedStep step;
        step.index = index;
        const auto slow = std::max_element(seconds.begin(), seconds.end());
        const auto fast = std::min_element(seconds.begin(), seconds.end());
        const auto r = static_cast<std::size_t>(slow - seconds.begin());
        step.excess = *slow - *fast;
        step.straggles = a.medianStep > 0 && step.excess > share * a.medianStep;
        step.seconds = seconds;
        if (step.excess > 0) { // a tie has no slowest rank
            step.slowest = a.ranks[r];
            ++a.slowestIn[r];
        }
        a.straggling += step.straggles ? 1 : 0;
        a.steps.push_back(std::move(step));
    }
    return a;
}

void printAlignedRanks(const AlignedRanks& a, std::ostream& out, std::size_t rows) {
    out << "ranks     " << a.ranks.size() << ", " << a.steps.size()
        << " steps sampled by every rank";
    if (a.partial > 0)
        out << " (" << a.partial << " more by some only, left out)";
    out << "; median step " << milliseconds(a.medianStep) << " ms\n";
    for (std::size_t r = 0; r < a.ranks.size(); ++r)
        out << "rank " << a.ranks[r] << "    median step " << milliseconds(a.medianSeconds[r])
            << " ms, slowest in " << a.slowestIn[r] << " of " << a.steps.size() << " steps ("
            << a.files[r] << ")\n";
    out << "straggling steps (the slowest rank more than 10% of the median step behind the "
           "fastest): "
        << a.straggling << "\n\n";
    const std::size_t shownRanks = std::min(a.ranks.size(), kRankColumns);
    out << "    step";
    for (std::size_t r = 0; r < shownRanks; ++r)
        out << "  rank " << a.ranks[r] << " ms";
    out << (a.ranks.size() > shownRanks ? "    min ms    max ms" : "")
        << "  slowest  excess ms\n";
    std::size_t printed = 0;
    char cell[64];
    for (const AlignedStep& s : a.steps) {
        if (!s.straggles || printed == rows)
            continue;
        ++printed;
        std::snprintf(cell, sizeof cell, "%8llu", static_cast<unsigned long long>(s.index));
        out << cell;
        for (std::size_t r = 0; r < shownRanks; ++r) {
            std::snprintf(cell, sizeof cell, "  %*s", static_cast<int>(8 + std::to_string(a.ranks[r]).size()),
                          milliseconds(s.seconds[r]).c_str());
            out << cell;
        }
        if (a.ranks.size() > shownRanks) {
            const auto [lo, hi] = std::minmax_element(s.seconds.begin(), s.seconds.end());
            std::snprintf(cell, sizeof cell, "  %8s  %8s", milliseconds(*lo).c_str(),
                          milliseconds(*hi).c_str());
            out << cell;
        }
        std::snprintf(cell, sizeof cell, "  %7d  %9s\n", s.slowest, milliseconds(s.excess).c_str());
        out << cell;
    }
    if (a.straggling > printed)
        out << "          " << a.straggling - printed << " more straggling steps (the CSV has every step)\n";
}

void writeAlignedCsv(const AlignedRanks& a, std::ostream& out) {
    out << "step";
    for (int r : a.ranks)
        out << ",rank" << r << "_seconds";
    out << ",slowest_rank,excess_seconds,straggles\n";
    for (const AlignedStep& s : a.steps) {
        out << s.index;
        for (double v : s.seconds)
            out << ',' << number(v);
        out << ',' << s.slowest << ',' << number(s.excess) << ',' << (s.straggles ? 1 : 0) << '\n';
    }
}

} // namespace roofline::report
