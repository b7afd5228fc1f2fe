// roofline-bench-observe: what repeated-launch reuse costs on the launch hot path once a profile
// is complete (docs/design/0009): observing every launch of an iteration (collect/
// observed_iteration) and assigning its signatures at the iteration's end. CPU only; prints ns
// per launch for a training-step-like iteration (155 launches: an embedding, 12 layers of 4
// launches in their own scopes, 96 backward launches repeated in one scope, a tail).
//   roofline-bench-observe [iterations]
#include "replay/reuse/observed_iteration.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using roofline::Dim3;
using namespace roofline::collect;

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
    const std::string kernels[] = {
        "_ZN8roofline7example46_GLOBAL__N__ec38f483_13_train_step_cu_1a7540bd16layernormForward"
        "EPKfS3_S3_P13__nv_bfloat16PfS6_i",
        "nvjet_sm90_tss_192x128_64x5_1x2_h_bz_coopB_NNT",
        "_ZN8roofline7example46_GLOBAL__N__ec38f483_13_train_step_cu_1a7540bd11geluForwardEPKfPfi",
        "nvjet_sm90_tss_96x64_64x8_1x2_h_bx_NNN"};
    ObservedIteration observed;
    ReusePlan plan(2, 16);
    std::vector<std::uint32_t> signatures, families;
    std::vector<std::string> labels;
    const std::string step = "Train step #", layer = "Train step #/forward/Layer #",
                      backward = "Train step #/backward"; // what each Frame keeps
    std::size_t launches = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) {
        observed.clear();
        std::uint64_t instance = 1;
        const auto launch = [&](int k, std::uint32_t grid, const std::string& scope) {
            observed.add(kernels[k].c_str(), Dim3{grid, 1, 1}, Dim3{256, 1, 1}, 0,
                         observed.scope(scope), instance, 0, true);
            ++launches;
        };
        launch(0, 1024, step);
        for (int l = 0; l < 12; ++l, ++instance)
            for (int k = 0; k < 4; ++k)
                launch(k, 1024 + k, layer);
        for (int l = 0; l < 12; ++l)
            for (int k = 0; k < 8; ++k)
                launch(k % 4, 2048 + k, backward);
        ++instance;
        for (int k = 0; k < 10; ++k)
            launch(k % 4, 4096 + k, step);
        observed.assign(plan, signatures, families, labels);
    }
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    std::printf("observing and assigning signatures: %.0f ns per launch (%zu launches per "
                "iteration, %d iterations, %zu signatures)\n",
                ns / static_cast<double>(launches), launches / static_cast<std::size_t>(iterations),
                iterations, plan.signatures());
}
