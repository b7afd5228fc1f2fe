#include "report/compare.hpp"

#include "report/chart_layout.hpp"
#include "report/columns.hpp"
#include "report/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <unordered_map>

namespace roofline::report {
namespace {

const KernelGroup* side(const std::vector<KernelGroup>& groups, long i) {
    return i >= 0 ? &groups[static_cast<std::size_t>(i)] : nullptr;
}

std::string ratio(double a, double b) {
    if (!(a > 0) && !(b > 0))
        return "-";
    if (!(a > 0))
        return "new";
    if (!(b > 0))
        return "gone";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fx", b / a);
    return buf;
}

std::string arrow(const std::string& a, const std::string& b) {
    return a == b ? a : a + " -> " + b;
}

double dramIntensity(const KernelGroup* g) {
    return g && g->bytes[2] > 0 ? g->totalFlops() / g->bytes[2] : 0.0;
}

std::string boundText(const KernelGroup* g, const Ceilings& c) {
    return g ? toString(g->bound(c)) : "-";
}

} // namespace

Comparison compareRecords(const std::vector<KernelRecord>& a, const std::vector<KernelRecord>& b,
                          GroupBy by) {
    Comparison c;
    c.by = by;
    c.a = aggregate(a, by);
    c.b = aggregate(b, by);
    c.secondsA = totalSeconds(c.a);
    c.secondsB = totalSeconds(c.b);
    std::unordered_map<std::string, long> inB;
    for (std::size_t i = 0; i < c.b.size(); ++i)
        inB.emplace(c.b[i].key, static_cast<long>(i));
    std::vector<bool> used(c.b.size(), false);
    for (std::size_t i = 0; i < c.a.size(); ++i) {
        const auto it = inB.find(c.a[i].key);
        if (it != inB.end()) {
            used[static_cast<std::size_t>(it->second)] = true;
            ++c.matched;
        }
        c.rows.emplace_back(static_cast<long>(i), it == inB.end() ? -1 : it->second);
    }
    for (std::size_t j = 0; j < c.b.size(); ++j)
        if (!used[j])
            c.rows.emplace_back(-1, static_cast<long>(j));
    auto combined = [&](const std::pair<long, long>& r) {
        const KernelGroup* ga = side(c.a, r.first);
        const KernelGroup* gb = side(c.b, r.second);
        return (ga ? ga->seconds : 0.0) + (gb ? gb->seconds : 0.0);
    };
    std::stable_sort(c.rows.begin(), c.rows.end(),
                     [&](const auto& x, const auto& y) { return combined(x) > combined(y); });
    return c;
}

namespace {

// A row of the comparison as printed: its name, the identity that tells it apart, its scope, its
// cells and its bound in A and B.
struct ShownRow {
    std::string name, identity, scope, bound;
    std::vector<std::string> cells;
};

ShownRow shownRow(const Comparison& c, std::size_t i, const Ceilings& ceilingsA,
                  const Ceilings& ceilingsB) {
    const KernelGroup* a = side(c.a, c.rows[i].first);
    const KernelGroup* b = side(c.b, c.rows[i].second);
    const KernelGroup* any = a ? a : b;
    ShownRow r;
    const bool verbatim = frameworkRows(c.by);
    r.name = c.by == GroupBy::Scope ? "[scope] " + displayName(any->name)
             : verbatim             ? any->name
                                    : displayName(any->name);
    r.identity = any->name;
    r.scope = c.by == GroupBy::Name ? "-" : (any->scope.empty() ? "-" : any->scope);
    char ta[32], tb[32];
    std::snprintf(ta, sizeof ta, "%.1f", a ? a->seconds * 1e6 : 0.0);
    std::snprintf(tb, sizeof tb, "%.1f", b ? b->seconds * 1e6 : 0.0);
    const auto change = [&](double va, double vb) {
        return (a ? shortNumber(va) : std::string("-")) + " -> " +
               (b ? shortNumber(vb) : std::string("-"));
    };
    r.cells = {a ? ta : "-",
               b ? tb : "-",
               ratio(a ? a->seconds : 0, b ? b->seconds : 0),
               change(a ? a->totalFlops() : 0, b ? b->totalFlops() : 0),
               change(a ? a->bytes[2] : 0, b ? b->bytes[2] : 0),
               change(dramIntensity(a), dramIntensity(b))};
    r.bound = a && b ? arrow(boundText(a, ceilingsA), boundText(b, ceilingsB))
              : a    ? "only in A: " + boundText(a, ceilingsA)
                     : "only in B: " + boundText(b, ceilingsB);
    return r;
}

// The line after the rows: the total times, what matched, and what to try when nothing did.
void printComparisonTotals(const Comparison& c, std::ostream& out) {
    char line[1024];
    std::snprintf(line, sizeof line,
                  "\ntotal time A %.1f us, B %.1f us (B/A %s); %zu of %zu A and %zu B groups "
                  "matched by %s\n",
                  c.secondsA * 1e6, c.secondsB * 1e6, ratio(c.secondsA, c.secondsB).c_str(),
                  c.matched, c.a.size(), c.b.size(), toString(c.by));
    out << line;
    if (c.matched != 0 || c.a.empty() || c.b.empty())
        return;
    if (frameworkRows(c.by))
        out << "nothing matched by " << toString(c.by)
            << ": a recording whose rows are all '(no operator)' or '(no module)' was made "
               "without framework operators (a PyTorch program not run under `roofline run`, "
               "or recorded by an older libroofline)\n";
    else if (c.by == GroupBy::Scope)
        out << "no scope matched: A's scopes (such as '" << c.a.front().scope
            << "') are not B's (such as '" << c.b.front().scope
            << "'); compare kernels whatever their scope with --by name\n";
    else
        out << "no kernel matched: when B runs other kernels (another engine, another batch "
               "size), compare whole scopes with --by scope\n";
}

} // namespace

void printComparison(const Comparison& c, const Ceilings& ceilingsA, const Ceilings& ceilingsB,
                     std::ostream& out, std::size_t top, const CompareTableOptions& options) {
    const std::size_t rows = top ? std::min(top, c.rows.size()) : c.rows.size();
    std::vector<ShownRow> shown;
    std::vector<std::string> names, identities, paths;
    for (std::size_t i = 0; i < rows; ++i) {
        ShownRow r = shownRow(c, i, ceilingsA, ceilingsB);
        names.push_back(r.name);
        identities.push_back(r.identity);
        paths.push_back(r.scope == "-" ? std::string() : r.scope);
        shown.push_back(std::move(r));
    }
    // The report table's rules: columns as wide as their cells, optional ones left out on a
    // narrow line, kernel names distinct, the scope levels every row shares named once.
    std::vector<NumberColumn> columns = {{"A (us)", 8, 0},
                                         {"B (us)", 8, 0},
                                         {"B/A", 5, 0},
                                         {"FLOPs A -> B", 12, 3},
                                         {"DRAM bytes A -> B", 17, 2},
                                         {"AI(DRAM) A -> B", 15, 1}};
    std::size_t longestName = 6, longestScope = 5, boundW = 12;
    for (const ShownRow& r : shown) {
        for (std::size_t k = 0; k < columns.size(); ++k)
            columns[k].width = std::max(columns[k].width, r.cells[k].size());
        longestName = std::max(longestName, r.name.size());
        boundW = std::max(boundW, r.bound.size());
    }
    const std::string shared = options.wide ? std::string() : sharedScopePrefix(paths);
    for (const ShownRow& r : shown)
        longestScope =
            std::max(longestScope, r.scope.size() - (r.scope == "-" ? 0 : shared.size()));
    boundW = std::min<std::size_t>(boundW, 28);
    const std::size_t width = options.width ? options.width : terminalWidth();
    const auto [kernelW, scopeW] =
        fitLine(columns, width, 2 + 2 + boundW, longestName, longestScope, true, options.wide);
    const std::vector<std::string> shortNames =
        distinctNames(names, identities, kernelW, options.wide);
    if (!shared.empty())
        out << "scopes below are inside '" << shared << "'\n";
    out << padRight("kernel", kernelW) << "  " << padRight("scope", scopeW) << "  "
        << numberCells(columns, columnHeads(columns)) << " bound A -> B\n";
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const ShownRow& r = shown[i];
        const std::string scope = r.scope == "-" ? r.scope : r.scope.substr(shared.size());
        out << padRight(shortNames[i], kernelW) << "  "
            << padRight(options.wide ? scope : shortenScope(scope, scopeW), scopeW) << "  "
            << numberCells(columns, r.cells) << ' ' << r.bound << '\n';
    }
    if (rows < c.rows.size())
        out << "  ... " << (c.rows.size() - rows) << " more rows (--top 0 for all)\n";
    if (std::any_of(shortNames.begin(), shortNames.end(), cutName))
        out << "  " << kCutNamesNote << '\n';
    printComparisonTotals(c, out);
}

