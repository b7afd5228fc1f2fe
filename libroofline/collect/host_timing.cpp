#include "collect/host_timing.hpp"

#include "core/host_scopes.hpp"

#include <chrono>
#include <ctime>
#include <functional>

namespace roofline::collect {

struct HostNode {
    std::string name;
    std::vector<std::unique_ptr<HostNode>> children; // appended only, by the tree's owner
    // One writer at a time (the tree's thread, or the process stack's lock holder); collect()
    // reads them concurrently.
    std::atomic<std::uint64_t> calls{0}, launches{0};
    std::atomic<std::int64_t> wallNs{0}, selfWallNs{0}, cpuNs{0}, selfCpuNs{0};
    std::atomic<bool> cpuUnknown{false};
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
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::int64_t HostTimes::cpuNow() noexcept {
    timespec ts{};
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
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
                     std::uint64_t thread) noexcept {
    if (mode_ == HostTiming::Off)
        return;
    Tree* tree = parent && parent->node ? static_cast<Tree*>(parent->tree) : treeOf(thread);
    if (!tree)
        return;
    frame.node = child(parent && parent->node ? parent->node : &tree->root, *tree, name);
    frame.tree = tree;
    frame.thread = thread;
    frame.cpuStartNs = mode_ == HostTiming::Cpu ? cpuNow() : -1;
    frame.wallStartNs = wallNow();
}

void HostTimes::pop(const HostFrame& frame, HostFrame* parent, std::uint64_t thread) noexcept {
    if (!frame.node)
        return;
    const std::int64_t wall = wallNow() - frame.wallStartNs;
    const bool cpuKnown = frame.cpuStartNs >= 0 && frame.thread == thread;
    const std::int64_t cpu = cpuKnown ? cpuNow() - frame.cpuStartNs : 0;
    HostNode& n = *frame.node;
    add(n.calls, 1);
    add(n.launches, frame.launches);
    add(n.wallNs, wall);
    add(n.selfWallNs, wall - frame.childWallNs);
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
    }
}

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
                    const std::uint64_t calls = c->calls.load(std::memory_order_relaxed);
                    if (calls > 0) {
                        HostScope s;
                        s.scopePath = p;
                        s.threadId = tree->thread;
                        s.calls = calls;
                        s.launches = c->launches.load(std::memory_order_relaxed);
                        s.wallSeconds = seconds(c->wallNs);
                        s.selfWallSeconds = seconds(c->selfWallNs);
                        if (mode_ == HostTiming::Cpu &&
                            !c->cpuUnknown.load(std::memory_order_relaxed)) {
                            s.cpuSeconds = seconds(c->cpuNs);
                            s.selfCpuSeconds = seconds(c->selfCpuNs);
                        }
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
