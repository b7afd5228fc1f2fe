#include "report/sampled_steps.hpp"

#include "report/format.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace roofline::report {
namespace {

std::string fixed(double v, int digits) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string xml(const std::string& s) {
    std::string out;
    for (char c : s)
        out += c == '<'    ? "&lt;"
               : c == '>'  ? "&gt;"
               : c == '&'  ? "&amp;"
               : c == '\'' ? "&apos;"
                           : std::string(1, c);
    return out;
}

std::string signedPercent(double share) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * share);
    return buf;
}

// The steps a table of `rows` shows: the first and last few, and the strays.
std::vector<std::size_t> shown(const core::SampledFigures& f, std::size_t rows) {
    std::vector<std::size_t> out;
    const std::size_t n = f.steps.size();
    if (n <= rows) {
        for (std::size_t i = 0; i < n; ++i)
            out.push_back(i);
        return out;
    }
    std::set<std::size_t> pick;
    for (std::size_t i = 0; i < 3; ++i) {
        pick.insert(i);
        pick.insert(n - 1 - i);
    }
    for (std::size_t i = 0; i < n && pick.size() < rows; ++i)
        if (f.steps[i].strays)
            pick.insert(i);
    return {pick.begin(), pick.end()};
}

void header(const core::SampledRecording& rec, const core::SampledFigures& f, std::ostream& out) {
    const core::SampledHeader& h = rec.header;
    out << "sampled   " << h.device.name << " (" << h.device.chip << "), every "
        << fixed(static_cast<double>(h.periodNs) / 1e3, 0) << " us, " << core::stepsIn(f)
        << " steps in " << rec.batches.size() << " writes";
    if (h.rank >= 0)
        out << ", rank " << h.rank << (h.worldSize > 0 ? " of " + std::to_string(h.worldSize) : "");
    out << "\nvalues    sampled (PM sampling, one pass, kernels placed by their activity "
           "records): FLOPs are estimates from pipe counters, not the replay profile's counts\n"
        << "median    step " << milliseconds(f.medianSeconds) << " ms; " << f.strays
        << " step(s) more than 10% from it (!)\n";
    std::size_t merged = 0;
    std::uint64_t mergedSteps = 0;
    for (const core::StepFigures& s : f.steps)
        if (s.steps > 1) {
            ++merged;
            mergedSteps += s.steps;
        }
    std::uint64_t unrecorded = 0;
    for (const core::StepFigures& s : f.steps)
        if (!s.kernelRecords)
            unrecorded += s.steps;
    if (unrecorded > 0)
        out << "records   kernel records on " << core::stepsIn(f) - unrecorded << " of "
            << core::stepsIn(f)
            << " steps; a step without them (~) is "
               "the samples over its span, estimated from its launch calls, and its covered "
               "share is of that span\n";
    if (merged > 0)
        out << "rows      " << merged << " rows hold " << mergedSteps
            << " steps shorter than three sampling periods, merged in order (a row's step is its "
               "first; its figures are per step)\n";
    if (!rec.cut.empty())
        out << "cut       the file ends inside a write (the job was stopped while writing): "
               "every write before it is here\n";
    out << '\n';
}

} // namespace

void printSampledSteps(const core::SampledRecording& rec, const core::SampledFigures& f,
                       std::ostream& out, std::size_t rows) {
    header(rec, f, out);
    char line[256];
    std::snprintf(line, sizeof line, "%8s %10s %8s %7s %12s %12s %7s %10s %-18s %7s %5s\n", "step",
                  "time ms", "vs med", "GHz", "FP32 FLOP/s", "FP64 FLOP/s", "tensor", "DRAM GB/s",
                  "nearest roof", "covered", "");
    out << line;
    const std::vector<std::size_t> rowsShown = shown(f, rows);
    for (std::size_t i : rowsShown) {
        const core::StepFigures& s = f.steps[i];
        const double seconds = std::max(s.seconds, 1e-12);
        std::snprintf(
            line, sizeof line, "%8llu %10s %8s %7s %12s %12s %7s %10s %-18s %7s %5s\n",
            static_cast<unsigned long long>(s.index), milliseconds(s.seconds).c_str(),
            signedPercent(s.fromMedian).c_str(), fixed(s.clockHz / 1e9, 2).c_str(),
            shortNumber(s.fp32Flops / seconds).c_str(), shortNumber(s.fp64Flops / seconds).c_str(),
            percent(s.tensorPipeShare, 1).c_str(), fixed(s.dramBytesPerSecond / 1e9, 1).c_str(),
            (s.nearest + " " + percent(s.nearestShare, 1)).c_str(), percent(s.covered, 1).c_str(),
            (std::string(s.kernelRecords ? "" : "~") + (s.strays ? "!" : "")).c_str());
        out << line;
    }
    if (rowsShown.size() < f.steps.size())
        out << "          " << f.steps.size() - rowsShown.size()
            << " steps not shown (within 10% of the median, or past the rows asked for: "
               "--csv has every step)\n";
}

