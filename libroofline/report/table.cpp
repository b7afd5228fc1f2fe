#include "report/format.hpp"

#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <ostream>
#include <set>
#include <sys/ioctl.h>
#include <unistd.h>

namespace roofline {
namespace {

const char* const kSortKeys[] = {"time",  "mean",  "launches", "share", "flops", "rate",
                                 "ai_l1", "ai_l2", "ai_dram",  "name",  "scope"};

std::size_t terminalWidth() {
    if (const char* c = std::getenv("COLUMNS")) {
        const long v = std::strtol(c, nullptr, 10);
        if (v >= 40 && v <= 10000)
            return static_cast<std::size_t>(v);
    }
    winsize w{};
    if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col >= 40)
        return w.ws_col;
    return 160;
}

// A scope path keeps its innermost (rightmost) names: "...#/Layer 3/attention".
std::string shortenScope(const std::string& s, std::size_t width) {
    if (s.size() <= width || width < 8)
        return s.size() <= width ? s : report::fit(s, std::max<std::size_t>(width, 4));
    return "..." + s.substr(s.size() - (width - 3));
}

// The leading scope levels every row shares ("Train step #/"), whole levels only, and never all
// of a row's path (each row keeps its last level): the table shows each path without them and
// names them once above its header.
std::string sharedScopePrefix(const std::vector<const KernelRecord*>& rows) {
    std::string prefix;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::string& s = rows[i]->scopePath;
        const std::size_t last = s.rfind('/');
        const std::size_t mine = last == std::string::npos ? 0 : last + 1; // all but its last level
        if (i == 0)
            prefix = s.substr(0, mine);
        std::size_t n = 0;
        while (n < prefix.size() && n < mine && prefix[n] == s[n])
            ++n;
        while (n > 0 && prefix[n - 1] != '/') // back to a level boundary
            --n;
        prefix.resize(n);
        if (prefix.empty())
            break;
    }
    return prefix;
}

