#pragma once
// Width and name rules the text tables share (report, compare): the terminal's width, kernel
// names shortened so that rows stay distinct, and scope paths without the levels every row shares.
#include <cstddef>
#include <string>
#include <vector>

namespace roofline::report {

/// $COLUMNS, else the terminal's width, else 160.
std::size_t terminalWidth();
/// A scope path cut to `width`, keeping its innermost (rightmost) levels: "...#/Layer 3/attn".
std::string shortenScope(const std::string& path, std::size_t width);
/// The leading levels every path shares ("Train step #/"), whole levels only, and never all of a
/// path (each keeps its last level); "" when there are none.
std::string sharedScopePrefix(const std::vector<std::string>& paths);
/// `names` shortened to `width` (`wide`: as they are) so that rows whose `identities` differ stay
/// distinct: a collision keeps its template arguments, then gets "(1)", "(2)".
std::vector<std::string> distinctNames(const std::vector<std::string>& names,
                                       const std::vector<std::string>& identities,
                                       std::size_t width, bool wide);
/// Whether `name` ends with distinctNames' "(N)".
bool numberedName(const std::string& name);
std::string padRight(const std::string& s, std::size_t width);
std::string padLeft(const std::string& s, std::size_t width);

} // namespace roofline::report
