#include "collect/collector.hpp"
#include "collect/notes.hpp"

#include "core/demangle.hpp"
#include "core/log.hpp"
#include "core/scope_names.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>
#include <set>

namespace roofline::collect {
namespace {

// Reuse: iterations observed for a steady one (launching what the one before did) before the
// last one is taken as the reference anyway.
constexpr std::size_t kSteadyAttempts = 4;

} // namespace

Collector::Collector(CollectorConfig config, std::vector<CounterBackend*> backends, Level level)
    : config_(std::move(config)), level_(level) {
    for (CounterBackend* b : backends) {
        Slot s;
        s.backend = b;
        s.capacity = b ? b->capacity() : 0;
        s.configs = b ? std::max<std::size_t>(1, b->configurations()) : 1;
        s.failed = b == nullptr;
        slots_.push_back(std::move(s));
    }
    if (slots_.empty())
        slots_.emplace_back(); // timing-only with no device backends
    if (config_.passes == 0)
        config_.passes = 1;
    if (config_.mode != CollectionMode::IterationReplay) {
        config_.alignedPasses = 0;
        config_.alignAvailable = false;
    }
    aligned_ = config_.alignedPasses > 0 && config_.alignFromStart;
    reuse_ = config_.reuses() && level == Level::Counters;
    for (Slot& s : slots_)
        s.plan = ReusePlan(config_.reuseSamples, config_.reuseMaxGap);
    if (aligned_)
        config_.passes = config_.alignedPasses;
    codeLoads_ = std::make_unique<std::atomic<std::uint64_t>[]>(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i)
        codeLoads_[i].store(0);
    observeFirst_ = config_.observesFirstIteration() && level == Level::Counters;
    // Reuse observes iterations before it measures, and the first iteration is observed only: no
    // profiler until the first pass (code loaded meanwhile -- a first iteration's lazy loading --
    // costs no re-creation).
    if (config_.profilerReleasedAtStart() && level == Level::Counters)
        for (Slot& s : slots_)
            if (s.backend && !s.failed)
                guard(s, [&] { s.backend->release(0); });
}

void Collector::setFailureHandler(std::function<void(const std::string&)> handler) {
    std::lock_guard<std::mutex> lock(mutex_);
    onFailure_ = std::move(handler);
}

void Collector::fail(Slot& s, const std::string& why) noexcept {
    s.failed = true;
    s.running = s.group = s.passOpen = false;
    try {
        const std::string note = "profiling failed mid-run (" + why + "): timing only from here";
        for (std::int64_t m : s.members)
            if (m >= 0 && launches_[static_cast<std::size_t>(m)].values.empty())
                appendNote(launches_[static_cast<std::size_t>(m)].note, note);
        s.members.clear();
        if (level_.load() == Level::Counters) {
            level_.store(Level::TimingOnly);
            failure_ = why;
            config_.timingReason = "timing only: counter collection failed mid-run (" + why + ")";
            core::log().error("libroofline: counter collection failed mid-run: {}. The "
                              "application continues; later kernels get timing-only records.",
                              why);
            if (onFailure_)
                onFailure_(why);
        }
    } catch (...) {
    }
}

// ---- code loaded while profiling ------------------------------------------------------------
// CUPTI (2025.3, driver 580) crashes, intermittently, collecting SASS metrics on a range profiler
// that saw code loaded into its context: JIT-compiled PTX, and on the H100 also a lazily loaded
// kernel whose module had been compiled or taken from the JIT cache earlier. A profiler enabled
// after the load is safe (docs/design/0005-code-loaded-while-profiling.md). So once code was
// loaded since the profiler was enabled, it is re-created before any launch runs on it; the passes
// a group already has are lost with it, and the group restarts on a later iteration. Module loads
// are reported lock-free from the driver (the launch callback loads a lazily loaded kernel before
// the collector sees its launch).

void Collector::onCodeLoaded(std::size_t slot) noexcept {
    if (slot < slots_.size())
        codeLoads_[slot].fetch_add(1);
}

std::uint64_t Collector::codeLoads(const Slot& s) const noexcept {
    return codeLoads_[static_cast<std::size_t>(&s - slots_.data())].load();
}

// True once code was loaded since the profiler was enabled.
bool Collector::profilerStale(Slot& s) {
    return config_.reenableOnCodeLoad && s.backend && !s.failed && !s.backend->released() &&
           codeLoads(s) != s.loadsAtEnable;
}

bool Collector::reenableIfStale(Slot& s) {
    if (!profilerStale(s))
        return false;
    s.loadsAtEnable = codeLoads(s); // loads from here on (during reenable too) count again
    guard(s, [&] { s.backend->reenable(firstConfig()); });
    if (s.failed)
        return true;
    if (reenables_++ == 0)
        core::log().info("libroofline: code was loaded while counters were collected (a kernel's "
                         "first use); the profiler is re-created before it measures again, and a "
                         "replay group in progress restarts on a later iteration");
    return true;
}

void Collector::renewStaleProfiler(Slot& s) {
    if (!profilerStale(s))
        return;
    if (config_.mode == CollectionMode::KernelReplay) {
        guard(s, [&] { closeWindow(s); });
    } else if (s.passOpen) {
        guard(s, [&] { s.backend->stop(); });
        abandonGroup(s);
    } else if (s.group && s.pass > 0) {
        abandonGroup(s);
    }
    reenableIfStale(s);
}

void Collector::newGroup(Slot& s) {
    s.group = true;
    s.groupStart = iterationsSeen_;
    s.restart = false;
    s.pass = 0;
    s.itersPerPass = reuse_ ? 1 : 0; // decided after the group's first iteration (reuse: 1)
    s.members.clear();
    s.expected.clear();
    s.expectedScopes.clear();
    s.mismatch = false;
    s.mismatchNote.clear();
    s.replay.reset();
    s.config = firstConfig();
    s.subPass = s.configPass = 0;
    s.aligned.reset();
}

// The records of the group's launches go (finish() removes them): the group is measured again.
void Collector::supersedeMembers(Slot& s) {
    if (superseded_.size() < launches_.size())
        superseded_.resize(launches_.size(), false);
    for (std::int64_t m : s.members)
        if (m >= 0 && !superseded_[static_cast<std::size_t>(m)]) {
            superseded_[static_cast<std::size_t>(m)] = true;
            ++supersededCount_;
        }
    s.members.clear();
}

// The group's passes are lost (the profiler is re-created): the launches its pass 0 recorded are
// measured again by the group that replaces it, so their records go.
void Collector::abandonGroup(Slot& s) {
    supersedeMembers(s);
    s.group = false;
    s.passOpen = false;
    s.restart = true;
}

// Pass 1 just ended. When the group's pass 0 was the session's first iteration and pass 1 ran
// other kernels (not merely other grids: data-dependent launches differ in every iteration), the
// first iteration was not a steady-state one -- warm-up, a validation pass, state created on first
// use -- and its counters must not be combined with later iterations': the group starts again.
bool Collector::firstIterationDiffers(Slot& s) {
    if (config_.firstIteration != FirstIteration::SkipIfDifferent || s.groupStart != 1 ||
        !firstIterationIssue_.empty())
        return false;
    const bool differs = config_.mode == CollectionMode::IterationReplay
                             ? s.replay.anyUnmatched()
                             : config_.mode == CollectionMode::ScopeReplay && s.mismatch;
    if (!differs)
        return false;
    firstIterationIssue_ =
        config_.mode == CollectionMode::IterationReplay ? s.replay.firstIssue() : s.mismatchNote;
    core::log().info("libroofline: the first iteration differs from the next ({}): it is not "
                     "measured, and its replay group starts again on a later iteration",
                     firstIterationIssue_);
    return true;
}

// ---- helpers ------------------------------------------------------------------------------

std::vector<core::NvtxRange> Collector::views(const Stack& stack) const {
    std::vector<core::NvtxRange> v;
    v.reserve(stack.size());
    for (const Frame& f : stack)
        v.push_back({f.domain, f.name});
    return v;
}

std::vector<core::NvtxRange> Collector::startEndViews() const {
    std::vector<core::NvtxRange> v;
    for (const auto& [id, f] : startEnd_)
        v.push_back({f.domain, f.name});
    return v;
}

std::string Collector::path(const Stack& stack, std::size_t from, bool raw) const {
    const std::size_t iteration = raw ? stack.size() : iterationIndex(stack);
    std::string p;
    for (std::size_t i = from; i < stack.size(); ++i) {
        if (!p.empty())
            p += '/';
        p += i == iteration ? core::uniformInstance(stack[i].name) : stack[i].name;
    }
    if (p.empty() && from == 0 && !startEnd_.empty())
        p = startEnd_.rbegin()->second.name; // kernels inside start/end ranges only
    return p;
}

bool Collector::limitReached() const noexcept {
    return config_.launchCount != 0 && taken_ >= config_.launchCount;
}

bool Collector::takeCount() {
    if (skipped_ < config_.launchSkip) {
        ++skipped_;
        return false;
    }
    if (limitReached())
        return false;
    ++taken_;
    return true;
}

bool Collector::admits(const Launch& l, const Stack& stack) {
    return filtersAdmit(l, stack) && takeCount();
}

bool Collector::filtersAdmit(const Launch& l, const Stack& stack) {
    if (stack.empty() && startEnd_.empty())
        return false; // outside every scope: not profiled
    if (config_.filter.hasNvtxFilter() && !config_.filter.nvtxAdmits(views(stack), startEndViews()))
        return false;
    if (config_.filter.hasNameFilter() &&
        !config_.filter.nameAdmits(core::demangle(l.mangledName), l.mangledName))
        return false;
    return true;
}

// The scope path with every instance number made uniform ("Train step #/Layer #"; identifiers
// such as "conv2" or "eng28" stay): launches of identical layers share it (a reuse signature's
// scope part).
std::string Collector::uniformPath(const Stack& stack) const {
    const std::string p = path(stack, 0, true); // raw: "case1" is not an instance of "case0"
    std::string out;
    std::size_t at = 0;
    while (at <= p.size()) {
        const std::size_t slash = std::min(p.find('/', at), p.size());
        if (!out.empty() || at > 0)
            out += '/';
        const std::string part = p.substr(at, slash - at);
        // "Layer 7" is an instance of a repeated scope; "conv2" or "eng28" names a different one.
        out += core::separatedInstance(part) ? core::uniformInstance(part) : part;
        at = slash + 1;
    }
    return out;
}

std::size_t Collector::iterationIndex(const Stack& stack) const {
    if (config_.iterationRange.empty())
        return 0;
    for (std::size_t i = 0; i < stack.size(); ++i)
        if (core::isInstanceOf(stack[i].name, config_.iterationRange))
            return i;
    return stack.size();
}

// The range just pushed opens an iteration. Without an iteration range that is the outermost
// range -- unless the first one was numbered ("Train step 0"): then only ranges of its family
// are iterations, so that a numbered range a worker thread opens at its own top ("Layer 3") or
// a top-level range between steps is never taken for one.
bool Collector::isIterationFrame(const Stack& stack) {
    if (stack.empty() || iterationIndex(stack) != stack.size() - 1)
        return false;
    if (!config_.iterationRange.empty())
        return true;
    const std::string& name = stack.back().name;
    if (!iterationFamilyDecided_) {
        iterationFamilyDecided_ = true;
        if (core::separatedInstance(name))
            iterationFamily_ = core::uniformInstance(name);
    }
    return iterationFamily_.empty() || core::uniformInstance(name) == iterationFamily_;
}

// A launch's identity as a record needs it; the demangled name is left to the caller.
core::LaunchInfo Collector::launchInfo(const Launch& l, const Stack& stack) const {
    core::LaunchInfo info;
    info.mangledName = l.mangledName;
    setScope(info, stack);
    info.grid = l.grid;
    info.block = l.block;
    info.registersPerThread = l.registers;
    info.sharedMemBytes = l.sharedMemBytes();
    info.stream = l.stream;
    info.threadId = l.threadId;
    info.correlationId = l.correlationId;
    info.device = l.device;
    if (l.inGraph)
        info.note = level_ == Level::Counters && config_.mode != CollectionMode::KernelReplay
                        ? "a kernel node of a CUDA graph launch: no counters (CUPTI's range "
                          "profiler does not measure graph kernels) and no duration (activity "
                          "records would zero this replay's instruction counters; kernel replay "
                          "times graph kernels)"
                        : "a kernel node of a CUDA graph launch: no counters (CUPTI's range "
                          "profiler does not measure graph kernels); its duration comes from CUDA "
                          "activity records";
    return info;
}

std::int64_t Collector::addLaunch(const Launch& l, const Stack& stack) {
    core::LaunchInfo info = launchInfo(l, stack);
    info.launchIndex = launches_.size();
    info.name = core::demangle(info.mangledName);
    if (level_ == Level::TimingOnly)
        appendNote(info.note, config_.timingReason);
    launches_.push_back(std::move(info));
    return static_cast<std::int64_t>(launches_.size() - 1);
}

// ---- scopes ---------------------------------------------------------------------------------

// The record's scope: the uniform path, the raw one when it differs, and the iteration instance.
void Collector::setScope(core::LaunchInfo& info, const Stack& stack) const {
    info.scopePath = path(stack);
    const std::size_t iteration = iterationIndex(stack);
    if (iteration >= stack.size())
        return;
    const Frame& f = stack[iteration];
    info.iteration = f.instance;
    // The raw path differs only when the iteration scope's name ends in a number.
    if (!f.name.empty() && std::isdigit(static_cast<unsigned char>(f.name.back()))) {
        info.scopePathRaw = path(stack, 0, true);
        info.iterationScope = f.name;
    }
}

// Without a configured iteration range the outermost scope is the iteration scope, and a
// trailing number in its name is only taken for an instance when it stands apart from the word
// before it ("Train step 7", "iter_7", not "eng7") and at least three differently numbered scopes
// share the rest of the name ("Train step 0", "Train step 1", ...). Otherwise (benchmark cases
// "c0.conv0.eng7", "c3.seer17", a one-off "conv 1") the records keep the names as opened.
void Collector::settleIterationPaths() {
    if (!config_.iterationRange.empty())
        return;
    for (core::LaunchInfo& l : launches_) {
        if (l.scopePathRaw.empty())
            continue;
        const auto it = numberedScopes_.find(core::uniformInstance(l.iterationScope));
        if (it != numberedScopes_.end() && it->second.size() >= 3 &&
            core::separatedInstance(l.iterationScope))
            continue;
        if (l.scopeRecord && l.name == core::uniformInstance(l.iterationScope))
            l.name = l.iterationScope;
        l.scopePath = std::move(l.scopePathRaw);
        l.scopePathRaw.clear();
    }
}

void Collector::onPush(Stack& stack, std::uint64_t thread) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_)
        return;
    const bool iteration = isIterationFrame(stack);
    stack.back().iteration = iteration;
    if (iteration) {
        const std::int64_t number = core::instanceNumber(stack.back().name);
        stack.back().instance = number >= 0 ? number : iterationScopes_;
        ++iterationScopes_;
        if (number >= 0) {
            try {
                auto& names = numberedScopes_[core::uniformInstance(stack.back().name)];
                if (names.size() < 3)
                    names.insert(stack.back().name);
            } catch (...) {
                // out of memory: this scope's records keep the name as opened
            }
        }
    }
    if (level_ != Level::Counters || config_.mode == CollectionMode::KernelReplay)
        return;
    try {
        if (iteration) {
            if (iterationsOpen_++ == 0)
                beginIteration(thread);
        }
        if (config_.mode == CollectionMode::ScopeReplay && iterationsOpen_ > 0 &&
            thread == iterationThread_ && iterationIndex(stack) < stack.size())
            scopePush(stack);
    } catch (...) {
        // allocation failure: this scope is not measured, the application carries on
    }
}