void writeSampledCsv(const core::SampledFigures& f, std::ostream& out) {
    out << "step,seconds,kernel_seconds,from_median,strays,clock_hz,fp32_flops_estimate,"
           "fp64_flops_estimate,tensor_pipe_share,l1_bytes,l2_bytes,dram_bytes,"
           "dram_bytes_per_second,nearest_roof,nearest_share,covered,estimated,steps,kernel_"
           "records\n";
    for (const core::StepFigures& s : f.steps)
        out << s.index << ',' << number(s.seconds) << ',' << number(s.kernelSeconds) << ','
            << number(s.fromMedian) << ',' << (s.strays ? 1 : 0) << ',' << number(s.clockHz) << ','
            << number(s.fp32Flops) << ',' << number(s.fp64Flops) << ',' << number(s.tensorPipeShare)
            << ',' << number(s.bytes[0]) << ',' << number(s.bytes[1]) << ',' << number(s.bytes[2])
            << ',' << number(s.dramBytesPerSecond) << ',' << csvCell(s.nearest) << ','
            << number(s.nearestShare) << ',' << number(s.covered) << ',' << number(s.estimated)
            << ',' << s.steps << ',' << (s.kernelRecords ? 1 : 0) << '\n';
}

namespace {

struct Panel {
    const char* title;
    double (*value)(const core::StepFigures&);
};

void panel(std::ostream& out, const core::SampledFigures& f, const Panel& p, double top) {
    const double left = 70, width = 820, height = 150;
    double most = 0;
    for (const auto& s : f.steps)
        most = std::max(most, p.value(s));
    most = most > 0 ? most * 1.1 : 1;
    out << "<text x='" << left << "' y='" << top - 6 << "' font-size='13'>" << p.title << " (peak "
        << shortNumber(most / 1.1) << ")</text>\n"
        << "<rect x='" << left << "' y='" << top << "' width='" << width << "' height='" << height
        << "' fill='none' stroke='#999'/>\n";
    const std::size_t n = f.steps.size();
    const auto x = [&](std::size_t i) {
        return left + (n > 1 ? width * static_cast<double>(i) / static_cast<double>(n - 1) : 0);
    };
    const auto y = [&](double v) { return top + height - height * v / most; };
    out << "<polyline fill='none' stroke='#1f77b4' stroke-width='1' points='";
    for (std::size_t i = 0; i < n; ++i)
        out << fixed(x(i), 1) << ',' << fixed(y(p.value(f.steps[i])), 1) << ' ';
    out << "'/>\n";
    for (std::size_t i = 0; i < n; ++i)
        if (f.steps[i].strays)
            out << "<circle cx='" << fixed(x(i), 1) << "' cy='" << fixed(y(p.value(f.steps[i])), 1)
                << "' r='3' fill='#d62728'><title>step " << f.steps[i].index << ": "
                << signedPercent(f.steps[i].fromMedian) << " from the median</title></circle>\n";
}

} // namespace

void writeSampledChart(const core::SampledRecording& rec, const core::SampledFigures& f,
                       std::ostream& out) {
    const Panel panels[] = {
        {"step time, s", [](const core::StepFigures& s) { return s.seconds; }},
        {"FP32 + FP64 FLOP/s (sampled estimate)",
         [](const core::StepFigures& s) { return s.flopsPerSecond; }},
        {"DRAM bytes/s", [](const core::StepFigures& s) { return s.dramBytesPerSecond; }},
    };
    out << "<svg xmlns='http://www.w3.org/2000/svg' width='920' height='640' "
           "font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n"
        << "<text x='70' y='24' font-size='15'>" << xml(rec.header.device.name) << ": "
        << f.steps.size() << " sampled steps, " << f.strays
        << " more than 10% from the median step (red)</text>\n";
    double top = 60;
    for (const Panel& p : panels) {
        panel(out, f, p, top);
        top += 195;
    }
    out << "<text x='70' y='" << top - 20 << "' font-size='12'>step index -></text>\n</svg>\n";
}

} // namespace roofline::report
