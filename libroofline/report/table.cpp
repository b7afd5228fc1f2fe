#include "report/format.hpp"

#include <roofline/report.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <ostream>

namespace roofline {
namespace {

std::string intensityCell(const KernelRecord& r, MemoryLevel level) {
    if (!r.measured || r.bytesAt(level) <= 0.0)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", r.intensity(level));
    return buf;
}

} // namespace

void printTable(const std::vector<KernelRecord>& records, std::ostream& out,
                const TableOptions& options) {
    std::vector<std::size_t> order(records.size());
    std::iota(order.begin(), order.end(), 0);
    if (options.sortByTime)
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return records[a].timeSeconds > records[b].timeSeconds;
        });
    const std::size_t rows =
        options.maxRows ? std::min(options.maxRows, records.size()) : records.size();

    std::size_t measured = 0, differing = 0, unmatched = 0;
    for (const KernelRecord& r : records) {
        measured += r.measured ? 1 : 0;
        differing += r.replay == ReplayStatus::Differs ? 1 : 0;
        unmatched += r.replay == ReplayStatus::Unmatched ? 1 : 0;
    }
    if (differing + unmatched > 0)
        out << "records: " << records.size() << ", " << measured << " measured, " << differing
            << " flagged '~' (replay passes ran another grid or block: values kept), " << unmatched
            << " flagged '!' (replay passes ran other kernels: no values)\n";
    char line[512];
    std::snprintf(line, sizeof line, "%5s  %-40s %-20s %10s %10s %4s %9s %9s %9s  %s\n", "#",
                  "kernel", "scope", "time(us)", "FLOP/s", "TC%", "AI(L1)", "AI(L2)", "AI(DRAM)",
                  "bound");
    out << line;
    for (std::size_t i = 0; i < rows; ++i) {
        const KernelRecord& r = records[order[i]];
        const char flag = r.replay == ReplayStatus::Differs     ? '~'
                          : r.replay == ReplayStatus::Unmatched ? '!'
                                                                : ' ';
        const std::string scope = r.scopePath.empty() ? "-" : r.scopePath;
        const std::string name =
            r.scopeRecord ? "[scope: " + std::to_string(r.kernels) + " kernels] " + r.name
                          : report::displayName(r.name);
        if (!r.measured && r.timeSeconds > 0.0) { // timing only
            std::snprintf(line, sizeof line, "%5llu%c %-40s %-20s %10.2f  %s\n",
                          static_cast<unsigned long long>(r.launchIndex), flag,
                          report::fit(name, 40).c_str(), report::fit(scope, 20).c_str(),
                          r.timeSeconds * 1e6, r.note.c_str());
            out << line;
            continue;
        }
        if (!r.measured) {
            std::snprintf(line, sizeof line, "%5llu%c %-40s %-20s  not measured: %s\n",
                          static_cast<unsigned long long>(r.launchIndex), flag,
                          report::fit(name, 40).c_str(), report::fit(scope, 20).c_str(),
                          r.note.c_str());
            out << line;
            continue;
        }
        char tensor[8] = "-";
        if (r.totalFlops() > 0.0)
            std::snprintf(tensor, sizeof tensor, "%.0f", 100.0 * r.tensorShare());
        std::string bound = toString(r.bound);
        if (r.noFloatingPointWork())
            bound += "  [no FP work]";
        else if (!(r.timeSeconds > 0.0))
            bound += "  [zero time]";
        std::snprintf(line, sizeof line, "%5llu%c %-40s %-20s %10.2f %10s %4s %9s %9s %9s  %s\n",
                      static_cast<unsigned long long>(r.launchIndex), flag,
                      report::fit(name, 40).c_str(), report::fit(scope, 20).c_str(),
                      r.timeSeconds * 1e6, report::shortNumber(r.flopRate()).c_str(), tensor,
                      intensityCell(r, MemoryLevel::L1).c_str(),
                      intensityCell(r, MemoryLevel::L2).c_str(),
                      intensityCell(r, MemoryLevel::DRAM).c_str(), bound.c_str());
        out << line;
    }
    if (rows < records.size())
        out << "  ... " << (records.size() - rows) << " more records (use --top 0 for all)\n";
    std::size_t noWork = 0;
    for (const auto& r : records)
        noWork += r.noFloatingPointWork() ? 1 : 0;
    if (noWork)
        out << "  [no FP work]: " << noWork
            << " record(s) did no floating-point work (copies, memsets, integer kernels): "
               "intensity 0, bound by memory if at all\n";
}

} // namespace roofline