void Collector::onPop(Stack& stack) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stack.empty())
        return;
    Frame& f = stack.back();
    for (std::size_t i = 0; i < f.records.size() && i < slots_.size(); ++i)
        if (f.records[i] != -2 && slots_[i].passOpen)
            guard(slots_[i], [&] { slots_[i].backend->popRange(); });
    f.records.clear();
    if (finished_ || level_ != Level::Counters || config_.mode == CollectionMode::KernelReplay)
        return;
    if (f.iteration && iterationsOpen_ > 0 && --iterationsOpen_ == 0)
        endIteration();
}

void Collector::onRangeStart(std::uint64_t id, const std::string& domain,
                             const std::string& name) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        startEnd_[id] = Frame{domain, name, {}};
    } catch (...) {
    }
}

void Collector::onRangeEnd(std::uint64_t id) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    startEnd_.erase(id);
}

void Collector::beginIteration(std::uint64_t thread) {
    ++iterationsSeen_;
    iterationThread_ = thread;
    for (Slot& s : slots_) {
        if (s.failed)
            continue;
        s.k = 0;
        s.observed.clear();
        s.iterSigs.clear();
        s.iterFamilies.clear();
        s.iterInfo.clear();
        if (!s.passOpen)
            s.scopeCount = 0;
        s.passStartedThisIteration = false;
        s.completedThisIteration = false;
        if (s.passOpen)
            continue; // a pass spanning several iterations goes on
        if (!s.group) {
            if (graphsStoppedReplay()) {
                s.restart = false;
                continue; // graph launches leave nothing to measure (onGraphLaunch)
            }
            if (reuse_ && !s.cycle)
                continue; // nothing to measure: this iteration is only observed
            if (observeFirst_ && iterationsSeen_ == 1) {
                firstIterationIssue_ = "observed only (warm-up: lazily loaded kernels, "
                                       "validation, state created on first use; "
                                       "ROOFLINE_FIRST_ITERATION=measure measures it)";
                continue;
            }
            if (limitReached()) {
                s.restart = false;
                continue; // launch count reached: no new groups, no cost
            }
            if (!config_.measureAfterComplete && !helperUsed_ && !s.restart && windowsComplete()) {
                if (completedAtIteration_ == 0) // the iteration before this one completed it
                    completedAtIteration_ = iterationsSeen_ - 1;
                completeProfile(s);
                continue; // every launch of the steady iteration has its record
            }
            newGroup(s);
        }
        if (s.offset == 0 || config_.mode == CollectionMode::ScopeReplay)
            startPass(s);
    }
}

