#include "collect/collector.hpp"

#include "core/log.hpp"

namespace roofline::collect {

namespace {

// The configuration as the collector runs it (read-only from then on).
CollectorConfig normalized(CollectorConfig c) {
    if (c.passes == 0)
        c.passes = 1;
    if (!modeFacts(c.mode).measuresAgain) { // aligned passes measure a group again
        c.alignedPasses = 0;
        c.alignAvailable = false;
    }
    return c;
}

} // namespace

Collector::Collector(CollectorConfig config, std::vector<CounterBackend*> backends, Level level,
                     const MakeStrategy& makeStrategy)
    : shared_(normalized(std::move(config)), level), facts_(modeFacts(shared_.config.mode)) {
    const CollectorConfig& c = shared_.config;
    for (CounterBackend* b : backends)
        slots_.push_back(std::make_unique<DeviceSlot>(slots_.size(), b, shared_));
    if (slots_.empty()) // timing-only with no device backends
        slots_.push_back(std::make_unique<DeviceSlot>(0, nullptr, shared_));
    shared_.observeFirst = c.observesFirstIteration() && level == Level::Counters;
    // Only kernel replay times them: kernel activity beside a user replay (iteration, scope,
    // window) zeroes its later ranges' instruction counters (design 0011).
    shared_.graphKernelsTimed = facts_.replaysKernels;
    std::vector<DeviceSlot*> slots;
    for (auto& s : slots_)
        slots.push_back(s.get());
    strategy_ = makeStrategy(shared_, std::move(slots));
    // Reuse observes iterations before it measures, and the first iteration is observed only: no
    // profiler until the first pass (code loaded meanwhile -- a first iteration's lazy loading --
    // costs no re-creation).
    if (c.profilerReleasedAtStart() && level == Level::Counters)
        for (auto& s : slots_)
            if (s->usable())
                s->guard([&] { s->backend->release(0); });
}

Collector::~Collector() = default;

void Collector::setFailureHandler(std::function<void(const std::string&)> handler) {
    std::lock_guard<std::mutex> lock(mutex_);
    shared_.onFailure = std::move(handler);
}

void Collector::setTimingHandler(std::function<void()> handler) {
    std::lock_guard<std::mutex> lock(mutex_);
    shared_.onTimingNeeded = std::move(handler);
}

void Collector::onCodeLoaded(std::size_t slot) noexcept {
    if (slot < slots_.size())
        slots_[slot]->codeLoaded();
}

// ---- scopes -----------------------------------------------------------------------------------

void Collector::onPush(Stack& stack, std::uint64_t thread) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_)
        return;
    try {
        const bool iteration = shared_.model.pushed(stack);
        if (!followsIterations())
            return;
        if (iteration && shared_.model.opened(thread))
            strategy_->iterationBegins();
        const IterationModel& model = shared_.model;
        if (model.inside() && thread == model.thread() &&
            model.iterationIndex(stack) < stack.size())
            strategy_->scopePushed(stack);
    } catch (...) {
        // allocation failure: this scope is not measured, the application carries on
    }
}

void Collector::onPop(Stack& stack) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stack.empty())
        return;
    Frame& f = stack.back();
    if (!f.records.empty()) {
        strategy_->scopePopping(f);
        f.records.clear();
    }
    if (finished_ || !followsIterations())
        return;
    if (f.iteration && shared_.model.closed())
        iterationEnded();
}

void Collector::onRangeStart(std::uint64_t id, const std::string& domain,
                             const std::string& name) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        shared_.model.rangeStarted(id, domain, name);
    } catch (...) {
    }
}

void Collector::onRangeEnd(std::uint64_t id) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    shared_.model.rangeEnded(id);
}

// The iteration's passes are handled by the strategy; once it has nothing left to measure the
// profile is complete: every device's profiler is released and the session hears it once.
void Collector::iterationEnded() {
    strategy_->iterationEnds();
    if (complete_ || !strategy_->done())
        return;
    complete_ = true;
    strategy_->completed();
    completedAt_ = shared_.model.seen();
    completion_.store(true); // the session says it, as it goes idle
}

// ---- launches ---------------------------------------------------------------------------------

