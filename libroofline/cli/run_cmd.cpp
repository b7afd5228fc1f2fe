// `roofline run [options] -- COMMAND ARGS...`: profiles an unmodified program. Sets the ROOFLINE_*
// variables of the options given, points CUDA_INJECTION64_PATH (and NVTX_INJECTION64_PATH) at
// libroofline.so, and execs the command: every process of it that launches a kernel profiles
// itself and saves its own recording at exit (session/injection.cpp, docs/profiling-programs.md).
#include "cli/commands.hpp"
#include "core/option_table.hpp"

#include <roofline/error.hpp>
#include <roofline/options.hpp>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef ROOFLINE_INSTALL_DATADIR
#define ROOFLINE_INSTALL_DATADIR "share"
#endif
#ifndef ROOFLINE_INSTALL_LIBDIR
#define ROOFLINE_INSTALL_LIBDIR "lib"
#endif

namespace roofline::cli {
namespace {

bool isDirectory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool readable(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), R_OK) == 0;
}

std::string directoryOfThisProgram() {
    char buffer[PATH_MAX] = {};
    const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n <= 0)
        return ".";
    std::string path(buffer, static_cast<std::size_t>(n));
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

} // namespace

std::vector<std::string> injectionCandidates(const std::string& programDir) {
    return {programDir + "/libroofline.so",
            programDir + "/../" ROOFLINE_INSTALL_LIBDIR "/libroofline.so",
            programDir + "/../lib/libroofline.so", programDir + "/../lib64/libroofline.so"};
}

std::string findTorchHook(const std::string& programDir) {
    for (const std::string& dir :
         {programDir + "/python", programDir + "/../" ROOFLINE_INSTALL_DATADIR "/roofline/python"})
        if (isDirectory(dir) && readable(dir + "/sitecustomize.py")) {
            char resolved[PATH_MAX] = {};
            return ::realpath(dir.c_str(), resolved) ? std::string(resolved) : dir;
        }
    return {};
}

std::string findInjectionLibrary(const std::string& given) {
    if (!given.empty()) {
        if (!readable(given))
            throw Error(ErrorCode::InvalidArgument,
                        "--library " + given + ": no such readable file");
        return given;
    }
    const std::vector<std::string> candidates = injectionCandidates(directoryOfThisProgram());
    for (const auto& c : candidates)
        if (readable(c)) {
            char resolved[PATH_MAX] = {};
            return ::realpath(c.c_str(), resolved) ? std::string(resolved) : c;
        }
    std::string tried;
    for (const auto& c : candidates)
        tried += "\n  " + c;
    throw Error(ErrorCode::InvalidArgument,
                "libroofline.so not found beside this `roofline` (tried:" + tried +
                    "); give its path with --library or ROOFLINE_LIBRARY");
}

