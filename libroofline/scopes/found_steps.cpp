#include "scopes/found_steps.hpp"
#include "collect/iteration_model.hpp"

#include "core/log.hpp"
#include "core/xla_ops.hpp"

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

bool FoundSteps::programRangeOpen(Stack& stack, bool& complete) noexcept {
    if (!std::any_of(stack.begin(), stack.end(), programRange))
        return false;
    programRanges_ = true;
    openAtNextLaunch_ = false;
    if (open_)
        complete = closeFoundStep(target_, stack);
    open_ = false;
    core::log().info("libroofline: the program opens NVTX ranges of its own: its steps are "
                     "taken from them, no longer from {}",
                     frameworkSteps_ > 0 ? "the framework's step" : "the launch stream");
    return true;
}

void FoundSteps::open(Stack& stack) noexcept {
    try {
        const std::string name = "step " + std::to_string(stepsOpened_++);
        openFoundStep(target_, stack, name.c_str());
        open_ = true;
    } catch (...) {
        // out of memory: no step opened; the launches stay outside every scope
    }
}

bool FoundSteps::launch(const core::Launch& l, bool graph, Stack& stack,
                        std::size_t kernels) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (programRanges_)
        return false;
    ++launches_;
    kernels_ += kernels;
    bool complete = false;
    if (programRangeOpen(stack, complete))
        return complete;
    if (frameworkSteps_ > 0) { // the framework's step: it began at the launch after its end
        if (openAtNextLaunch_) {
            openAtNextLaunch_ = false;
            open(stack);
        }
        return false;
    }
    if (graph)
        return false;
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
        open(stack);
    }
    return false;
}

bool FoundSteps::frameworkStep(const char* source, Stack& stack) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        return stepEnds(std::string(source ? source : "") + "'s step", stack);
    } catch (...) {
        return false; // out of memory: no step ends here
    }
}

namespace {

// "XlaModule:#hlo_module=jit_step,program_id=3#" -> "a run of XLA executable jit_step"
std::string runSource(const std::string& module) {
    const std::size_t at = module.find("hlo_module=");
    if (at == std::string::npos)
        return "a run of XLA executable " + module;
    return "a run of XLA executable " +
           module.substr(at + 11, module.find_first_of(",#", at + 11) - at - 11);
}

} // namespace

bool FoundSteps::moduleRunEnded(const std::string& module, Stack& stack) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (programRanges_)
        return false;
    try {
        const std::uint64_t launches = kernels_ - kernelsAtModuleEnd_;
        kernelsAtModuleEnd_ = kernels_;
        auto it = modules_.find(module);
        if (it == modules_.end()) {
            if (modules_.size() < kModulesFollowed)
                modules_.emplace(module, ModuleRuns{1, launches});
            return false;
        }
        ModuleRuns& m = it->second;
        ++m.runs;
        m.launches = launches;
        if (module != stepModule_) {
            const auto step = modules_.find(stepModule_);
            if (m.launches < kStepLaunches ||
                (step != modules_.end() && step->second.launches >= m.launches))
                return false;
            if (!stepModule_.empty()) {
                source_ = runSource(module);
                core::log().info("libroofline: the program's step ends where {} ends from now on "
                                 "({} launches, {} before)",
                                 source_, m.launches,
                                 step == modules_.end() ? 0 : step->second.launches);
            }
            stepModule_ = module;
        }
        return stepEnds(runSource(module), stack);
    } catch (...) {
        return false; // out of memory: no step ends here
    }
}

bool FoundSteps::stepEnds(const std::string& source, Stack& stack) noexcept {
    if (programRanges_)
        return false;
    bool complete = false;
    if (programRangeOpen(stack, complete))
        return complete;
    if (frameworkSteps_++ == 0) {
        try {
            source_ = source;
        } catch (...) {
            // out of memory: the step goes unnamed in the exit line
        }
        core::log().info("libroofline: the program opens no NVTX range: its step ends where "
                         "{} ends (after {} launches), no longer searched in its launch "
                         "stream",
                         source_, launches_);
    }
    if (open_) {
        open_ = false;
        complete = closeFoundStep(target_, stack);
    }
    openAtNextLaunch_ = !complete;
    return complete;
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
    Summary s;
    s.programRanges = programRanges_;
    s.cycle = lastCycle_;
    s.launches = launches_;
    s.frameworkSteps = frameworkSteps_;
    s.steps = stepsOpened_;
    s.following = frameworkSteps_ > 0 || cycle_.length() != 0;
    try {
        s.source = source_;
    } catch (...) {
        // out of memory: unnamed
    }
    return s;
}

namespace {

// Tells the session running now, if it searches for the step, that one ended (`ends` on its
// FoundSteps and stack, locked); the session goes idle when that completed its profile.
template <typename Ends> void tellSession(Ends ends) noexcept {
    ScopeTarget* t = scopeTarget();
    if (t == nullptr || t->foundSteps == nullptr)
        return;
    bool complete = false;
    {
        SessionStack open(*t);
        complete = ends(*t->foundSteps, open.stack());
    }
    if (complete && t->complete) // nothing left to measure: the session goes idle, no lock held
        t->complete(t->user);
}

} // namespace

bool xlaModuleRange(std::string_view domain, std::string_view name) noexcept {
    return domain == core::kXlaDomain && core::xlaExecutableRun(name);
}

void rangeClosed(std::string_view domain, const std::string& name) noexcept {
    if (xlaModuleRange(domain, name))
        tellSession([&](FoundSteps& f, Stack& s) { return f.moduleRunEnded(name, s); });
}

void frameworkStepEnds(const char* source) noexcept {
    tellSession([&](FoundSteps& f, Stack& s) { return f.frameworkStep(source, s); });
}

} // namespace roofline::collect
