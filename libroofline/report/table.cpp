#include "report/columns.hpp"
#include "report/format.hpp"
#include "report/instruction_fields.hpp"

#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <sstream>

namespace roofline {
namespace {

const char* const kSortKeys[] = {"time",  "mean",  "launches", "share", "flops", "rate",
                                 "ai_l1", "ai_l2", "ai_dram",  "name",  "scope"};

// The record has no value for one of `what` (KernelRecord::lacks: partial counters).
bool lacks(const KernelRecord& r, std::initializer_list<const char*> what) {
    if (r.lacks.empty())
        return false;
    const std::string list = ", " + r.lacks + ", ";
    for (const char* w : what)
        if (list.find(", " + std::string(w) + ", ") != std::string::npos)
            return true;
    return false;
}

bool lacksFlops(const KernelRecord& r) {
    return lacks(r, {"FLOPs", "tensor FLOPs"});
}

std::string intensityCell(const KernelRecord& r, MemoryLevel level) {
    if (r.measured && (lacksFlops(r) || lacks(r, {"bytes"})))
        return "?";
    if (!r.measured || r.bytesAt(level) <= 0.0)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", r.intensity(level));
    return buf;
}

double sortValue(const KernelRecord& r, const std::string& key) {
    const double launches = r.kernels ? r.kernels : 1;
    if (key == "time" || key == "share")
        return r.timeSeconds;
    if (key == "mean")
        return r.timeSeconds / launches;
    if (key == "launches")
        return launches;
    if (key == "flops")
        return r.totalFlops();
    if (key == "rate")
        return r.flopRate();
    if (key == "ai_l1")
        return r.intensity(MemoryLevel::L1);
    if (key == "ai_l2")
        return r.intensity(MemoryLevel::L2);
    if (key == "ai_dram")
        return r.intensity(MemoryLevel::DRAM);
    return 0.0;
}

std::string nameOf(const KernelRecord& r, bool verbatim) {
    return r.scopeRecord ? "[scope: " + std::to_string(r.kernels) + " kernels] " + r.name
           : verbatim    ? r.name
                         : report::displayName(r.name);
}

} // namespace

void checkSortKey(const std::string& key) {
    if (key.empty() ||
        std::find(std::begin(kSortKeys), std::end(kSortKeys), key) != std::end(kSortKeys))
        return;
    std::string keys;
    for (const char* k : kSortKeys)
        keys += (keys.empty() ? "" : ", ") + std::string(k);
    throw Error(ErrorCode::InvalidArgument, "unknown sort column '" + key + "': use " + keys);
}

namespace {

// What the table adds up over every record (the totals row and the flags' legend).
struct Sums {
    std::size_t differing = 0, unmatched = 0, launches = 0, reused = 0, partial = 0;
    bool flopsUnknown = false;
    double total = 0, flops = 0;
    std::array<double, kMemoryLevelCount> bytes{};
};

Sums sumsOf(const std::vector<KernelRecord>& records) {
    Sums s;
    for (const KernelRecord& r : records) {
        s.differing += r.replay == ReplayStatus::Differs ? 1 : 0;
        s.unmatched += r.replay == ReplayStatus::Unmatched ? 1 : 0;
        s.reused += r.reusedSamples > 0 ? 1 : 0;
        s.partial += r.measured && !r.lacks.empty() ? 1 : 0;
        s.flopsUnknown = s.flopsUnknown || (r.measured && lacksFlops(r));
        s.launches += r.kernels ? r.kernels : 1;
        s.total += r.timeSeconds > 0 ? r.timeSeconds : 0;
        if (r.measured) {
            s.flops += r.totalFlops();
            for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
                s.bytes[l] += r.bytes[l];
        }
    }
    return s;
}

// The rows in the order of the sort key ("": as given).
std::vector<std::size_t> rowOrder(const std::vector<KernelRecord>& records,
                                  const std::string& key) {
    std::vector<std::size_t> order(records.size());
    std::iota(order.begin(), order.end(), 0);
    if (key == "name" || key == "scope")
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return key == "name"
                       ? report::displayName(records[a].name) < report::displayName(records[b].name)
                       : records[a].scopePath < records[b].scopePath;
        });
    else if (!key.empty())
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return sortValue(records[a], key) > sortValue(records[b], key);
        });
    return order;
}

