// Output paths for several processes of one job: patterns, the launcher's rank, and a
// save that never replaces a file another process of the same run wrote.
#include "core/atomic_file.hpp"
#include "core/output_path.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace roofline;
using namespace roofline::core;

namespace {

struct FakeEnv {
    std::map<std::string, std::string> vars;
    EnvLookup lookup() const {
        return [this](const char* name) -> const char* {
            const auto it = vars.find(name);
            return it == vars.end() ? nullptr : it->second.c_str();
        };
    }
};

ProcessIdentity process(int rank = -1) {
    ProcessIdentity p;
    p.host = "node7";
    p.pid = 4242;
    p.rank = rank;
    return p;
}

std::string readAll(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

auto writing(const std::string& text) {
    return [text](std::ostream& out) { out << text; };
}

struct TempDir {
    std::filesystem::path dir;
    TempDir() {
        char name[] = "/tmp/roofline-output-XXXXXX";
        dir = ::mkdtemp(name);
    }
    ~TempDir() { std::filesystem::remove_all(dir); }
    std::string operator/(const std::string& f) const { return (dir / f).string(); }
};

} // namespace

TEST(OutputPattern, ExpandsPidHostRankAndVariables) {
    FakeEnv env;
    env.vars["JOB"] = "run42";
    EXPECT_EQ(expandOutputPattern("out-%h-%p.rfl", process(), env.lookup()), "out-node7-4242.rfl");
    EXPECT_EQ(expandOutputPattern("r%r/%q{JOB}.rfl", process(3), env.lookup()), "r3/run42.rfl");
    EXPECT_EQ(expandOutputPattern("100%%.rfl", process(), env.lookup()), "100%.rfl");
    EXPECT_EQ(expandOutputPattern("plain.rfl", process(), env.lookup()), "plain.rfl");
}

TEST(OutputPattern, BadPatternsSayWhatAndHow) {
    FakeEnv env;
    const auto message = [&](const std::string& pattern, const ProcessIdentity& p) {
        try {
            expandOutputPattern(pattern, p, env.lookup());
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message("out-%q{SLURM_JOB_ID}.rfl", process()).find("SLURM_JOB_ID is not set"),
              std::string::npos);
    EXPECT_NE(message("out-%r.rfl", process()).find("use %p"), std::string::npos);
    EXPECT_NE(message("out-%x.rfl", process()).find("unknown sequence %x"), std::string::npos);
    EXPECT_NE(message("out-%q.rfl", process()).find("%q{NAME}"), std::string::npos);
    EXPECT_NE(message("out-%", process()).find("write %%"), std::string::npos);
}

TEST(OutputPattern, RankFromTheLaunchersVariables) {
    FakeEnv torchrun;
    torchrun.vars = {{"RANK", "5"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "8"}};
    ProcessIdentity p = currentProcess(torchrun.lookup());
    EXPECT_EQ(p.rank, 5);
    EXPECT_EQ(p.localRank, 1);
    EXPECT_EQ(p.worldSize, 8);
    EXPECT_EQ(p.rankVariable, "RANK");
    EXPECT_EQ(p.pid, static_cast<long>(::getpid()));
    EXPECT_FALSE(p.host.empty());
    EXPECT_EQ(defaultOutputPattern(p), "roofline-rank%r.rfl");

    FakeEnv mpi;
    mpi.vars = {{"OMPI_COMM_WORLD_RANK", "2"},
                {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                {"OMPI_COMM_WORLD_SIZE", "4"},
                {"SLURM_PROCID", "9"}};
    p = currentProcess(mpi.lookup());
    EXPECT_EQ(p.rank, 2); // the MPI's own variable before Slurm's
    EXPECT_EQ(p.rankVariable, "OMPI_COMM_WORLD_RANK");
    EXPECT_EQ(p.worldSize, 4);

    FakeEnv slurm;
    slurm.vars = {{"SLURM_PROCID", "7"}, {"SLURM_LOCALID", "3"}, {"SLURM_NTASKS", "16"}};
    EXPECT_EQ(currentProcess(slurm.lookup()).rank, 7);

    FakeEnv none;
    none.vars = {{"RANK", "not-a-number"}, {"PMI_RANK", "-1"}};
    p = currentProcess(none.lookup());
    EXPECT_EQ(p.rank, -1);
    EXPECT_EQ(defaultOutputPattern(p), "roofline-%h-%p.rfl");
}

TEST(WriteFileOnce, TakesANewPathAndReplacesAnEarlierRunsFile) {
    TempDir t;
    const std::string path = t / "out.rfl";
    EXPECT_EQ(writeFileOnce(path, 11, writing("first")), path);
    EXPECT_EQ(readAll(path), "first");

    std::ofstream(t / "old.rfl") << "earlier run";
    const timespec times[2] = {{1000000000, 0}, {1000000000, 0}}; // 2001: before this process
    ASSERT_EQ(::utimensat(AT_FDCWD, (t / "old.rfl").c_str(), times, 0), 0);
    EXPECT_EQ(writeFileOnce(t / "old.rfl", 11, writing("this run")), t / "old.rfl");
    EXPECT_EQ(readAll(t / "old.rfl"), "this run");
    EXPECT_FALSE(std::filesystem::exists(t / "old.rfl.tmp.11"));
}

TEST(WriteFileOnce, AFileAnotherProcessOfThisRunWroteIsKept) {
    // Two ranks with the same output path (no %p or %r): the second writes beside the first.
    TempDir t;
    const std::string path = t / "out.rfl";
    std::ofstream(path) << "rank 0"; // written now: after this library was loaded
    EXPECT_EQ(writeFileOnce(path, 4242, writing("rank 1")), t / "out.4242.rfl");
    EXPECT_EQ(readAll(path), "rank 0");
    EXPECT_EQ(readAll(t / "out.4242.rfl"), "rank 1");
    std::ofstream(t / "noext") << "x";
    EXPECT_EQ(writeFileOnce(t / "noext", 7, writing("y")), t / "noext.7");
}

TEST(OutputPattern, DescribesTheProcess) {
    ProcessIdentity p = process(3);
    p.worldSize = 8;
    p.localRank = 1;
    p.rankVariable = "RANK";
    EXPECT_EQ(describe(p), "rank 3 of 8 (RANK), local rank 1, pid 4242 on node7");
    EXPECT_EQ(describe(process()), "pid 4242 on node7");
}

TEST(WriteFileOnce, TwoProcessesSavingAtOnceKeepBothRecordings) {
    // Two ranks of one run with the same output path, saving at the same instant (fork: a real
    // second process): one takes the path, the other saves beside it; neither is lost.
    TempDir t;
    const std::string path = t / "same.rfl";
    for (int round = 0; round < 20; ++round) {
        std::filesystem::remove_all(t.dir);
        std::filesystem::create_directory(t.dir);
        int go[2];
        ASSERT_EQ(::pipe(go), 0);
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        const long me = child == 0 ? static_cast<long>(::getpid()) : 1;
        char byte = 0;
        if (child == 0) {
            ::close(go[1]);
            if (::read(go[0], &byte, 1) != 1) // wait for the parent's start signal
                ::_exit(3);
            try {
                writeFileOnce(path, me, writing("child"));
            } catch (...) {
                ::_exit(2);
            }
            ::_exit(0);
        }
        ::close(go[0]);
        ASSERT_EQ(::write(go[1], &byte, 1), 1); // both start now
        ::close(go[1]);
        const std::string mine = writeFileOnce(path, me, writing("parent"));
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
        std::vector<std::string> files;
        for (const auto& e : std::filesystem::directory_iterator(t.dir))
            files.push_back(readAll(e.path().string()));
        std::sort(files.begin(), files.end());
        ASSERT_EQ(files, (std::vector<std::string>{"child", "parent"})) << "round " << round;
        EXPECT_EQ(readAll(mine), "parent");
    }
}

// A sampled job's recording: a replay recording's name taken as .rfs, another name kept, the
// default pattern's when none is given.
TEST(OutputPath, ASampledJobRecordsToAnRfs) {
    FakeEnv env;
    EXPECT_EQ(sampledOutputPath("run.rfl", process(), env.lookup()), "run.rfs");
    EXPECT_EQ(sampledOutputPath("steps.bin", process(), env.lookup()), "steps.bin");
    EXPECT_EQ(sampledOutputPath(".rfl", process(), env.lookup()), ".rfl");
    EXPECT_EQ(sampledOutputPath("", process(), env.lookup()), "roofline-node7-4242.rfs");
    EXPECT_EQ(sampledOutputPath("", process(3), env.lookup()), "roofline-rank3.rfs");
}
