#include "workloads/case_result.hpp"

#include "workloads/csv_rows.hpp"

#include <roofline/report.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

namespace roofline::workloads {

namespace {

std::string number(double v) {
    if (!std::isfinite(v))
        return "0";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// 1.23 ms, 45.6 us; "-" for zero.
std::string duration(double seconds) {
    if (seconds <= 0.0 || !std::isfinite(seconds))
        return "-";
    char buf[32];
    if (seconds >= 1.0)
        std::snprintf(buf, sizeof buf, "%.3f s", seconds);
    else if (seconds >= 1e-3)
        std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
    return buf;
}

std::string giga(double flops) {
    if (flops <= 0.0 || !std::isfinite(flops))
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", flops / 1e9);
    return buf;
}

std::string shortName(const std::string& kernel, std::size_t width) {
    std::string n = kernel.substr(0, kernel.find('('));
    if (n.size() > width)
        n = n.substr(0, width - 1) + "~";
    return n;
}

std::ofstream openOutput(const std::string& path) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw WorkloadError("cannot write '" + path + "' (check that the directory exists)");
    return out;
}

const char* kCaseColumns = "case,scope,name,workload,shape,pass,precision,layout,algorithm,status";

std::string caseColumns(const CaseResult& c) {
    return std::to_string(c.index) + ',' + csvQuoted(c.scope) + ',' + csvQuoted(c.name) + ',' +
           csvQuoted(c.workload) + ',' + csvQuoted(c.shape) + ',' + c.pass + ',' + c.precision +
           ',' + csvQuoted(c.layout) + ',' + csvQuoted(c.algorithm) + ',' + toString(c.status);
}

} // namespace

std::string toString(CaseStatus s) {
    switch (s) {
    case CaseStatus::Passed:
        return "passed";
    case CaseStatus::VerifyFailed:
        return "FAILED";
    case CaseStatus::Invalid:
        return "invalid";
    case CaseStatus::Unsupported:
        return "unsupported";
    case CaseStatus::NoMemory:
        return "no-memory";
    case CaseStatus::Crashed:
        return "CRASHED";
    case CaseStatus::Skipped:
        return "skipped";
    }
    return "?";
}

bool isFailure(CaseStatus s) {
    return s == CaseStatus::VerifyFailed || s == CaseStatus::Crashed;
}

double CaseResult::profiledSeconds() const {
    double t = 0.0;
    for (const auto& r : records)
        t += r.timeSeconds;
    return t;
}

double CaseResult::measuredFlops() const {
    double f = 0.0;
    for (const auto& r : records)
        f += r.totalFlops();
    return f;
}

double CaseResult::measuredTensorFlops() const {
    double f = 0.0;
    for (const auto& r : records)
        f += r.tensorFlops();
    return f;
}

std::vector<CaseResult::KernelGroup> CaseResult::kernelGroups() const {
    std::vector<KernelGroup> groups;
    std::map<std::string, std::size_t> position;
    for (const auto& r : records) {
        auto [it, added] = position.emplace(r.name, groups.size());
        if (added)
            groups.push_back({r.name, 0, 0.0, &r});
        KernelGroup& g = groups[it->second];
        ++g.launches;
        g.seconds += r.timeSeconds;
        if (r.timeSeconds > g.longest->timeSeconds)
            g.longest = &r;
    }
    std::stable_sort(groups.begin(), groups.end(), [](const KernelGroup& a, const KernelGroup& b) {
        return a.seconds > b.seconds;
    });
    return groups;
}

std::size_t attachRecords(std::vector<CaseResult>& cases,
                          std::vector<roofline::KernelRecord> records) {
    std::map<std::string, CaseResult*> byPath;
    for (auto& c : cases)
        byPath[c.scopePath()] = &c;
    std::size_t orphans = 0;
    for (auto& r : records) {
        // The case's path is the first two components of the record's scope path, as opened
        // (a numbered case scope must never match another case's by its uniform path), or the
        // first three for an engine's case profiled inside its configuration's scope
        // ("c3.x/eng1/fwd").
        const std::string& path = r.scopePathRaw.empty() ? r.scopePath : r.scopePathRaw;
        auto it = byPath.end();
        std::size_t cut = path.find('/');
        for (int components = 2; components <= 3 && cut != std::string::npos; ++components) {
            cut = path.find('/', cut + 1);
            it = byPath.find(path.substr(0, cut));
            if (it != byPath.end())
                break;
        }
        if (it == byPath.end()) {
            ++orphans;
            continue;
        }
        it->second->records.push_back(std::move(r));
    }
    return orphans;
}

std::string progressLine(const CaseResult& c, std::size_t total) {
    std::ostringstream line;
    const int width = static_cast<int>(std::to_string(total).size());
    line << '[' << std::setw(width) << c.index + 1 << '/' << total << "] " << c.scope << ' '
         << c.pass << ' ' << c.precision << ' ' << c.layout << " | " << c.shape << " | "
         << toString(c.status);
    if (c.status == CaseStatus::Passed || c.status == CaseStatus::VerifyFailed) {
        char err[32];
        std::snprintf(err, sizeof err, "%.2g", c.maxError);
        line << " err " << err << " | " << duration(c.eventMedianSeconds) << " | " << c.algorithm;
    }
    if (!c.reason.empty())
        line << ": " << c.reason;
    return line.str();
}

void printCaseTable(const std::vector<CaseResult>& cases, std::ostream& out) {
    char line[512];
    std::snprintf(
        line, sizeof line, "%-22s %-10s %-5s %-6s %-28s %-11s %8s %10s %10s %9s %9s %6s %6s  %s\n",
        "case", "pass", "prec", "layout", "algorithm", "status", "error", "time(ev)", "time(prof)",
        "GFLOP an", "GFLOP ms", "tc%", "meas/an", "dominant kernel [bound]");
    out << line;
    for (const auto& c : cases) {
        const double measured = c.measuredFlops();
        char err[16] = "-", ratio[16] = "-", tensor[16] = "-";
        if (c.verified)
            std::snprintf(err, sizeof err, "%.1e", c.maxError);
        if (measured > 0.0 && c.analyticFlops > 0.0)
            std::snprintf(ratio, sizeof ratio, "%.2f", measured / c.analyticFlops);
        if (measured > 0.0)
            std::snprintf(tensor, sizeof tensor, "%.0f",
                          100.0 * c.measuredTensorFlops() / measured);
        std::string dominant = "-";
        const auto groups = c.kernelGroups();
        if (!groups.empty()) {
            const auto& d = groups.front();
            char share[32];
            const double total = c.profiledSeconds();
            std::snprintf(share, sizeof share, "%.0f%%",
                          total > 0 ? 100.0 * d.seconds / total : 0.0);
            dominant = shortName(d.name, 48) +
                       (d.launches > 1 ? " x" + std::to_string(d.launches) : std::string()) + " " +
                       share + " [" + toString(d.longest->bound) + "]";
            if (groups.size() > 1)
                dominant += " +" + std::to_string(groups.size() - 1) + " other";
        }
        std::snprintf(line, sizeof line,
                      "%-22s %-10s %-5s %-6s %-28s %-11s %8s %10s %10s %9s %9s %6s %6s  %s\n",
                      shortName(c.scope, 22).c_str(), c.pass.c_str(), c.precision.c_str(),
                      c.layout.c_str(), shortName(c.algorithm, 28).c_str(),
                      toString(c.status).c_str(), err, duration(c.eventMedianSeconds).c_str(),
                      duration(c.profiledSeconds()).c_str(), giga(c.analyticFlops).c_str(),
                      giga(measured).c_str(), tensor, ratio, dominant.c_str());
        out << line;
        if (!c.reason.empty() && c.status != CaseStatus::Passed)
            out << "    " << c.shape << ": " << c.reason << '\n';
    }
}

void writeCasesCsv(const std::vector<CaseResult>& cases, const std::string& path) {
    auto out = openOutput(path);
    out << kCaseColumns
        << ",reason,source,verified,max_error,tolerance,repeats,event_median_s,event_min_s,"
           "profiled_s,kernels,workspace_bytes,analytic_flops,measured_flops,"
           "measured_tensor_flops,dominant_kernel,dominant_launches,dominant_share,dominant_"
           "bound,count\n";
    for (const auto& c : cases) {
        const auto groups = c.kernelGroups();
        const CaseResult::KernelGroup* d = groups.empty() ? nullptr : &groups.front();
        const double total = c.profiledSeconds();
        out << caseColumns(c) << ',' << csvQuoted(c.reason) << ',' << csvQuoted(c.source) << ','
            << (c.verified ? 1 : 0) << ',' << number(c.maxError) << ',' << number(c.tolerance)
            << ',' << c.repeats << ',' << number(c.eventMedianSeconds) << ','
            << number(c.eventMinSeconds) << ',' << number(c.profiledSeconds()) << ','
            << c.records.size() << ',' << number(c.workspaceBytes) << ',' << number(c.analyticFlops)
            << ',' << number(c.measuredFlops()) << ',' << number(c.measuredTensorFlops()) << ','
            << csvQuoted(d ? d->name : "") << ',' << (d ? d->launches : 0) << ','
            << number(d && total > 0 ? d->seconds / total : 0.0) << ','
            << csvQuoted(d ? toString(d->longest->bound) : "") << ',' << c.layerCount << '\n';
    }
    if (!out)
        throw WorkloadError("writing '" + path + "' failed");
}

void writeRecordsCsv(const std::vector<CaseResult>& cases, const std::string& path) {
    auto out = openOutput(path);
    bool header = false;
    for (const auto& c : cases) {
        if (c.records.empty())
            continue;
        std::ostringstream text;
        roofline::writeCsv(c.records, text);
        std::istringstream lines(text.str());
        std::string line;
        std::getline(lines, line);
        if (!header) {
            out << kCaseColumns << ',' << line << '\n';
            header = true;
        }
        while (std::getline(lines, line))
            out << caseColumns(c) << ',' << line << '\n';
    }
    if (!header) { // no records at all: still a valid CSV with the case columns
        std::ostringstream text;
        roofline::writeCsv({}, text);
        out << kCaseColumns << ',' << text.str();
    }
    if (!out)
        throw WorkloadError("writing '" + path + "' failed");
}

void writeJson(const std::vector<CaseResult>& cases, const std::string& tool,
               const std::string& device, const std::string& path) {
    nlohmann::json doc;
    doc["tool"] = tool;
    doc["device"] = device;
    doc["cases"] = nlohmann::json::array();
    for (const auto& c : cases) {
        std::ostringstream records;
        roofline::writeJson(c.records, records);
        nlohmann::json j;
        j["case"] = c.index;
        j["scope"] = c.scope;
        j["name"] = c.name;
        j["workload"] = c.workload;
        j["shape"] = c.shape;
        j["pass"] = c.pass;
        j["precision"] = c.precision;
        j["layout"] = c.layout;
        j["algorithm"] = c.algorithm;
        j["source"] = c.source;
        j["status"] = toString(c.status);
        j["reason"] = c.reason;
        j["verified"] = c.verified;
        j["max_error"] = std::isfinite(c.maxError) ? c.maxError : 0.0;
        j["tolerance"] = c.tolerance;
        j["repeats"] = c.repeats;
        j["event_median_s"] = c.eventMedianSeconds;
        j["event_min_s"] = c.eventMinSeconds;
        j["event_s"] = c.eventSeconds;
        j["profiled_s"] = c.profiledSeconds();
        j["workspace_bytes"] = c.workspaceBytes;
        j["count"] = c.layerCount;
        j["analytic_flops"] = c.analyticFlops;
        j["measured_flops"] = c.measuredFlops();
        j["measured_tensor_flops"] = c.measuredTensorFlops();
        j["records"] = nlohmann::json::parse(records.str())["records"];
        doc["cases"].push_back(std::move(j));
    }
    auto out = openOutput(path);
    out << doc.dump(1) << '\n';
    if (!out)
        throw WorkloadError("writing '" + path + "' failed");
}

} // namespace roofline::workloads