std::string pad(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string padLeft(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// A numeric column of the table; dropOrder > 0: left out on narrow lines, lowest first.
struct NumberColumn {
    const char* head;
    std::size_t width;
    int dropOrder;
    bool shown = true;
};

std::string intensityCell(const KernelRecord& r, MemoryLevel level) {
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

std::string nameOf(const KernelRecord& r) {
    return r.scopeRecord ? "[scope: " + std::to_string(r.kernels) + " kernels] " + r.name
                         : report::displayName(r.name);
}

// Short names that stay distinct: a name shortened in the middle that collides with another
// kernel's gets more of its full name, then a number.
std::vector<std::string> shortNames(const std::vector<const KernelRecord*>& rows, std::size_t width,
                                    bool wide) {
    std::vector<std::string> out;
    for (const KernelRecord* r : rows)
        out.push_back(wide ? nameOf(*r) : report::shorten(nameOf(*r), width));
    if (wide)
        return out;
    std::map<std::string, std::set<std::string>> fullBy;
    for (std::size_t i = 0; i < rows.size(); ++i)
        fullBy[out[i]].insert(rows[i]->name);
    std::map<std::string, std::size_t> numbered;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (fullBy[out[i]].size() < 2)
            continue;
        // Template arguments kept, cut in the middle; then a number if still ambiguous.
        const auto again = [&](const KernelRecord* r) {
            return report::shorten(nameOf(*r), width, false);
        };
        const std::string mine = again(rows[i]);
        const bool unique = std::none_of(rows.begin(), rows.end(), [&](const KernelRecord* o) {
            return o->name != rows[i]->name && again(o) == mine;
        });
        if (unique) {
            out[i] = mine;
            continue;
        }
        const std::string tag = "(" + std::to_string(++numbered[out[i]]) + ")";
        out[i] = report::shorten(nameOf(*rows[i]), width - tag.size(), false) + tag;
    }
    return out;
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

void printTable(const std::vector<KernelRecord>& records, std::ostream& out,
                const TableOptions& options) {
    const std::string key = options.sortBy.empty() && options.sortByTime ? "time" : options.sortBy;
    checkSortKey(key);
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
    const std::size_t rows =
        options.maxRows ? std::min(options.maxRows, records.size()) : records.size();

    std::size_t differing = 0, unmatched = 0, launches = 0, reused = 0;
    double total = 0, flops = 0;
    std::array<double, kMemoryLevelCount> bytes{};
    for (const KernelRecord& r : records) {
        differing += r.replay == ReplayStatus::Differs ? 1 : 0;
        unmatched += r.replay == ReplayStatus::Unmatched ? 1 : 0;
        reused += r.reusedSamples > 0 ? 1 : 0;
        launches += r.kernels ? r.kernels : 1;
        total += r.timeSeconds > 0 ? r.timeSeconds : 0;
        if (r.measured) {
            flops += r.totalFlops();
            for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
                bytes[l] += r.bytes[l];
        }
    }
    const double share = options.totalSeconds > 0 ? options.totalSeconds : total;

    // Numeric columns, right-aligned; on a narrow line the optional ones go first (in the order
    // below), then kernel and scope share the rest down to their minimum widths.
    const std::size_t width = options.width ? options.width : terminalWidth();
    std::vector<NumberColumn> columns;
    if (options.grouped)
        columns = {{"launches", 8, 3}, {"time(ms)", 10, 0}, {"mean(us)", 10, 1}, {"%time", 6, 0}};
    else
        columns = {{"time(us)", 10, 0}};
    for (NumberColumn c :
         {NumberColumn{"FLOP/s", 9, 0}, NumberColumn{"TC%", 4, 4}, NumberColumn{"AI(L1)", 8, 2},
          NumberColumn{"AI(L2)", 8, 5}, NumberColumn{"AI(DRAM)", 8, 0}})
        columns.push_back(c);
    const bool anyScope = std::any_of(records.begin(), records.end(),
                                      [](const KernelRecord& r) { return !r.scopePath.empty(); });
    std::vector<const KernelRecord*> shown;
    for (std::size_t i = 0; i < rows; ++i)
        shown.push_back(&records[order[i]]);
    // Scope levels every shown row shares are named once, above the table.
    const std::string shared = options.wide ? std::string() : sharedScopePrefix(shown);
    const auto scopeOf = [&](const KernelRecord& r) {
        return r.scopePath.empty() ? std::string("-") : r.scopePath.substr(shared.size());
    };
    std::size_t longestName = 6, longestScope = 5;
    for (const KernelRecord* r : shown) {
        longestName = std::max(longestName, nameOf(*r).size());
        longestScope = std::max(longestScope, scopeOf(*r).size());
    }
    // Each measured row's bound, with what follows it (the widest decides the room left).
    std::vector<std::string> bounds(shown.size());
    std::size_t boundW = 5;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const KernelRecord& r = *shown[i];
        if (!r.measured)
            continue;
        bounds[i] = toString(r.bound) + options.boundMark;
        if (r.noFloatingPointWork())
            bounds[i] += "  [no FP work]";
        else if (!(r.timeSeconds > 0.0))
            bounds[i] += "  [zero time]";
        boundW = std::max(boundW, bounds[i].size() + (options.grouped && !r.note.empty() ? 5 : 0));
    }
    boundW = std::min<std::size_t>(boundW, 24); // a longer bound may overflow: names first
    const std::size_t minKernel = 24, minScope = anyScope ? 10 : 5;
    const auto numbersWidth = [&] {
        std::size_t w = 0;
        for (const auto& c : columns)
            w += c.shown ? c.width + 1 : 0;
        return w;
    };
    const auto room = [&]() -> std::size_t {
        const std::size_t used = 7 + 2 + numbersWidth() + 1 + boundW;
        return width > used ? width - used : 0;
    };
    const std::size_t need = std::min(minKernel, longestName) + std::min(minScope, longestScope);
    for (int drop = 1; drop <= 5 && room() < need; ++drop)
        for (auto& c : columns)
            if (c.dropOrder == drop)
                c.shown = false;
    const std::size_t rest = room();
    std::size_t kernelW, scopeW;
    if (!anyScope) {
        scopeW = minScope;
        kernelW = std::max(minKernel, rest > scopeW ? rest - scopeW : 0);
    } else {
        // The scope gets what it needs up to 2/5 of the room; the kernel name the rest.
        scopeW = std::clamp(longestScope, minScope, std::max(minScope, rest * 2 / 5));
        kernelW = std::max(minKernel, rest > scopeW ? rest - scopeW : 0);
    }
    if (kernelW > longestName) { // no blank space: what the name does not need goes to the scope
        scopeW = std::min(std::max(scopeW, longestScope), scopeW + kernelW - longestName);
        kernelW = longestName;
    }
    const std::vector<std::string> names = shortNames(shown, kernelW, options.wide);
    if (options.wide) {
        kernelW = longestName;
        scopeW = longestScope;
        for (std::size_t i = 0; i < shown.size(); ++i)
            kernelW = std::max(kernelW, names[i].size());
        for (auto& c : columns)
            c.shown = true;
    }
    const auto numbers = [&](const std::vector<std::string>& cells) {
        std::string text;
        for (std::size_t c = 0; c < columns.size(); ++c)
            if (columns[c].shown)
                text += padLeft(c < cells.size() ? cells[c] : "", columns[c].width) + ' ';
        return text;
    };
    if (!shared.empty())
        out << "scopes below are inside '" << shared << "'\n";
    std::vector<std::string> heads;
    for (const auto& c : columns)
        heads.push_back(c.head);
    out << "    #  " << pad("kernel", kernelW) << ' ' << pad("scope", scopeW) << ' '
        << numbers(heads) << " bound\n";

    // Notes of unmeasured rows, listed once after the table.
    std::vector<std::pair<std::string, std::size_t>> notes;
    const auto noteRef = [&](const std::string& note) {
        for (std::size_t i = 0; i < notes.size(); ++i)
            if (notes[i].first == note) {
                ++notes[i].second;
                return "[" + std::to_string(i + 1) + "]";
            }
        notes.emplace_back(note, 1);
        return "[" + std::to_string(notes.size()) + "]";
    };
    char line[256];
    const auto fmt = [&](const char* format, double v) {
        std::snprintf(line, sizeof line, format, v);
        return std::string(line);
    };
    for (std::size_t i = 0; i < rows; ++i) {
        const KernelRecord& r = *shown[i];
        const char flag = r.replay == ReplayStatus::Differs     ? '~'
                          : r.replay == ReplayStatus::Unmatched ? '!'
                          : r.reusedSamples > 0                 ? 'r'
                                                                : ' ';
        const std::string scope = scopeOf(r);
        std::snprintf(line, sizeof line, "%5llu%c ", static_cast<unsigned long long>(r.launchIndex),
                      flag);
        std::string row = line + pad(names[i], kernelW) + ' ' +
                          pad(options.wide ? scope : shortenScope(scope, scopeW), scopeW) + ' ';
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
        if (!r.measured) {
            // The time columns, then the reason where the counters would be.
            for (std::size_t c = 0; c < cells.size(); ++c)
                if (columns[c].shown)
                    row += padLeft(cells[c], columns[c].width) + ' ';
            out << row << (r.timeSeconds > 0.0 ? "timing only " : "not measured ")
                << noteRef(r.note.empty() ? "no counter values" : r.note) << '\n';
            continue;
        }
        cells.push_back(report::shortNumber(r.flopRate()));
        cells.push_back(r.totalFlops() > 0.0 ? fmt("%.0f", 100.0 * r.tensorShare()) : "-");
        for (MemoryLevel l : {MemoryLevel::L1, MemoryLevel::L2, MemoryLevel::DRAM})
            cells.push_back(intensityCell(r, l));
        std::string bound = bounds[i];
        if (options.grouped && !r.note.empty())
            bound += "  " + noteRef(r.note);
        out << row << numbers(cells) << ' ' << bound << '\n';
    }
    if (rows < records.size()) {
        double hidden = 0;
        for (std::size_t i = rows; i < records.size(); ++i)
            hidden += records[order[i]].timeSeconds > 0 ? records[order[i]].timeSeconds : 0;
        std::snprintf(line, sizeof line, "%.1f%%", share > 0 ? 100.0 * hidden / share : 0.0);
        out << "  ... " << (records.size() - rows) << " more rows: " << line
            << " of the time (--top 0 shows all)\n";
    }
    if (options.grouped && !records.empty()) {
        const auto ai = [&](MemoryLevel l) {
            const double b = bytes[static_cast<std::size_t>(l)];
            return b <= 0 ? std::string("-") : fmt("%.3g", flops / b);
        };
        const std::vector<std::string> cells = {
            std::to_string(launches),
            fmt("%.3f", total * 1e3),
            "",
            fmt("%.1f", share > 0 ? 100.0 * total / share : 0.0),
            report::shortNumber(total > 0 ? flops / total : 0),
            "",
            ai(MemoryLevel::L1),
            ai(MemoryLevel::L2),
            ai(MemoryLevel::DRAM)};
        std::string totals =
            "       " + pad("total", kernelW) + ' ' + pad("", scopeW) + ' ' + numbers(cells);
        while (!totals.empty() && totals.back() == ' ')
            totals.pop_back();
        out << totals << '\n';
    }
    for (std::size_t i = 0; i < notes.size(); ++i)
        out << "  [" << (i + 1) << "] " << notes[i].first << " (" << notes[i].second
            << (notes[i].second == 1 ? " row" : " rows") << ")\n";
    // One legend for the flags in use.
    std::string legend;
    const auto flagUsed = [&](std::size_t n, const char* flag, const char* meaning) {
        if (n)
            legend += std::string(legend.empty() ? "" : "; ") + flag + " " + std::to_string(n) +
                      (n == 1 ? " row: " : " rows: ") + meaning;
    };
    flagUsed(differing, "'~'", "a replay pass ran it with another grid or block (values kept)");
    flagUsed(unmatched, "'!'", "replay passes ran other kernels at its place (no values)");
    flagUsed(reused, "'r'",
             "the mean of measured launches of the same signature (the note says which and how "
             "far they spread; ROOFLINE_REUSE=0 measures each launch)");
    const bool alike = std::any_of(names.begin(), names.end(), [](const std::string& n) {
        return n.size() > 3 && n.back() == ')' && n[n.size() - 2] >= '0' &&
               n[n.size() - 2] <= '9' && n.rfind('(') != std::string::npos &&
               n.find_first_not_of("0123456789", n.rfind('(') + 1) == n.size() - 1;
    });
    if (alike)
        legend += std::string(legend.empty() ? "" : "; ") +
                  "'(1)', '(2)' after a name: other kernels whose shortened names look alike "
                  "(--wide shows them whole)";
    if (!legend.empty())
        out << "  flags: " << legend << '\n';
    std::size_t noWork = 0;
    for (const auto& r : records)
        noWork += r.noFloatingPointWork() ? 1 : 0;
    if (noWork)
        out << "  [no FP work]: " << noWork
            << " row(s) did no floating-point work (copies, memsets, integer kernels): "
               "intensity 0, bound by memory if at all\n";
}

} // namespace roofline