bool Collector::onLaunch(const Launch& l, const Stack& stack) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_ || l.slot >= slots_.size())
        return false;
    DeviceSlot& s = *slots_[l.slot];
    try {
        if (level() == Level::Sampled) { // no record: the launch goes to the step sink
            if (shared_.filtersAdmit(l, stack, true))
                strategy_->launch(s, l, stack);
            return false;
        }
        if (level() == Level::TimingOnly || s.failed || l.inGraph) {
            if (shared_.admits(l, stack)) {
                if (l.inGraph)
                    shared_.addGraphKernel(l, stack);
                else
                    shared_.addLaunch(l, stack);
            }
            return false;
        }
        strategy_->renewStaleProfiler(s);
        strategy_->launch(s, l, stack);
    } catch (...) {
        // out of memory recording a launch: the kernel still runs
    }
    return !s.failed && strategy_->profiling(s);
}

void Collector::onGraphLaunch(std::size_t slot) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_ || slot >= slots_.size())
        return;
    ++shared_.tally.graphLaunches;
    DeviceSlot& s = *slots_[slot];
    if (level() != Level::Counters || s.failed)
        return;
    strategy_->graphLaunch(s);
}

void Collector::onMemoryOperation(std::size_t slot) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_ || slot >= slots_.size() || level() != Level::Counters || slots_[slot]->failed)
        return;
    strategy_->memoryOperation(*slots_[slot]);
}

void Collector::onHostVisibleMemory() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    shared_.hostVisibleMemory = true;
}

// ---- replay helper and end --------------------------------------------------------------------

bool Collector::needsPass() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    shared_.model.driveByHelper();
    const std::uint64_t seen = shared_.model.seen();
    if (!shared_.helperActive) {
        shared_.helperActive = true;
        helperIterations_ = seen;
        return true;
    }
    const bool progressed = seen != helperIterations_;
    helperIterations_ = seen;
    bool pending = level() == Level::Counters && !finished_ && !shared_.graphsStopped() &&
                   strategy_->pending();
    if (pending && !progressed) {
        core::log().warn("libroofline: needsPass(): the last pass opened no iteration scope "
                         "(ROOFLINE_ITERATION_RANGE='{}'); ending the replay",
                         shared_.config.options.iterationRange);
        pending = false;
    }
    if (!pending)
        shared_.helperActive = false;
    return pending;
}

core::Coverage Collector::coverage() const {
    std::lock_guard<std::mutex> lock(mutex_);
    core::Coverage c;
    strategy_->coverage(c);
    return c;
}

std::size_t Collector::reuseSignatures() const noexcept {
    return strategy_ ? strategy_->progress().signatures : 0;
}

bool Collector::reuses() const noexcept {
    return strategy_ && strategy_->progress().reuses;
}

std::uint64_t Collector::completedAfterIterations() const noexcept {
    return completedAt_ != 0 ? completedAt_ : strategy_ ? strategy_->progress().completedAt : 0;
}

void Collector::releaseBackends() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& s : slots_)
        s->backend = nullptr;
}

CollectionResult Collector::finish() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    CollectionResult result;
    if (finished_)
        return result;
    finished_ = true;
    strategy_->finish();
    // The session destroys the backends after this: nothing here may reach them again
    // (coverage() once read one after teardown, a use-after-free on every iteration-replay stop).
    for (auto& s : slots_)
        s->backend = nullptr;
    try {
        shared_.model.settlePaths(shared_.records);
    } catch (...) {
        // out of memory: records keep the uniform paths
    }
    try {
        shared_.records.finish(facts_.programOrder);
    } catch (...) {
        // out of memory: records stay in the order they were measured
    }
    result.launches = std::move(shared_.records.all());
    result.images = std::move(shared_.records.keptImages());
    result.counts.tally = shared_.tally;
    result.counts.superseded = shared_.records.supersededCount();
    result.counts.passes = strategy_->passes();
    result.counts.level = level();
    result.counts.failure = shared_.failure;
    result.counts.firstIterationIssue = shared_.firstIterationIssue;
    result.counts.outsideWhy = shared_.outsideWhy;
    try {
        result.counts.outsideAlikeStep = shared_.outsideShapes.alikeStep(result.launches);
    } catch (...) {
        // out of memory: the exit line does not say how many ran the step's kernels
    }
    result.counts.onlyObservedIterationRan = shared_.observingFirst();
    result.counts.completedAfterIterations = completedAfterIterations();
    result.counts.reuses = reuses();
    if (shared_.config.shares()) {
        result.counts.shareIndex = shared_.config.shareIndex;
        result.counts.shareCount = shared_.config.shareCount;
    }
    try {
        if (level() == Level::Counters)
            strategy_->coverage(result.counts.coverage);
    } catch (...) {
    }
    return result;
}

} // namespace roofline::collect