void writeComparisonCsv(const Comparison& c, const Ceilings& ceilingsA, const Ceilings& ceilingsB,
                        std::ostream& out) {
    auto q = [](const std::string& s) {
        std::string r = "\"";
        for (char ch : s)
            r += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        return r + "\"";
    };
    out << "name,scope,in_a,in_b,launches_a,launches_b,time_s_a,time_s_b,time_ratio,flops_a,"
           "flops_b,tensor_share_a,tensor_share_b,bytes_l1_a,bytes_l1_b,bytes_l2_a,bytes_l2_b,"
           "bytes_dram_a,bytes_dram_b,ai_dram_a,ai_dram_b,bound_a,bound_b,kernel_id_a,kernel_id_"
           "b\n";
    for (const auto& [ia, ib] : c.rows) {
        const KernelGroup* a = side(c.a, ia);
        const KernelGroup* b = side(c.b, ib);
        const KernelGroup* any = a ? a : b;
        // A kernel on one side only: the other side's cells are empty, and so is the ratio.
        auto v = [](const KernelGroup* g, auto f) {
            return g ? report::number(f(*g)) : std::string();
        };
        const std::string r =
            a && b && a->seconds > 0 ? report::number(b->seconds / a->seconds) : std::string();
        out << q(any->name) << ',' << q(any->scope) << ',' << (a ? 1 : 0) << ',' << (b ? 1 : 0)
            << ',' << (a ? std::to_string(a->launches) : "") << ','
            << (b ? std::to_string(b->launches) : "") << ','
            << v(a, [](const KernelGroup& g) { return g.seconds; }) << ','
            << v(b, [](const KernelGroup& g) { return g.seconds; }) << ',' << r << ','
            << v(a, [](const KernelGroup& g) { return g.totalFlops(); }) << ','
            << v(b, [](const KernelGroup& g) { return g.totalFlops(); }) << ','
            << v(a, [](const KernelGroup& g) { return g.tensorShare(); }) << ','
            << v(b, [](const KernelGroup& g) { return g.tensorShare(); });
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
            out << ',' << v(a, [l](const KernelGroup& g) { return g.bytes[l]; }) << ','
                << v(b, [l](const KernelGroup& g) { return g.bytes[l]; });
        out << ',' << v(a, [](const KernelGroup& g) { return dramIntensity(&g); }) << ','
            << v(b, [](const KernelGroup& g) { return dramIntensity(&g); }) << ','
            << (a ? q(boundText(a, ceilingsA)) : "") << ',' << (b ? q(boundText(b, ceilingsB)) : "")
            << ',' << (a && !frameworkRows(c.by) ? std::to_string(a->kernelId) : "") << ','
            << (b && !frameworkRows(c.by) ? std::to_string(b->kernelId) : "") << '\n';
    }
}