void Collector::startPass(Slot& s) {
    if (!s.failed && s.backend->released()) { // a fresh profiler: loads from here on count
        guard(s, [&] { s.backend->acquire(); });
        s.loadsAtEnable = codeLoads(s);
    }
    if (profilerStale(s)) {
        if (s.pass > 0) { // the passes so far go with the old profiler: start the group again
            abandonGroup(s);
            newGroup(s);
        }
        reenableIfStale(s);
    }
    guard(s, [&] {
        if (config_.flushCaches)
            s.backend->flushCaches();
        s.backend->start();
        s.passOpen = true;
        s.passStartedThisIteration = true;
        s.passCount = 0;
        s.passIters = 0;
        s.scopeCount = 0;
        s.passKernels = 0;
    });
}

void Collector::endPass(Slot& s) {
    guard(s, [&] {
        const bool all = s.backend->stop();
        s.passOpen = false;
        // Aligned replay: `all` ends the configuration; the group ends with the last one.
        const bool groupDone = all && (!aligned(s) || s.config + 1 >= s.configs);
        if (!groupDone && profilerStale(s)) { // later passes need a new profiler: restart
            abandonGroup(s);
            reenableIfStale(s);
            return;
        }
        if (s.pass > 0 && config_.mode == CollectionMode::IterationReplay)
            s.replay.endPass(s.pass, s.passCount);
        if (s.pass > 0 && config_.mode == CollectionMode::ScopeReplay &&
            s.scopeCount != s.expectedScopes.size())
            noteMismatch(s, "pass " + std::to_string(s.pass) + " opened " +
                                std::to_string(s.scopeCount) + " scopes where pass 0 opened " +
                                std::to_string(s.expectedScopes.size()));
        if (s.pass == 0 && !groupDone && config_.mode == CollectionMode::IterationReplay &&
            std::none_of(s.members.begin(), s.members.end(),
                         [](std::int64_t m) { return m >= 0; })) {
            // No launch of this pass 0 was admitted (filters, launch skip, worker threads
            // outside the scopes): its later passes would measure nothing, and would spend
            // iterations whose launches a filter may admit. The group ends here; the next
            // iteration starts a new one (on a fresh profiler: CUPTI's replay back at pass 0).
            // A loop driven by needsPass() alone stops here: its region admits nothing.
            ++emptyGroups_;
            abandonGroup(s);
            s.restart = false; // nothing to redo: needsPass() does not wait for it
            recreate(s);
            return;
        }
        if (s.pass == 1 && firstIterationDiffers(s)) {
            abandonGroup(s);
            // A fresh profiler: CUPTI's user replay does not start again at pass 0 on a new
            // configuration alone (measured: the restarted group's first passes then had no
            // values, tensor FLOPs NaN), as it does after re-creation (design 0005).
            recreate(s);
            return;
        }
        if (switchToAligned(s))
            return;
        if (aligned(s))
            s.aligned.endPass(s.pass, s.subPass == 0);
        ++s.pass;
        ++s.subPass;
        if (all && aligned(s))
            completeConfiguration(s);
        if (groupDone) {
            if (aligned(s))
                completeAligned(s);
            else
                completeImage(s);
            s.group = false;
            if (s.redo) { // more counters now: the same window again, from the next iteration
                s.redo = false;
                s.restart = true;
                return;
            }
            if (&s == &slots_[0] && config_.mode == CollectionMode::IterationReplay) {
                if (s.itersPerPass > 1)
                    coveredWhole_ = true;
                else
                    coveredOffsets_.insert(s.offset);
            }
            s.completedThisIteration = true;
        }
    });
}

