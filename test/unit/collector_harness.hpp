#pragma once
// A fake counter backend that behaves like CUPTI's range profiler (auto ranges per launch while
// started, user ranges per push, metric m collected in pass m % passes, a group cut short decoded
// with NaN for what its passes did not reach, images of fixed capacity) and a harness that drives
// a Collector through it: the collector's state machines tested on the CPU.
#include "collect/collector.hpp"
#include "session/strategies.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <limits>

namespace roofline::collect::testing {

constexpr std::size_t kMetrics = 3;

class FakeBackend final : public CounterBackend {
public:
    /// Configuration 0 holds every metric in `passes` passes (metric m in pass m % passes);
    /// `aligned` > 0 adds aligned replay's single-pass configurations 1..aligned, metric m
    /// collected by configuration 1 + m % aligned.
    FakeBackend(std::size_t passes, std::size_t capacity, bool userRange, bool kernelReplay,
                std::size_t aligned = 0)
        : passes_(passes), capacity_(capacity), userRange_(userRange), kernelReplay_(kernelReplay),
          configs_(1 + aligned), aligned_(aligned) {}

    std::size_t configurations() const noexcept override {
        alive();
        return configs_;
    }
    void selectConfiguration(std::size_t index) override {
        alive();
        EXPECT_LT(index, configs_);
        EXPECT_TRUE(pass_ == 0 || pass_ >= passesOf(config_))
            << "a configuration switched before its passes were in";
        if (index != config_) { // as CUPTI: a fresh profiler object for another configuration
            loadedWhileEnabled_ = false;
            pass_ = 0;
        }
        config_ = index;
        ++selects;
        configure();
    }

    std::size_t capacity() const noexcept override {
        alive();
        return capacity_;
    }
    void configure() override {
        alive();
        ++configures;
        ranges_.clear();
        reached_.clear();
        // As CUPTI's user replay: a new configuration does not take the replay back to pass 0
        // in the middle of a group; only a completed group (or a re-created profiler) does.
        if (pass_ >= passesOf(config_))
            pass_ = 0;
        position_ = 0;
    }
    void start() override {
        alive();
        EXPECT_FALSE(released_) << "a pass started on a released profiler (acquire() first)";
        EXPECT_FALSE(running_) << "a pass started while one runs (Stop first)";
        if (failStartAt && ++starts >= failStartAt)
            throw Error(ErrorCode::Cupti, "cuptiRangeProfilerStart failed (injected)");
        running_ = true;
        position_ = 0;
    }
    bool stop() override {
        alive();
        running_ = false;
        if (kernelReplay_)
            return true;
        ++pass_;
        return pass_ >= passesOf(config_);
    }
    void pushRange(const std::string& name) override {
        alive();
        ASSERT_TRUE(userRange_ && running_);
        open_.push_back(name);
        std::string path;
        for (const auto& n : open_)
            path += (path.empty() ? "" : "/") + n;
        openIndex_.push_back(rangeFor(path));
    }
    void popRange() override {
        alive();
        ASSERT_FALSE(open_.empty());
        open_.pop_back();
        openIndex_.pop_back();
    }
    std::size_t decode() override {
        alive();
        const std::size_t dropped = ranges_.size() > capacity_ ? ranges_.size() - capacity_ : 0;
        ranges_.resize(std::min(ranges_.size(), capacity_));
        return dropped;
    }
    std::vector<RangeValues> evaluate() override {
        alive();
        std::vector<RangeValues> out = ranges_;
        // As CUPTI decodes auto ranges (measured: roofline-bench-partial-passes, a group cut
        // short after some passes and halfway through one): a metric is NaN in each range the
        // pass that collects it did not reach.
        if (config_ == 0 && !userRange_ && !kernelReplay_)
            for (std::size_t i = 0; i < out.size(); ++i)
                for (std::size_t m = 0; m < kMetrics; ++m)
                    if (i >= reached_.size() || !((reached_[i] >> (m % passes_)) & 1U))
                        out[i].values[m] = std::numeric_limits<double>::quiet_NaN();
        if (config_ > 0) // as CuptiBackend: NaN for metrics the configuration does not collect
            for (RangeValues& r : out)
                for (std::size_t m = 0; m < kMetrics; ++m)
                    if (1 + m % aligned_ != config_)
                        r.values[m] = std::numeric_limits<double>::quiet_NaN();
        return out;
    }
    std::size_t imageSize() const noexcept override {
        alive();
        return 100;
    }
    std::vector<std::uint8_t> imageBytes() const override {
        alive();
        return std::vector<std::uint8_t>(100, 1);
    }
    void flushCaches() noexcept override {
        alive();
        ++flushes;
    }
    /// The L2 flushed before a kernel inside a pass: a kernel of its own, so a range of its own
    /// (work kFlushWork, which a record must never get).
    static constexpr double kFlushWork = 1e6;
    void flushBeforeLaunch(std::uint64_t) noexcept override {
        ++kernelFlushes;
        kernel(kFlushWork);
    }
    int kernelFlushes = 0;
    void reenable(std::size_t configuration) override {
        alive();
        ++reenables;
        config_ = configuration;
        loadedWhileEnabled_ = false;
        running_ = false;
        ranges_.clear();
        reached_.clear();
        open_.clear(); // a fresh profiler has no user range open
        openIndex_.clear();
        pass_ = 0;
        position_ = 0;
    }