std::vector<ChartSpec> comparisonCharts(const Comparison& c, const Ceilings& ceilingsB,
                                        std::size_t top, const std::string& subtitle) {
    std::vector<ChartSpec> specs(kFamilyCount);
    const double total = c.secondsA + c.secondsB;
    std::size_t shown = 0, onlyA = 0;
    for (const auto& [ia, ib] : c.rows) {
        if (top && shown >= top)
            break;
        const KernelGroup* a = side(c.a, ia);
        const KernelGroup* b = side(c.b, ib);
        if (!b) {
            ++onlyA;
            continue;
        }
        Family f{};
        if (!(b->seconds > 0) || (!b->dominantFamily(f) && !(a && a->dominantFamily(f))))
            continue;
        ChartKernel k;
        k.name = frameworkRows(c.by) ? b->name : displayName(b->name);
        k.detail = "B: " + describe(*b, ceilingsB, c.secondsB);
        if (a)
            k.detail += "\n\nA: " + describe(*a, ceilingsB, c.secondsA);
        k.now = {b->flopsIn(f), b->seconds, b->bytes};
        if (a) {
            k.hasBefore = true;
            k.before = {a->flopsIn(f), a->seconds, a->bytes};
        }
        k.share = total > 0 ? b->seconds / (c.secondsB > 0 ? c.secondsB : total) : 0;
        k.label = static_cast<int>(b->kernelId); // B's '#' (roofline report B)
        k.bound = toString(b->bound(ceilingsB));
        specs[static_cast<std::size_t>(f)].kernels.push_back(std::move(k));
        ++shown;
    }
    std::vector<ChartSpec> out;
    for (std::size_t f = 0; f < kFamilyCount; ++f) {
        ChartSpec& s = specs[f];
        if (s.kernels.empty())
            continue;
        s.family = static_cast<Family>(f);
        s.title = std::string("Comparison A -> B: ") + toString(s.family);
        s.subtitle = subtitle;
        s.ceilings = ceilingsB;
        s.comparison = true;
        s.notes.push_back("hollow: A, filled: B, arrows A -> B; marker area: share of B's time; "
                          "roofs: " +
                          ceilingsB.name);
        if (onlyA)
            s.notes.push_back(std::to_string(onlyA) + " kernel group(s) only in A are listed in "
                                                      "the table, not drawn");
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace roofline::report