void Collector::endIteration() {
    if (!slots_.empty()) { // what one iteration launches (the first one may differ: not counted)
        const std::uint64_t launches = slots_[0].k;
        if (iterationsEnded_ >= 2 && launches != lastIterationLaunches_)
            launchesVaried_ = true;
        lastIterationLaunches_ = launches;
        ++iterationsEnded_;
        countIterationLaunches(launches);
    }
    for (Slot& s : slots_) {
        if (s.failed)
            continue;
        if (reuse_ && s.observing) { // the iteration is complete: its places, so its signatures
            s.observed.assign(s.plan, s.iterSigs, s.iterFamilies, s.iterLabels);
            stopObservingIfUnbounded(s);
        }
        const std::size_t capacity = s.backend ? s.backend->capacity() : 0;
        if (s.passOpen) {
            ++s.passIters;
            const std::size_t perIteration =
                config_.mode == CollectionMode::ScopeReplay ? s.scopeCount : s.k;
            if (s.itersPerPass == 0) {
                // Short iterations share a pass (up to an image's worth of launches), which
                // amortizes the per-pass cost; the replay helper keeps one iteration per pass.
                // Half an image of margin covers launches between iterations and variations.
                s.itersPerPass = config_.iterationsPerPass != 0 ? config_.iterationsPerPass
                                 : (s.offset == 0 && perIteration > 0 && !helperActive_)
                                     ? std::max<std::size_t>(1, capacity / (2 * perIteration))
                                     : 1;
            }
            if (s.passIters < s.itersPerPass)
                continue;
        }
        if (s.passOpen)
            endPass(s);
        if (config_.mode != CollectionMode::IterationReplay)
            continue;
        if (reuse_) {
            if (s.completedThisIteration)
                advanceCycle(s);
            else if (s.group && !s.passStartedThisIteration && s.k <= s.offset)
                dropCycle(s); // the iteration ended before the window: not the reference's shape
            // A cycle refers to a steady iteration: one that launched what the one before did
            // (the first often runs a validation pass or creates state).
            // Launches no earlier cycle measured anything like (a new kernel, block or scope):
            // the replay helper waits for them to form a steady iteration.
            const bool unmeasured =
                std::any_of(s.iterSigs.begin(), s.iterSigs.end(), [&](std::uint32_t id) {
                    return id != ReusePlan::kNotMeasured && !s.plan.familyMeasured(id);
                });
            // A program whose iterations never repeat exactly is taken as it is after a few.
            bool steady = s.iterFamilies == s.prevFamilies;
            if (!steady && !s.cycle && (s.cyclesDone == 0 || unmeasured) &&
                ++s.unsteady >= kSteadyAttempts)
                steady = true;
            s.prevFamilies.swap(s.iterFamilies);
            if (steady && !s.cycle && !s.group && !s.restart) {
                maybeStartCycle(s, unmeasured);
                if (!s.cycle && s.cyclesDone == 0)
                    s.cyclesDone = 1; // a steady iteration with nothing to measure: done
            }
            if (s.cycle)
                s.unsteady = 0;
            s.awaiting = !s.cycle && unmeasured;
        } else if (s.completedThisIteration) // the group completed in this iteration: next window
            s.offset = s.itersPerPass <= 1 && s.k > s.offset + capacity ? s.offset + capacity : 0;
        else if (s.group && s.offset > 0 && !s.passStartedThisIteration && s.k <= s.offset)
            noteMismatch(s, "an iteration launched only " + std::to_string(s.k) +
                                " kernels, none inside this group's window");
    }
    if (!complete_ && nothingLeftToMeasure()) {
        complete_ = true;
        for (Slot& s : slots_)
            if (!s.failed && s.backend)
                completeProfile(s);
        completedAtIteration_ = iterationsSeen_;
        completion_.store(true); // the session says it, as it goes idle
    }
}

void Collector::scopePush(Stack& stack) {
    const std::size_t base = iterationIndex(stack);
    const std::size_t level = stack.size() - base; // 1: the iteration scope itself
    Frame& f = stack.back();
    f.records.assign(slots_.size(), -2); // -2: no CUPTI range pushed
    if (level > config_.scopeLevels)
        return;
    if (level > 1 && config_.filter.hasNvtxFilter() &&
        !config_.filter.nvtxAdmits(views(stack), startEndViews()))
        return;
    // The iteration scope's range is named "<name>#<iteration in pass>" so that the iterations a
    // pass spans are distinct ranges; nested scopes are told apart by their parents.
    const std::string own = level == 1
                                ? core::uniformInstance(f.name) + "#" +
                                      std::to_string(slots_.empty() ? 0 : slots_[0].passIters)
                                : f.name;
    if (level == 1)
        iterationRangeName_ = own;
    const std::string rel = level == 1 ? own : iterationRangeName_ + "/" + path(stack, base + 1);
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        Slot& s = slots_[i];
        if (s.failed || !s.group || !s.passOpen)
            continue;
        if (s.scopeCount >= s.backend->capacity()) {
            if (!s.scopeOverflowNoted) {
                s.scopeOverflowNoted = true;
                core::log().warn("an iteration opened more than {} scopes: later ones are not "
                                 "measured (raise ROOFLINE_RANGES_PER_IMAGE)",
                                 s.backend->capacity());
            }
            continue;
        }
        guard(s, [&] { s.backend->pushRange(own); });
        if (s.failed)
            continue;
        f.records[i] = -1; // pushed; no record (replay pass)
        if (s.pass == 0) {
            core::LaunchInfo info;
            info.launchIndex = launches_.size();
            info.name = level == 1 ? core::uniformInstance(f.name) : f.name;
            setScope(info, stack);
            info.threadId = iterationThread_;
            info.scopeRecord = true;
            info.kernels = 0;
            launches_.push_back(std::move(info));
            f.records[i] = static_cast<std::int64_t>(launches_.size() - 1);
            s.members.push_back(f.records[i]);
            s.expectedScopes.push_back(rel);
        } else if (s.scopeCount >= s.expectedScopes.size() ||
                   s.expectedScopes[s.scopeCount] != rel) {
            noteMismatch(s, "pass " + std::to_string(s.pass) + " opened scope '" + rel +
                                "' where pass 0 opened '" +
                                (s.scopeCount < s.expectedScopes.size()
                                     ? s.expectedScopes[s.scopeCount]
                                     : std::string("nothing")) +
                                "'");
        }
        ++s.scopeCount;
    }
}