    /// Tensor counters by detection: what is collected grows (as CUPTI: a fresh profiler).
    std::size_t addMetrics(const std::vector<std::string>& metrics) override {
        alive();
        added.insert(added.end(), metrics.begin(), metrics.end());
        reenable(0);
        --reenables;
        return passes_;
    }
    std::vector<std::string> added;

    /// The session destroys its backends after Collector::finish(): any use after that is a
    /// use-after-free on the GPU (it crashed every iteration-replay stop once).
    bool gone = false;
    void alive() const noexcept {
        if (gone)
            ADD_FAILURE() << "the collector used its backend after finish()";
    }

    /// Released between groups (reuse: before and after its cycles): no profiler, no memory.
    void release(std::size_t ranges) override {
        alive();
        EXPECT_FALSE(running_) << "released while a pass runs";
        released_ = true;
        if (ranges > 0)
            capacity_ = ranges;
        loadedWhileEnabled_ = false;
        ranges_.clear();
        reached_.clear();
        pass_ = 0;
        position_ = 0;
        ++releases;
    }
    bool released() const noexcept override { return released_; }
    void acquire() override {
        alive();
        if (released_)
            ++acquires;
        released_ = false;
    }
    int releases = 0, acquires = 0;

    /// Code was loaded into the context (a lazily loaded or JIT-compiled module).
    void codeLoaded() {
        if (!released_)
            loadedWhileEnabled_ = true;
    }
    /// What crashes CUPTI: SASS metrics collected on a launch that entered the driver after code
    /// was loaded while this profiler was enabled
    /// (docs/design/0005-code-loaded-while-profiling.md).
    bool stale() const { return loadedWhileEnabled_; }

    /// The GPU side of a launch: `work` is what its counters would read; `stale`: the launch
    /// entered after code was loaded while this profiler was enabled.
    void kernel(double work, bool stale = false) {
        memory = memory * 3 + static_cast<std::uint64_t>(work); // what the kernel computes
        if (pendingRecord_) {
            pendingRecord_ = false;
            recorded_.push_back(work);
        }
        if (!running_)
            return;
        if (stale)
            ++hazards;
        if (userRange_) {
            for (std::size_t i : openIndex_)
                add(ranges_[i], work);
            return;
        }
        if (kernelReplay_) {
            RangeValues r{std::to_string(ranges_.size()), std::vector<double>(kMetrics, work)};
            ranges_.push_back(r);
            return;
        }
        const std::size_t i = rangeFor(std::to_string(position_++));
        add(ranges_[i], work);
    }

    /// A kernel of a CUDA graph launch runs: CUPTI's range profiler must not be collecting
    /// (inside an auto-range pass it fails the pass's stop; see Collector::onGraphLaunch).
    void graphKernel() {
        if (running_)
            ADD_FAILURE() << "a CUDA graph ran while the profiler was collecting";
    }

    /// The profiler is started: a kernel launched now runs under it.
    bool collecting() const { return running_; }

