#include "workloads/rnn_case.hpp"

#include "workloads/csv_rows.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace roofline::workloads {

namespace {

void expandRow(const CsvRow& row, const RnnDefaults& defaults, std::vector<RnnCase>& out) {
    RnnCase base;
    base.source = row.source;
    auto integer = [&](const std::string& column, long long minimum) {
        const auto* cell = row.find(column);
        if (!cell)
            throw WorkloadError(row.source + ": column '" + column + "' is missing or empty");
        return parseInteger(*cell, row.source + ": column '" + column + "'", minimum);
    };
    if (const auto* name = row.find("name"))
        base.name = *name;
    const auto* cell = row.find("cell");
    if (!cell)
        throw WorkloadError(row.source +
                            ": column 'cell' is missing (rnn-relu, rnn-tanh, lstm, gru)");
    base.cell = parseRnnCells(*cell, row.source + ": column 'cell'").front();
    base.layers = row.find("layers") ? integer("layers", 1) : 1;
    base.hidden = integer("hidden", 1);
    base.input = row.find("input") ? integer("input", 1) : base.hidden;
    base.seq = integer("seq", 1);
    base.batch = integer("batch", 1);
    if (const auto* dir = row.find("direction")) {
        const std::string d = lowerCase(*dir);
        if (d != "uni" && d != "bi")
            throw WorkloadError(row.source + ": column 'direction': '" + *dir +
                                "' (use uni or bi)");
        base.bidirectional = d == "bi";
    }
    const auto* p = row.find("precision");
    const auto precisions =
        p ? parsePrecisionList(*p, row.source + ": column 'precision'") : defaults.precisions;
    const auto* ps = row.find("pass");
    const auto passes = ps ? parseRnnPasses(*ps, row.source + ": column 'pass'") : defaults.passes;
    for (Precision precision : precisions)
        for (RnnPass pass : passes) {
            RnnCase c = base;
            c.precision = precision;
            c.pass = pass;
            out.push_back(c);
        }
}

} // namespace

std::string toString(RnnCell c) {
    switch (c) {
    case RnnCell::Relu:
        return "rnn-relu";
    case RnnCell::Tanh:
        return "rnn-tanh";
    case RnnCell::Lstm:
        return "lstm";
    case RnnCell::Gru:
        return "gru";
    }
    return "?";
}

std::string toString(RnnPass p) {
    switch (p) {
    case RnnPass::Forward:
        return "fwd";
    case RnnPass::BackwardData:
        return "bwd-data";
    case RnnPass::BackwardWeights:
        return "bwd-weights";
    }
    return "?";
}

std::vector<RnnCell> parseRnnCells(const std::string& text, const std::string& what) {
    return parseKeywords<RnnCell>(text, what,
                                  {{"rnn-relu", {RnnCell::Relu}},
                                   {"relu", {RnnCell::Relu}},
                                   {"rnn-tanh", {RnnCell::Tanh}},
                                   {"tanh", {RnnCell::Tanh}},
                                   {"lstm", {RnnCell::Lstm}},
                                   {"gru", {RnnCell::Gru}}},
                                  "use rnn-relu, rnn-tanh, lstm or gru");
}

std::vector<RnnPass> parseRnnPasses(const std::string& text, const std::string& what) {
    const RnnPass f = RnnPass::Forward, d = RnnPass::BackwardData, w = RnnPass::BackwardWeights;
    return parseKeywords<RnnPass>(text, what,
                                  {{"fwd", {f}},
                                   {"forward", {f}},
                                   {"bwd-data", {d}},
                                   {"bwd-weights", {w}},
                                   {"wgrad", {w}},
                                   {"all", {f, d, w}}},
                                  "use fwd, bwd-data, bwd-weights or all");
}

int RnnCase::gates() const {
    switch (cell) {
    case RnnCell::Lstm:
        return 4;
    case RnnCell::Gru:
        return 3;
    default:
        return 1;
    }
}

int RnnCase::directions() const {
    return bidirectional ? 2 : 1;
}

double RnnCase::flops() const {
    double total = 0.0;
    for (long long layer = 0; layer < layers; ++layer) {
        const double in = static_cast<double>(layer == 0 ? input : hidden * directions());
        total += directions() * 2.0 * static_cast<double>(seq) * static_cast<double>(batch) *
                 gates() * static_cast<double>(hidden) * (in + static_cast<double>(hidden));
    }
    return total;
}

std::string RnnCase::invalidReason() const {
    return {}; // every positive size is a valid recurrence; cuDNN may still refuse (status)
}

std::string RnnCase::shape() const {
    return toString(cell) + " L" + std::to_string(layers) + " H" + std::to_string(hidden) + " I" +
           std::to_string(input) + " T" + std::to_string(seq) + " N" + std::to_string(batch) +
           (bidirectional ? " bi" : " uni");
}

const std::vector<std::string>& rnnColumns() {
    static const std::vector<std::string> columns{"name",      "cell", "layers", "hidden",
                                                  "input",     "seq",  "batch",  "direction",
                                                  "precision", "pass"};
    return columns;
}

std::vector<RnnCase> parseRnnWorkload(const std::string& text, const std::string& sourceName,
                                      const RnnDefaults& defaults) {
    std::vector<RnnCase> out;
    for (const CsvRow& row : readCsvRows(text, sourceName, rnnColumns()))
        expandRow(row, defaults, out);
    return out;
}

std::vector<RnnCase> parseRnnSpec(const std::string& spec, const RnnDefaults& defaults) {
    return parseRnnWorkload(specToCsv(spec), "--case", defaults);
}

} // namespace roofline::workloads
