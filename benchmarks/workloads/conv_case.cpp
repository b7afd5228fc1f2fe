#include "workloads/conv_case.hpp"

#include "workloads/csv_rows.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace roofline::workloads {

namespace {

std::string joinExtent(const std::array<long long, 3>& v, int dims) {
    std::string out;
    for (int i = 3 - dims; i < 3; ++i)
        out += (out.empty() ? "" : "x") + std::to_string(v[static_cast<std::size_t>(i)]);
    return out;
}

bool allEqual(const std::array<long long, 3>& v, int dims, long long value) {
    for (int i = 3 - dims; i < 3; ++i)
        if (v[static_cast<std::size_t>(i)] != value)
            return false;
    return true;
}

// TensorFlow's "same": output = ceil(in / stride), the padding split with the extra zero after.
void samePadding(ConvCase& c) {
    for (std::size_t i = 0; i < 3; ++i) {
        if (c.spatialDims == 2 && i == 0)
            continue;
        const long long out = (c.input[i] + c.stride[i] - 1) / c.stride[i];
        const long long extent = c.dilation[i] * (c.filter[i] - 1) + 1;
        const long long total = std::max(0LL, (out - 1) * c.stride[i] + extent - c.input[i]);
        c.padPre[i] = total / 2;
        c.padPost[i] = total - total / 2;
    }
}

void setAll(std::array<long long, 3>& v, int dims, long long value) {
    for (int i = 3 - dims; i < 3; ++i)
        v[static_cast<std::size_t>(i)] = value;
}

ConvCase caseFromRow(const CsvRow& row) {
    ConvCase c;
    c.source = row.source;
    auto integer = [&](const std::string& column, long long minimum) {
        return parseInteger(*row.find(column), row.source + ": column '" + column + "'", minimum);
    };
    if (const auto* name = row.find("name"))
        c.name = *name;
    if (row.find("dims"))
        c.spatialDims = static_cast<int>(integer("dims", 2));
    else if (row.find("d") || row.find("t"))
        c.spatialDims = 3;
    if (c.spatialDims != 2 && c.spatialDims != 3)
        throw WorkloadError(row.source + ": column 'dims' must be 2 or 3, not " +
                            std::to_string(c.spatialDims));
    for (const char* required : {"n", "c", "k"})
        if (!row.find(required))
            throw WorkloadError(row.source + ": column '" + required + "' is missing or empty");
    c.n = integer("n", 1);
    c.c = integer("c", 1);
    c.k = integer("k", 1);
    if (row.find("groups"))
        c.groups = integer("groups", 1);
    // Input extents: "size" sets all, then d/h/w override.
    if (row.find("size"))
        setAll(c.input, c.spatialDims, integer("size", 1));
    const char* inputCols[3] = {"d", "h", "w"};
    const char* filterCols[3] = {"t", "r", "s"};
    if (row.find("kernel"))
        setAll(c.filter, c.spatialDims, integer("kernel", 1));
    for (std::size_t i = 0; i < 3; ++i) {
        if (c.spatialDims == 2 && i == 0)
            continue;
        if (row.find(inputCols[i]))
            c.input[i] = integer(inputCols[i], 1);
        else if (!row.find("size"))
            throw WorkloadError(row.source + ": give the input extent with column '" +
                                inputCols[i] + "' or 'size'");
        if (row.find(filterCols[i]))
            c.filter[i] = integer(filterCols[i], 1);
        else if (!row.find("kernel"))
            throw WorkloadError(row.source + ": give the filter extent with column '" +
                                filterCols[i] + "' or 'kernel'");
    }
    if (row.find("stride"))
        setAll(c.stride, c.spatialDims, integer("stride", 1));
    if (row.find("dilation"))
        setAll(c.dilation, c.spatialDims, integer("dilation", 1));
    if (const auto* pad = row.find("pad")) {
        if (lowerCase(*pad) == "same")
            samePadding(c);
        else {
            setAll(c.padPre, c.spatialDims, integer("pad", 0));
            c.padPost = c.padPre;
        }
    }
    if (row.find("out"))
        c.expectedOutputWidth = integer("out", 1);
    if (row.find("count"))
        c.count = integer("count", 1);
    return c;
}

template <class T, class F>
std::vector<T> column(const CsvRow& row, const std::string& name, const std::vector<T>& fallback,
                      F parse) {
    const auto* cell = row.find(name);
    return cell ? parse(*cell, row.source + ": column '" + name + "'") : fallback;
}

void expandSettings(const CsvRow& row, ConvCase base, const ConvDefaults& defaults,
                    std::vector<ConvCase>& out) {
    const auto precisions = column(row, "precision", defaults.precisions, parsePrecisionList);
    const auto layouts = column(row, "layout", defaults.layouts, parseConvLayouts);
    const auto passes = column(row, "pass", defaults.passes, parseConvPasses);
    for (Precision p : precisions)
        for (ConvLayout l : layouts)
            for (ConvPass pass : passes) {
                ConvCase c = base;
                c.precision = p;
                c.layout = l;
                c.pass = pass;
                out.push_back(c);
            }
}

bool isSeerLine(const std::string& line) {
    std::istringstream in(line);
    std::string token;
    int count = 0;
    while (in >> token) {
        if (token.find_first_not_of("0123456789") != std::string::npos)
            return false;
        ++count;
    }
    return count == 8;
}

} // namespace