    // Window replay: the device's memory is one number each kernel changes (in order).
    std::uint64_t memory = 1;
    std::vector<std::string> windowLog; ///< save0/1, restore0/1, relaunch N, forget, sync
    std::string arguments; ///< the bytes of the next launches' arguments (launchArguments)
    bool launchArguments(const core::Launch& l, std::string& bytes) override {
        (void)l;
        bytes += arguments;
        return true;
    }
    /// The device's memory has no room for a window's checkpoints (checkpointsFit).
    bool full = false;
    bool checkpointsFit(std::string& why) override {
        if (full)
            why = "the device's memory cannot hold two copies of what is allocated on it (fake)";
        return !full;
    }
    bool recordLaunch(const core::Launch& l, std::string& why) override {
        alive();
        if (std::string(l.mangledName).find("unrecordable") != std::string::npos) {
            why = "its arguments are not readable";
            return false;
        }
        pendingRecord_ = true; // its work is known when it runs (kernel())
        return true;
    }
    void saveMemory(bool after) override {
        alive();
        if ((failSaveAfter && after) || (failSaveBefore && !after))
            throw Error(ErrorCode::Cupti, "saving the device's memory failed (injected)");
        saved_[after] = memory;
        hasSaved_[after] = true;
        windowLog.push_back(after ? "save1" : "save0");
    }
    void restoreMemory(bool after) override {
        alive();
        EXPECT_TRUE(hasSaved_[after]) << "restored memory that was not saved";
        memory = saved_[after];
        windowLog.push_back(after ? "restore1" : "restore0");
    }
    void relaunchRecorded() override {
        alive();
        windowLog.push_back("relaunch " + std::to_string(recorded_.size()));
        for (const double w : recorded_)
            kernel(w);
    }
    void synchronize() override { windowLog.push_back("sync"); }
    void forgetWindow() noexcept override {
        recorded_.clear();
        hasSaved_[0] = hasSaved_[1] = false;
        windowLog.push_back("forget");
    }
    bool failSaveAfter = false, failSaveBefore = false;

    int configures = 0, flushes = 0, starts = 0, failStartAt = 0, reenables = 0, selects = 0;
    std::size_t configuration() const { return config_; }
    int hazards = 0; ///< launches measured that would have crashed CUPTI

private:
    bool pendingRecord_ = false;
    std::vector<double> recorded_;
    std::uint64_t saved_[2] = {0, 0};
    bool hasSaved_[2] = {false, false};

    std::size_t rangeFor(const std::string& name) {
        const std::uint64_t bit = std::uint64_t{1} << (pass_ % 64);
        if (pass_ == 0) {
            ranges_.push_back({name, std::vector<double>(kMetrics, 0.0)});
            reached_.push_back(bit);
            return ranges_.size() - 1;
        }
        for (std::size_t i = 0; i < ranges_.size(); ++i)
            if (ranges_[i].name == name) {
                reached_.resize(ranges_.size(), 0);
                reached_[i] |= bit;
                return i;
            }
        ranges_.push_back({name, std::vector<double>(kMetrics, -1.0)}); // not in pass 0
        reached_.resize(ranges_.size(), 0);
        reached_.back() |= bit;
        return ranges_.size() - 1;
    }
    void add(RangeValues& r, double work) {
        for (std::size_t m = 0; m < kMetrics; ++m)
            if (config_ > 0 ? 1 + m % aligned_ == config_ : m % passes_ == pass_)
                r.values[m] += work;
    }

    std::size_t passes_, capacity_;
    bool userRange_, kernelReplay_;
    std::size_t configs_ = 1, aligned_ = 0, config_ = 0;
    std::size_t passesOf(std::size_t config) const { return config == 0 ? passes_ : 1; }
    bool running_ = false, released_ = false;
    bool loadedWhileEnabled_ = false;
    std::size_t pass_ = 0, position_ = 0;
    std::vector<RangeValues> ranges_;
    std::vector<std::uint64_t> reached_; ///< per range: the passes that ran it (bit per pass)
    std::vector<std::string> open_;
    std::vector<std::size_t> openIndex_;
};

constexpr std::size_t kAuto = 999;

struct Harness {
    FakeBackend backend;
    Collector collector;
    Stack stack;
    std::uint64_t thread = 7;

