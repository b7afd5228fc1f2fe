#include "report/gate.hpp"

#include "report/chart_layout.hpp"
#include "report/format.hpp"

#include <roofline/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <ostream>

namespace roofline::report {
namespace {

[[noreturn]] void badRule(const std::string& text, const std::string& why) {
    throw Error(ErrorCode::InvalidArgument,
                "--fail-if '" + text + "': " + why +
                    ". Rules: time:+10% (a group's time up more than 10%), time:+50us, "
                    "total:+5% (the total time), roof:-5 (the share of its roof down more than 5 "
                    "points), dram:+20%, l2:+20%, l1:+20% (bytes), flops:+10%, sectors:+10% "
                    "(global sectors per request), wavefronts:+10% (shared wavefronts per "
                    "request; both need ROOFLINE_METRICS=+instructions)");
}

// The group as the tables name it: the short kernel name (framework rows verbatim), its scope.
std::string groupName(const KernelGroup& g, GroupBy by) {
    const std::string name = frameworkRows(by) ? g.name : displayName(g.name);
    return g.scope.empty() ? name : name + " @ " + g.scope;
}

double quantityOf(const KernelGroup& g, GateRule::Quantity q, const Ceilings& ceilings) {
    switch (q) {
    case GateRule::Quantity::Time:
    case GateRule::Quantity::Total:
        return g.seconds;
    case GateRule::Quantity::Roof:
        return 100.0 * g.bound(ceilings).fractionOfPeak;
    case GateRule::Quantity::L1:
        return g.bytes[static_cast<std::size_t>(MemoryLevel::L1)];
    case GateRule::Quantity::L2:
        return g.bytes[static_cast<std::size_t>(MemoryLevel::L2)];
    case GateRule::Quantity::Dram:
        return g.bytes[static_cast<std::size_t>(MemoryLevel::DRAM)];
    case GateRule::Quantity::Flops: {
        double sum = 0;
        for (std::size_t k = 0; k < kFlopKindCount; ++k)
            sum += g.flops[k];
        return sum;
    }
    case GateRule::Quantity::Sectors:
    case GateRule::Quantity::Wavefronts: { // NaN: no counters, or no such access
        const InstructionCounts& n = g.instructions;
        const bool global = q == GateRule::Quantity::Sectors;
        const AccessCounts& ld = global ? n.globalLoad : n.sharedLoad;
        const AccessCounts& st = global ? n.globalStore : n.sharedStore;
        const double requests = ld.requests + st.requests;
        return n.measured && requests > 0 ? (ld.transactions + st.transactions) / requests
                                          : std::nan("");
    }
    }
    return 0;
}

std::string amount(GateRule::Quantity q, double v) {
    switch (q) {
    case GateRule::Quantity::Time:
    case GateRule::Quantity::Total: {
        char s[32];
        std::snprintf(s, sizeof s, "%.1f us", v * 1e6);
        return s;
    }
    case GateRule::Quantity::Roof: {
        char s[32];
        std::snprintf(s, sizeof s, "%.1f%%", v);
        return s;
    }
    case GateRule::Quantity::Flops:
        return siNumber(v) + "FLOP";
    case GateRule::Quantity::Sectors:
    case GateRule::Quantity::Wavefronts: {
        char s[48];
        std::snprintf(s, sizeof s, "%.2f %s per request", v,
                      q == GateRule::Quantity::Sectors ? "sectors" : "wavefronts");
        return s;
    }
    default:
        return siNumber(v) + "B";
    }
}

std::string changeText(const GateRule& rule, double change) {
    char s[48];
    if (rule.quantity == GateRule::Quantity::Roof)
        std::snprintf(s, sizeof s, "%+.1f points", change);
    else if (rule.absolute)
        std::snprintf(s, sizeof s, "%+.1f us", change * 1e6);
    else
        std::snprintf(s, sizeof s, "%+.1f%%", change);
    return s;
}

const char* const kUncheckedWhy =
    "not checked: no group has the instruction counters in both recordings (record both with "
    "ROOFLINE_METRICS=+instructions)";

// The limit as the change is written: a drop for roof rules.
std::string limitText(const GateFinding& f) {
    return changeText(f.rule, f.rule.quantity == GateRule::Quantity::Roof ? -f.limit : f.limit);
}

} // namespace

GateRule parseGateRule(const std::string& text) {
    GateRule r;
    r.text = text;
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos)
        badRule(text, "no ':' between the quantity and its limit");
    const std::string what = text.substr(0, colon);
    std::string limit = text.substr(colon + 1);
    static const std::map<std::string, GateRule::Quantity> quantities = {
        {"time", GateRule::Quantity::Time},
        {"total", GateRule::Quantity::Total},
        {"roof", GateRule::Quantity::Roof},
        {"l1", GateRule::Quantity::L1},
        {"l2", GateRule::Quantity::L2},
        {"dram", GateRule::Quantity::Dram},
        {"flops", GateRule::Quantity::Flops},
        {"sectors", GateRule::Quantity::Sectors},
        {"wavefronts", GateRule::Quantity::Wavefronts}};
    const auto q = quantities.find(what);
    if (q == quantities.end())
        badRule(text, "unknown quantity '" + what + "'");
    r.quantity = q->second;
    const char sign = limit.empty() ? '\0' : limit[0];
    const bool roof = r.quantity == GateRule::Quantity::Roof;
    if (roof ? sign != '-' : sign != '+')
        badRule(text, roof ? "a roof rule is a drop: roof:-POINTS"
                           : "a limit is a rise: +N% or "
                             "+Nus");
    std::string unit;
    if (!roof) {
        for (const char* u : {"%", "us", "ms"})
            if (limit.size() > std::strlen(u) &&
                limit.compare(limit.size() - std::strlen(u), std::strlen(u), u) == 0) {
                unit = u;
                break;
            }
        if (unit.empty())
            badRule(text, "the limit needs a unit: % (or us, ms for time)");
        if (unit != "%" && r.quantity != GateRule::Quantity::Time &&
            r.quantity != GateRule::Quantity::Total)
            badRule(text, "only time limits may be in us or ms");
        limit.resize(limit.size() - unit.size());
    }
    char* end = nullptr;
    const double v = std::strtod(limit.c_str() + 1, &end);
    if (limit.size() < 2 || end == nullptr || *end != '\0' || !(v >= 0) || !std::isfinite(v))
        badRule(text, "'" + limit + "' is not a number");
    r.limit = unit == "us" ? v * 1e-6 : unit == "ms" ? v * 1e-3 : v;
    r.absolute = unit == "us" || unit == "ms";
    return r;
}