void Collector::noteMismatch(Slot& s, const std::string& what) {
    if (s.mismatch)
        return;
    s.mismatch = true;
    ++mismatchedGroups_;
    s.mismatchNote =
        "iteration replay mismatch: " + what + "; this record's counters combine different work";
    core::log().warn("libroofline: {}", s.mismatchNote);
}

// ---- launches -------------------------------------------------------------------------------

bool Collector::onLaunch(const Launch& l, const Stack& stack) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_ || l.slot >= slots_.size())
        return false;
    Slot& s = slots_[l.slot];
    try {
        if (level_ == Level::TimingOnly || s.failed || l.inGraph) {
            if (admits(l, stack))
                addLaunch(l, stack);
            return false;
        }
        renewStaleProfiler(s);
        switch (config_.mode) {
        case CollectionMode::KernelReplay:
            kernelReplayLaunch(s, l, stack);
            break;
        case CollectionMode::IterationReplay:
        case CollectionMode::ScopeReplay:
            iterationLaunch(s, l, stack);
            break;
        }
    } catch (...) {
        // out of memory recording a launch: the kernel still runs
    }
    // Under the profiler: in a pass or kernel replay, and also while the device's profiler is
    // merely enabled between passes (launches are then slower too).
    return !s.failed && (s.passOpen || s.running || !s.backend->released());
}

void Collector::onGraphLaunch(std::size_t slot) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_ || slot >= slots_.size())
        return;
    Slot& s = slots_[slot];
    ++graphLaunches_;
    if (level_ != Level::Counters || s.failed)
        return;
    // Measured on the H100 (GpuGraphs tests): a graph launched inside an auto-range pass makes
    // that pass's cuptiRangeProfilerStop fail (CUPTI_ERROR_UNKNOWN), which would end counter
    // collection; inside a user range its kernels add time but no instruction counts; in kernel
    // replay the graph is one range that misses most of its kernels' work.
    if (config_.mode == CollectionMode::KernelReplay) {
        guard(s, [&] { pauseKernelReplay(s); });
        return;
    }
    if (!s.passOpen)
        return;
    guard(s, [&] { s.backend->stop(); });
    abandonGroup(s);
    ++graphInterruptions_;
    if (graphsStoppedReplay()) {
        s.restart = false;
        core::log().warn("libroofline: CUDA graph launches stopped {} replay passes: iteration "
                         "and scope replay measure nothing more in this session (CUPTI's range "
                         "profiler cannot measure graph kernels, nor a pass a graph runs in). "
                         "Kernel replay (ROOFLINE_MODE=kernel, roofline run --mode kernel) "
                         "measures the launches outside graphs",
                         graphInterruptions_);
    }
    // A fresh profiler: CUPTI's user replay starts again at pass 0 only after re-creation.
    guard(s, [&] { recreate(s); });
}

void Collector::kernelReplayLaunch(Slot& s, const Launch& l, const Stack& stack) {
    if (!admits(l, stack)) {
        guard(s, [&] { pauseKernelReplay(s); });
        return;
    }
    const std::int64_t index = addLaunch(l, stack);
    guard(s, [&] {
        if (s.members.size() >= s.backend->capacity()) // image full: evaluate and reuse it
            closeWindow(s);
        if (config_.flushCaches)
            s.backend->flushCaches();
        if (!s.running) {
            s.backend->start();
            s.running = true;
        }
        s.members.push_back(index);
    });
    if (s.failed)
        appendNote(launches_[static_cast<std::size_t>(index)].note, config_.timingReason);
}

// Kernel replay: no range for the launches that follow until the next measured one starts the
// profiler again (the ranges so far stay in the open window).
void Collector::pauseKernelReplay(Slot& s) {
    if (s.running) {
        s.running = false;
        s.backend->stop();
    }
}

// Kernel replay: ends the open window and evaluates the ranges its image holds.
void Collector::closeWindow(Slot& s) {
    pauseKernelReplay(s);
    if (!s.members.empty())
        completeImage(s);
}

void Collector::iterationLaunch(Slot& s, const Launch& l, const Stack& stack) {
    if (iterationsOpen_ == 0) {
        // Between iterations: profiled only while a pass spans iterations (its range must be
        // accounted for), never recorded.
        if (config_.mode == CollectionMode::IterationReplay && s.passOpen && !s.failed) {
            if (s.passCount == s.backend->capacity())
                endPass(s);
            else
                positionLaunch(s, l, stack, false);
        }
        return;
    }
    const std::size_t idx = s.k++;
    if (reuse_ && s.observing)
        observePosition(s, l, stack, idx);
    if (!s.group)
        return; // the group completed earlier in this iteration, or the launch count is reached
    Key key{l.mangledName, l.grid, l.block};
    if (config_.mode == CollectionMode::ScopeReplay) {
        // Every launch of the iteration belongs to the group; count it into its open scopes.
        const std::size_t at = s.passKernels++;
        if (s.pass == 0) {
            s.expected.push_back(std::move(key));
            for (const Frame& f : stack)
                if (l.slot < f.records.size() && f.records[l.slot] >= 0)
                    ++launches_[static_cast<std::size_t>(f.records[l.slot])].kernels;
        } else {
            checkReplayedLaunch(s, at, key);
        }
        return;
    }
    const std::size_t capacity = s.backend->capacity();
    if (idx == s.offset && s.offset > 0 && !s.passOpen && !s.passStartedThisIteration)
        startPass(s);
    if (s.passOpen && reuse_ && idx >= s.windowEnd && s.passStartedThisIteration) {
        endPass(s); // the window ends here: later launches are not measured
        return;
    }
    if (s.passOpen && s.passCount == capacity) {
        if (s.itersPerPass == 0)
            s.itersPerPass = 1; // one iteration fills an image: cover it window by window
        endPass(s); // the image is full: this pass ends here (later launches: a later window)
    }
    if (!s.passOpen || idx < s.offset || s.failed)
        return;
    positionLaunch(s, l, stack, true);
}