    /// `aligned` > 0: aligned replay is available, with that many single-pass configurations
    /// (CollectorConfig::alignFromStart: used from the first group on).
    Harness(CollectionMode mode, std::size_t passes, std::size_t capacity,
            CollectorConfig config = {}, std::size_t aligned = 0)
        : backend(passes, capacity, mode == CollectionMode::ScopeReplay,
                  mode == CollectionMode::KernelReplay, aligned),
          collector(withMode(std::move(config), mode, passes, aligned), {&backend}, Level::Counters,
                    makeStrategy) {
        backend.configure();
        if (aligned > 0 && config.alignFromStart) // as the session creates its backend
            backend.selectConfiguration(1);
    }
    static CollectorConfig withMode(CollectorConfig c, CollectionMode mode, std::size_t passes,
                                    std::size_t aligned = 0) {
        c.mode = mode;
        c.passes = aligned > 0 && c.alignFromStart ? aligned : passes;
        c.alignedPasses = aligned;
        c.alignAvailable = aligned > 0;
        c.keepImageBytes = c.keepImageBytes ? c.keepImageBytes : 1000;
        if (c.options.iterationsPerPass == kAuto)
            c.options.iterationsPerPass = 0;
        else if (c.options.iterationsPerPass == 0)
            c.options.iterationsPerPass = 1; // one iteration per pass unless a test asks for sharing
        return c;
    }
    void push(const char* name, const char* domain = "") {
        stack.push_back(Frame{domain, name, {}});
        collector.onPush(stack, thread);
    }
    void pop() {
        collector.onPop(stack);
        stack.pop_back();
    }
    /// "Train step n": forward (work 1) and adamw (work 3); step 0 first runs a validation
    /// forward (work 7), as a real first iteration does.
    void trainStepWithValidation(int n) {
        push(("Train step " + std::to_string(n)).c_str());
        if (n == 0)
            launch("validation_forward", 7);
        launch("forward", 1);
        launch("adamw", 3);
        pop();
    }
    /// Returns whether the collector said the kernel runs under the profiler.
    bool launch(const char* name, double work, Dim3 grid = {1, 1, 1}) {
        Launch e;
        e.mangledName = name;
        e.grid = grid;
        e.threadId = thread;
        e.stream = 3;
        if (loadsCode && loadInCallback) { // cupti::LaunchTracker loads the kernel first
            loadsCode = false;
            loadCode();
        }
        const bool profiled = collector.onLaunch(e, stack);
        bool stale = backend.stale();
        if (loadsCode) { // the driver loads the kernel inside the launch, before CUPTI's hook
            loadsCode = false;
            loadCode();
            stale = stale || backend.stale();
        }
        backend.kernel(work, stale);
        return profiled;
    }
    /// A kernel of a graph (on the graphs' stream): run as the graph (`inGraph`), or as its own
    /// launch standing for node `node`.
    Launch graphKernelLaunch(const char* name, bool inGraph, std::uint64_t node = 0) const {
        Launch e;
        e.mangledName = name;
        e.threadId = thread;
        e.stream = 5;
        e.inGraph = inGraph;
        e.graphNode = node;
        return e;
    }
    /// cudaGraphLaunch of a graph whose kernel nodes are `names`, as the session feeds it.
    void graphLaunch(std::initializer_list<const char*> names) {
        collector.onGraphLaunch(0);
        for (const char* name : names)
            collector.onLaunch(graphKernelLaunch(name, true), stack);
        for (std::size_t i = 0; i < names.size(); ++i)
            backend.graphKernel();
    }
    /// A kernel node of a graph whose launch runs as its nodes (cupti/graph_replay.hpp): a
    /// launch of its own, which names its node.
    void graphNode(const char* name, double work, std::uint64_t node) {
        collector.onLaunch(graphKernelLaunch(name, false, node), stack);
        backend.kernel(work, backend.stale());
    }
    /// The first launch of a kernel whose module is lazily loaded (or JIT-compiled).
    void firstLaunch(const char* name, double work) {
        loadsCode = true;
        launch(name, work);
    }
    /// A module load (JIT-compiled, from the JIT cache or machine code: each leaves the enabled
    /// profiler unsafe).
    void loadCode() {
        backend.codeLoaded();
        collector.onCodeLoaded(0);
    }
    bool loadsCode = false;
    /// The launch callback loads a lazily loaded kernel before the collector sees the launch
    /// (what cupti::LaunchTracker does); false: the driver loads it later inside the launch.
    bool loadInCallback = true;
    CollectionResult result;
    std::vector<core::LaunchInfo>& finish() {
        result = collector.finish();
        backend.gone = true; // as Session::stop() destroys it
        return result.launches;
    }
};

/// What the program computes with nobody watching: the fake's memory after kernels of these works
/// (window replay must leave the program exactly this).
inline std::uint64_t unprofiled(const std::vector<double>& works) {
    std::uint64_t m = 1;
    for (const double w : works)
        m = m * 3 + static_cast<std::uint64_t>(w);
    return m;
}

inline std::vector<double> all(double v) {
    return std::vector<double>(kMetrics, v);
}

} // namespace roofline::collect::testing
