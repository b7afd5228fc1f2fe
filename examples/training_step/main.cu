// The realistic training-step program (train_step.hpp), runnable on its own or profiled:
//
//   train_step [--steps N] [--layers L] [--dim C] [--batch B] [--seq T] [--vocab V]
//              [--profile] [--output FILE.rfl] [--no-validation] [--validate-every N]
//              [--no-thread]
//
// --profile wraps the loop in a roofline::Session configured from the ROOFLINE_* variables
// (docs/configuration.md) and runs at least N steps, more while the replay needs passes; the
// recording goes to --output (default train_step.rfl) for `roofline report`. Prints each step's
// loss and a fingerprint of the final parameters: a profiled run must print the same ones.
#include "train_step.hpp"

#include <roofline/roofline.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

int main(int argc, char** argv) {
    int steps = 10;
    bool profile = false;
    std::string output = "train_step.rfl";
    roofline::example::TrainConfig config;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "train_step: %s needs a value\n", name);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--steps")
            steps = std::atoi(value("--steps"));
        else if (a == "--layers")
            config.layers = std::atoi(value("--layers"));
        else if (a == "--dim")
            config.dim = std::atoi(value("--dim"));
        else if (a == "--batch")
            config.batch = std::atoi(value("--batch"));
        else if (a == "--seq")
            config.seq = std::atoi(value("--seq"));
        else if (a == "--vocab")
            config.vocab = std::atoi(value("--vocab"));
        else if (a == "--profile")
            profile = true;
        else if (a == "--output")
            output = value("--output");
        else if (a == "--no-validation")
            config.validation = false;
        else if (a == "--validate-every")
            config.validateEvery = std::atoi(value("--validate-every"));
        else if (a == "--no-thread")
            config.backwardThread = false;
        else if (a == "--no-nvtx")
            config.nvtxRanges = false;
        else {
            std::fprintf(stderr,
                         "usage: train_step [--steps N] [--layers L] [--dim C] [--batch B] "
                         "[--seq T] [--vocab V] [--profile] [--output FILE] [--no-validation] "
                         "[--validate-every N] [--no-thread] [--no-nvtx]\n");
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    try {
        roofline::example::Trainer trainer(config);
        using Clock = std::chrono::steady_clock;
        const auto msSince = [](Clock::time_point t) {
            return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
        };
        std::unique_ptr<roofline::Session> session;
        auto t0 = Clock::now();
        if (profile) {
            roofline::Options options = roofline::Options::fromEnvironment();
            if (options.outputPath.empty())
                options.outputPath = output;
            session = std::make_unique<roofline::Session>(options);
            std::printf("session set-up %.3f ms\n", msSince(t0));
        }
        // Profiled, the loop runs at least --steps steps and goes on while the replay needs
        // passes (Session::needsPass(), asked after every step).
        int n = 0;
        bool more = true;
        for (; (n < steps || (session && more)) && n < 100000; ++n) {
            t0 = Clock::now();
            const float loss = trainer.step(n); // synchronizes: the loss is read back
            if (n == 0 && config.validation)
                std::printf("step 0 validation loss %.6f\n", trainer.validationLoss());
            if (session)
                more = session->needsPass();
            // Wall time of the step as the application sees it (the replay's cost included).
            std::printf("step %d loss %.6f (embedding backward grid %d) %.3f ms\n", n, loss,
                        trainer.distinctTokens(n), msSince(t0));
        }
        if (config.validation) // the last "step" validates only, as GPT-2's trainer's does
            std::printf("step %d final validation loss %.6f\n", n, trainer.finalValidation(n));
        std::printf(
            "%d steps, parameters fingerprint %016llx\n", n,
            static_cast<unsigned long long>(roofline::example::fingerprint(trainer.parameters())));
        if (session) {
            t0 = Clock::now();
            const auto& records = session->stop();
            std::printf("%zu records (%zu without counters); %s\n", records.size(),
                        session->droppedKernels(), session->status().c_str());
            std::printf("session stop %.3f ms\n", msSince(t0));
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "train_step: %s\n", e.what());
        return 1;
    }
    // Peak resident host memory of the process (what profiling state adds shows against a plain
    // run: roofline-bench-overhead).
    if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f))
            if (std::strncmp(line, "VmHWM:", 6) == 0)
                std::printf("peak host memory %ld KiB\n", std::strtol(line + 6, nullptr, 10));
        std::fclose(f);
    }
    return 0;
}