// A launch that occupies the next auto range of the open pass (inside the iteration scope or, for
// passes spanning iterations, between them).
void Collector::positionLaunch(Slot& s, const Launch& l, const Stack& stack, bool inside) {
    const std::size_t w = s.passCount++;
    Key key{l.mangledName, l.grid, l.block};
    if (aligned(s))
        s.aligned.launch(key);
    if (s.pass == 0) {
        const std::int64_t m = inside && admits(l, stack) ? addLaunch(l, stack) : -1;
        if (m >= 0) {
            launches_[static_cast<std::size_t>(m)].position = static_cast<std::int64_t>(s.k) - 1;
            if (reuse_) {
                launchSig_.resize(launches_.size(), ReusePlan::kNotMeasured);
                launchSig_[static_cast<std::size_t>(m)] = measuredSignature(s, s.k - 1);
            }
        }
        s.members.push_back(m);
        s.replay.expect(std::move(key));
        return;
    }
    s.replay.check(s.pass, w, key);
}

// Scope replay: launch `at` of a replayed pass against pass 0's launch at the same position:
// kernel, grid and block must agree (the first difference marks the group, since every scope's
// range sums its kernels). Iteration replay checks each launch on its own (ReplayCheck).
void Collector::checkReplayedLaunch(Slot& s, std::size_t at, const Key& key) {
    if (at < s.expected.size() && sameLaunch(s.expected[at], key))
        return;
    noteMismatch(
        s, "pass " + std::to_string(s.pass) + " launch " + std::to_string(at) + " is " +
               launchText(key) + " where pass 0 launched " +
               (at < s.expected.size() ? launchText(s.expected[at]) : std::string("nothing")));
}

void Collector::completeImage(Slot& s) {
    dropped_ += s.backend->decode();
    std::vector<RangeValues> ranges = s.backend->evaluate();
    int chunk = -1;
    if (keptBytes_ + s.backend->imageSize() <= config_.keepImageBytes) {
        std::vector<std::uint8_t> image = s.backend->imageBytes();
        if (!image.empty()) {
            keptBytes_ += image.size();
            kept_.push_back(std::move(image));
            chunk = static_cast<int>(kept_.size() - 1);
        }
    }
    const bool perLaunch = config_.mode == CollectionMode::IterationReplay;
    if (perLaunch && s.replay.anyIssue()) {
        ++mismatchedGroups_;
        core::log().warn("libroofline: {}", s.replay.firstIssue());
    }
    // Iteration replay: launches a later pass added beyond pass 0's count only add ranges at the
    // end (auto ranges are positional), which shifts nothing.
    const bool shifted =
        perLaunch ? ranges.size() < s.members.size() : ranges.size() != s.members.size();
    if (ranges.size() != s.members.size())
        core::log().warn("CUPTI returned {} ranges for {} expected{}", ranges.size(),
                         s.members.size(), s.mismatch ? " (replay mismatch)" : "");
    for (std::size_t i = 0; i < s.members.size(); ++i) {
        if (s.members[i] < 0)
            continue; // a range of a launch the filters left out
        core::LaunchInfo& info = launches_[static_cast<std::size_t>(s.members[i])];
        if (i < ranges.size()) {
            info.values = std::move(ranges[i].values);
            info.chunk = chunk;
            info.range = static_cast<std::uint32_t>(i);
            if (config_.mode == CollectionMode::ScopeReplay && i < s.expectedScopes.size() &&
                ranges[i].name != s.expectedScopes[i])
                appendNote(info.note, "CUPTI named this range '" + ranges[i].name + "'");
            if (shifted)
                appendNote(info.note, "CUPTI recorded " + std::to_string(ranges.size()) +
                                          " ranges for " + std::to_string(s.members.size()) +
                                          " expected: attribution may be shifted");
        } else {
            appendNote(info.note, "CUPTI recorded no range for it (dropped)");
        }
        if (s.mismatch) {
            appendNote(info.note, s.mismatchNote);
            info.replay = ReplayStatus::Differs; // scope replay: values kept, combined work noted
        }
        if (perLaunch && s.replay.verdict(i) != ReplayCheck::Verdict::Clean) {
            appendNote(info.note, s.replay.note(i));
            if (s.replay.verdict(i) == ReplayCheck::Verdict::Unmatched) {
                info.values.clear();
                info.chunk = -1; // not evaluated from the kept image either
                info.replay = ReplayStatus::Unmatched;
                ++unmatched_;
            } else {
                info.replay = ReplayStatus::Differs;
                ++differing_;
            }
        }
    }
    groupRecorded(s);
    s.backend->configure(); // the same image, fresh, for the next group
}

// A completed group's records have their values (positional or aligned): its launches get their
// inferred tensor metrics and become reuse samples, and the group is done.
void Collector::groupRecorded(Slot& s) {
    inferTensorMetrics(s);
    recordSamples(s);
    s.members.clear();
    ++groupsCompleted_;
}

bool Collector::aligned(const Slot& s) const noexcept {
    return aligned_ && s.configs > 1;
}

// A fresh profiler at the first configuration of the replay in use: CUPTI's replay back at pass 0.
void Collector::recreate(Slot& s) {
    s.loadsAtEnable = codeLoads(s);
    s.backend->reenable(firstConfig());
}

// Positional replay, a replayed pass just ended: when it ran other kernels than pass 0 at some
// position (a launch inserted or left out: every later position of the pass is shifted), the
// session switches to aligned replay, where such a launch costs only itself, and measures the
// group again. Data-dependent grids alone do not switch (their values are kept either way).
bool Collector::switchToAligned(Slot& s) {
    if (aligned_ || !config_.alignAvailable || s.pass == 0 || !s.replay.anyUnmatched())
        return false;
    std::size_t passes = 0;
    guard(s, [&] { passes = s.backend->prepareAligned(); });
    if (s.failed || passes == 0 || s.backend->configurations() < 2)
        return false;
    config_.alignedPasses = passes;
    aligned_ = true;
    config_.passes = config_.alignedPasses;
    core::log().info("libroofline: {}. Iteration replay switches to aligned passes (one "
                     "configuration per pass, {} passes, each pass's launches matched with pass "
                     "0's) and measures this replay group again (ROOFLINE_ALIGN_PASSES)",
                     s.replay.firstIssue(), config_.passes);
    abandonGroup(s); // measured again, aligned
    changeEveryBackend(s, [&](Slot& other) {
        other.backend->prepareAligned();
        other.configs = other.backend->configurations();
        recreate(other); // at the first aligned configuration
    });
    return true;
}