std::string toString(ConvPass p) {
    switch (p) {
    case ConvPass::Forward:
        return "fwd";
    case ConvPass::BackwardData:
        return "bwd-data";
    case ConvPass::BackwardFilter:
        return "bwd-filter";
    }
    return "?";
}

std::string toString(ConvLayout l, int spatialDims) {
    if (spatialDims == 3)
        return l == ConvLayout::ChannelsFirst ? "NCDHW" : "NDHWC";
    return l == ConvLayout::ChannelsFirst ? "NCHW" : "NHWC";
}

std::vector<ConvPass> parseConvPasses(const std::string& text, const std::string& what) {
    const ConvPass f = ConvPass::Forward, d = ConvPass::BackwardData, w = ConvPass::BackwardFilter;
    return parseKeywords<ConvPass>(text, what,
                                   {{"fwd", {f}},
                                    {"forward", {f}},
                                    {"bwd-data", {d}},
                                    {"dgrad", {d}},
                                    {"bwd-filter", {w}},
                                    {"wgrad", {w}},
                                    {"all", {f, d, w}}},
                                   "use fwd, bwd-data, bwd-filter or all");
}

std::vector<ConvLayout> parseConvLayouts(const std::string& text, const std::string& what) {
    const ConvLayout first = ConvLayout::ChannelsFirst, last = ConvLayout::ChannelsLast;
    return parseKeywords<ConvLayout>(
        text, what, {{"nchw", {first}}, {"ncdhw", {first}}, {"nhwc", {last}}, {"ndhwc", {last}}},
        "use nchw, nhwc, ncdhw or ndhwc");
}

std::array<long long, 3> ConvCase::output() const {
    std::array<long long, 3> out{1, 1, 1};
    for (std::size_t i = 0; i < 3; ++i) {
        if (spatialDims == 2 && i == 0)
            continue;
        const long long span =
            input[i] + padPre[i] + padPost[i] - dilation[i] * (filter[i] - 1) - 1;
        out[i] = span < 0 ? 0 : span / stride[i] + 1;
    }
    return out;
}

std::string ConvCase::seerLine() const {
    const auto out = output();
    const bool square = spatialDims == 2 && input[1] == input[2] && filter[1] == filter[2] &&
                        stride[1] == stride[2] && out[1] == out[2] && groups == 1 &&
                        dilation[1] == 1 && dilation[2] == 1 && padPre[1] == padPre[2] &&
                        padPost[1] == padPre[1] && padPost[2] == padPre[2];
    if (!square || out[2] <= 0)
        return "";
    return std::to_string(n) + ' ' + std::to_string(c) + ' ' + std::to_string(input[2]) + ' ' +
           std::to_string(k) + ' ' + std::to_string(out[2]) + ' ' + std::to_string(filter[2]) +
           ' ' + std::to_string(stride[2]) + ' ' + std::to_string(padPre[2]);
}

std::string ConvCase::invalidReason() const {
    if (c % groups != 0)
        return "input channels " + std::to_string(c) + " are not divisible by groups " +
               std::to_string(groups);
    if (k % groups != 0)
        return "output channels " + std::to_string(k) + " are not divisible by groups " +
               std::to_string(groups);
    const auto out = output();
    for (std::size_t i = 0; i < 3; ++i)
        if (out[i] <= 0)
            return "the filter (" + joinExtent(filter, spatialDims) + ", dilation " +
                   joinExtent(dilation, spatialDims) + ") is larger than the padded input (" +
                   joinExtent(input, spatialDims) + " + padding): no output";
    if (expectedOutputWidth != 0 && expectedOutputWidth != out[2])
        return "the line says out_width " + std::to_string(expectedOutputWidth) + " but in_width " +
               std::to_string(input[2]) + ", kernel " + std::to_string(filter[2]) + ", stride " +
               std::to_string(stride[2]) + " and padding " + std::to_string(padPre[2]) + " give " +
               std::to_string(out[2]);
    return {};
}

