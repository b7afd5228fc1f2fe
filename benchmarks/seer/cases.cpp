#include "seer/cases.hpp"

#include <roofline/chart.hpp>
#include <roofline/kernel_record.hpp>

#include <map>
#include <set>
#include <sstream>

namespace roofline::seer {

namespace {

// A raw counter of the record; 0 when it was not collected (older recordings).
double rawMetric(const KernelRecord& k, const char* metric) {
    const auto it = k.metrics.find(metric);
    return it == k.metrics.end() ? 0.0 : it->second;
}

} // namespace

std::vector<SeerRow> rowsFromCases(const std::vector<workloads::CaseResult>& cases,
                                   std::map<std::string, std::size_t>* skipped) {
    std::vector<SeerRow> rows;
    auto skip = [&](const std::string& why) {
        if (skipped)
            ++(*skipped)[why];
    };
    for (const auto& c : cases) {
        if (c.status != workloads::CaseStatus::Passed) {
            skip(workloads::toString(c.status));
            continue;
        }
        if (!c.verified) {
            skip("not verified");
            continue;
        }
        if (c.seerConfig.empty()) {
            skip("no SEER form (3D, grouped, dilated or not square)");
            continue;
        }
        if (c.records.empty() || c.eventMedianSeconds <= 0) {
            skip("no kernel records or no time");
            continue;
        }
        SeerRow r;
        r.conv = parseSeerLine(c.seerConfig, c.source);
        r.precision = c.precision;
        r.pass = c.pass;
        r.engine = c.algorithm;
        r.timeSeconds = c.eventMedianSeconds;
        r.flops = c.measuredFlops();
        r.tensorFlops = c.measuredTensorFlops();
        for (const KernelRecord& k : c.records) {
            r.dramBytes += k.bytesAt(MemoryLevel::DRAM);
            r.dramReadBytes += rawMetric(k, "dram__bytes_read.sum");
            r.dramWriteBytes += rawMetric(k, "dram__bytes_write.sum");
            r.l1Bytes += k.bytesAt(MemoryLevel::L1);
            r.l2Bytes += k.bytesAt(MemoryLevel::L2);
            r.blocks += static_cast<double>(k.grid.x) * k.grid.y * k.grid.z;
            r.waves += k.waves;
        }
        const auto groups = c.kernelGroups();
        if (!groups.empty() && groups.front().longest) {
            r.bound = toString(groups.front().longest->bound);
            r.residentBlocks = groups.front().longest->residentBlocksPerSm;
            r.kernel = groups.front().name;
        }
        r.heuristicRank = c.heuristicRank;
        rows.push_back(std::move(r));
    }
    return rows;
}

std::size_t writeSeerCsv(const std::vector<workloads::CaseResult>& cases, const std::string& path,
                         const std::vector<SeerRow>& kept) {
    const auto fresh = rowsFromCases(cases);
    std::vector<SeerRow> rows = kept;
    rows.insert(rows.end(), fresh.begin(), fresh.end());
    std::ostringstream text;
    writeDataset(rows, text);
    saveChart(path, text.str()); // libroofline's atomic write of a text document
    return fresh.size();
}

std::string resumeKey(const workloads::ConvCase& c) {
    const std::string line = c.seerLine();
    if (line.empty())
        return "";
    return parseSeerLine(line, "case").key() + '|' + workloads::toString(c.pass) + '|' +
           workloads::toString(c.precision);
}

std::string resumeKey(const SeerRow& row) {
    return row.conv.key() + '|' + row.pass + '|' + row.precision;
}

std::vector<workloads::ConvCase> casesNotIn(const std::vector<workloads::ConvCase>& cases,
                                            const std::vector<SeerRow>& rows) {
    std::set<std::string> done;
    for (const SeerRow& row : rows)
        done.insert(resumeKey(row));
    std::vector<workloads::ConvCase> left;
    for (const auto& c : cases) {
        const std::string key = resumeKey(c);
        if (key.empty() || !done.count(key))
            left.push_back(c);
    }
    return left;
}

} // namespace roofline::seer