namespace {

// The spread of a group's times in A and its repeats: (max - min) as % of the median.
double spreadOf(std::vector<double> v) {
    if (v.size() < 2)
        return 0.0;
    std::sort(v.begin(), v.end());
    const double median = v[v.size() / 2];
    return median > 0 ? 100.0 * (v.back() - v.front()) / median : 0.0;
}

// Each of A's groups' times in A and in A's repeats (`totals`: the whole of each).
std::map<std::string, std::vector<double>> timesOfA(const Comparison& c, const GateOptions& options,
                                                    std::vector<double>& totals) {
    std::map<std::string, std::vector<double>> times;
    for (const auto& g : c.a)
        times[g.key].push_back(g.seconds);
    totals = {c.secondsA};
    for (const auto& repeat : options.repeats) {
        const auto groups = aggregate(repeat, c.by);
        double total = 0;
        for (const auto& g : groups) {
            total += g.seconds;
            if (times.count(g.key))
                times[g.key].push_back(g.seconds);
        }
        totals.push_back(total);
    }
    return times;
}

// `rule` on a group in A and in B (`qa`, `qb`: its quantity in each; `noise`: its time's spread
// in A): the finding, and whether it breaks the rule.
bool judge(const GateRule& rule, double qa, double qb, double noise, GateFinding& f) {
    if (rule.quantity == GateRule::Quantity::Roof) {
        f.change = qb - qa;
        return f.change < -rule.limit;
    }
    if (rule.absolute) {
        f.change = qb - qa;
        return f.change > rule.limit;
    }
    if (!(qa > 0))
        return false;
    f.change = 100.0 * (qb - qa) / qa;
    if (rule.quantity == GateRule::Quantity::Time) {
        f.noise = noise;
        f.limit = std::max(rule.limit, 2 * noise);
    }
    return f.change > f.limit;
}

// The rules on the whole run's time, the spread of A's repeats widening relative limits.
void judgeTotals(const Comparison& c, const GateOptions& options, double noise,
                 GateResult& result) {
    for (const GateRule& rule : options.rules) {
        if (rule.quantity != GateRule::Quantity::Total)
            continue;
        GateFinding f{"(total)", rule, c.secondsA, c.secondsB, 0, rule.limit, noise};
        if (rule.absolute) {
            f.change = c.secondsB - c.secondsA;
        } else if (c.secondsA > 0) {
            f.change = 100.0 * (c.secondsB - c.secondsA) / c.secondsA;
            f.limit = std::max(rule.limit, 2 * f.noise);
        }
        if (f.change > f.limit)
            result.failures.push_back(f);
    }
}

} // namespace