namespace {

std::string exitText(int status) {
    if (WIFSIGNALED(status))
        return std::string("was ended by signal ") + std::to_string(WTERMSIG(status)) + " (" +
               ::strsignal(WTERMSIG(status)) + ")";
    return "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

// The program's exit, as the shell reports it: its status, or 128 + the signal that ended it.
int exitStatusOf(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

volatile pid_t child = 0;
extern "C" void forwardSignal(int sig) {
    if (child > 0)
        ::kill(child, sig);
}

[[noreturn]] void execOrExit(const std::vector<std::string>& command, bool inChild) {
    std::vector<char*> argv;
    for (const auto& word : command)
        argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    const int error = errno;
    std::fprintf(stderr, "roofline run: cannot run '%s': %s\n", command[0].c_str(),
                 std::strerror(error));
    std::fflush(stderr);
    if (inChild)
        ::_exit(error == ENOENT ? 127 : 126);
    std::exit(error == ENOENT ? 127 : 126);
}

// Runs the program as a child, passing on the signals a scheduler sends to `roofline run`, and
// once it has exited lists the recordings its processes saved (each appends its path to the
// file named by ROOFLINE_RUN_MANIFEST) -- or says that none launched a kernel. Exits as the
// program did (its status, or the signal that ended it).
int runAndList(const std::vector<std::string>& command) {
    const char* tmp = std::getenv("TMPDIR");
    std::string manifest = std::string(tmp && *tmp ? tmp : "/tmp") + "/roofline-run-XXXXXX";
    if (const int fd = ::mkstemp(manifest.data()); fd >= 0) {
        ::close(fd);
        ::setenv("ROOFLINE_RUN_MANIFEST", manifest.c_str(), 1);
    } else {
        manifest.clear();
    }
    std::cout.flush();
    std::cerr.flush();
    // The handlers are in place before the child exists and the signals held until its pid is
    // known, so that none sent in between is lost. The terminal's Ctrl-C and Ctrl-\ reach the
    // program directly (one process group); what is sent to this process alone is passed on.
    const int forwarded[] = {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
    sigset_t hold, before;
    sigemptyset(&hold);
    for (const int sig : forwarded)
        sigaddset(&hold, sig);
    ::sigprocmask(SIG_BLOCK, &hold, &before);
    for (const int sig : forwarded)
        ::signal(sig, forwardSignal);
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGQUIT, SIG_IGN);
    const pid_t pid = ::fork();
    if (pid <= 0) { // the child, or no child (the program then runs in this process)
        for (const int sig : forwarded)
            ::signal(sig, SIG_DFL);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGQUIT, SIG_DFL);
        ::sigprocmask(SIG_SETMASK, &before, nullptr);
        if (pid < 0) {
            if (!manifest.empty())
                ::unlink(manifest.c_str());
            ::unsetenv("ROOFLINE_RUN_MANIFEST");
        }
        execOrExit(command, pid == 0);
    }
    child = pid;
    ::sigprocmask(SIG_SETMASK, &before, nullptr);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    std::vector<std::string> saved;
    if (!manifest.empty()) {
        std::ifstream in(manifest);
        for (std::string line; std::getline(in, line) && saved.size() < 100000;)
            if (!line.empty())
                saved.push_back(line);
        ::unlink(manifest.c_str());
    }
    const int code = exitStatusOf(status);
    const bool notRun = WIFEXITED(status) && (code == 126 || code == 127) && saved.empty();
    if (!notRun && saved.empty()) {
        std::cerr << "roofline run: '" << command[0] << "' " << exitText(status)
                  << "; no process of it launched a CUDA kernel, so there is no recording\n";
    } else if (saved.size() > 1) {
        std::cerr << "roofline run: " << saved.size() << " recordings, one per process:\n";
        for (const auto& path : saved)
            std::cerr << "  " << path << '\n';
        std::cerr << "(`roofline merge` combines the ranks of one job)\n";
    }
    if (WIFSIGNALED(status)) { // end the way the program ended
        std::cout.flush();
        ::signal(WTERMSIG(status), SIG_DFL);
        ::raise(WTERMSIG(status));
    }
    return code;
}

} // namespace

int run(const RunArgs& args) {
    if (args.command.empty())
        throw Error(ErrorCode::InvalidArgument,
                    "no command to run: roofline run [options] -- COMMAND ARGS...");
    const char* fromEnv = std::getenv("ROOFLINE_LIBRARY");
    const std::string library = findInjectionLibrary(!args.library.empty() ? args.library
                                                     : fromEnv             ? fromEnv
                                                                           : "");
    if (const char* other = std::getenv("CUDA_INJECTION64_PATH");
        other && *other && library != other)
        throw Error(ErrorCode::ProfilerBusy,
                    std::string("CUDA_INJECTION64_PATH is already set (") + other +
                        "): another tool injects into this program. Unset it, or run without "
                        "`roofline run`");
    for (const auto& [name, value] : args.variables)
        ::setenv(name.c_str(), value.c_str(), 1);
    // Under `roofline run` push/pop ranges are the whole process's unless asked otherwise: the
    // unmodified programs it is for (PyTorch) launch backward from threads that opened no range.
    ::setenv("ROOFLINE_PUSH_POP_SCOPE", "process", 0);
    // A malformed value is refused here, before the program runs.
    const Options options = Options::fromEnvironment();
    ::setenv("CUDA_INJECTION64_PATH", library.c_str(), 1);
    const bool nvtx = options.listenNvtx;
    if (const char* other = std::getenv("NVTX_INJECTION64_PATH");
        nvtx && other && *other && library != other)
        std::cerr << "roofline run: NVTX_INJECTION64_PATH is set (" << other
                  << "): the program's NVTX ranges go to that tool, not to libroofline\n";
    else if (nvtx)
        ::setenv("NVTX_INJECTION64_PATH", library.c_str(), 1);
    // PyTorch programs: operators and modules named by the hook in python/ (PYTHONPATH first, so
    // that its sitecustomize runs -- and then the one it shadows).
    const bool hook = options.torchHook;
    const std::string hookDir = hook ? findTorchHook(directoryOfThisProgram()) : std::string();
    if (!hookDir.empty()) {
        const char* path = std::getenv("PYTHONPATH");
        const std::string joined = hookDir + (path && *path ? ":" + std::string(path) : "");
        ::setenv("PYTHONPATH", joined.c_str(), 1);
    } else if (hook) {
        std::cerr << "roofline run: the PyTorch hook (python/sitecustomize.py) is not installed "
                     "beside this `roofline`: PyTorch kernels get no operator or module\n";
    }
    if (args.dryRun) {
        for (const char* name : {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH",
                                 "ROOFLINE_PUSH_POP_SCOPE", "PYTHONPATH"})
            if (const char* v = std::getenv(name))
                std::cout << name << '=' << v << '\n';
        for (const auto& [name, value] : args.variables)
            std::cout << name << '=' << value << '\n';
        for (const auto& word : args.command)
            std::cout << word << (&word == &args.command.back() ? "\n" : " ");
        return 0;
    }
    return runAndList(args.command);
}

Command addRun(CLI::App& app) {
    auto* runCmd = app.add_subcommand(
        "run", "profile an unmodified program (C++ or python3 ...): every process of it that "
               "launches a CUDA kernel saves its own recording at exit");
    const auto args = std::make_shared<RunArgs>();
    // Each option is one ROOFLINE_* variable of the profiled processes: the rows of the options
    // table with a flag (core/option_table.hpp, docs/configuration.md).
    std::vector<const core::OptionRow*> rows;
    for (const core::OptionRow& row : core::optionTable())
        if (row.flag)
            rows.push_back(&row);
    const auto values = std::make_shared<std::vector<std::string>>(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        runCmd->add_option(rows[i]->flag, (*values)[i],
                           std::string(rows[i]->help) + " [" + rows[i]->variable + "]");
    const auto timingOnly = std::make_shared<bool>(false);
    runCmd->add_flag("--timing-only", *timingOnly,
                     "kernel names, scopes and durations, no counters [ROOFLINE_TIMING_ONLY=1]");
    runCmd->add_option("--library", args->library,
                       "libroofline.so to inject (default: ROOFLINE_LIBRARY, or the one beside "
                       "this roofline)");
    runCmd->add_flag("--dry-run", args->dryRun, "print the environment and command, run nothing");
    runCmd->add_option("command", args->command, "the program and its arguments (after --)")
        ->required();
    runCmd->positionals_at_end();
    return {runCmd, [args, rows, values, timingOnly] {
                for (std::size_t i = 0; i < rows.size(); ++i)
                    if (!(*values)[i].empty())
                        args->variables.emplace_back(rows[i]->variable, (*values)[i]);
                if (*timingOnly)
                    args->variables.emplace_back("ROOFLINE_TIMING_ONLY", "1");
                return run(*args); // returns only when the command could not be run
            }};
}

} // namespace roofline::cli
