#include "core/atomic_file.hpp"

#include <roofline/error.hpp>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    const std::string target = outputTarget(path);
    const std::string temp = target + ".tmp." + std::to_string(::getpid());
    {
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
    if (std::rename(temp.c_str(), target.c_str()) != 0) {
        const int err = errno;
        std::remove(temp.c_str());
        throw Error(ErrorCode::Io,
                    "cannot rename '" + temp + "' to '" + target + "': " + std::strerror(err));
    }
}

} // namespace roofline::core
