#include "core/atomic_file.hpp"

#include <roofline/error.hpp>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace roofline::core {
namespace {

const char* kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return "not a regular file";
}

std::string directoryOf(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

} // namespace

std::string outputTarget(const std::string& path) {
    std::string target = path;
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(target.c_str(), &st) != 0)
            return target; // a new file
        if (S_ISREG(st.st_mode))
            return target;
        if (!S_ISLNK(st.st_mode))
            throw Error(ErrorCode::InvalidArgument,
                        "refusing to write '" + path + "': " +
                            (target == path ? std::string() : "it points to '" + target + "', ") +
                            kindOf(st.st_mode) +
                            ", not a regular file (give a file path; '-' writes CSV or JSON to "
                            "standard output)");
        char buffer[PATH_MAX];
        const ssize_t n = ::readlink(target.c_str(), buffer, sizeof buffer - 1);
        if (n < 0)
            throw Error(ErrorCode::Io,
                        "cannot read the symlink '" + target + "': " + std::strerror(errno));
        const std::string link(buffer, static_cast<std::size_t>(n));
        target = link.front() == '/' ? link : directoryOf(target) + link;
    }
    throw Error(ErrorCode::InvalidArgument,
                "refusing to write '" + path + "': too many levels of symlinks");
}

bool sameFile(const std::string& a, const std::string& b) {
    struct stat sa {
    }, sb{};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

void refuseOverwritingInputs(const std::string& output, const std::string& what,
                             const std::vector<std::string>& inputs) {
    if (output.empty() || output == "-")
        return;
    for (const auto& in : inputs)
        if (output == in || sameFile(output, in))
            throw Error(ErrorCode::InvalidArgument, "refusing to write " + what + " to '" + output +
                                                        "': it is the input file '" + in +
                                                        "' (give another output path)");
}

namespace {

// Writes `temp` through `write`; removes it and throws on failure.
void writeTemp(const std::string& temp, const std::function<void(std::ostream&)>& write) {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out)
        throw Error(ErrorCode::Io, "cannot create '" + temp + "': " + std::strerror(errno) +
                                       " (is the directory there and writable?)");
    try {
        write(out);
    } catch (...) {
        out.close();
        std::remove(temp.c_str());
        throw;
    }
    out.flush();
    if (!out) {
        std::remove(temp.c_str());
        throw Error(ErrorCode::Io, "writing '" + temp + "' failed (disk full?)");
    }
}

void renameInto(const std::string& temp, const std::string& target) {
    if (std::rename(temp.c_str(), target.c_str()) != 0) {
        const int err = errno;
        std::remove(temp.c_str());
        throw Error(ErrorCode::Io,
                    "cannot rename '" + temp + "' to '" + target + "': " + std::strerror(err));
    }
}

long long nowNs() noexcept {
    timespec t{};
    ::clock_gettime(CLOCK_REALTIME, &t);
    return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

const long long gLoadedAtNs = nowNs(); // what writeFileOnce compares file times with
constexpr long long kEarlierRunMarginNs = 2000000000LL; // 2 s

// "dir/out.rfl" -> "dir/out.<pid>.rfl" (an extension only in the last component).
std::string withPid(const std::string& path, long pid) {
    const auto slash = path.rfind('/');
    const auto dot = path.rfind('.');
    const bool ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
    const std::string suffix = "." + std::to_string(pid);
    return ext ? path.substr(0, dot) + suffix + path.substr(dot) : path + suffix;
}

} // namespace

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    const std::string target = outputTarget(path);
    const std::string temp = target + ".tmp." + std::to_string(::getpid());
    writeTemp(temp, write);
    renameInto(temp, target);
}

std::string writeFileOnce(const std::string& path, long pid,
                          const std::function<void(std::ostream&)>& write) {
    const std::string target = outputTarget(path);
    for (int attempt = 0; attempt < 3; ++attempt) {
        struct stat st {};
        if (::stat(target.c_str(), &st) != 0) { // new: take it unless another process does first
            const std::string temp = target + ".tmp." + std::to_string(pid);
            writeTemp(temp, write);
            if (::link(temp.c_str(), target.c_str()) == 0) {
                std::remove(temp.c_str());
                return target;
            }
            const int err = errno;
            if (err != EEXIST) { // a file system without hard links: no race protection there
                renameInto(temp, target);
                return target;
            }
            std::remove(temp.c_str());
            continue; // created meanwhile: whose is it?
        }
        const long long modified =
            static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
        // File times come from a coarser clock than clock_gettime's (a file written 1 ms after
        // the load showed an earlier time: 151 of 200 runs of the unit test alone), and on a
        // network file system from another host's clock: only a file clearly older than this
        // process is an earlier run's. In doubt the recording goes beside it -- never over it.
        if (modified + kEarlierRunMarginNs < gLoadedAtNs) { // an earlier run's
            writeFileAtomically(target, write);
            return target;
        }
        break; // written while this process ran: another process of the same run
    }
    const std::string own = withPid(target, pid);
    writeFileAtomically(own, write);
    return own;
}

} // namespace roofline::core