// One table being printed: the rows shown, the columns and widths that fit the line, the notes
// the rows refer to.
struct Table {
    explicit Table(const TableOptions& o) : options(o) {}
    const TableOptions& options;
    std::vector<const KernelRecord*> shown;
    std::vector<report::NumberColumn> columns;
    std::string shared;    ///< scope levels every shown row shares, named above the table
    bool oneScope = false; ///< every row in one scope: no scope column
    bool noScopeColumn = false;
    std::size_t width = 0, kernelW = 0, scopeW = 0, boundW = 0;
    /// Some shown row has the instruction counters: their verdicts follow the bound.
    bool verdicts = false;
    std::size_t cutVerdicts = 0; ///< rows whose verdicts were cut to the line
    std::vector<std::string> paths, names, bounds;
    std::vector<std::pair<std::string, std::size_t>> notes; ///< referred to as [n], with counts

    std::string scopeOf(const KernelRecord& r) const {
        return r.scopePath.empty() ? std::string("-") : r.scopePath.substr(shared.size());
    }
    std::string scopeCell(const std::string& text) const {
        return noScopeColumn ? std::string() : report::padRight(text, scopeW) + ' ';
    }
    // A note listed once after the table: its reference.
    std::string noteRef(const std::string& note) {
        for (std::size_t i = 0; i < notes.size(); ++i)
            if (notes[i].first == note) {
                ++notes[i].second;
                return "[" + std::to_string(i + 1) + "]";
            }
        notes.emplace_back(note, 1);
        return "[" + std::to_string(notes.size()) + "]";
    }
};

std::string fmt(const char* format, double v) {
    char line[256];
    std::snprintf(line, sizeof line, format, v);
    return line;
}

