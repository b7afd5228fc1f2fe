#include "scopes/host_timing.hpp"

#include "core/host_scopes.hpp"
#include "core/stopwatch.hpp"

#include <algorithm>
#include <array>
#include <functional>

namespace roofline::collect {

// One scope path's instances of one kind (profiled or not), summed. One writer at a time (the
// tree's thread, or the process stack's lock holder); collect() reads them concurrently.
struct HostSums {
    std::atomic<std::uint64_t> calls{0}, launches{0};
    std::atomic<std::int64_t> wallNs{0}, selfWallNs{0}, cpuNs{0}, selfCpuNs{0}, profilerNs{0};
    std::atomic<bool> cpuUnknown{false};
};

// The steady state of a scope path: its first instance apart (warm-up: lazy loading, first-use
// allocations), and the wall and CPU times of its latest kSamples clean instances (no kernel run
// under the profiler) after the first, whose median the report shows per call.
struct HostSamples {
    static constexpr std::size_t kSamples = 64;
    std::array<std::atomic<std::int64_t>, kSamples> wallNs{}, cpuNs{}; // cpu -1: unknown
    std::atomic<std::uint64_t> count{0}; // clean instances after the first (ring: the latest)
    std::atomic<std::int64_t> firstWallNs{-1};
    std::atomic<bool> firstProfiled{false};
};

struct HostNode {
    std::string name;
    std::vector<std::unique_ptr<HostNode>> children; // appended only, by the tree's owner
    HostSums clean, profiled; // instances without / with kernels run under the profiler
    HostSamples samples;
};

struct HostTimes::Tree {
    std::uint64_t thread = 0; // 0: the process-wide scopes
    HostNode root;
    std::mutex children; // guards `children` vectors against collect()'s walk
};

namespace {

std::atomic<std::uint64_t> gNextId{1};

struct ThreadCache {
    std::uint64_t owner = 0;
    void* tree = nullptr;
};
thread_local ThreadCache tCache;

void add(std::atomic<std::int64_t>& a, std::int64_t v) noexcept {
    a.store(a.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}
void add(std::atomic<std::uint64_t>& a, std::uint64_t v) noexcept {
    a.store(a.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}

} // namespace

HostTimes::HostTimes(HostTiming mode, bool processScopes)
    : mode_(mode), processScopes_(processScopes), id_(gNextId.fetch_add(1)) {}

HostTimes::~HostTimes() = default;

std::int64_t HostTimes::wallNow() noexcept {
    return core::steadyNowNs();
}

std::int64_t HostTimes::cpuNow() noexcept {
    return core::threadCpuNowNs();
}

HostTimes::Tree* HostTimes::treeOf(std::uint64_t thread) noexcept {
    if (tCache.owner == id_)
        return static_cast<Tree*>(tCache.tree);
    try {
        std::lock_guard<std::mutex> lock(mutex_);
        if (processScopes_ && !trees_.empty()) {
            tCache = {id_, trees_.front().get()};
            return trees_.front().get();
        }
        trees_.push_back(std::make_unique<Tree>());
        trees_.back()->thread = processScopes_ ? 0 : thread;
        tCache = {id_, trees_.back().get()};
        return trees_.back().get();
    } catch (...) {
        return nullptr; // out of memory: this range goes untimed
    }
}

HostNode* HostTimes::child(HostNode* parent, Tree& tree, const std::string& name) noexcept {
    try {
        // The outermost scope's instance number made uniform ("step 7" -> "step #"), as the
        // records' iteration scope is: one node for every step.
        const bool outermost = parent == &tree.root;
        const std::string uniform = outermost ? core::hostScopeKey(name) : std::string();
        const std::string& key = outermost ? uniform : name;
        for (const auto& c : parent->children)
            if (c->name == key)
                return c.get();
        auto node = std::make_unique<HostNode>();
        node->name = key;
        std::lock_guard<std::mutex> lock(tree.children);
        parent->children.push_back(std::move(node));
        return parent->children.back().get();
    } catch (...) {
        return nullptr; // out of memory: this range goes untimed
    }
}

void HostTimes::push(HostFrame& frame, const HostFrame* parent, const std::string& name,
                     std::uint64_t thread, const HostClocks& now) noexcept {
    if (mode_ == HostTiming::Off)
        return;
    Tree* tree = parent && parent->node ? static_cast<Tree*>(parent->tree) : treeOf(thread);
    if (!tree)
        return;
    frame.node = child(parent && parent->node ? parent->node : &tree->root, *tree, name);
    frame.tree = tree;
    frame.thread = thread;
    frame.cpuStartNs = mode_ != HostTiming::Cpu ? -1 : now.cpuNs >= 0 ? now.cpuNs : cpuNow();
    frame.wallStartNs = now.wallNs >= 0 ? now.wallNs : wallNow();
}

HostClocks HostTimes::pop(const HostFrame& frame, HostFrame* parent,
                          std::uint64_t thread) noexcept {
    if (!frame.node || frame.partial)
        return {};
    // The application's time: libroofline's own work inside the instance taken out.
    HostClocks end;
    end.wallNs = wallNow();
    const std::int64_t wall =
        std::max<std::int64_t>(0, end.wallNs - frame.wallStartNs - frame.profilerWallNs);
    const bool cpuKnown = frame.cpuStartNs >= 0 && frame.thread == thread;
    if (cpuKnown)
        end.cpuNs = cpuNow();
    const std::int64_t cpu =
        cpuKnown ? std::max<std::int64_t>(0, end.cpuNs - frame.cpuStartNs - frame.profilerCpuNs)
                 : 0;
    HostSamples& steady = frame.node->samples;
    if (steady.firstWallNs.load(std::memory_order_relaxed) < 0) {
        steady.firstProfiled.store(frame.profiled, std::memory_order_relaxed);
        steady.firstWallNs.store(wall, std::memory_order_relaxed);
    } else if (!frame.profiled) {
        const std::uint64_t i = steady.count.load(std::memory_order_relaxed);
        steady.wallNs[i % HostSamples::kSamples].store(wall, std::memory_order_relaxed);
        steady.cpuNs[i % HostSamples::kSamples].store(cpuKnown && !frame.childCpuUnknown ? cpu : -1,
                                                      std::memory_order_relaxed);
        steady.count.store(i + 1, std::memory_order_release);
    }
    HostSums& n = frame.profiled ? frame.node->profiled : frame.node->clean;
    add(n.calls, 1);
    add(n.launches, frame.launches);
    add(n.wallNs, wall);
    add(n.selfWallNs, wall - frame.childWallNs);
    add(n.profilerNs, frame.profilerWallNs);
    if (cpuKnown && !frame.childCpuUnknown) {
        add(n.cpuNs, cpu);
        add(n.selfCpuNs, cpu - frame.childCpuNs);
    } else if (mode_ == HostTiming::Cpu) {
        n.cpuUnknown.store(true, std::memory_order_relaxed);
    }
    if (parent && parent->node) {
        parent->childWallNs += wall;
        parent->childCpuNs += cpu;
        parent->childCpuUnknown = parent->childCpuUnknown || !cpuKnown;
        parent->profilerWallNs += frame.profilerWallNs;
        if (parent->thread == frame.thread)
            parent->profilerCpuNs += frame.profilerCpuNs;
        parent->profiled = parent->profiled || frame.profiled;
    } else if (frame.profiled) {
        // an outermost instance left out of the times, and of the shares' base if its scope has
        // instances that were not profiled
        exclude(frame.wallStartNs, end.wallNs, frame.node);
    }
    return end;
}

void HostTimes::exclude(std::int64_t startNs, std::int64_t endNs, const HostNode* node) noexcept {
    constexpr std::size_t kMaxIntervals = 4096;
    try {
        std::lock_guard<std::mutex> lock(excludedMutex_);
        if (excludedOverflow_)
            return;
        if (excluded_.size() == kMaxIntervals) { // merge what touches, then give up if still full
            std::sort(excluded_.begin(), excluded_.end(),
                      [](const Excluded& a, const Excluded& b) { return a.startNs < b.startNs; });
            std::size_t kept = 0;
            for (const Excluded& iv : excluded_) {
                Excluded& last = excluded_[kept > 0 ? kept - 1 : 0];
                if (kept > 0 && iv.node == last.node && iv.startNs <= last.endNs)
                    last.endNs = std::max(last.endNs, iv.endNs);
                else
                    excluded_[kept++] = iv;
            }
            excluded_.resize(kept);
            if (kept == kMaxIntervals) {
                excludedOverflow_ = true;
                return;
            }
        }
        excluded_.push_back({startNs, endNs, node});
    } catch (...) {
        excludedOverflow_ = true; // out of memory: shares of the whole wall time
    }
}

double HostTimes::runSeconds(std::int64_t startNs, std::int64_t endNs) const {
    const double whole = 1e-9 * static_cast<double>(endNs - startNs);
    std::lock_guard<std::mutex> lock(excludedMutex_);
    if (excludedOverflow_)
        return whole;
    // An outermost scope seen only in profiled instances keeps their times (marked): they stay
    // in the base too.
    std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
    for (const Excluded& iv : excluded_)
        if (iv.node->clean.calls.load(std::memory_order_relaxed) > 0)
            intervals.emplace_back(iv.startNs, iv.endNs);
    std::sort(intervals.begin(), intervals.end());
    std::int64_t covered = 0, reach = startNs; // the union of the intervals within the session
    for (const auto& [a, b] : intervals) {
        const std::int64_t from = std::max({a, reach, startNs}), to = std::min(b, endNs);
        if (to > from)
            covered += to - from;
        reach = std::max(reach, to);
    }
    const std::int64_t outside = profilerNs_.load(std::memory_order_relaxed) -
                                 profilerInScopesNs_.load(std::memory_order_relaxed);
    const double run = 1e-9 * static_cast<double>(endNs - startNs - covered - outside);
    return run > 0 ? run : whole;
}

HostClocks HostTimes::profilerStart(bool measure, const HostClocks& now) const noexcept {
    if (!measure || mode_ == HostTiming::Off)
        return {};
    HostClocks start = now;
    if (mode_ == HostTiming::Cpu && start.cpuNs < 0)
        start.cpuNs = cpuNow();
    if (start.wallNs < 0)
        start.wallNs = wallNow();
    return start;
}

HostClocks HostTimes::profilerEnd(const HostClocks& start, const HostFrame* innermost,
                                  std::uint64_t thread) noexcept {
    if (start.wallNs < 0)
        return {};
    HostClocks end;
    end.wallNs = wallNow();
    if (start.cpuNs >= 0)
        end.cpuNs = cpuNow();
    const std::int64_t wall = std::max<std::int64_t>(0, end.wallNs - start.wallNs);
    const std::int64_t cpu =
        start.cpuNs >= 0 ? std::max<std::int64_t>(0, end.cpuNs - start.cpuNs) : 0;
    profilerNs_.fetch_add(wall, std::memory_order_relaxed);
    if (!innermost || !innermost->node)
        return end; // outside scopes: out of the shares' base as a total
    profilerInScopesNs_.fetch_add(wall, std::memory_order_relaxed);
    innermost->profilerWallNs += wall;
    if (innermost->thread == thread)
        innermost->profilerCpuNs += cpu;
    return end;
}

double HostTimes::profilerSeconds() const noexcept {
    return 1e-9 * static_cast<double>(profilerNs_.load(std::memory_order_relaxed));
}

double HostTimes::profilerInScopesSeconds() const noexcept {
    return 1e-9 * static_cast<double>(profilerInScopesNs_.load(std::memory_order_relaxed));
}

namespace {

// The first instance and the median of the sampled clean instances (docs: "Host side").
void steadyState(const HostSamples& h, HostScope& s) {
    const std::int64_t first = h.firstWallNs.load(std::memory_order_relaxed);
    s.firstWallSeconds = first >= 0 ? 1e-9 * static_cast<double>(first) : -1;
    s.firstProfiled = h.firstProfiled.load(std::memory_order_relaxed);
    const std::uint64_t count = h.count.load(std::memory_order_acquire);
    s.steadyCalls = count;
    if (count == 0)
        return;
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(count, HostSamples::kSamples));
    std::vector<std::int64_t> wall(n), cpu(n);
    for (std::size_t i = 0; i < n; ++i) {
        wall[i] = h.wallNs[i].load(std::memory_order_relaxed);
        cpu[i] = h.cpuNs[i].load(std::memory_order_relaxed);
    }
    const auto median = [](std::vector<std::int64_t>& v) {
        std::sort(v.begin(), v.end());
        const std::size_t m = v.size() / 2;
        const double mid = static_cast<double>(v[m]);
        return 1e-9 * (v.size() % 2 ? mid : 0.5 * (mid + static_cast<double>(v[m - 1])));
    };
    s.steadyWallSeconds = median(wall);
    if (std::none_of(cpu.begin(), cpu.end(), [](std::int64_t c) { return c < 0; }))
        s.steadyCpuSeconds = median(cpu);
}

} // namespace

std::vector<HostScope> HostTimes::collect() const {
    std::vector<HostScope> out;
    if (mode_ == HostTiming::Off)
        return out;
    auto seconds = [](const std::atomic<std::int64_t>& ns) {
        return 1e-9 * static_cast<double>(ns.load(std::memory_order_relaxed));
    };
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& tree : trees_) {
        std::lock_guard<std::mutex> treeLock(tree->children);
        const std::function<void(const HostNode&, const std::string&)> walk =
            [&](const HostNode& n, const std::string& path) {
                for (const auto& c : n.children) {
                    const std::string p = path.empty() ? c->name : path + "/" + c->name;
                    const std::uint64_t clean = c->clean.calls.load(std::memory_order_relaxed);
                    const std::uint64_t profiled =
                        c->profiled.calls.load(std::memory_order_relaxed);
                    if (clean + profiled > 0) {
                        // The instances whose kernels ran without the profiler, when there are
                        // any: their host time is the application's alone.
                        const HostSums& sums = clean > 0 ? c->clean : c->profiled;
                        HostScope s;
                        s.scopePath = p;
                        s.threadId = tree->thread;
                        s.calls = clean > 0 ? clean : profiled;
                        s.profiledCalls = profiled; // left out, or (profiledTimes) the calls
                        s.profiledTimes = clean == 0;
                        s.launches = sums.launches.load(std::memory_order_relaxed);
                        s.wallSeconds = seconds(sums.wallNs);
                        s.selfWallSeconds = seconds(sums.selfWallNs);
                        s.profilerSeconds =
                            seconds(c->clean.profilerNs) + seconds(c->profiled.profilerNs);
                        if (mode_ == HostTiming::Cpu &&
                            !sums.cpuUnknown.load(std::memory_order_relaxed)) {
                            s.cpuSeconds = seconds(sums.cpuNs);
                            s.selfCpuSeconds = seconds(sums.selfCpuNs);
                        }
                        steadyState(c->samples, s);
                        out.push_back(std::move(s));
                    }
                    walk(*c, p);
                }
            };
        walk(tree->root, "");
    }
    return out;
}

} // namespace roofline::collect
