#pragma once
// Writing output files without losing anything: atomic replacement of regular files, symlinks
// followed (never replaced), special files refused, inputs never overwritten.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace roofline::core {

/// Writes `path` through `write` into a temporary file beside it, then renames it into place, so a
/// reader never sees a half-written file. A symlink is followed: its target is written, the link
/// stays. A path that exists and is not a regular file (a directory, FIFO, socket or device) is
/// refused with Error(InvalidArgument) naming it. Throws Error(Io) naming the path on failure.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

/// Writes `path` as writeFileAtomically does unless a file is there that was written after this
/// library was loaded -- by another process of the same run that used the same path (an output
/// pattern without %p or %r): then it writes "<stem>.<pid><extension>" beside it. A file from an
/// earlier run (modified more than 2 s before the load: file times are coarse, and may come from
/// another host's clock) is replaced. Two processes saving at the same moment cannot both take the
/// path (it is created with link(2), which fails when it exists). Returns the path written.
std::string writeFileOnce(const std::string& path, long pid,
                          const std::function<void(std::ostream&)>& write);

/// The file `path` would write: a symlink's final target (resolved relative to the link), else
/// `path`. Throws Error(InvalidArgument) when it exists and is not a regular file.
std::string outputTarget(const std::string& path);

/// True when both paths name the same existing file (same device and inode, through links).
bool sameFile(const std::string& a, const std::string& b);

/// Throws Error(InvalidArgument) when an output (`what` names it: "the CSV") would write over one
/// of `inputs`; "" and "-" (standard output) are never input files.
void refuseOverwritingInputs(const std::string& output, const std::string& what,
                             const std::vector<std::string>& inputs);

} // namespace roofline::core