// The columns, the shared scope, the rows' names and bounds, and the widths that fit the line.
void layOut(Table& t, const std::vector<KernelRecord>& records) {
    const TableOptions& options = t.options;
    auto& columns = t.columns;
    const auto& shown = t.shown;
    auto& paths = t.paths;
    auto& bounds = t.bounds;
    // Numeric columns, right-aligned; on a narrow line the optional ones go first (in the order
    // below), then kernel and scope share the rest down to their minimum widths.
    t.width = options.width ? options.width : report::terminalWidth();
    columns = options.grouped ? std::vector<report::NumberColumn>{{"launches", 8, 3},
                                                                  {"time(ms)", 10, 0},
                                                                  {"mean(us)", 10, 1},
                                                                  {"%time", 6, 0}}
                              : std::vector<report::NumberColumn>{{"time(us)", 10, 0}};
    for (report::NumberColumn c :
         {report::NumberColumn{"FLOP/s", 9, 7}, report::NumberColumn{"TC%", 4, 4},
          report::NumberColumn{"AI(L1)", 8, 2}, report::NumberColumn{"AI(L2)", 8, 5},
          report::NumberColumn{"AI(DRAM)", 8, 6}})
        columns.push_back(c);
    const bool anyScope = std::any_of(records.begin(), records.end(),
                                      [](const KernelRecord& r) { return !r.scopePath.empty(); });
    // Scope levels every shown row shares are named once, above the table.
    std::vector<std::string> displayed, identities;
    for (const KernelRecord* r : shown) {
        paths.push_back(r->scopePath);
        displayed.push_back(nameOf(*r, options.verbatimNames));
        identities.push_back(r->name);
    }
    t.shared = options.wide ? std::string() : report::sharedScopePrefix(paths);
    // Every row in one scope (a loop's "step #"): named once above, no scope column.
    t.oneScope =
        !options.wide && shown.size() > 1 && !paths.front().empty() &&
        std::all_of(paths.begin(), paths.end(), [&](const auto& p) { return p == paths.front(); });
    const bool oneScope = t.oneScope;
    std::size_t longestName = 6, longestScope = 5;
    for (const std::string& n : displayed)
        longestName = std::max(longestName, n.size());
    for (const KernelRecord* r : shown)
        longestScope = std::max(longestScope, t.scopeOf(*r).size());
    // Each measured row's bound, with what follows it (the widest decides the room left).
    bounds.assign(shown.size(), std::string());
    std::size_t boundW = 5;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const KernelRecord& r = *shown[i];
        if (!r.measured)
            continue;
        if (!r.lacks.empty()) { // partial counters: no bound to claim
            bounds[i] = "partial: no " + r.lacks;
            boundW = std::max(boundW, bounds[i].size());
            continue;
        }
        bounds[i] = toString(r.bound) + options.boundMark;
        if (r.noFloatingPointWork())
            bounds[i] += "  [no FP]";
        else if (!(r.timeSeconds > 0.0))
            bounds[i] += "  [zero time]";
        boundW = std::max(boundW, bounds[i].size() + (options.grouped && !r.note.empty() ? 6 : 0));
    }
    // The bound with its marks and note reference fits: the columns and names give way first
    // (a bound longer than this, a rare mix of marks, may still overflow).
    boundW = std::min<std::size_t>(boundW, 40);
    t.boundW = boundW;
    t.verdicts = std::any_of(shown.begin(), shown.end(),
                             [](const KernelRecord* r) { return r->instructions.measured; });
    // Named variables, not a structured binding: C++17 lets no lambda capture one.
    const auto fitted =
        report::fitLine(columns, t.width, 7 + (oneScope ? 1 : 2) + 1 + boundW, longestName,
                        oneScope ? 0 : longestScope, anyScope && !oneScope, options.wide);
    t.kernelW = fitted.kernel;
    t.scopeW = fitted.scope;
    t.noScopeColumn = oneScope || !anyScope; // rows by operator or module: none
    t.names = report::distinctNames(displayed, identities, t.kernelW, options.wide);
}

void writeHeader(const Table& t, std::ostream& out) {
    if (t.oneScope)
        out << "every row is in scope '" << t.paths.front() << "'\n";
    else if (!t.shared.empty())
        out << "scopes below are inside '" << t.shared << "'\n";
    out << "    #  " << report::padRight(t.options.nameHeader, t.kernelW) << ' '
        << t.scopeCell("scope") << report::numberCells(t.columns, report::columnHeads(t.columns))
        << " bound";
    if (t.verdicts)
        out << std::string(t.boundW > 5 ? t.boundW - 5 : 0, ' ') << "  instructions";
    out << '\n';
}

