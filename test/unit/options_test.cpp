#include "core/option_table.hpp"

#include <roofline/error.hpp>
#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

using namespace roofline;

namespace {
struct Env {
    const char* name;
    Env(const char* n, const char* v) : name(n) { ::setenv(n, v, 1); }
    ~Env() { ::unsetenv(name); }
};
} // namespace

// Window replay by either of its names, and back to its name for the recording.
TEST(Options, WindowReplayIsAMode) {
    for (const char* name : {"window", "window-replay"}) {
        Env env("ROOFLINE_MODE", name);
        EXPECT_EQ(Options::fromEnvironment().mode, CollectionMode::WindowReplay) << name;
    }
    EXPECT_STREQ(toString(CollectionMode::WindowReplay), "window-replay");
}

TEST(Options, EveryFieldHasAnEnvironmentVariable) {
    Env a("ROOFLINE_MODE", "scope"), b("ROOFLINE_METRICS", "core"), c("ROOFLINE_DEVICE", "-1"),
        d("ROOFLINE_RANGES_PER_IMAGE", "12"), e("ROOFLINE_ITERATION_RANGE", "step"),
        f("ROOFLINE_SCOPE_LEVELS", "3"), g("ROOFLINE_NVTX_INCLUDE", "train/;[A"),
        h("ROOFLINE_NVTX_EXCLUDE", "warmup/"), i("ROOFLINE_KERNEL_NAME", "regex:gemm"),
        j("ROOFLINE_LAUNCH_SKIP", "5"), k("ROOFLINE_LAUNCH_COUNT", "7"),
        l("ROOFLINE_CACHE_FLUSH", "on"), m("ROOFLINE_OUTPUT", "out.rfl"),
        n("ROOFLINE_FLUSH_ON_EXIT", "0"), o("ROOFLINE_NVTX", "off"),
        p("ROOFLINE_ITERATIONS_PER_PASS", "4"), q("ROOFLINE_PUSH_POP_SCOPE", "process"),
        r("ROOFLINE_FIRST_ITERATION", "measure"), t("ROOFLINE_ALIGN_PASSES", "on"),
        u("ROOFLINE_GRAPH_NODES", "0");
    const Options opt = Options::fromEnvironment();
    EXPECT_EQ(opt.mode, CollectionMode::ScopeReplay);
    EXPECT_EQ(opt.metrics, MetricSet::Core);
    EXPECT_EQ(opt.device, -1);
    EXPECT_EQ(opt.rangesPerImage, 12u);
    EXPECT_EQ(opt.iterationRange, "step");
    EXPECT_EQ(opt.scopeLevels, 3u);
    EXPECT_EQ(opt.nvtxInclude, (std::vector<std::string>{"train/", "[A"}));
    EXPECT_EQ(opt.nvtxExclude, (std::vector<std::string>{"warmup/"}));
    EXPECT_EQ(opt.kernelName, "regex:gemm");
    EXPECT_EQ(opt.alignPasses, AlignPasses::On);
    EXPECT_EQ(opt.launchSkip, 5u);
    EXPECT_EQ(opt.launchCount, 7u);
    EXPECT_EQ(opt.cacheFlush, CacheFlush::On);
    EXPECT_EQ(opt.outputPath, "out.rfl");
    EXPECT_FALSE(opt.flushOnExit);
    EXPECT_FALSE(opt.listenNvtx);
    EXPECT_EQ(opt.iterationsPerPass, 4u);
    EXPECT_TRUE(opt.processScopes);
    EXPECT_EQ(opt.firstIteration, FirstIteration::Measure);
    EXPECT_FALSE(opt.launchGraphNodes);
}

TEST(Options, DefaultsWhenNothingIsSet) {
    const Options opt = Options::fromEnvironment();
    EXPECT_EQ(opt.mode, CollectionMode::IterationReplay);
    EXPECT_EQ(opt.metrics, MetricSet::Full);
    EXPECT_EQ(opt.cacheFlush, CacheFlush::Auto);
    EXPECT_TRUE(opt.flushOnExit);
    EXPECT_TRUE(opt.listenNvtx);
    EXPECT_FALSE(opt.processScopes);
    EXPECT_TRUE(opt.launchGraphNodes); // graph launches run as their nodes while measuring
    EXPECT_EQ(opt.firstIteration, FirstIteration::Skip);
    EXPECT_STREQ(toString(opt.firstIteration), "skip");
    EXPECT_STREQ(toString(opt.mode), "iteration-replay");
}

TEST(Options, MalformedValuesNameTheVariable) {
    for (const char* bad : {"12x", "-3", "0", "99999999999"}) { // "": not set (below)
        Env env("ROOFLINE_RANGES_PER_IMAGE", bad);
        try {
            Options::fromEnvironment();
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
            EXPECT_NE(std::string(e.what()).find("ROOFLINE_RANGES_PER_IMAGE"), std::string::npos);
        }
    }
    {
        Env env("ROOFLINE_MODE", "magic");
        try {
            Options::fromEnvironment();
            ADD_FAILURE();
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("iteration|kernel|scope"), std::string::npos);
        }
    }
    Env env("ROOFLINE_FLUSH_ON_EXIT", "maybe");
    EXPECT_THROW(Options::fromEnvironment(), Error);
}

