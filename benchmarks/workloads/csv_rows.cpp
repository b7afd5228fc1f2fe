#include "workloads/csv_rows.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace roofline::workloads {

const std::string* CsvRow::find(const std::string& column) const {
    const auto it = cells.find(column);
    return it == cells.end() || it->second.empty() ? nullptr : &it->second;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, separator))
        parts.push_back(trim(part));
    if (!text.empty() && text.back() == separator)
        parts.emplace_back();
    return parts;
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

std::string lowerCase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return text;
}

long long parseInteger(const std::string& value, const std::string& what, long long minimum) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || end == value.c_str() || *end != '\0' || errno == ERANGE)
        throw WorkloadError(what + ": '" + value + "' is not an integer");
    if (v < minimum)
        throw WorkloadError(what + ": " + value + " is below the minimum " +
                            std::to_string(minimum));
    return v;
}

std::string readTextFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw WorkloadError("cannot read workload file '" + path +
                            "' (check the path; presets live in benchmarks/configs/)");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string specToCsv(const std::string& spec) {
    std::istringstream in(spec);
    std::string token, header, values;
    while (in >> token) {
        const auto eq = token.find('=');
        if (eq == std::string::npos || eq == 0 || token.find(',') != std::string::npos)
            throw WorkloadError("--case '" + spec + "': '" + token +
                                "' is not key=value (separate list values with ';')");
        header += (header.empty() ? "" : ",") + token.substr(0, eq);
        values += (values.empty() ? "" : ",") + token.substr(eq + 1);
    }
    if (header.empty())
        throw WorkloadError("--case is empty: give key=value pairs, e.g. 'n=16 c=64 size=56 k=64'");
    return header + "\n" + values + "\n";
}

std::vector<CsvRow> readCsvRows(const std::string& text, const std::string& sourceName,
                                const std::vector<std::string>& known) {
    std::vector<CsvRow> rows;
    std::vector<std::string> header;
    std::istringstream in(text);
    std::string line;
    int lineNumber = 0;
    while (std::getline(in, line)) {
        ++lineNumber;
        const std::string trimmed = trim(line);
        if (trimmed.empty() || trimmed[0] == '#')
            continue;
        const std::string where = sourceName + ":" + std::to_string(lineNumber);
        std::vector<std::string> cells = split(trimmed, ',');
        if (header.empty()) {
            header = cells;
            for (const auto& column : header)
                if (std::find(known.begin(), known.end(), column) == known.end()) {
                    std::string list;
                    for (const auto& k : known)
                        list += (list.empty() ? "" : ", ") + k;
                    throw WorkloadError(where + ": unknown column '" + column +
                                        "' (known columns: " + list + ")");
                }
            continue;
        }
        if (cells.size() != header.size())
            throw WorkloadError(where + ": " + std::to_string(cells.size()) + " cells but the " +
                                "header has " + std::to_string(header.size()) + " columns");
        // Cartesian product over list cells, in column order (the last column varies fastest).
        std::vector<std::map<std::string, std::string>> expanded(1);
        for (std::size_t c = 0; c < header.size(); ++c) {
            const std::vector<std::string> values = split(cells[c], ';');
            if (values.size() > 1 && std::any_of(values.begin(), values.end(),
                                                 [](const std::string& v) { return v.empty(); }))
                throw WorkloadError(where + ": column '" + header[c] + "' has an empty list item");
            std::vector<std::map<std::string, std::string>> next;
            next.reserve(expanded.size() * std::max<std::size_t>(values.size(), 1));
            for (const auto& partial : expanded)
                for (const auto& v : values.empty() ? std::vector<std::string>{""} : values) {
                    auto row = partial;
                    row[header[c]] = v;
                    next.push_back(std::move(row));
                }
            expanded = std::move(next);
        }
        for (auto& cellsOfCase : expanded)
            rows.push_back({std::move(cellsOfCase), where});
    }
    if (header.empty())
        throw WorkloadError(sourceName + ": no header row (the first non-comment line names the "
                                         "columns)");
    return rows;
}

std::string csvQuoted(const std::string& cell) {
    if (cell.find_first_of(",\"\n\r") == std::string::npos)
        return cell;
    std::string out = "\"";
    for (char ch : cell)
        out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
}

std::vector<std::string> splitCsvLine(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted) {
            if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"')
                cells.back() += line[++i];
            else if (ch == '"')
                quoted = false;
            else
                cells.back() += ch;
        } else if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            cells.emplace_back();
        } else if (ch != '\r') {
            cells.back() += ch;
        }
    }
    return cells;
}

} // namespace roofline::workloads
