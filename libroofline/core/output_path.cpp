#include "core/output_path.hpp"

#include <roofline/error.hpp>

#include <cctype>
#include <climits>
#include <cstdlib>
#include <unistd.h>

namespace roofline::core {
namespace {

// A non-negative decimal integer, else -1.
int rankValue(const char* v) {
    if (!v || !*v)
        return -1;
    long n = 0;
    for (const char* c = v; *c; ++c) {
        if (!std::isdigit(static_cast<unsigned char>(*c)) || n > INT_MAX / 10)
            return -1;
        n = n * 10 + (*c - '0');
    }
    return n <= INT_MAX ? static_cast<int>(n) : -1;
}

// The first of `names` set to a rank; `which` gets its name.
int firstRank(const EnvLookup& env, std::initializer_list<const char*> names,
              std::string* which = nullptr) {
    for (const char* name : names) {
        const int r = rankValue(env(name));
        if (r >= 0) {
            if (which)
                *which = name;
            return r;
        }
    }
    return -1;
}

std::string hostName() {
    char buffer[256] = {};
    if (::gethostname(buffer, sizeof buffer - 1) != 0 || !buffer[0])
        return "localhost";
    return buffer;
}

[[noreturn]] void badPattern(const std::string& pattern, const std::string& why) {
    throw Error(ErrorCode::InvalidArgument,
                "output path '" + pattern + "': " + why +
                    " (patterns: %p pid, %h host, %r the launcher's rank, %q{VAR} an environment "
                    "variable, %% a '%')");
}

} // namespace

ProcessIdentity currentProcess(const EnvLookup& env) {
    ProcessIdentity p;
    p.host = hostName();
    p.pid = static_cast<long>(::getpid());
    p.rank =
        firstRank(env, {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"},
                  &p.rankVariable);
    p.localRank = firstRank(
        env, {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"});
    p.worldSize =
        firstRank(env, {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"});
    return p;
}

std::string expandOutputPattern(const std::string& pattern, const ProcessIdentity& process,
                                const EnvLookup& env) {
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c != '%') {
            out += c;
            continue;
        }
        if (i + 1 >= pattern.size())
            badPattern(pattern, "a '%' ends it (write %% for a '%')");
        const char k = pattern[++i];
        if (k == '%') {
            out += '%';
        } else if (k == 'p') {
            out += std::to_string(process.pid);
        } else if (k == 'h') {
            out += process.host;
        } else if (k == 'r') {
            if (process.rank < 0)
                badPattern(pattern, "%r needs a rank, and none of RANK, OMPI_COMM_WORLD_RANK, "
                                    "PMI_RANK, PMIX_RANK, SLURM_PROCID is set; use %p");
            out += std::to_string(process.rank);
        } else if (k == 'q') {
            const auto close = pattern.find('}', i + 1);
            if (i + 1 >= pattern.size() || pattern[i + 1] != '{' || close == std::string::npos ||
                close == i + 2)
                badPattern(pattern, "%q takes a variable name in braces: %q{NAME}");
            const std::string name = pattern.substr(i + 2, close - i - 2);
            const char* value = env(name.c_str());
            if (!value)
                badPattern(pattern, "%q{" + name + "}: " + name + " is not set");
            out += value;
            i = close;
        } else {
            badPattern(pattern, std::string("unknown sequence %") + k);
        }
    }
    return out;
}

std::string describe(const ProcessIdentity& p) {
    std::string s;
    if (p.rank >= 0) {
        s = "rank " + std::to_string(p.rank);
        if (p.worldSize > 0)
            s += " of " + std::to_string(p.worldSize);
        if (!p.rankVariable.empty())
            s += " (" + p.rankVariable + ")";
        if (p.localRank >= 0)
            s += ", local rank " + std::to_string(p.localRank);
        s += ", ";
    }
    return s + "pid " + std::to_string(p.pid) + " on " + p.host;
}

std::string defaultOutputPattern(const ProcessIdentity& process) {
    return process.rank >= 0 ? "roofline-rank%r.rfl" : "roofline-%h-%p.rfl";
}

std::string sampledOutputPath(const std::string& path, const ProcessIdentity& process,
                              const EnvLookup& env) {
    std::string p =
        path.empty() ? expandOutputPattern(defaultOutputPattern(process), process, env) : path;
    const std::string rfl = ".rfl";
    if (p.size() > rfl.size() && p.compare(p.size() - rfl.size(), rfl.size(), rfl) == 0)
        p.replace(p.size() - rfl.size(), rfl.size(), ".rfs");
    return p;
}

} // namespace roofline::core
