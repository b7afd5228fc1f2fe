#include "core/atomic_file.hpp"

#include <roofline/error.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace roofline::core {

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
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
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        std::remove(temp.c_str());
        throw Error(ErrorCode::Io,
                    "cannot rename '" + temp + "' to '" + path + "': " + std::strerror(err));
    }
}

} // namespace roofline::core
