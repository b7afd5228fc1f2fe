#include "collect/found_steps.hpp"
#include "collect/iteration_model.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <string>

namespace roofline::collect {

namespace {

// A range of the program's own: neither a library's (NCCL's communicator set-up stays open for
// the whole job) nor a found step.
bool programRange(const Frame& f) noexcept {
    return f.domain != kFoundStepDomain && !libraryDomain(f.domain);
}

} // namespace

bool FoundSteps::launch(const core::Launch& l, Stack& stack) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (programRanges_)
        return false;
    bool complete = false;
    if (std::any_of(stack.begin(), stack.end(), programRange)) {
        programRanges_ = true;
        if (open_)
            complete = closeFoundStep(target_, stack);
        open_ = false;
        core::log().info("libroofline: the program opens NVTX ranges of its own: its steps are "
                         "taken from them, no longer from the launch stream");
        return complete;
    }
    const LaunchCycle::Event e = cycle_.launch(launchSignature(l));
    if (e == LaunchCycle::Event::None)
        return false;
    if (open_) {
        open_ = false;
        complete = closeFoundStep(target_, stack);
        if (complete)
            return true; // nothing left to measure: no next step
    }
    if (e == LaunchCycle::Event::Begins) {
        if (cycle_.length() != lastCycle_) {
            lastCycle_ = cycle_.length();
            core::log().info("libroofline: the program opens no NVTX range: its step is the cycle "
                             "of {} launches its launch stream repeats (found after {} launches)",
                             lastCycle_, cycle_.launches() - 1);
        }
        const std::string name = "step " + std::to_string(cycle_.steps() - 1);
        openFoundStep(target_, stack, name.c_str());
        open_ = true;
    }
    return false;
}

void FoundSteps::drop(Stack& stack) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!open_)
        return;
    open_ = false;
    dropFoundStep(stack);
}

FoundSteps::Summary FoundSteps::summary() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return Summary{programRanges_, lastCycle_, cycle_.launches()};
}

} // namespace roofline::collect