GateResult evaluateGate(const Comparison& c, const Ceilings& ceilingsA, const Ceilings& ceilingsB,
                        const GateOptions& options) {
    GateResult result;
    std::vector<double> totals;
    std::map<std::string, std::vector<double>> times = timesOfA(c, options, totals);
    std::vector<std::size_t> judged(options.rules.size(), 0); // groups each rule could judge
    for (const auto& [ia, ib] : c.rows) {
        if (ia < 0 || ib < 0) {
            ++(ia < 0 ? result.onlyB : result.onlyA);
            continue;
        }
        const KernelGroup& a = c.a[static_cast<std::size_t>(ia)];
        const KernelGroup& b = c.b[static_cast<std::size_t>(ib)];
        if (a.launches == a.unmeasured || b.launches == b.unmeasured)
            continue;
        if (c.secondsA > 0 && a.seconds < options.minShare * c.secondsA) {
            ++result.skipped;
            continue;
        }
        ++result.checked;
        const double noise = spreadOf(times[a.key]);
        for (std::size_t ri = 0; ri < options.rules.size(); ++ri) {
            const GateRule& rule = options.rules[ri];
            if (rule.quantity == GateRule::Quantity::Total)
                continue;
            const double qa = quantityOf(a, rule.quantity, ceilingsA);
            const double qb = quantityOf(b, rule.quantity, ceilingsB);
            if (std::isnan(qa) || std::isnan(qb))
                continue;
            ++judged[ri];
            GateFinding f{groupName(b, c.by), rule, qa, qb, 0, rule.limit, 0};
            if (judge(rule, qa, qb, noise, f))
                result.failures.push_back(f);
        }
    }
    for (std::size_t ri = 0; ri < options.rules.size(); ++ri)
        if (judged[ri] == 0 && result.checked > 0 &&
            (options.rules[ri].quantity == GateRule::Quantity::Sectors ||
             options.rules[ri].quantity == GateRule::Quantity::Wavefronts))
            result.unchecked.push_back(options.rules[ri]);
    judgeTotals(c, options, spreadOf(totals), result);
    return result;
}

