// The regression gate of `roofline compare --fail-if`: rules parsed with clear refusals, groups
// checked against them, limits widened by the noise among repeated recordings of A, and the
// Markdown summary a CI job posts.
#include "report/compare.hpp"
#include "report/gate.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <sstream>

using namespace roofline;
using report::GateRule;

namespace {

KernelRecord kernel(const std::string& name, double seconds, double dramBytes = 1e6) {
    KernelRecord r;
    r.name = name;
    r.scopePath = "step #";
    r.measured = true;
    r.timeSeconds = seconds;
    r.flops[static_cast<std::size_t>(FlopKind::FP32)] = 1e9;
    r.bytes[static_cast<std::size_t>(MemoryLevel::DRAM)] = dramBytes;
    return r;
}

Ceilings ceilings() {
    Ceilings c;
    c.name = "test";
    c.flopsPerSecond[static_cast<std::size_t>(FlopKind::FP32)] = 1e13;
    c.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::DRAM)] = 1e12;
    return c;
}

report::GateResult gate(const std::vector<KernelRecord>& a, const std::vector<KernelRecord>& b,
                        const std::vector<std::string>& rules,
                        std::vector<std::vector<KernelRecord>> repeats = {}) {
    report::GateOptions options;
    for (const auto& r : rules)
        options.rules.push_back(report::parseGateRule(r));
    options.repeats = std::move(repeats);
    const auto c = report::compareRecords(a, b, GroupBy::NameScope);
    return report::evaluateGate(c, ceilings(), ceilings(), options);
}

} // namespace

