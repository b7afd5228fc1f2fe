#pragma once
// What the instruction calibration kernels (instruction_kernels.cuh) must show, worked out by
// hand: checked live on the GPU (test/gpu/instruction_test.cu) and on the H100 recording
// test/fixtures/h100_instructions.rfl (test/unit/fixture_test.cpp). GH100's sectors and banks.
#include "calibration/instruction_kernels.cuh"

#include <roofline/kernel_record.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace calibration {

inline const roofline::KernelRecord*
instructionRecord(const std::vector<roofline::KernelRecord>& records, const std::string& scope) {
    for (const auto& r : records)
        if (r.scopePath == scope)
            return &r;
    return nullptr;
}

inline bool says(const roofline::KernelRecord& r, const std::string& start) {
    for (const auto& v : r.instructionVerdicts)
        if (v.rfind(start, 0) == 0)
            return true;
    return false;
}

inline std::string verdictsOf(const roofline::KernelRecord& r) {
    std::string text;
    for (const auto& v : r.instructionVerdicts)
        text += "[" + v + "] ";
    return text;
}

/// The ten kernels' counts and verdicts (scopes "instructions/...").
inline void expectInstructionCalibration(const std::vector<roofline::KernelRecord>& records) {
    using roofline::InstructionClass;
    const double kWarps = kInstructionWarps;
    const auto findByScope = instructionRecord;
    ASSERT_EQ(records.size(), 10u);
    for (const auto& r : records) {
        ASSERT_TRUE(r.measured) << r.scopePath << ": " << r.note;
        ASSERT_TRUE(r.instructions.measured) << r.scopePath << ": " << r.lacks;
        EXPECT_GT(r.instructions.warp, kWarps) << r.scopePath;
    }

    // Strided loads: one request per warp, min(32, 4 x stride) sectors; the stores coalesced.
    for (const auto& [stride, sectors] : {std::pair{1, 4.0}, {2, 8.0}, {8, 32.0}, {32, 32.0}}) {
        const auto* r = findByScope(records, "instructions/stride" + std::to_string(stride));
        ASSERT_NE(r, nullptr) << stride;
        const auto& n = r->instructions;
        EXPECT_EQ(n.globalLoad.requests, kWarps) << stride;
        EXPECT_EQ(n.globalLoad.transactions, sectors * kWarps) << stride;
        EXPECT_EQ(n.globalLoad.bytes, 128 * kWarps) << stride;
        EXPECT_EQ(n.globalStore.requests, kWarps) << stride;
        EXPECT_EQ(n.globalStore.transactions, 4 * kWarps) << stride;
        EXPECT_EQ(n.sharedLoad.requests + n.sharedStore.requests, 0) << stride;
        EXPECT_EQ(says(*r, "uncoalesced loads: "), stride > 1) << stride << ": " << verdictsOf(*r);
        if (stride > 1) {
            char text[96];
            std::snprintf(text, sizeof text,
                          "uncoalesced loads: %.1f sectors per request (ideal 4.0)", sectors);
            EXPECT_TRUE(says(*r, text)) << verdictsOf(*r);
        }
        EXPECT_FALSE(says(*r, "uncoalesced stores")) << verdictsOf(*r);
    }

    // Shared memory: 34 conflict-free stores and 64 loads per warp, each load `way` wavefronts.
    for (int way : {1, 2, 8, 32}) {
        const auto* r = findByScope(records, "instructions/shared" + std::to_string(way) + "way");
        ASSERT_NE(r, nullptr) << way;
        const auto& n = r->instructions;
        EXPECT_EQ(n.sharedLoad.requests, kSharedLoads * kWarps) << way;
        EXPECT_EQ(n.sharedLoad.transactions, way * kSharedLoads * kWarps) << way;
        EXPECT_EQ(n.sharedLoad.bytes, 128 * kSharedLoads * kWarps) << way;
        EXPECT_EQ(n.sharedStore.requests, 34 * kWarps) << way;
        EXPECT_EQ(n.sharedStore.transactions, 34 * kWarps) << way;
        EXPECT_EQ(says(*r, std::to_string(way) + "-way shared-memory bank conflicts on loads"),
                  way > 1)
            << way << ": " << verdictsOf(*r);
        EXPECT_FALSE(says(*r, std::to_string(way) + "-way shared-memory bank conflicts on stores"))
            << way << ": " << verdictsOf(*r);
    }

    // The divergent branch: a quarter of the lanes run the FFMAs, and the FLOPs say how many.
    const auto* divergent = findByScope(records, "instructions/divergent");
    ASSERT_NE(divergent, nullptr);
    EXPECT_EQ(divergent->flopsOf(roofline::FlopKind::FP32),
              2.0 * kDivergentFmas * kDivergentLanes * kWarps);
    const double efficiency =
        divergent->instructions.threadPredicatedOn / (32 * divergent->instructions.warp);
    EXPECT_GT(efficiency, 0.25);
    EXPECT_LT(efficiency, 0.35);
    EXPECT_TRUE(says(*divergent, "predicated: ")) << verdictsOf(*divergent);

    // Integer only: no floating-point instruction of any class, all threads active.
    const auto* integer = findByScope(records, "instructions/integer");
    ASSERT_NE(integer, nullptr);
    EXPECT_EQ(integer->totalFlops(), 0.0);
    EXPECT_EQ(integer->instructions.classOf(InstructionClass::FP32), 0.0);
    EXPECT_EQ(integer->instructions.classOf(InstructionClass::FP64), 0.0);
    EXPECT_EQ(integer->instructions.classOf(InstructionClass::FP16), 0.0);
    EXPECT_GT(integer->instructions.classOf(InstructionClass::Integer), 64 * 3 * 32 * kWarps);
    EXPECT_TRUE(integer->noFloatingPointWork());
    EXPECT_FALSE(says(*integer, "predicated")) << verdictsOf(*integer);
}

} // namespace calibration
