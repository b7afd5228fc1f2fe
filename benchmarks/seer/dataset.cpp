#include "seer/dataset.hpp"

#include "workloads/csv_rows.hpp"

#include <zstd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <istream>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>

namespace roofline::seer {
namespace {

using workloads::csvQuoted;
using workloads::splitCsvLine;
using workloads::trim;

std::string number(double v) {
    std::ostringstream s;
    s.precision(9);
    s << v;
    return s.str();
}

double parseNumber(const std::string& text, const std::string& where, const std::string& column) {
    const std::string t = trim(text);
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v))
        throw SeerError(where + ": column '" + column + "': '" + text + "' is not a number");
    return v;
}

constexpr const char* kConvColumns[] = {"batch",     "in_channels",  "in_width", "out_channels",
                                        "out_width", "kernel_width", "stride",   "padding"};

} // namespace

std::string ConvParams::key() const {
    std::ostringstream s;
    s << batch << ' ' << inChannels << ' ' << inWidth << ' ' << outChannels << ' ' << outWidth
      << ' ' << kernelWidth << ' ' << stride << ' ' << padding;
    return s.str();
}

double ConvParams::macs() const {
    return batch * outChannels * outWidth * outWidth * inChannels * kernelWidth * kernelWidth;
}

ConvParams parseSeerLine(const std::string& line, const std::string& where) {
    std::istringstream in(line.substr(0, line.find('#')));
    double v[8];
    int n = 0;
    std::string word;
    while (in >> word) {
        if (n == 8)
            throw SeerError(where + ": more than 8 numbers (SEER's format: batch in_channels "
                                    "in_width out_channels out_width kernel_width stride padding)");
        v[n] = parseNumber(word, where, kConvColumns[n]);
        ++n;
    }
    if (n != 8)
        throw SeerError(where + ": " + std::to_string(n) +
                        " numbers, SEER's format has 8 (batch in_channels in_width out_channels "
                        "out_width kernel_width stride padding)");
    for (int i = 0; i < 8; ++i)
        if (v[i] < (i == 7 ? 0 : 1) || v[i] != std::floor(v[i]))
            throw SeerError(where + ": " + kConvColumns[i] + " must be a " +
                            (i == 7 ? "non-negative" : "positive") + " integer");
    return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
}

std::vector<ConvParams> readSeerConfigs(std::istream& in, const std::string& name) {
    std::vector<ConvParams> out;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
        if (!trim(line.substr(0, line.find('#'))).empty())
            out.push_back(parseSeerLine(line, name + ":" + std::to_string(n)));
    return out;
}

std::vector<SeerRow> readDataset(std::istream& in, const std::string& name) {
    std::string line;
    std::map<std::string, std::size_t> column;
    int lineNumber = 0;
    while (column.empty() && std::getline(in, line)) {
        ++lineNumber;
        if (trim(line).empty() || trim(line)[0] == '#')
            continue;
        const auto header = splitCsvLine(line);
        for (std::size_t i = 0; i < header.size(); ++i)
            column[trim(header[i])] = i;
    }
    for (const char* required : kConvColumns)
        if (!column.count(required))
            throw SeerError(name + ": no column '" + required +
                            "' (a SEER data set from roofline-conv --seer-csv has it)");
    for (const char* required : {"engine", "time_s"})
        if (!column.count(required))
            throw SeerError(name + ": no column '" + std::string(required) + "'");
    std::vector<SeerRow> rows;
    while (std::getline(in, line)) {
        ++lineNumber;
        if (trim(line).empty() || trim(line)[0] == '#')
            continue;
        const auto cells = splitCsvLine(line);
        const std::string where = name + ":" + std::to_string(lineNumber);
        auto text = [&](const char* c) -> std::string {
            auto it = column.find(c);
            return it != column.end() && it->second < cells.size() ? cells[it->second] : "";
        };
        auto value = [&](const char* c, double fallback) {
            const std::string t = text(c);
            return trim(t).empty() ? fallback : parseNumber(t, where, c);
        };
        auto required = [&](const char* c) {
            if (trim(text(c)).empty())
                throw SeerError(where + ": column '" + std::string(c) + "' is empty");
            return parseNumber(text(c), where, c);
        };
        SeerRow r;
        double* conv[] = {&r.conv.batch,       &r.conv.inChannels, &r.conv.inWidth,
                          &r.conv.outChannels, &r.conv.outWidth,   &r.conv.kernelWidth,
                          &r.conv.stride,      &r.conv.padding};
        for (int i = 0; i < 8; ++i)
            *conv[i] = required(kConvColumns[i]);
        r.engine = trim(text("engine"));
        if (r.engine.empty())
            throw SeerError(where + ": column 'engine' is empty");
        r.timeSeconds = required("time_s");
        if (!trim(text("precision")).empty())
            r.precision = trim(text("precision"));
        if (!trim(text("pass")).empty())
            r.pass = trim(text("pass"));
        r.flops = value("flops", 0);
        r.tensorFlops = value("tensor_flops", 0);
        r.dramReadBytes = value("dram_read_bytes", 0);
        r.dramWriteBytes = value("dram_write_bytes", 0);
        r.dramBytes = value("dram_bytes", r.dramReadBytes + r.dramWriteBytes);
        r.l1Bytes = value("l1_bytes", 0);
        r.l2Bytes = value("l2_bytes", 0);
        r.blocks = value("blocks", 0);
        r.waves = value("waves", 0);
        r.residentBlocks = value("resident_blocks", 0);
        r.bound = trim(text("bound"));
        r.heuristicRank = static_cast<int>(value("heuristic_rank", -1));
        r.kernel = trim(text("kernel"));
        rows.push_back(std::move(r));
    }
    return rows;
}

