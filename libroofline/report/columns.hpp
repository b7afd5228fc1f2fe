#pragma once
// Width and name rules the text tables share (report, compare): the terminal's width, kernel
// names shortened so that rows stay distinct, and scope paths without the levels every row shares.
#include <cstddef>
#include <string>
#include <vector>

namespace roofline::report {

/// $COLUMNS, else the width of the terminal standard output, standard error or /dev/tty is on
/// (in that order: a pipe into `less` still gets the user's terminal), else 100.
std::size_t terminalWidth();
/// `text` with each line longer than `width` broken at spaces; the continuation lines are
/// indented as far as the line's text starts after its key ("coverage  one iteration ..." goes
/// on under "one"). A word longer than the room stays whole. `width` 0: unchanged.
std::string wrapLines(const std::string& text, std::size_t width);
/// One line broken at spaces into lines of at most `width` characters (a longer word stands
/// alone), the continuation lines indented by `indent` spaces.
std::vector<std::string> wrapWords(const std::string& line, std::size_t width,
                                   std::size_t indent = 0);
/// A scope path cut to `width`, keeping its innermost (rightmost) levels: "...#/Layer 3/attn".
std::string shortenScope(const std::string& path, std::size_t width);
/// The leading levels every path shares ("Train step #/"), whole levels only, and never all of a
/// path (each keeps its last level); "" when there are none.
std::string sharedScopePrefix(const std::vector<std::string>& paths);
/// `names` cut to `width` (`wide`: as they are) keeping what tells kernels apart, distinct
/// where `identities` differ (report/kernel_names.hpp); ".." marks a cut.
std::vector<std::string> distinctNames(const std::vector<std::string>& names,
                                       const std::vector<std::string>& identities,
                                       std::size_t width, bool wide);
/// Whether a name was cut by distinctNames (it holds the ".." mark).
bool cutName(const std::string& name);
/// What the '~' in a name means, for a table's legend.
inline constexpr const char* kCutNamesNote =
    "'..' in a name: parts left out to fit the line (--wide shows names whole)";
std::string padRight(const std::string& s, std::size_t width);

/// A numeric column of a text table; dropOrder > 0: left out on a narrow line, lowest first.
struct NumberColumn {
    const char* head;
    std::size_t width;
    int dropOrder;
    bool shown = true;
};
struct NameWidths {
    std::size_t kernel = 0, scope = 0;
};
/// Shares a line of `width` characters: `reserved` of them go to what is neither a name nor a
/// number (indices, separators, the bound's room); optional columns are left out until kernel
/// names keep 24 characters and scopes 10 (5 without scopes), or 16 and 8 when even that does
/// not fit (longestScope 0 without scopes: no scope column); the scope gets what it needs up to 2/5
/// of the rest, the kernel name the remainder -- never more than the longest needs. `wide`: every
/// column shown, names and scopes as long as the longest.
NameWidths fitLine(std::vector<NumberColumn>& columns, std::size_t width, std::size_t reserved,
                   std::size_t longestName, std::size_t longestScope, bool anyScope, bool wide);
/// The shown columns' `cells`, right-aligned, each followed by a space.
std::string numberCells(const std::vector<NumberColumn>& columns,
                        const std::vector<std::string>& cells);
/// The columns' heads, as cells.
std::vector<std::string> columnHeads(const std::vector<NumberColumn>& columns);
std::string padLeft(const std::string& s, std::size_t width);

} // namespace roofline::report