long long ConvCase::inputElements() const {
    return n * c * input[0] * input[1] * input[2];
}
long long ConvCase::filterElements() const {
    return k * (c / groups) * filter[0] * filter[1] * filter[2];
}
long long ConvCase::outputElements() const {
    const auto out = output();
    return n * k * out[0] * out[1] * out[2];
}

double ConvCase::flops() const {
    const auto out = output();
    return 2.0 * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(c / groups) *
           static_cast<double>(filter[0] * filter[1] * filter[2]) *
           static_cast<double>(out[0] * out[1] * out[2]);
}

double ConvCase::reductionLength() const {
    const double taps = static_cast<double>(filter[0] * filter[1] * filter[2]);
    switch (pass) {
    case ConvPass::Forward:
        return static_cast<double>(c / groups) * taps;
    case ConvPass::BackwardData:
        return static_cast<double>(k / groups) * taps;
    case ConvPass::BackwardFilter: {
        const auto out = output();
        return static_cast<double>(n) * static_cast<double>(out[0] * out[1] * out[2]);
    }
    }
    return 1.0;
}

std::string ConvCase::shape() const {
    std::string s = "n" + std::to_string(n) + " c" + std::to_string(c) + " " +
                    joinExtent(input, spatialDims) + " k" + std::to_string(k) + " " +
                    joinExtent(filter, spatialDims);
    if (!allEqual(stride, spatialDims, 1))
        s += " s" + joinExtent(stride, spatialDims);
    if (padPre != padPost)
        s += " p" + joinExtent(padPre, spatialDims) + "+" + joinExtent(padPost, spatialDims);
    else if (!allEqual(padPre, spatialDims, 0))
        s += " p" + joinExtent(padPre, spatialDims);
    if (!allEqual(dilation, spatialDims, 1))
        s += " d" + joinExtent(dilation, spatialDims);
    if (groups != 1)
        s += " g" + std::to_string(groups);
    return s;
}

const std::vector<std::string>& convColumns() {
    static const std::vector<std::string> columns{
        "name",     "dims", "n",         "c",      "k",    "groups", "size",   "d",
        "h",        "w",    "kernel",    "t",      "r",    "s",      "stride", "pad",
        "dilation", "out",  "precision", "layout", "pass", "count"};
    return columns;
}

std::vector<ConvCase> parseConvWorkload(const std::string& text, const std::string& sourceName,
                                        const ConvDefaults& defaults) {
    // SEER's format: the first non-comment line holds eight integers.
    std::istringstream probe(text);
    std::string line;
    while (std::getline(probe, line) && (trim(line).empty() || trim(line)[0] == '#')) {
    }
    std::vector<ConvCase> out;
    if (isSeerLine(line)) {
        std::istringstream in(text);
        int number = 0;
        while (std::getline(in, line)) {
            ++number;
            const std::string t = trim(line);
            if (t.empty() || t[0] == '#')
                continue;
            const std::string where = sourceName + ":" + std::to_string(number);
            if (!isSeerLine(t))
                throw WorkloadError(where + ": expected 8 integers 'batch in_channels in_width "
                                            "out_channels out_width kernel_width stride padding'");
            std::istringstream fields(t);
            const char* names[8] = {"n", "c", "size", "k", "out", "kernel", "stride", "pad"};
            CsvRow row;
            row.source = where;
            for (const char* name : names)
                fields >> row.cells[name];
            ConvCase c = caseFromRow(row);
            c.name = "seer" + std::to_string(number);
            expandSettings(row, c, defaults, out);
        }
        return out;
    }
    for (const CsvRow& row : readCsvRows(text, sourceName, convColumns()))
        expandSettings(row, caseFromRow(row), defaults, out);
    return out;
}

std::vector<ConvCase> parseConvSpec(const std::string& spec, const ConvDefaults& defaults) {
    std::vector<ConvCase> out;
    for (const CsvRow& row : readCsvRows(specToCsv(spec), "--case", convColumns()))
        expandSettings(row, caseFromRow(row), defaults, out);
    return out;
}

} // namespace roofline::workloads
