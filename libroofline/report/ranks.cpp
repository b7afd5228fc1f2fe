#include "report/ranks.hpp"

#include "core/launch.hpp"
#include "report/format.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

namespace roofline::report {

std::vector<int> ranksOf(const std::vector<KernelRecord>& records) {
    std::set<int> ranks;
    for (const auto& r : records)
        if (r.rank >= 0)
            ranks.insert(r.rank);
    return {ranks.begin(), ranks.end()};
}

bool isCommunication(const KernelRecord& r) noexcept {
    return r.phase == "communication" ||
           core::communicationLibrary(r.mangledName.c_str()) != nullptr;
}

std::vector<RankSpread> rankSpread(const std::vector<KernelRecord>& records, GroupBy by) {
    const std::vector<int> ranks = ranksOf(records);
    if (ranks.size() < 2)
        return {};
    std::map<int, std::vector<KernelRecord>> perRank;
    for (const auto& r : records)
        if (r.rank >= 0 && !isCommunication(r)) // waits, not work
            perRank[r.rank].push_back(r);
    // key -> spread, in order of first appearance on the lowest rank that ran it
    std::vector<RankSpread> spreads;
    std::map<std::string, std::size_t> index;
    for (const auto& [rank, rs] : perRank)
        for (const KernelGroup& g : aggregate(rs, by)) {
            if (g.launches == g.unmeasured)
                continue; // no measured time on this rank
            auto [it, fresh] = index.emplace(g.key, spreads.size());
            if (fresh)
                spreads.push_back({g.name, g.scope, {}, {}});
            RankSpread& s = spreads[it->second];
            s.ranks.push_back(rank);
            s.seconds.push_back(g.seconds);
        }
    std::vector<RankSpread> out;
    for (RankSpread& s : spreads) {
        if (s.ranks.size() < 2)
            continue;
        const auto [lo, hi] = std::minmax_element(s.seconds.begin(), s.seconds.end());
        s.fastest = s.ranks[static_cast<std::size_t>(lo - s.seconds.begin())];
        s.slowest = s.ranks[static_cast<std::size_t>(hi - s.seconds.begin())];
        s.fastestSeconds = *lo;
        s.slowestSeconds = *hi;
        out.push_back(std::move(s));
    }
    std::stable_sort(out.begin(), out.end(), [](const RankSpread& a, const RankSpread& b) {
        return a.excessSeconds() > b.excessSeconds();
    });
    return out;
}

namespace {

std::string percentOver(double slow, double fast) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(1) << (fast > 0 ? 100 * (slow / fast - 1) : 0.0);
    return o.str();
}

} // namespace