TEST(Gate, RulesParseAndMalformedOnesAreRefusedWithTheForms) {
    const GateRule time = report::parseGateRule("time:+10%");
    EXPECT_EQ(time.quantity, GateRule::Quantity::Time);
    EXPECT_DOUBLE_EQ(time.limit, 10);
    EXPECT_FALSE(time.absolute);
    const GateRule us = report::parseGateRule("time:+50us");
    EXPECT_TRUE(us.absolute);
    EXPECT_DOUBLE_EQ(us.limit, 50e-6);
    EXPECT_DOUBLE_EQ(report::parseGateRule("total:+2ms").limit, 2e-3);
    EXPECT_DOUBLE_EQ(report::parseGateRule("roof:-5").limit, 5);
    EXPECT_EQ(report::parseGateRule("dram:+20%").quantity, GateRule::Quantity::Dram);
    for (const char* bad : {"time", "time:10%", "time:+10", "roof:+5", "dram:+5us", "speed:+1%",
                            "time:+x%", "time:+-3%"})
        try {
            report::parseGateRule(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
            EXPECT_NE(std::string(e.what()).find("time:+10%"), std::string::npos) << e.what();
        }
}

TEST(Gate, AGroupSlowerThanItsLimitFailsAndOnlyThatGroup) {
    const std::vector<KernelRecord> a = {kernel("gemm", 100e-6), kernel("copy", 50e-6)};
    const std::vector<KernelRecord> b = {kernel("gemm", 115e-6), kernel("copy", 52e-6)};
    const auto r = gate(a, b, {"time:+10%"});
    EXPECT_EQ(r.checked, 2u);
    ASSERT_EQ(r.failures.size(), 1u);
    EXPECT_EQ(r.failures[0].group, "gemm @ step #");
    EXPECT_NEAR(r.failures[0].change, 15.0, 1e-9);
    EXPECT_TRUE(gate(a, b, {"time:+20%"}).passed());
    EXPECT_FALSE(gate(a, b, {"time:+10us"}).passed()); // 15 us slower
    EXPECT_TRUE(gate(a, b, {"time:+20us"}).passed());
    EXPECT_FALSE(gate(a, b, {"total:+10%"}).passed()); // 150 -> 167 us: +11.3%
    EXPECT_TRUE(gate(a, b, {"total:+12%"}).passed());
}

TEST(Gate, RoofSharesAndBytesAreChecked) {
    // gemm: 1 GFLOP in 100 us is 1e13 FLOP/s, the FP32 roof (100%); in B it takes twice as
    // long: 50% of the roof.
    const auto r = gate({kernel("gemm", 100e-6)}, {kernel("gemm", 200e-6)}, {"roof:-5"});
    ASSERT_EQ(r.failures.size(), 1u);
    EXPECT_NEAR(r.failures[0].a, 100.0, 1e-6);
    EXPECT_NEAR(r.failures[0].b, 50.0, 1e-6);
    EXPECT_NEAR(r.failures[0].change, -50.0, 1e-6);
    EXPECT_FALSE(
        gate({kernel("k", 1e-4, 1e6)}, {kernel("k", 1e-4, 1.3e6)}, {"dram:+20%"}).passed());
    EXPECT_TRUE(gate({kernel("k", 1e-4, 1e6)}, {kernel("k", 1e-4, 1.1e6)}, {"dram:+20%"}).passed());
}

TEST(Gate, NoiseAmongRepeatedRecordingsWidensTheTimeLimit) {
    const std::vector<KernelRecord> a = {kernel("gemm", 100e-6)};
    const std::vector<KernelRecord> b = {kernel("gemm", 115e-6)};
    // A's repeats spread 100..110 us: 10% of the median, so the limit is 20%
    const auto r = gate(a, b, {"time:+10%"}, {{kernel("gemm", 110e-6)}, {kernel("gemm", 105e-6)}});
    EXPECT_TRUE(r.passed());
    const auto worse = gate(a, {kernel("gemm", 125e-6)}, {"time:+10%"},
                            {{kernel("gemm", 110e-6)}, {kernel("gemm", 105e-6)}});
    ASSERT_EQ(worse.failures.size(), 1u);
    EXPECT_NEAR(worse.failures[0].noise, 100.0 * 10 / 105, 1e-6);
    EXPECT_NEAR(worse.failures[0].limit, 2 * 100.0 * 10 / 105, 1e-6);
}

TEST(Gate, SmallGroupsAndOneSidedGroupsAreCountedNotChecked) {
    const std::vector<KernelRecord> a = {kernel("gemm", 100e-6), kernel("tiny", 0.5e-6),
                                         kernel("gone", 10e-6)};
    const std::vector<KernelRecord> b = {kernel("gemm", 100e-6), kernel("tiny", 5e-6),
                                         kernel("new", 10e-6)};
    const auto r = gate(a, b, {"time:+10%"});
    EXPECT_TRUE(r.passed()); // tiny went 10x slower, but it is under 1% of A's time
    EXPECT_EQ(r.checked, 1u);
    EXPECT_EQ(r.skipped, 1u);
    EXPECT_EQ(r.onlyA, 1u);
    EXPECT_EQ(r.onlyB, 1u);
}

TEST(Gate, TheMarkdownSummaryNamesTheVerdictRulesAndFailures) {
    const std::vector<KernelRecord> a = {kernel("gemm|x", 100e-6), kernel("copy", 50e-6)};
    const std::vector<KernelRecord> b = {kernel("gemm|x", 130e-6), kernel("copy", 50e-6)};
    report::GateOptions options;
    options.rules = {report::parseGateRule("time:+10%")};
    const auto c = report::compareRecords(a, b, GroupBy::NameScope);
    const auto r = report::evaluateGate(c, ceilings(), ceilings(), options);
    std::ostringstream md;
    report::writeGateMarkdown(r, options, c, "base.rfl", "new.rfl", md);
    const std::string s = md.str();
    EXPECT_EQ(s.rfind("## roofline gate: **failed**", 0), 0u) << s;
    EXPECT_NE(s.find("A `base.rfl`, B `new.rfl`"), std::string::npos) << s;
    EXPECT_NE(s.find("Rules: `time:+10%`"), std::string::npos) << s;
    EXPECT_NE(s.find("| `time:+10%` | gemm\\|x @ step # | 100.0 us | 130.0 us | +30.0% | +10.0% |"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("largest changes in time"), std::string::npos) << s;
    std::ostringstream text;
    report::printGate(r, options, text);
    EXPECT_NE(text.str().find("gate FAILED (time:+10%): 2 groups checked"), std::string::npos)
        << text.str();
}

namespace {

// `k` with instruction counters: 1000 global loads in `sectors` sectors, 100 shared loads in
// `wavefronts` wavefronts.
KernelRecord withInstructions(KernelRecord k, double sectors, double wavefronts) {
    k.instructions.measured = true;
    k.instructions.warp = 1e4;
    k.instructions.globalLoad = {1000, sectors, 128000};
    k.instructions.sharedLoad = {100, wavefronts, 12800};
    return k;
}

} // namespace

TEST(Gate, SectorsAndWavefrontsPerRequestAreGatedFromTheInstructionCounters) {
    EXPECT_EQ(report::parseGateRule("sectors:+10%").quantity, GateRule::Quantity::Sectors);
    EXPECT_EQ(report::parseGateRule("wavefronts:+5%").quantity, GateRule::Quantity::Wavefronts);
    // A transpose that went from stride 1 (4 sectors per request) to stride 2 (8).
    const std::vector<KernelRecord> a = {withInstructions(kernel("transpose", 100e-6), 4000, 100),
                                         withInstructions(kernel("copy", 50e-6), 4000, 100)};
    const std::vector<KernelRecord> b = {withInstructions(kernel("transpose", 100e-6), 8000, 100),
                                         withInstructions(kernel("copy", 50e-6), 4000, 400)};
    const auto sectors = gate(a, b, {"sectors:+10%"});
    ASSERT_EQ(sectors.failures.size(), 1u);
    EXPECT_EQ(sectors.failures[0].group, "transpose @ step #");
    EXPECT_DOUBLE_EQ(sectors.failures[0].a, 4.0);
    EXPECT_DOUBLE_EQ(sectors.failures[0].b, 8.0);
    EXPECT_NEAR(sectors.failures[0].change, 100.0, 1e-9);
    const auto wavefronts = gate(a, b, {"wavefronts:+10%"});
    ASSERT_EQ(wavefronts.failures.size(), 1u);
    EXPECT_EQ(wavefronts.failures[0].group, "copy @ step #");
    report::GateOptions sectorsRule;
    sectorsRule.rules = {report::parseGateRule("sectors:+10%")};
    std::ostringstream text;
    report::printGate(sectors, sectorsRule, text);
    EXPECT_NE(text.str().find("4.00 sectors per request -> 8.00 sectors per request (+100.0%"),
              std::string::npos)
        << text.str();
    // Recordings without the counters: the rule cannot be judged, and the gate says so and fails.
    const std::vector<KernelRecord> plain = {kernel("transpose", 100e-6)};
    const auto unchecked = gate(plain, plain, {"sectors:+10%"});
    EXPECT_FALSE(unchecked.passed());
    ASSERT_EQ(unchecked.unchecked.size(), 1u);
    std::ostringstream why;
    report::printGate(unchecked, sectorsRule, why);
    EXPECT_NE(why.str().find("ROOFLINE_METRICS=+instructions"), std::string::npos) << why.str();
}