void writeDataset(const std::vector<SeerRow>& rows, std::ostream& out) {
    out << "batch,in_channels,in_width,out_channels,out_width,kernel_width,stride,padding,"
           "precision,pass,engine,time_s,flops,tensor_flops,dram_read_bytes,dram_write_bytes,"
           "dram_bytes,l1_bytes,l2_bytes,blocks,waves,resident_blocks,bound,heuristic_rank,"
           "kernel\n";
    for (const SeerRow& r : rows) {
        const ConvParams& c = r.conv;
        for (double v : {c.batch, c.inChannels, c.inWidth, c.outChannels, c.outWidth, c.kernelWidth,
                         c.stride, c.padding})
            out << number(v) << ',';
        out << csvQuoted(r.precision) << ',' << csvQuoted(r.pass) << ',' << csvQuoted(r.engine);
        for (double v : {r.timeSeconds, r.flops, r.tensorFlops, r.dramReadBytes, r.dramWriteBytes,
                         r.dramBytes, r.l1Bytes, r.l2Bytes, r.blocks, r.waves, r.residentBlocks})
            out << ',' << number(v);
        out << ',' << csvQuoted(r.bound) << ',' << r.heuristicRank << ',' << csvQuoted(r.kernel)
            << '\n';
    }
}

std::string boundClass(const std::string& bound) {
    const std::string roof = bound.substr(0, bound.find(' '));
    if (roof.empty() || roof == "unknown")
        return "";
    return roof == "L1" || roof == "L2" || roof == "DRAM" || roof == "shared" ? "memory"
                                                                              : "compute";
}

std::string modelKey(const SeerRow& row) {
    return row.pass == "fwd" ? row.engine : row.pass + "/" + row.engine;
}

std::vector<SeerRow> readDatasetFile(const std::string& path) {
    std::istringstream in(readDataFile(path));
    return readDataset(in, path);
}

bool isTestConfig(const ConvParams& conv, double testShare) {
    std::uint64_t h = 1469598103934665603ull; // FNV-1a: the same split on every machine
    for (unsigned char ch : conv.key()) {
        h ^= ch;
        h *= 1099511628211ull;
    }
    return static_cast<double>(h % 10000) / 10000.0 >= 1.0 - testShare;
}

std::string readDataFile(const std::string& path, std::size_t limitBytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw SeerError("cannot read '" + path + "'");
    // Bounded before anything is read; after, too, for what has no size up front (a pipe). A
    // compressed file over the limit would decompress to more than it.
    const auto tooLarge = [&] {
        return SeerError(path + ": larger than " + std::to_string(limitBytes >> 20) + " MiB");
    };
    std::error_code ec;
    if (const auto size = std::filesystem::file_size(path, ec); !ec && size > limitBytes)
        throw tooLarge();
    std::ostringstream raw;
    raw << in.rdbuf();
    std::string bytes = raw.str();
    if (bytes.size() > limitBytes)
        throw tooLarge();
    const std::string suffix = ".zst";
    if (path.size() < suffix.size() ||
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
        return bytes;
    std::unique_ptr<ZSTD_DStream, std::size_t (*)(ZSTD_DStream*)> stream(ZSTD_createDStream(),
                                                                         ZSTD_freeDStream);
    if (!stream)
        throw SeerError(path + ": cannot start zstd");
    ZSTD_inBuffer input{bytes.data(), bytes.size(), 0};
    std::string text;
    std::string chunk(ZSTD_DStreamOutSize(), '\0');
    std::size_t status = 1;
    for (;;) { // until the input is consumed and the last output did not fill the chunk
        ZSTD_outBuffer output{chunk.data(), chunk.size(), 0};
        status = ZSTD_decompressStream(stream.get(), &output, &input);
        if (ZSTD_isError(status))
            throw SeerError(path + ": not a zstd file, or a damaged one (" +
                            ZSTD_getErrorName(status) + ")");
        if (text.size() + output.pos > limitBytes)
            throw SeerError(path + ": decompresses to more than " +
                            std::to_string(limitBytes >> 20) + " MiB");
        text.append(chunk.data(), output.pos);
        if (input.pos == input.size && output.pos < output.size)
            break;
    }
    if (status != 0)
        throw SeerError(path + ": the zstd stream ends early (a truncated file)");
    return text;
}

} // namespace roofline::seer