// One table feeds fromEnvironment(), `roofline run`'s flags and the docs: every row is a line of
// docs/configuration.md's settings table (field, variable, default), in the table's order, and
// every variable that table names is a row.
TEST(OptionTable, IsTheDocumentedSettingsTable) {
    std::ifstream docs(std::string(ROOFLINE_SOURCE_DIR) + "/docs/configuration.md");
    ASSERT_TRUE(docs) << "docs/configuration.md";
    std::vector<std::string> lines;
    bool inSettings = false;
    for (std::string line; std::getline(docs, line);) {
        if (line.rfind("## ", 0) == 0)
            inSettings = line == "## Settings";
        else if (inSettings && line.rfind("| ", 0) == 0 &&
                 line.find("`ROOFLINE_") != std::string::npos)
            lines.push_back(line);
    }
    const auto& rows = core::optionTable();
    ASSERT_EQ(lines.size(), rows.size()) << "rows of the settings table in docs/configuration.md";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const core::OptionRow& row = rows[i];
        const std::string name = row.field() ? "`" + std::string(row.name) + "`" : row.name;
        const std::string cells =
            "| " + name + " | `" + row.variable + "` | " + row.defaultCell + " | ";
        EXPECT_EQ(lines[i].substr(0, cells.size()), cells) << "docs row " << i;
    }
}

// The instruction roofline's group rides on the metric set: `+instructions` alone is the full set
// and the group; `memory+instructions` a smaller set and the group; the text reads back.
TEST(Options, MetricSetsTakeTheInstructionGroup) {
    {
        Env a("ROOFLINE_METRICS", "+instructions");
        const Options o = Options::fromEnvironment();
        EXPECT_EQ(o.metrics, MetricSet::Full);
        EXPECT_TRUE(o.instructionMetrics);
        EXPECT_EQ(core::optionRow("ROOFLINE_METRICS")->format(o), "full+instructions");
    }
    {
        Env a("ROOFLINE_METRICS", "memory+instructions");
        const Options o = Options::fromEnvironment();
        EXPECT_EQ(o.metrics, MetricSet::Memory);
        EXPECT_TRUE(o.instructionMetrics);
        Options back;
        core::optionRow("ROOFLINE_METRICS")->parse(back, "memory+instructions");
        EXPECT_EQ(core::optionRow("ROOFLINE_METRICS")->format(back), "memory+instructions");
    }
    EXPECT_FALSE(Options::fromEnvironment().instructionMetrics);
    Options o;
    try {
        core::optionRow("ROOFLINE_METRICS")->parse(o, "full+branches");
        ADD_FAILURE() << "accepted full+branches";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("ROOFLINE_METRICS='full+branches'"), std::string::npos) << what;
        EXPECT_NE(what.find("+instructions"), std::string::npos) << what;
    }
}

// A field's default is what its docs cell says, and its text reads back to the same value.
TEST(OptionTable, DefaultsAndTextRoundTrip) {
    std::set<std::string> variables, flags;
    for (const core::OptionRow& row : core::optionTable()) {
        EXPECT_TRUE(variables.insert(row.variable).second) << row.variable;
        if (row.flag) {
            EXPECT_TRUE(flags.insert(row.flag).second) << row.flag;
        }
        EXPECT_NE(std::string(row.help), "") << row.variable;
        if (!row.field())
            continue;
        const std::string text = row.format(Options{});
        std::string cell = row.defaultCell;
        if (cell == "empty" || cell == "none")
            cell = "``";
        EXPECT_EQ(cell.substr(0, text.size() + 2), "`" + text + "`") << row.variable;
        Options o;
        row.parse(o, text.c_str());
        EXPECT_EQ(row.format(o), text) << row.variable;
    }
    // A value set from the environment reads back as it was given.
    Env a("ROOFLINE_NVTX_INCLUDE", "train/;[A"), b("ROOFLINE_CACHE_FLUSH", "kernel"),
        c("ROOFLINE_LAUNCH_COUNT", "12"), d("ROOFLINE_SHARE_RANKS", "1");
    const Options set = Options::fromEnvironment();
    EXPECT_EQ(core::optionRow("ROOFLINE_NVTX_INCLUDE")->format(set), "train/;[A");
    EXPECT_EQ(core::optionRow("ROOFLINE_CACHE_FLUSH")->format(set), "kernel");
    EXPECT_EQ(core::optionRow("ROOFLINE_LAUNCH_COUNT")->format(set), "12");
    EXPECT_EQ(core::optionRow("ROOFLINE_SHARE_RANKS")->format(set), "1");
    EXPECT_EQ(core::optionRow("ROOFLINE_NOT_A_SETTING"), nullptr);
}

TEST(Names, KindsAndLevels) {
    EXPECT_EQ(toString(FlopKind::TensorBF16), "tensor_bf16");
    EXPECT_EQ(toString(MemoryLevel::DRAM), "DRAM");
    EXPECT_TRUE(isTensor(FlopKind::TensorFP64));
    EXPECT_FALSE(isTensor(FlopKind::FP64));
    EXPECT_FALSE(isFloatingPoint(FlopKind::TensorINT8));
    EXPECT_STREQ(toString(ErrorCode::CorruptRecording), "CorruptRecording");
}

TEST(Options, AnEmptyVariableCountsAsNotSet) {
    // `ROOFLINE_METRICS= roofline run ...` clears the variable for one command: the default runs.
    Env metrics("ROOFLINE_METRICS", "");
    Env mode("ROOFLINE_MODE", "");
    const Options o = Options::fromEnvironment();
    EXPECT_EQ(o.metrics, Options{}.metrics);
    EXPECT_FALSE(o.instructionMetrics);
    EXPECT_EQ(o.mode, Options{}.mode);
}