namespace {

// A rank's launches and GPU time, compute and communication apart: a communication kernel's time
// is mostly waiting for its peers (and under profiling, for peers slowed by their passes), so it
// names no straggler.
struct Split {
    std::size_t launches = 0, commLaunches = 0;
    double compute = 0, comm = 0;
};

std::map<int, Split> splitByRank(const std::vector<KernelRecord>& records) {
    std::map<int, Split> split;
    for (const auto& r : records) {
        if (r.rank < 0)
            continue;
        Split& s = split[r.rank];
        ++s.launches;
        const double t = r.timeSeconds > 0 ? r.timeSeconds : 0.0;
        if (isCommunication(r)) {
            ++s.commLaunches;
            s.comm += t; // timed without counters in kernel replay: still its time
        } else if (r.measured) {
            s.compute += t;
        }
    }
    return split;
}

// Ranks that shared the profile: each launch's counters and time come from the rank that
// measured it, so only how many each rank measured is shown.
void printSharedRanks(const std::vector<KernelRecord>& records, const std::map<int, Split>& split,
                      std::ostream& out) {
    std::map<int, std::size_t> own;
    for (const auto& r : records)
        if (r.rank >= 0 && r.measured && r.countersRank < 0)
            ++own[r.rank];
    out << "\nranks     " << split.size()
        << " (merged recording; the ranks shared the profile: each launch's counters and "
           "time come from the rank that measured it, so kernel times are not compared "
           "between ranks -- record without ROOFLINE_SHARE_RANKS for that)\n";
    for (const auto& [rank, v] : split)
        out << "  rank " << std::setw(4) << rank << "  " << std::setw(7) << v.launches
            << " launches, " << own[rank] << " measured on it\n";
}

// Each rank's compute and communication time, the slowest rank's compute named when it is more
// than 1% over the fastest's.
void printRankTimes(const std::map<int, Split>& split, std::ostream& out) {
    double fastest = split.begin()->second.compute, slowest = fastest;
    int slowestRank = split.begin()->first;
    bool anyComm = false;
    for (const auto& [rank, v] : split) {
        fastest = std::min(fastest, v.compute);
        anyComm = anyComm || v.commLaunches > 0;
        if (v.compute > slowest) {
            slowest = v.compute;
            slowestRank = rank;
        }
    }
    // Under 1% apart, the ranks did the same work in the same time: no straggler.
    const bool straggler = fastest > 0 && slowest > 1.01 * fastest;
    out << "\nranks     " << split.size()
        << " (merged recording): GPU time per rank, compute and communication apart\n";
    for (const auto& [rank, v] : split) {
        out << "  rank " << std::setw(4) << rank << "  " << std::setw(7) << v.launches
            << " launches  compute " << std::setw(10) << milliseconds(v.compute) << " ms";
        if (anyComm)
            out << "  communication " << std::setw(9) << milliseconds(v.comm) << " ms ("
                << v.commLaunches << " launches)";
        if (rank == slowestRank && straggler)
            out << "  slowest compute: +" << percentOver(slowest, fastest) << "% over the fastest";
        out << '\n';
    }
    if (!straggler && fastest > 0)
        out << "  compute time within 1% on every rank: no straggler\n";
    if (anyComm)
        out << "  communication kernels (NCCL, NVSHMEM) wait for their peers: their time is mostly "
               "waiting, not work, and was taken while the ranks were being profiled (each "
               "rank's replay passes hold the others up) -- it is not compared between ranks\n";
}

// The compute kernels whose time differs most between ranks, largest excess first.
void printSpreads(const std::vector<KernelRecord>& records, GroupBy by, std::size_t top,
                  std::ostream& out) {
    std::vector<RankSpread> spreads = rankSpread(records, by);
    spreads.erase(std::remove_if(spreads.begin(), spreads.end(),
                                 [](const RankSpread& s) { return s.excessSeconds() <= 0; }),
                  spreads.end());
    if (spreads.empty()) {
        out << "  every compute kernel took the same time on every rank that ran it\n";
        return;
    }
    const std::size_t n = top == 0 ? spreads.size() : std::min(top, spreads.size());
    out << "\ncompute kernels whose time differs most between ranks (ms; the others wait for the "
           "slowest)\n"
        << "  " << std::left << std::setw(40) << "kernel" << std::setw(28) << "scope" << std::right
        << std::setw(16) << "fastest" << std::setw(16) << "slowest" << std::setw(10) << "excess"
        << std::setw(8) << "+%" << '\n';
    for (std::size_t i = 0; i < n; ++i) {
        const RankSpread& s = spreads[i];
        out << "  " << std::left << std::setw(40) << shorten(displayName(s.name), 38)
            << std::setw(28) << shorten(s.scope, 26) << std::right << std::setw(16)
            << "r" + std::to_string(s.fastest) + " " + milliseconds(s.fastestSeconds)
            << std::setw(16)
            << "r" + std::to_string(s.slowest) + " " + milliseconds(s.slowestSeconds)
            << std::setw(10) << milliseconds(s.excessSeconds()) << std::setw(8)
            << percentOver(s.slowestSeconds, s.fastestSeconds) << '\n';
    }
    if (n < spreads.size())
        out << "  (" << spreads.size() - n << " more; --top 0 lists all)\n";
}

} // namespace

void printRanks(const std::vector<KernelRecord>& records, GroupBy by, std::ostream& out,
                std::size_t top) {
    const std::map<int, Split> split = splitByRank(records);
    if (split.empty())
        return; // one process's records
    if (std::any_of(records.begin(), records.end(),
                    [](const KernelRecord& r) { return r.countersRank >= 0; })) {
        printSharedRanks(records, split, out);
        return;
    }
    printRankTimes(split, out);
    printSpreads(records, by, top, out);
}

} // namespace roofline::report