// Row i of the shown ones; `share`: the time its %time is of.
void writeRow(Table& t, std::size_t i, double share, std::ostream& out) {
    const TableOptions& options = t.options;
    const auto& columns = t.columns;
    const std::size_t kernelW = t.kernelW, scopeW = t.scopeW;
    const KernelRecord& r = *t.shown[i];
    const char flag = r.replay == ReplayStatus::Differs     ? '~'
                      : r.replay == ReplayStatus::Unmatched ? '!'
                      : r.reusedSamples > 0                 ? 'r'
                                                            : ' ';
    const std::string scope = t.scopeOf(r);
    // '#': the launch's index, or in grouped views the kernel's id (the same in every view)
    const auto id = options.grouped ? std::uint64_t{r.kernelId} : r.launchIndex;
    char line[32];
    std::snprintf(line, sizeof line, "%5llu%c ", static_cast<unsigned long long>(id), flag);
    std::string row = line + report::padRight(t.names[i], kernelW) + ' ' +
                      t.scopeCell(options.wide ? scope : report::shortenScope(scope, scopeW));
    const double n = r.kernels ? r.kernels : 1;
    std::vector<std::string> cells;
    if (options.grouped)
        cells = {fmt("%.0f", n), fmt("%.3f", r.timeSeconds * 1e3),
                 fmt("%.2f", r.timeSeconds * 1e6 / n),
                 fmt("%.1f", share > 0 ? 100.0 * r.timeSeconds / share : 0.0)};
    else if (!r.measured && !(r.timeSeconds > 0))
        cells = {"-"};
    else
        cells = {fmt("%.2f", r.timeSeconds * 1e6)};
    if (r.measured && lacks(r, {"time"})) // the time cells (grouped: after the launches)
        for (std::size_t c = options.grouped ? 1 : 0; c < cells.size(); ++c)
            cells[c] = "?";
    if (!r.measured) {
        // The time columns, then the reason where the counters would be.
        for (std::size_t c = 0; c < cells.size(); ++c)
            if (columns[c].shown)
                row += report::padLeft(cells[c], columns[c].width) + ' ';
        out << row << (r.timeSeconds > 0.0 ? "timing only " : "not measured ")
            << t.noteRef(r.note.empty() ? "no counter values" : r.note) << '\n';
        return;
    }
    cells.push_back(lacksFlops(r) || lacks(r, {"time"}) ? "?" : report::shortNumber(r.flopRate()));
    cells.push_back(lacksFlops(r)          ? "?"
                    : r.totalFlops() > 0.0 ? fmt("%.0f", 100.0 * r.tensorShare())
                                           : "-");
    for (MemoryLevel l : {MemoryLevel::L1, MemoryLevel::L2, MemoryLevel::DRAM})
        cells.push_back(intensityCell(r, l));
    std::string bound = t.bounds[i];
    if (options.grouped && !r.note.empty())
        bound += "  " + t.noteRef(r.note);
    row += report::numberCells(columns, cells) + ' ';
    if (t.verdicts) { // the instruction counters' verdicts, after the bound's room
        std::string verdicts = report::joinedVerdicts(r);
        if (verdicts.empty() && r.instructions.measured)
            verdicts = "-"; // nothing to act on
        if (!verdicts.empty()) {
            bound = report::padRight(bound, t.boundW) + "  ";
            // Cut to the line (at least 24 characters); --wide, CSV and JSON keep them whole.
            const std::size_t used = row.size() + bound.size();
            const std::size_t room = t.width > used + 24 ? t.width - used : 24;
            if (!t.options.wide && verdicts.size() > room) {
                verdicts = verdicts.substr(0, room - 2) + "..";
                ++t.cutVerdicts;
            }
            bound += verdicts;
        }
    }
    out << row << bound << '\n';
}

// The grouped table's totals row.
void writeTotals(const Table& t, const Sums& s, double share, std::ostream& out) {
    const auto ai = [&](MemoryLevel l) {
        const double b = s.bytes[static_cast<std::size_t>(l)];
        return b <= 0 ? std::string("-") : fmt("%.3g", s.flops / b);
    };
    const std::vector<std::string> cells = {
        std::to_string(s.launches),
        fmt("%.3f", s.total * 1e3),
        "",
        fmt("%.1f", share > 0 ? 100.0 * s.total / share : 0.0),
        s.flopsUnknown ? "?" : report::shortNumber(s.total > 0 ? s.flops / s.total : 0),
        "",
        ai(MemoryLevel::L1),
        ai(MemoryLevel::L2),
        ai(MemoryLevel::DRAM)};
    std::string totals = "       " + report::padRight("total", t.kernelW) + ' ' + t.scopeCell("") +
                         report::numberCells(t.columns, cells);
    while (!totals.empty() && totals.back() == ' ')
        totals.pop_back();
    out << totals << '\n';
}

