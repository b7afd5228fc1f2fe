#pragma once
// A training loop shaped like a real trainer's (GPT-2's): one numbered top-level range per step,
// a validation pass with numbered layer ranges inside step 0 and in a last step that only
// validates, the profiler starting at the first launch with three ranges already open. The ranges
// go to the process's scope stacks (as NVTX pushes and pops do); what a launch reaches is the
// driver: the collector alone, or a whole session.
#include "scopes/scope_stacks.hpp"
#include "core/recording.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect::testing {

class TrainLoopShape {
public:
    static constexpr int kLayers = 3;
    /// A steady step: forward (two launches per layer and the classifier), backward (one per
    /// layer), the optimizer.
    static constexpr std::uint64_t kStepLaunches = 2 * kLayers + 1 + kLayers + 1;

    virtual ~TrainLoopShape() = default;
    int currentStep = 0;
    /// Validation also at every step n > 0 with n % validateEvery == 0 (0: only at the first and
    /// last steps), as trainers that validate every N steps.
    int validateEvery = 0;

    /// Steps 0..steps, the last one only validating.
    void run(int steps) {
        for (int n = 0; n <= steps; ++n)
            step(n, n == steps, n == 0);
    }

protected:
    /// One kernel launch (`gridX` tells the layers' launches apart only by scope).
    virtual void launch(const std::string& name, std::uint32_t gridX) = 0;
    /// Called once, before the run's first launch, three ranges deep.
    virtual void beforeFirstLaunch() {}

    static void push(const std::string& name) { trackPush("", name.c_str(), true); }
    static void pop() { trackPop("", true); }

private:
    // A forward pass: per layer a GEMM and a layernorm, then the classifier.
    void forward(const std::string& prefix) {
        for (int l = 0; l < kLayers; ++l) {
            push("Layer " + std::to_string(l));
            launch(prefix + "matmul_forward", 4);
            launch(prefix + "layernorm_forward", 2);
            pop();
        }
        launch(prefix + "classifier", 8);
    }
    // Step `n`: validation first at step 0 and at the last step (which does nothing else).
    void step(int n, bool last, bool first) {
        currentStep = n;
        push("Train step " + std::to_string(n));
        if (n == 0 || last || (validateEvery > 0 && n % validateEvery == 0)) {
            push("validation");
            push("Layer 0");
            if (first)
                beforeFirstLaunch();
            launch("val_matmul_forward", 4);
            launch("val_layernorm_forward", 2);
            pop();
            for (int l = 1; l < kLayers; ++l) {
                push("Layer " + std::to_string(l));
                launch("val_matmul_forward", 4);
                launch("val_layernorm_forward", 2);
                pop();
            }
            launch("val_classifier", 8);
            pop();
        }
        if (!last) {
            forward("");
            push("backward");
            for (int l = kLayers - 1; l >= 0; --l) {
                push("Layer " + std::to_string(l));
                launch("matmul_backward", 4);
                pop();
            }
            pop();
            launch("adamw", 16);
        }
        pop();
    }
};

/// One steady step's records, each with values, numbered in program order from the step's start.
inline void expectOneStepInProgramOrder(const std::vector<core::LaunchInfo>& records) {
    constexpr std::uint64_t n = TrainLoopShape::kStepLaunches;
    ASSERT_EQ(records.size(), n);
    for (std::size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(records[i].launchIndex, i);
        EXPECT_EQ(records[i].position, static_cast<std::int64_t>(i)) << records[i].name;
        EXPECT_FALSE(records[i].values.empty())
            << i << " " << records[i].name << ": " << records[i].note;
        EXPECT_EQ(records[i].scopePath.rfind("Train step #", 0), 0u) << records[i].scopePath;
    }
    EXPECT_EQ(records.front().name, "matmul_forward");
    EXPECT_EQ(records.front().scopePath, "Train step #/Layer 0");
    EXPECT_EQ(records[n - 2].scopePath, "Train step #/backward/Layer 0");
    EXPECT_EQ(records.back().name, "adamw");
}

} // namespace roofline::collect::testing