void printGate(const GateResult& r, const GateOptions& options, std::ostream& out) {
    std::string rules;
    for (const auto& rule : options.rules)
        rules += (rules.empty() ? "" : ", ") + rule.text;
    out << "\ngate " << (r.passed() ? "PASSED" : "FAILED") << " (" << rules << "): " << r.checked
        << " groups checked, " << r.skipped << " under " << options.minShare * 100
        << "% of A's time not checked";
    if (!options.repeats.empty())
        out << ", limits widened to twice the spread among " << options.repeats.size() + 1
            << " recordings of A";
    out << '\n';
    for (const auto& f : r.failures)
        out << "  " << f.rule.text << "  " << f.group << ": " << amount(f.rule.quantity, f.a)
            << " -> " << amount(f.rule.quantity, f.b) << " (" << changeText(f.rule, f.change)
            << ", limit " << limitText(f) << ")\n";
    for (const auto& rule : r.unchecked)
        out << "  " << rule.text << "  " << kUncheckedWhy << '\n';
}

void writeGateMarkdown(const GateResult& r, const GateOptions& options, const Comparison& c,
                       const std::string& nameA, const std::string& nameB, std::ostream& out) {
    const auto cell = [](std::string s) {
        for (std::size_t at = 0; (at = s.find('|', at)) != std::string::npos; at += 2)
            s.replace(at, 1, "\\|");
        return s;
    };
    out << "## roofline gate: " << (r.passed() ? "passed" : "**failed**") << "\n\n"
        << "A `" << cell(nameA) << "`, B `" << cell(nameB) << "`, groups by " << toString(c.by)
        << ": " << r.checked << " checked, " << r.skipped << " under " << options.minShare * 100
        << "% of A's time not checked, " << r.onlyA << " only in A, " << r.onlyB << " only in B.";
    char total[96];
    std::snprintf(total, sizeof total, " Total time %.1f us -> %.1f us.", c.secondsA * 1e6,
                  c.secondsB * 1e6);
    out << total;
    if (!options.repeats.empty())
        out << " Relative time limits widened to twice each group's spread among "
            << options.repeats.size() + 1 << " recordings of A.";
    out << "\n\nRules: ";
    for (std::size_t i = 0; i < options.rules.size(); ++i)
        out << (i ? ", " : "") << '`' << options.rules[i].text << '`';
    out << "\n\n";
    for (const auto& rule : r.unchecked)
        out << "`" << rule.text << "`: " << kUncheckedWhy << "\n\n";
    if (!r.failures.empty()) {
        out << "| rule | group | A | B | change | limit |\n|---|---|---|---|---|---|\n";
        for (const auto& f : r.failures)
            out << "| `" << f.rule.text << "` | " << cell(f.group) << " | "
                << amount(f.rule.quantity, f.a) << " | " << amount(f.rule.quantity, f.b) << " | "
                << changeText(f.rule, f.change) << " | " << limitText(f)
                << (f.noise > 0 ? " (noise " + changeText(f.rule, f.noise) + ")" : "") << " |\n";
        out << '\n';
    }
    // the largest changes in time, for context
    std::vector<std::pair<double, std::string>> changes;
    for (const auto& [ia, ib] : c.rows)
        if (ia >= 0 && ib >= 0) {
            const auto& a = c.a[static_cast<std::size_t>(ia)];
            const auto& b = c.b[static_cast<std::size_t>(ib)];
            char s[160];
            std::snprintf(s, sizeof s, " | %.1f us | %.1f us | %+.1f%% |", a.seconds * 1e6,
                          b.seconds * 1e6,
                          a.seconds > 0 ? 100 * (b.seconds - a.seconds) / a.seconds : 0.0);
            changes.emplace_back(std::abs(b.seconds - a.seconds),
                                 "| " + cell(groupName(b, c.by)) + s);
        }
    std::sort(changes.begin(), changes.end(),
              [](const auto& x, const auto& y) { return x.first > y.first; });
    if (!changes.empty()) {
        out << "<details><summary>largest changes in time</summary>\n\n"
            << "| group | A | B | change |\n|---|---|---|---|\n";
        for (std::size_t i = 0; i < changes.size() && i < 10; ++i)
            out << changes[i].second << '\n';
        out << "\n</details>\n";
    }
}

} // namespace roofline::report
