// The host side per scope: the per-op table of a framework profiler, with the GPU
// kernel time of each scope beside it.
#include "report/columns.hpp"
#include "report/format.hpp"

#include <roofline/chart.hpp>
#include <roofline/host_scope.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <ostream>

namespace roofline {
namespace {

std::vector<const HostScope*> byWallTime(const std::vector<HostScope>& scopes) {
    std::vector<const HostScope*> out;
    for (const HostScope& s : scopes)
        out.push_back(&s);
    std::stable_sort(out.begin(), out.end(), [](const HostScope* a, const HostScope* b) {
        return a->wallSeconds > b->wallSeconds;
    });
    return out;
}

double share(double seconds, double run) {
    return run > 0 ? 100.0 * seconds / run : 0.0;
}

std::string msShare(double seconds, double run) {
    if (seconds < 0)
        return "-";
    char text[48];
    std::snprintf(text, sizeof text, "%.3f %5.1f%%", seconds * 1e3, share(seconds, run));
    return text;
}

std::string thread(std::uint64_t id) {
    return id == 0 ? std::string("process") : std::to_string(id);
}

// "5+3": 5 instances timed, 3 profiled ones left out
std::string calls(const HostScope& s) {
    if (s.profiledCalls > 0 && !s.profiledTimes)
        return std::to_string(s.calls) + "+" + std::to_string(s.profiledCalls);
    return std::to_string(s.calls);
}

std::string idle(const HostScope& s) {
    if (s.kernels == 0)
        return "-";
    char text[16];
    std::snprintf(text, sizeof text, "%.0f%%", 100 * s.gpuIdleShare());
    return text;
}

// hostBound(), marked * when every instance was profiled and ~ when there is no steady state
std::string bound(const HostScope& s) {
    const bool steady = s.steadyCalls > 0 && s.steadyWallSeconds >= 0;
    return hostBound(s) + (s.profiledTimes ? "*" : steady ? "" : "~");
}

// A column of the host table: its head and width, when it goes on a narrow line (highest `drop`
// first; 0: always shown), its side, and its cell.
struct Column {
    const char* head;
    std::size_t width;
    int drop;
    bool left;
    std::function<std::string(const HostScope&)> value;
};

std::vector<Column> hostColumns(double runSeconds) {
    const auto perCallCpu = [](const HostScope& s) {
        if (s.steadyCalls > 0 && s.steadyWallSeconds >= 0)
            return s.steadyCpuSeconds;
        return s.cpuSeconds >= 0 && s.calls ? s.cpuSeconds / static_cast<double>(s.calls) : -1.0;
    };
    const auto shareOf = [runSeconds](double HostScope::*seconds) {
        return
            [runSeconds, seconds](const HostScope& s) { return msShare(s.*seconds, runSeconds); };
    };
    return {{"thread", 8, 3, true, [](const HostScope& s) { return thread(s.threadId); }},
            {"calls", 7, 0, false, calls},
            {"wall/call ms", 12, 0, false,
             [](const HostScope& s) { return report::milliseconds(s.hostWallPerCall()); }},
            {"first ms", 10, 4, false,
             [](const HostScope& s) {
                 return s.firstWallSeconds < 0 ? std::string("-")
                                               : report::milliseconds(s.firstWallSeconds) +
                                                     (s.firstProfiled ? "p" : "");
             }},
            {"CPU/call ms", 11, 5, false,
             [perCallCpu](const HostScope& s) {
                 const double cpu = perCallCpu(s);
                 return cpu >= 0 ? report::milliseconds(cpu) : std::string("-");
             }},
            {"GPU/call ms", 11, 0, false,
             [](const HostScope& s) {
                 return s.kernels ? report::milliseconds(s.gpuPerCall()) : std::string("-");
             }},
            {"idle", 5, 0, false, idle},
            {"bound", 11, 0, true, bound},
            {"self wall ms", 16, 6, false, shareOf(&HostScope::selfWallSeconds)},
            {"wall ms", 16, 7, false, shareOf(&HostScope::wallSeconds)},
            {"self CPU ms", 16, 8, false, shareOf(&HostScope::selfCpuSeconds)},
            {"CPU ms", 16, 9, false, shareOf(&HostScope::cpuSeconds)}};
}

// The optional columns that fit beside scope names `longest` long in `width`; returns the width
// the scope's name gets.
std::size_t fitColumns(std::vector<Column>& columns, std::size_t longest, std::size_t width) {
    constexpr std::size_t kScopeMin = 16;
    const auto used = [&] {
        std::size_t w = 0;
        for (const Column& c : columns)
            w += c.width + 1;
        return w;
    };
    // The scope's name keeps up to 32 characters before the optional columns go.
    const std::size_t scopeWant = std::max(kScopeMin, std::min<std::size_t>(longest, 32));
    for (int drop = 9; drop > 0 && used() + scopeWant > width; --drop)
        columns.erase(std::remove_if(columns.begin(), columns.end(),
                                     [&](const Column& c) { return c.drop == drop; }),
                      columns.end());
    return std::min(longest, width > used() + kScopeMin ? width - used() : kScopeMin);
}

// What the columns mean, and the notes the scopes call for.
void printHostNotes(const std::vector<HostScope>& scopes, double runSeconds, std::size_t width,
                    std::ostream& out) {
    std::string notes;
    char tail[300];
    std::snprintf(tail, sizeof tail, "%% of %.3f ms. ", runSeconds * 1e3);
    notes += tail;
    notes += "wall/call: the median over the clean instances after the first (the steady state: "
             "no kernel ran under the profiler in them), else the mean of the timed ones (bound "
             "marked ~); first: the first instance alone (warm-up; p: it was profiled). GPU/call: "
             "the mean GPU time (gpu__time_duration) of the scope's kernels with records times "
             "the kernels it launched per call; idle: the share of wall/call without them. "
             "bound: gpu (kernels >= 80% of wall), launch (host busy, GPU idle), wait (host "
             "blocked), cpu (no kernels, host busy), unmeasured (kernels launched, none with a "
             "record)\n";
    out << report::wrapLines(notes, width);
    const bool leftOut = std::any_of(scopes.begin(), scopes.end(), [](const HostScope& s) {
        return s.profiledCalls > 0 && !s.profiledTimes;
    });
    const bool allProfiled = std::any_of(scopes.begin(), scopes.end(),
                                         [](const HostScope& s) { return s.profiledTimes; });
    if (leftOut)
        out << report::wrapLines(
            "calls 5+3: 5 instances timed, 3 left out: kernels ran under the profiler in them "
            "(a counter-collection pass), whose work inside the launches cannot be measured "
            "apart; the shares' base leaves the outermost ones out too.\n",
            width);
    if (allProfiled)
        out << report::wrapLines(
            "bound*: every instance ran kernels under the profiler (kernel replay, or seen only "
            "in passes): its host times include CUPTI's work, an upper bound of the "
            "application's; no steady state (the program stopped, or libroofline went idle, "
            "before an instance ran without the profiler).\n",
            width);
    double ours = 0; // libroofline's work inside the outermost scopes (nested ones included)
    for (const HostScope& s : scopes)
        if (s.scopePath.find('/') == std::string::npos)
            ours += s.profilerSeconds;
    if (ours > 0) {
        std::snprintf(tail, sizeof tail,
                      "libroofline's own work inside these scopes (counter collection on the "
                      "application's threads), %.3f ms, is taken out of their times.\n",
                      ours * 1e3);
        out << report::wrapLines(tail, width);
    }
}

} // namespace

void printHostTable(const std::vector<HostScope>& scopes, double runSeconds, std::ostream& out,
                    std::size_t maxRows, std::size_t width) {
    if (scopes.empty()) {
        out << "no host scopes (no ProfileScope or NVTX range closed while the session ran, or "
               "host timing off: ROOFLINE_HOST_TIMING)\n";
        return;
    }
    if (width == 0)
        width = report::terminalWidth();
    // Columns: the scope's name takes what the others leave; on a narrow line the optional ones
    // go, highest `drop` first, until the row fits.
    std::vector<Column> columns = hostColumns(runSeconds);
    const auto rows = byWallTime(scopes);
    std::size_t longest = 5;
    for (const HostScope* s : rows)
        longest = std::max(longest, s->scopePath.size());
    const std::size_t scopeW = fitColumns(columns, longest, width);
    // One line: the scope and each column's cell (cut to its width), without trailing blanks.
    const auto line = [&](const std::string& scope, const auto& cellOf) {
        std::string text = report::padRight(scope, scopeW);
        for (const Column& c : columns) {
            const std::string v = cellOf(c).substr(0, c.width);
            text += ' ' + (c.left ? report::padRight(v, c.width) : report::padLeft(v, c.width));
        }
        text.erase(text.find_last_not_of(' ') + 1);
        return text + '\n';
    };
    out << line("scope", [](const Column& c) { return std::string(c.head); });
    for (std::size_t row = 0; row < rows.size(); ++row) {
        if (maxRows != 0 && row == maxRows) {
            out << "  ... " << rows.size() - maxRows << " more (--top 0: all)\n";
            break;
        }
        const HostScope& s = *rows[row];
        out << line(report::shortenScope(s.scopePath, scopeW),
                    [&](const Column& c) { return c.value(s); });
    }
    printHostNotes(scopes, runSeconds, width, out);
}

void writeHostCsv(const std::vector<HostScope>& scopes, double runSeconds, std::ostream& out) {
    out << "scope,thread_id,calls,self_wall_s,wall_s,self_cpu_s,cpu_s,wall_share,"
           "wall_per_call_s,launches,kernels,gpu_s,gpu_per_call_s,gpu_idle_share,bound,"
           "profiler_s,profiled_calls,profiled_times,first_wall_s,first_profiled,steady_calls,"
           "steady_wall_s,steady_cpu_s\n";
    auto optional = [](double v) { return v < 0 ? std::string() : report::number(v); };
    auto gpu = [](const HostScope& s, double v) {
        return s.gpuKnown() ? report::number(v) : std::string(); // empty: unmeasured
    };
    for (const HostScope* s : byWallTime(scopes))
        out << report::csvCell(s->scopePath) << ',' << s->threadId << ',' << s->calls << ','
            << report::number(s->selfWallSeconds) << ',' << report::number(s->wallSeconds) << ','
            << optional(s->selfCpuSeconds) << ',' << optional(s->cpuSeconds) << ','
            << report::number(runSeconds > 0 ? s->wallSeconds / runSeconds : 0) << ','
            << report::number(s->wallPerCall()) << ',' << s->launches << ',' << s->kernels << ','
            << report::number(s->gpuSeconds) << ',' << gpu(*s, s->gpuPerCall()) << ','
            << gpu(*s, s->gpuIdleShare()) << ',' << hostBound(*s) << ','
            << report::number(s->profilerSeconds) << ',' << s->profiledCalls << ','
            << (s->profiledTimes ? 1 : 0) << ',' << optional(s->firstWallSeconds) << ','
            << (s->firstProfiled ? 1 : 0) << ',' << s->steadyCalls << ','
            << optional(s->steadyWallSeconds) << ',' << optional(s->steadyCpuSeconds) << '\n';
}

std::string hostBarsSvg(const std::vector<HostScope>& scopes, std::size_t maxBars) {
    std::vector<StackedBar> bars;
    for (const HostScope* s : byWallTime(scopes)) {
        if (bars.size() >= maxBars)
            break;
        const double wall = s->wallPerCall() * 1e3, gpu = s->gpuPerCall() * 1e3;
        std::string label = s->scopePath; // the axis keeps its innermost levels
        if (s->threadId != 0)
            label += " [" + std::to_string(s->threadId) + "]";
        if (s->gpuKnown())
            bars.push_back({label, {gpu, std::max(0.0, wall - gpu), 0.0}});
        else
            bars.push_back({label, {0.0, 0.0, wall}});
    }
    PlotText text;
    text.title = "Host and GPU time per scope call";
    text.subtitle = "bar: the host's wall time per call; the GPU's kernels of the scope cover the "
                    "first part, the GPU idles the rest";
    text.yLabel = "time per call (ms)";
    return stackedBarsSvg({"GPU kernels of the scope", "GPU idle (host only)",
                           "GPU unknown (its kernels have no records)"},
                          bars, text);
}

} // namespace roofline