// What every device's backend must do at once (a new replay mode, a larger metric set): every
// slot but `s` stops its open pass and abandons its group (measured again under the change),
// then `change` runs on every slot that has a backend.
template <typename F> void Collector::changeEveryBackend(Slot& s, F&& change) {
    for (Slot& other : slots_) {
        if (other.failed || !other.backend)
            continue;
        if (&other != &s) {
            if (other.passOpen)
                guard(other, [&] {
                    other.passOpen = false;
                    other.backend->stop();
                });
            if (other.group)
                abandonGroup(other);
        }
        guard(other, [&] { change(other); });
    }
}

// Tensor counters by detection (docs/design/0008): the group's launches get their inferred tensor
// metrics. A launch that ran an MMA kind whose per-type counters were not collected leaves them
// unknown: every backend collects them from now on and the group's window is measured again (its
// records superseded). The collected set only grows, so this happens at most once per MMA kind.
void Collector::inferTensorMetrics(Slot& s) {
    if (!config_.infer)
        return;
    std::set<std::string> unknown;
    for (std::int64_t m : s.members) {
        if (m < 0)
            continue;
        core::LaunchInfo& info = launches_[static_cast<std::size_t>(m)];
        if (info.values.empty())
            continue;
        for (auto& metric : config_.infer(info.values))
            unknown.insert(std::move(metric));
    }
    if (unknown.empty())
        return;
    const std::vector<std::string> more(unknown.begin(), unknown.end());
    std::string list;
    for (const auto& m : more)
        list += (list.empty() ? "" : ", ") + m;
    supersedeMembers(s);
    ++expansions_;
    std::size_t passes = 0;
    changeEveryBackend(s, [&](Slot& other) {
        passes = other.backend->addMetrics(more);
        other.configs = other.backend->configurations();
        other.loadsAtEnable = codeLoads(other);
        if (aligned_) {
            config_.alignedPasses = other.backend->prepareAligned();
            other.configs = other.backend->configurations();
            other.backend->selectConfiguration(1);
        }
    });
    config_.passes = aligned_ ? config_.alignedPasses : passes;
    s.redo = true;
    core::log().info("libroofline: a launch ran MMA work whose per-type counters were not "
                     "collected ({}): they are collected from now on ({} passes) and its replay "
                     "window is measured again",
                     list, config_.passes);
}

// Aligned replay: every pass of the current configuration is in. Its image holds exactly those
// passes' launches; their values go to the pass-0 launches the alignment matched them to, and the
// next pass runs the next configuration.
void Collector::completeConfiguration(Slot& s) {
    dropped_ += s.backend->decode();
    s.aligned.addConfiguration(s.configPass, s.backend->evaluate());
    s.subPass = 0;
    s.configPass = s.pass;
    if (s.config + 1 < s.configs) {
        s.loadsAtEnable = codeLoads(s); // a fresh profiler: loads from here on count again
        s.backend->selectConfiguration(++s.config);
    }
}

// Aligned replay: every configuration is in. Counter-data images hold one configuration each, so
// records carry evaluated values only (no image reference).
void Collector::completeAligned(Slot& s) {
    if (s.aligned.anyIssue()) {
        ++mismatchedGroups_;
        core::log().warn("libroofline: {}", s.aligned.firstIssue());
    }
    for (std::size_t i = 0; i < s.members.size(); ++i) {
        if (s.members[i] < 0)
            continue;
        core::LaunchInfo& info = launches_[static_cast<std::size_t>(s.members[i])];
        info.chunk = -1;
        info.range = static_cast<std::uint32_t>(i);
        switch (s.aligned.verdict(i)) {
        case AlignedGroup::Verdict::Unmatched:
            info.values.clear();
            info.replay = ReplayStatus::Unmatched;
            appendNote(info.note, s.aligned.note(i));
            ++unmatched_;
            break;
        case AlignedGroup::Verdict::Differs:
            info.values = s.aligned.takeValues(i);
            info.replay = ReplayStatus::Differs;
            appendNote(info.note, s.aligned.note(i));
            ++differing_;
            break;
        case AlignedGroup::Verdict::Clean:
            info.values = s.aligned.takeValues(i);
            break;
        }
    }
    groupRecorded(s);
    s.config = firstConfig();
    s.subPass = s.configPass = 0;
    s.loadsAtEnable = codeLoads(s);           // a fresh profiler: loads from here on count again
    s.backend->selectConfiguration(s.config); // the first configuration, fresh, for the next group
}

// ---- replay helper and end ----------------------------------------------------------------

bool Collector::needsPass() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    helperUsed_ = true;
    if (!helperActive_) {
        helperActive_ = true;
        helperIterations_ = iterationsSeen_;
        return true;
    }
    const bool progressed = iterationsSeen_ != helperIterations_;
    helperIterations_ = iterationsSeen_;
    bool pending = false;
    if (level_ == Level::Counters && config_.mode != CollectionMode::KernelReplay && !finished_ &&
        !graphsStoppedReplay())
        for (const Slot& s : slots_) {
            // The first iteration observed only: measuring starts at the next one.
            const bool observedFirst = observeFirst_ && iterationsSeen_ == 1;
            pending =
                pending ||
                (!s.failed && (s.group || s.restart || s.offset > 0 || s.cycle ||
                               ((observedFirst || (reuse_ && (s.cyclesDone == 0 || s.awaiting))) &&
                                !limitReached())));
        }
    if (pending && !progressed) {
        core::log().warn("libroofline: needsPass(): the last pass opened no iteration scope "
                         "(ROOFLINE_ITERATION_RANGE='{}'); ending the replay",
                         config_.iterationRange);
        pending = false;
    }
    if (!pending)
        helperActive_ = false;
    return pending;
}

// A loop's steady iteration is the one most iterations look like: a first step that also
// validates, or a last one that only validates, launch other counts than the training steps
// between them. The first iteration counts only when no other ended.
void Collector::countIterationLaunches(std::uint64_t launches) {
    if (iterationsEnded_ == 1)
        firstIterationLaunches_ = launches;
    else if (launchCounts_.size() < kMaxLaunchCounts || launchCounts_.count(launches) > 0)
        try {
            auto& [iterations, last] = launchCounts_[launches];
            ++iterations;
            last = iterationsEnded_;
        } catch (...) {
            // out of memory: this iteration's count is not considered
        }
}

std::uint64_t Collector::steadyLaunches() const {
    std::uint64_t best = firstIterationLaunches_, iterations = 0, last = 0;
    for (const auto& [launches, seen] : launchCounts_)
        if (seen.first > iterations || (seen.first == iterations && seen.second > last)) {
            best = launches;
            iterations = seen.first;
            last = seen.second;
        }
    return best;
}

// Positional iteration replay (no reuse): completed groups cover every launch of the steady
// iteration. Measuring more would give the same launches more records and cost the program as
// much as the first profile did.
bool Collector::windowsComplete() const {
    if (reuse_ || config_.mode != CollectionMode::IterationReplay || launchCounts_.empty())
        return false;
    const std::uint64_t L = steadyLaunches();
    return coveredWhole_ || (L > 0 && launchesCovered(L) >= L);
}