// The notes the rows refer to, the flags' legend, the rows without floating-point work.
void writeFooter(const Table& t, const Sums& s, const std::vector<KernelRecord>& records,
                 std::ostream& out) {
    // The notes and legends under the table fit the line too, continued under their text.
    std::ostringstream footer;
    for (std::size_t i = 0; i < t.notes.size(); ++i)
        footer << "  [" << (i + 1) << "] " << t.notes[i].first << " (" << t.notes[i].second
               << (t.notes[i].second == 1 ? " row" : " rows") << ")\n";
    // One legend for the flags in use.
    std::string legend;
    const auto flagUsed = [&](std::size_t n, const char* flag, const char* meaning) {
        if (n)
            legend += std::string(legend.empty() ? "" : "; ") + flag + " " + std::to_string(n) +
                      (n == 1 ? " row: " : " rows: ") + meaning;
    };
    flagUsed(s.differing, "'~'", "a replay pass ran it with another grid or block (values kept)");
    flagUsed(s.unmatched, "'!'", "replay passes ran other kernels at its place (no values)");
    flagUsed(s.reused, "'r'",
             "the mean of measured launches of the same signature (the note says which and how "
             "far they spread; ROOFLINE_REUSE=0 measures each launch)");
    flagUsed(s.partial, "'?'",
             "partial counters: no value for what '?' stands in (the job stopped before those "
             "counters were measured; the note says why), the rest measured");
    const bool alike = std::any_of(t.names.begin(), t.names.end(), report::cutName);
    if (alike)
        legend += std::string(legend.empty() ? "" : "; ") + report::kCutNamesNote;
    if (!legend.empty())
        footer << "  flags: " << legend << '\n';
    std::size_t noWork = 0;
    for (const auto& r : records)
        noWork += r.noFloatingPointWork() ? 1 : 0;
    if (noWork)
        footer << "  [no FP]: " << noWork
               << " row(s) did no floating-point work (copies, memsets, integer kernels): "
                  "intensity 0, bound by memory if at all\n";
    if (t.verdicts)
        footer << "  instructions: what the instruction counters say a kernel author can act on "
                  "(access pattern, bank conflicts, predication, issue rate; "
                  "docs/reading-the-report.md); '-': nothing to act on"
               << (t.cutVerdicts ? "; '..': cut to the line (--wide, --csv and --json show them "
                                   "whole)"
                                 : "")
               << '\n';
    out << report::wrapLines(footer.str(), t.options.wide ? 0 : t.width);
}

} // namespace

void printTable(const std::vector<KernelRecord>& records, std::ostream& out,
                const TableOptions& options) {
    const std::string key = options.sortBy.empty() && options.sortByTime ? "time" : options.sortBy;
    checkSortKey(key);
    const std::vector<std::size_t> order = rowOrder(records, key);
    const std::size_t rows =
        options.maxRows ? std::min(options.maxRows, records.size()) : records.size();
    const Sums s = sumsOf(records);
    const double share = options.totalSeconds > 0 ? options.totalSeconds : s.total;
    Table t(options);
    for (std::size_t i = 0; i < rows; ++i)
        t.shown.push_back(&records[order[i]]);
    layOut(t, records);
    writeHeader(t, out);
    for (std::size_t i = 0; i < rows; ++i)
        writeRow(t, i, share, out);
    if (rows < records.size()) {
        double hidden = 0;
        for (std::size_t i = rows; i < records.size(); ++i)
            hidden += records[order[i]].timeSeconds > 0 ? records[order[i]].timeSeconds : 0;
        out << "  ... " << (records.size() - rows)
            << " more rows: " << fmt("%.1f%%", share > 0 ? 100.0 * hidden / share : 0.0)
            << " of the time (--top 0 shows all)\n";
    }
    if (options.grouped && !records.empty())
        writeTotals(t, s, share, out);
    writeFooter(t, s, records, out);
}

} // namespace roofline
