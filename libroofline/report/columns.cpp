#include "report/columns.hpp"
#include "report/format.hpp"
#include "report/kernel_names.hpp"

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace roofline::report {

namespace {
std::size_t columnsOf(int fd) {
    winsize w{};
    return ::isatty(fd) && ::ioctl(fd, TIOCGWINSZ, &w) == 0 && w.ws_col >= 40 ? w.ws_col : 0;
}
} // namespace

std::size_t terminalWidth() {
    if (const char* c = std::getenv("COLUMNS")) {
        const long v = std::strtol(c, nullptr, 10);
        if (v >= 40 && v <= 10000)
            return static_cast<std::size_t>(v);
    }
    // Standard output's terminal; when it is a pipe (`roofline report x.rfl | less`), the
    // terminal the user sits at: standard error's, else the process's controlling terminal.
    for (const int fd : {STDOUT_FILENO, STDERR_FILENO})
        if (const std::size_t n = columnsOf(fd))
            return n;
    const int tty = ::open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (tty >= 0) {
        const std::size_t n = columnsOf(tty);
        ::close(tty);
        if (n)
            return n;
    }
    return 100;
}

std::string shortenScope(const std::string& s, std::size_t width) {
    if (s.size() <= width || width < 8)
        return s.size() <= width ? s : fit(s, std::max<std::size_t>(width, 4));
    return "..." + s.substr(s.size() - (width - 3));
}

std::string sharedScopePrefix(const std::vector<std::string>& paths) {
    std::string prefix;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const std::string& s = paths[i];
        const std::size_t last = s.rfind('/');
        const std::size_t mine = last == std::string::npos ? 0 : last + 1; // all but its last level
        if (i == 0)
            prefix = s.substr(0, mine);
        std::size_t n = 0;
        while (n < prefix.size() && n < mine && prefix[n] == s[n])
            ++n;
        while (n > 0 && prefix[n - 1] != '/') // back to a level boundary
            --n;
        prefix.resize(n);
        if (prefix.empty())
            break;
    }
    return prefix;
}

std::vector<std::string> distinctNames(const std::vector<std::string>& names,
                                       const std::vector<std::string>& identities,
                                       std::size_t width, bool wide) {
    return wide ? names : abbreviateNames(names, identities, width);
}

bool cutName(const std::string& n) {
    return n.find("..") != std::string::npos;
}

std::string wrapLines(const std::string& text, std::size_t width) {
    if (width == 0)
        return text;
    std::string out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        const bool newline = end != std::string::npos;
        if (!newline)
            end = text.size();
        std::string line = text.substr(at, end - at);
        at = newline ? end + 1 : end;
        // The indent of continuation lines: where the text starts after a leading key of up to
        // 12 columns ("coverage  ", "recording "), else none.
        std::size_t indent = 0;
        const std::size_t word = line.find_first_not_of(' ');
        const std::size_t space = word == std::string::npos ? word : line.find(' ', word);
        if (space != std::string::npos) {
            const std::size_t after = line.find_first_not_of(' ', space);
            if (after != std::string::npos && after <= 12 && after < width / 2)
                indent = after;
        }
        const std::vector<std::string> pieces = wrapWords(line, width, indent);
        for (std::size_t i = 0; i < pieces.size(); ++i)
            out += (i ? "\n" : "") + pieces[i];
        if (newline)
            out += '\n';
    }
    return out;
}

std::vector<std::string> wrapWords(const std::string& text, std::size_t width, std::size_t indent) {
    std::vector<std::string> lines;
    std::string line = text;
    while (line.size() > width) {
        std::size_t cut = line.rfind(' ', width);
        if (cut == std::string::npos || cut <= indent)
            cut = line.find(' ', width); // a word longer than the room stays whole
        if (cut == std::string::npos)
            break;
        lines.push_back(line.substr(0, cut));
        const std::size_t next = line.find_first_not_of(' ', cut);
        line = std::string(indent, ' ') + (next == std::string::npos ? "" : line.substr(next));
    }
    lines.push_back(line);
    return lines;
}

NameWidths fitLine(std::vector<NumberColumn>& columns, std::size_t width, std::size_t reserved,
                   std::size_t longestName, std::size_t longestScope, bool anyScope, bool wide) {
    if (wide) {
        for (auto& c : columns)
            c.shown = true;
        return {longestName, longestScope};
    }
    // longestScope 0 without scopes: the table has no scope column at all.
    const std::size_t minKernel = 24, minScope = anyScope ? 10 : longestScope == 0 ? 0 : 5;
    const auto room = [&]() -> std::size_t {
        std::size_t used = reserved;
        for (const auto& c : columns)
            used += c.shown ? c.width + 1 : 0;
        return width > used ? width - used : 0;
    };
    int lastDrop = 0;
    for (const auto& c : columns)
        lastDrop = std::max(lastDrop, c.dropOrder);
    const std::size_t need = std::min(minKernel, longestName) + std::min(minScope, longestScope);
    for (int drop = 1; drop <= lastDrop && room() < need; ++drop)
        for (auto& c : columns)
            if (c.dropOrder == drop)
                c.shown = false;
    const std::size_t rest = room();
    // Still too narrow with every optional column out (an 80-column terminal): the names give
    // way down to 16 and 8 characters rather than the line overflowing.
    const bool narrow = rest < need;
    // A scope column no wider than its longest scope needs (the room was counted that way).
    const std::size_t scopeMin = std::min(narrow && anyScope ? 8 : minScope, longestScope);
    // Narrower still (a long bound with its marks): the names down to 12 characters.
    const std::size_t nameRoom = rest > scopeMin ? rest - scopeMin : 0;
    const std::size_t kernelMin =
        narrow ? std::min({std::size_t{16}, std::max<std::size_t>(12, nameRoom), longestName})
               : minKernel;
    NameWidths w;
    w.scope =
        anyScope ? std::clamp(longestScope, scopeMin, std::max(scopeMin, rest * 2 / 5)) : scopeMin;
    if (rest >= kernelMin + scopeMin) // the scope's share never pushes the name below its minimum
        w.scope = std::min(w.scope, rest - kernelMin);
    w.kernel = std::max(kernelMin, rest > w.scope ? rest - w.scope : 0);
    if (w.kernel > longestName) { // no blank space: what the name does not need goes to the scope
        w.scope = std::min(std::max(w.scope, longestScope), w.scope + w.kernel - longestName);
        w.kernel = longestName;
    }
    return w;
}

std::string numberCells(const std::vector<NumberColumn>& columns,
                        const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t c = 0; c < columns.size(); ++c)
        if (columns[c].shown)
            text += padLeft(c < cells.size() ? cells[c] : "", columns[c].width) + ' ';
    return text;
}

std::vector<std::string> columnHeads(const std::vector<NumberColumn>& columns) {
    std::vector<std::string> heads;
    for (const auto& c : columns)
        heads.push_back(c.head);
    return heads;
}

std::string padRight(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string padLeft(const std::string& s, std::size_t width) {
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

} // namespace roofline::report