// Of an iteration of `launches` launches, those the completed groups' windows cover.
std::uint64_t Collector::launchesCovered(std::uint64_t launches) const {
    if (coveredWhole_)
        return launches;
    const std::uint64_t cap = std::max<std::uint64_t>(1, slots_[0].capacity);
    std::uint64_t covered = 0;
    for (std::size_t offset : coveredOffsets_)
        if (offset < launches)
            covered += std::min<std::uint64_t>(cap, launches - offset);
    return covered;
}

// The profile is complete: the device's range profiler is released (its counter-data image
// and CUPTI's per-range state with it) and nothing more is measured.
void Collector::completeProfile(Slot& s) {
    s.offset = 0;
    if (s.backend && !s.backend->released())
        guard(s, [&] { s.backend->release(0); });
}

// Iteration replay, at an iteration's end: every launch of the steady iteration has its record
// and no replay group or reuse cycle is in progress or waiting. Graph launches keep getting
// records of their own, launch by launch, so a program that launches graphs is never done.
bool Collector::nothingLeftToMeasure() const {
    if (level_ != Level::Counters || config_.mode != CollectionMode::IterationReplay ||
        config_.measureAfterComplete || helperUsed_ || graphLaunches_ > 0 || limitReached())
        return false;
    for (const Slot& s : slots_) {
        if (s.failed || !s.backend)
            continue;
        if (s.group || s.passOpen || s.restart || s.redo)
            return false;
        if (reuse_ ? s.cyclesDone == 0 || s.cycle || s.awaiting : !windowsComplete())
            return false;
    }
    return true;
}

core::Coverage Collector::coverage() const {
    std::lock_guard<std::mutex> lock(mutex_);
    core::Coverage c;
    if (config_.mode != CollectionMode::IterationReplay || iterationsEnded_ == 0 ||
        slots_.empty() || slots_[0].capacity == 0)
        return c;
    c.known = true;
    c.launchesPerIteration = steadyLaunches();
    c.launchesVaried = launchesVaried_;
    c.rangesPerImage = slots_[0].capacity;
    c.passes = config_.passes;
    c.iterationsPerPass = std::max<std::size_t>(1, slots_[0].itersPerPass);
    c.iterationsRun = iterationsEnded_;
    c.firstIterationSkipped = !firstIterationIssue_.empty();
    const std::uint64_t L = c.launchesPerIteration,
                        cap = std::max<std::uint64_t>(1, c.rangesPerImage);
    c.iterationsNeeded =
        c.iterationsPerPass > 1 ? c.passes * c.iterationsPerPass : (L + cap - 1) / cap * c.passes;
    if (reuse_) // two observed iterations (a steady one), then the windows of a cycle
        c.iterationsNeeded = 2 + std::max<std::size_t>(cycleWindows_, slots_[0].windows) * c.passes;
    else if (observeFirst_)
        ++c.iterationsNeeded; // the first iteration is observed only
    c.launchesCovered = launchesCovered(L);
    return c;
}

void Collector::finish() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_)
        return;
    finished_ = true;
    for (Slot& s : slots_) {
        if (s.failed || !s.backend)
            continue;
        if (config_.mode == CollectionMode::KernelReplay) {
            guard(s, [&] { closeWindow(s); });
            continue;
        }
        if (s.passOpen)
            guard(s, [&] {
                s.passOpen = false;
                s.backend->stop();
            });
        if (s.group) {
            const std::string note =
                "replay incomplete: " + std::to_string(s.pass) + " of " +
                std::to_string(config_.passes) +
                " passes ran before the session stopped (run more iterations of " +
                (config_.iterationRange.empty() ? std::string("the outermost scope")
                                                : "'" + config_.iterationRange + "'") +
                ", use Session::needsPass(), or set ROOFLINE_ITERATION_RANGE)";
            for (std::int64_t m : s.members)
                if (m >= 0)
                    appendNote(launches_[static_cast<std::size_t>(m)].note, note);
            s.members.clear();
            s.group = false;
        }
    }
    // Reuse: a cycle cut short by the stop still gives the launches whose signature has
    // samples their reused records.
    for (Slot& s : slots_)
        if (reuse_ && s.cycle) {
            try {
                emitReused(s);
            } catch (...) {
                // out of memory: those records are missing, as unmeasured launches are
            }
            s.cycle = false;
        }
    // The session destroys the backends after this: nothing here may reach them again
    // (coverage() once read one after teardown, a use-after-free on every iteration-replay stop).
    for (Slot& s : slots_)
        s.backend = nullptr;
    try {
        settleIterationPaths();
    } catch (...) {
        // out of memory: records keep the uniform paths
    }
    if (supersededCount_ > 0) {
        std::vector<core::LaunchInfo> kept;
        kept.reserve(launches_.size() - supersededCount_);
        for (std::size_t i = 0; i < launches_.size(); ++i)
            if (i >= superseded_.size() || !superseded_[i]) {
                kept.push_back(std::move(launches_[i]));
                kept.back().launchIndex = kept.size() - 1;
            }
        launches_.swap(kept);
        superseded_.clear();
    }
    try {
        orderByPosition();
    } catch (...) {
        // out of memory: records stay in the order they were measured
    }
}

// Iteration replay measures an iteration window by window, each window on whatever iterations
// its passes ran (a reuse cycle measures the windows its signatures need, in any order): the
// records go back to program order, each iteration's launches by their position in it, and
// launch_index becomes their place in that order. Several complete iterations (short ones share
// a pass) follow one another; records with no position (graph kernels, timing-only launches)
// stay behind the record they followed.
void Collector::orderByPosition() {
    if (config_.mode != CollectionMode::IterationReplay || launches_.empty())
        return;
    struct Place {
        std::uint64_t copy = 0;     // how many records of its position came before it
        std::int64_t position = -1; // in its iteration
    };
    std::vector<Place> keys(launches_.size());
    std::map<std::int64_t, std::uint64_t> copies;
    Place last;
    for (std::size_t i = 0; i < launches_.size(); ++i) {
        const std::int64_t p = launches_[i].position;
        if (p >= 0)
            last = {copies[p]++, p};
        keys[i] = last;
    }
    std::vector<std::size_t> order(launches_.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return keys[a].copy != keys[b].copy ? keys[a].copy < keys[b].copy
                                            : keys[a].position < keys[b].position;
    });
    std::vector<core::LaunchInfo> ordered;
    ordered.reserve(launches_.size());
    for (std::size_t i : order) {
        ordered.push_back(std::move(launches_[i]));
        ordered.back().launchIndex = ordered.size() - 1;
    }
    launches_.swap(ordered);
}

} // namespace roofline::collect
