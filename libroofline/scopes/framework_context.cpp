#include "scopes/framework_context.hpp"

#include "core/compiled_sites.hpp"
#include "core/framework_ops.hpp"
#include "core/launch.hpp"
#include "core/log.hpp"
#include "core/xla_ops.hpp"

#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace roofline::collect::framework {
namespace {

using Kind = core::FrameworkRange::Kind;
constexpr std::size_t kNoSite = std::numeric_limits<std::size_t>::max();

struct OpFrame {
    std::string name;
    std::int64_t seq = -1;
    Kind kind = Kind::Op;
    std::string shapes;
    std::size_t site = kNoSite; // a call site of a compiled graph: which push of its range, from 0
    // A backward node: what it differentiates, and the prefix of that forward's module paths.
    std::string forwardOp, forwardModule, forwardPrefix;
};

struct ModuleFrame {
    std::string path;
    bool top = false;
};

// An open compiled-graph call: its sites (when known), how many times each site's range was
// pushed so far, and the site open now.
struct GraphCall {
    std::size_t frame = 0; // its index in ThreadState::ops
    std::shared_ptr<const core::CompiledGraph> table;
    std::unordered_map<std::string, std::size_t> seen;
    std::size_t site = kNoSite; // index in ThreadState::ops of the site frame open, if any
};

// One of XLA's ranges: an operation it runs, or a run of an executable (`run`: its name).
struct XlaFrame {
    core::XlaOperation operation;
    std::string run;
};

struct ThreadState {
    std::vector<OpFrame> ops;
    std::vector<bool> opened;    // per open default-domain range: kept here (true) or a scope
    std::vector<XlaFrame> xla;   // XLA's ranges open (domain "TSL"): operations and runs
    std::vector<bool> xlaOpened; // per open "TSL" range: kept here (true) or a scope
    std::vector<ModuleFrame> modules;
    std::vector<GraphCall> graphCalls;
};
ThreadState& mine() noexcept {
    thread_local ThreadState state;
    return state;
}

struct Forward {
    std::string op, module, prefix, shapes;
};
struct NodeNote {
    std::string op, phase, module, shapes;
};
struct Shared {
    std::mutex mutex;
    std::unordered_map<std::int64_t, Forward> bySeq;
    std::int64_t highest = -1;
    std::map<std::string, std::string> facts;
    std::unordered_map<std::string, std::shared_ptr<const core::CompiledGraph>> graphs;
    std::unordered_map<std::uint64_t, NodeNote> nodes;
};
Shared& shared() noexcept {
    static Shared* s = new Shared(); // never destroyed: threads outlive statics
    return *s;
}
// Backward runs soon after its forward: older sequence numbers are let go past this many.
constexpr std::size_t kMaxRemembered = 1u << 18;
constexpr std::int64_t kKeptBehind = 1 << 17;
// Compiled graphs and captured nodes of a long run: all forgotten past these (then relearned).
constexpr std::size_t kMaxGraphs = 4096;
constexpr std::size_t kMaxNodes = 1u << 20;

bool defaultDomain(const char* domain) noexcept {
    return !domain || !*domain;
}

const std::string& currentModule(const ThreadState& t) noexcept {
    static const std::string none;
    return t.modules.empty() ? none : t.modules.back().path;
}

// What the current module adds in front of the paths of a module compiled inside it.
const std::string& currentPrefix(const ThreadState& t) noexcept {
    static const std::string none;
    return t.modules.empty() || t.modules.back().top ? none : t.modules.back().path;
}

bool insideBackward(const ThreadState& t) noexcept {
    for (const OpFrame& f : t.ops)
        if (f.kind == Kind::Backward)
            return true;
    return false;
}

void remember(std::int64_t seq, const OpFrame& f, const ThreadState& t) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.bySeq.size() >= kMaxRemembered) {
        for (auto it = s.bySeq.begin(); it != s.bySeq.end();)
            it = it->first < s.highest - kKeptBehind ? s.bySeq.erase(it) : std::next(it);
        if (s.bySeq.size() >= kMaxRemembered)
            s.bySeq.clear();
    }
    Forward& fw = s.bySeq[seq]; // an inner operator with the same seq made the node: it wins
    fw.op = f.name;
    fw.module = currentModule(t);
    fw.prefix = currentPrefix(t);
    fw.shapes = f.shapes;
    s.highest = std::max(s.highest, seq);
}

bool recall(std::int64_t seq, Forward& out) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.bySeq.find(seq);
    if (it == s.bySeq.end())
        return false;
    out = it->second;
    return true;
}

std::shared_ptr<const core::CompiledGraph> compiledGraph(const std::string& key) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.graphs.find(key);
    return it == s.graphs.end() ? nullptr : it->second;
}

bool recallNode(std::uint64_t node, core::LaunchInfo& info) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.nodes.find(node);
    if (it == s.nodes.end())
        return false;
    info.op = it->second.op;
    info.phase = it->second.phase;
    info.module = it->second.module;
    info.shapes = it->second.shapes;
    return true;
}

bool startsWith(const std::string& s, const char* p) noexcept {
    return s.rfind(p, 0) == 0;
}

bool communication(const std::string& op) noexcept {
    return startsWith(op, "nccl:") || startsWith(op, "c10d::") || startsWith(op, "gloo:") ||
           op == "record_param_comms";
}

// A frame pushed on `t` (it will be t.ops[t.ops.size()]): under an open graph call, outside any
// of its sites, a range the graph's sites push is the next of them -- ranges of code between the
// call and its sites (CUDA graph trees recording them, "CUDAGraphNode.record") are not; a graph
// call opens one.
void placeInGraph(ThreadState& t, OpFrame& f) {
    if (!t.graphCalls.empty()) {
        GraphCall& call = t.graphCalls.back();
        if (call.site == kNoSite && call.table && call.table->site(f.name, 0)) {
            f.site = call.seen[f.name]++;
            call.site = t.ops.size();
        }
    }
    if (const std::string key = core::compiledGraphKey(f.name); !key.empty())
        t.graphCalls.push_back({t.ops.size(), compiledGraph(key), {}, kNoSite});
}

// A frame t.ops.back() leaves: the graph call or the site it is.
void leaveGraph(ThreadState& t) {
    if (t.graphCalls.empty())
        return;
    GraphCall& call = t.graphCalls.back();
    if (call.frame + 1 == t.ops.size())
        t.graphCalls.pop_back();
    else if (call.site + 1 == t.ops.size())
        call.site = kNoSite;
}

// A kernel of the innermost compiled graph's call `call`; `backward`: the innermost backward node
// open, if any. Its call site names it when the graph's sites are known; otherwise the operator it
// runs in, or what its name says.
void describeCompiled(const ThreadState& t, const GraphCall& call, const OpFrame* backward,
                      core::LaunchInfo& info) {
    const OpFrame* site = call.site != kNoSite ? &t.ops[call.site] : nullptr;
    const OpFrame* inner = call.frame + 1 < t.ops.size() ? &t.ops.back() : nullptr;
    const core::CompiledSite* s = site ? call.table->site(site->name, site->site) : nullptr;
    info.phase = backward ? "backward" : "forward";
    info.module = core::compiledModule(backward ? backward->forwardPrefix : currentPrefix(t),
                                       s ? s->module : std::string(),
                                       backward ? backward->forwardModule : currentModule(t));
    const OpFrame* named = site ? site : inner;
    if (named && named->name.find("::") != std::string::npos)
        info.op = named->name; // an operator the graph calls ("aten::addmm"): its own kernels
    else if (s && !s->ops.empty())
        info.op = s->ops;
    else if (std::string fused = core::inductorFusedOps(info.mangledName); !fused.empty())
        info.op = std::move(fused);
    else if (named)
        info.op = named->name;
    if (named)
        info.shapes = named->shapes;
}

} // namespace

// XLA's ranges (domain "TSL"): its operations are kept here, its executables' runs are scopes
// (the step is found from them: scopes/found_steps).
bool xlaPushed(const char* name) noexcept {
    try {
        ThreadState& t = mine();
        XlaFrame f;
        const bool kept =
            name && (core::parseXlaOperation(name, f.operation) || core::xlaExecutableRun(name));
        if (kept) {
            if (f.operation.hlo.empty() && f.operation.op.empty())
                f.run = name;
            t.xla.push_back(std::move(f));
        }
        t.xlaOpened.push_back(kept);
        return kept;
    } catch (...) {
        return false; // out of memory: the range is a scope as named
    }
}

bool xlaPopped() noexcept {
    ThreadState& t = mine();
    if (t.xlaOpened.empty())
        return false;
    const bool op = t.xlaOpened.back();
    t.xlaOpened.pop_back();
    if (op && !t.xla.empty())
        t.xla.pop_back();
    return op;
}

bool pushed(const char* domain, const char* name) noexcept {
    if (domain && domain == core::kXlaDomain)
        return xlaPushed(name);
    if (!defaultDomain(domain))
        return false;
    try {
        ThreadState& t = mine();
        if (!name || !core::hasPerCallFields(name)) {
            t.opened.push_back(false);
            return false;
        }
        core::FrameworkRange r = core::parseFrameworkRange(name);
        OpFrame f;
        f.kind = r.kind;
        f.seq = r.seq;
        f.name = std::move(r.name);
        if (r.kind == Kind::Backward) {
            Forward fw;
            if (r.seq >= 0 && recall(r.seq, fw)) {
                f.forwardOp = std::move(fw.op);
                f.forwardModule = std::move(fw.module);
                f.forwardPrefix = std::move(fw.prefix);
                f.shapes = std::move(fw.shapes);
                // The engine's range around this node (no seq of its own) differentiates the
                // same operator: its kernels after the node (gradient accumulation) say so.
                if (!t.ops.empty() && t.ops.back().kind == Kind::Backward && t.ops.back().seq < 0 &&
                    t.ops.back().forwardOp.empty() && t.ops.back().name == f.name) {
                    OpFrame& engine = t.ops.back();
                    engine.forwardOp = f.forwardOp;
                    engine.forwardModule = f.forwardModule;
                    engine.forwardPrefix = f.forwardPrefix;
                    engine.shapes = f.shapes;
                }
            }
        } else {
            f.shapes = std::move(r.sizes);
            if (r.seq >= 0 && !insideBackward(t))
                remember(r.seq, f, t);
        }
        placeInGraph(t, f);
        t.ops.push_back(std::move(f));
        t.opened.push_back(true);
        return true;
    } catch (...) {
        return false; // out of memory: the range is a scope as named
    }
}

void closingRun(const char* domain, std::string& run) noexcept {
    if (!domain || domain != core::kXlaDomain)
        return;
    const ThreadState& t = mine();
    if (t.xlaOpened.empty() || !t.xlaOpened.back() || t.xla.empty())
        return;
    try {
        run = t.xla.back().run;
    } catch (...) {
        run.clear(); // out of memory: this run's end goes unseen
    }
}

bool popped(const char* domain) noexcept {
    if (domain && domain == core::kXlaDomain)
        return xlaPopped();
    if (!defaultDomain(domain))
        return false;
    ThreadState& t = mine();
    // None open here: opened on another thread (a process-wide scope) or before libroofline loaded.
    if (t.opened.empty())
        return false;
    const bool op = t.opened.back();
    t.opened.pop_back();
    if (op && !t.ops.empty()) {
        leaveGraph(t);
        t.ops.pop_back();
    }
    return op;
}

void moduleEnter(const char* path, bool top) noexcept {
    try {
        mine().modules.push_back({path ? path : "", top});
    } catch (...) {
    }
}

void moduleExit() noexcept {
    ThreadState& t = mine();
    if (!t.modules.empty())
        t.modules.pop_back();
}

void describe(core::LaunchInfo& info, std::uint64_t graphNode) {
    if (graphNode != 0 && recallNode(graphNode, info))
        return;
    const ThreadState& t = mine();
    if (!t.xla.empty() && !t.xla.back().operation.op.empty()) { // an operation XLA runs (JAX)
        const core::XlaOperation& x = t.xla.back().operation;
        info.op = x.op;
        info.phase = x.phase;
        info.module = x.module;
        return;
    }
    const OpFrame* backward = nullptr;
    const OpFrame* optimizer = nullptr;
    const OpFrame* innermost = nullptr;
    const OpFrame* withSeq = nullptr; // the innermost operator autograd numbered
    // A collective's range may end on another thread, or never (c10d's allgather in DDP's set-up,
    // PyTorch 2.11): it names communication kernels only, never the compute kernels after it.
    const bool commKernel =
        !t.ops.empty() && core::communicationLibrary(info.mangledName.c_str()) != nullptr;
    for (const OpFrame& f : t.ops) {
        if (f.kind == Kind::Backward) {
            backward = &f;
            continue;
        }
        if (!commKernel && communication(f.name))
            continue;
        innermost = &f;
        if (f.seq >= 0)
            withSeq = &f;
        if (startsWith(f.name, "Optimizer."))
            optimizer = &f;
    }
    if (innermost && communication(innermost->name)) {
        info.op = innermost->name;
        info.phase = "communication";
        return;
    }
    if (!t.graphCalls.empty()) {
        describeCompiled(t, t.graphCalls.back(), backward, info);
        return;
    }
    if (backward) {
        info.phase = "backward";
        info.op = !backward->forwardOp.empty() ? backward->forwardOp : backward->name;
        info.module = backward->forwardModule;
        info.shapes = backward->shapes;
        return;
    }
    if (optimizer) {
        info.phase = "optimizer";
        info.op = innermost->name;
        info.module = "optimizer." + core::optimizerOf(optimizer->name);
        return;
    }
    info.module = currentModule(t);
    if (innermost) {
        info.phase = "forward";
        const OpFrame& op = withSeq ? *withSeq : *innermost;
        info.op = op.name;
        info.shapes = op.shapes;
        return;
    }
    info.op = core::inductorFusedOps(info.mangledName);
}

void captured(std::uint64_t node, const char* mangledName) noexcept {
    if (node == 0)
        return;
    try {
        core::LaunchInfo here;
        here.mangledName = mangledName ? mangledName : "";
        describe(here);
        Shared& s = shared();
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.nodes.size() >= kMaxNodes)
            s.nodes.clear();
        s.nodes[node] = {std::move(here.op), std::move(here.phase), std::move(here.module),
                         std::move(here.shapes)};
    } catch (...) {
        // out of memory: that node's kernel is named by what is current when it runs
    }
}

void setCompiledGraph(const char* key, const char* sites) noexcept {
    if (!key || !*key || !sites)
        return;
    try {
        auto graph = std::make_shared<const core::CompiledGraph>(core::CompiledGraph::parse(sites));
        Shared& s = shared();
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.graphs.size() >= kMaxGraphs && !s.graphs.count(key))
            s.graphs.clear();
        s.graphs[key] = std::move(graph);
    } catch (const std::exception& e) {
        static std::once_flag once;
        std::call_once(once, [&] {
            core::log().warn("libroofline: a compiled graph's sites were not read ({}): its "
                             "kernels are named by their operators only",
                             e.what());
        });
    } catch (...) {
    }
}

void setFact(const char* key, const char* value) noexcept {
    if (!key || !*key)
        return;
    try {
        Shared& s = shared();
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.facts.size() < 64 || s.facts.count(key))
            s.facts[key] = std::string(value ? value : "").substr(0, 256);
    } catch (...) {
    }
}

std::map<std::string, std::string> facts() {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    return s.facts;
}

std::size_t rememberedForward() noexcept {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    return s.bySeq.size();
}

std::size_t openOperators() noexcept {
    return mine().ops.size();
}

std::size_t compiledGraphs() noexcept {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    return s.graphs.size();
}

std::size_t capturedNodes() noexcept {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    return s.nodes.size();
}

void reset() noexcept {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.bySeq.clear();
    s.highest = -1;
    s.facts.clear();
    s.graphs.clear();
    s.nodes.clear();
    ThreadState& t = mine();
    t.ops.clear();
    t.opened.clear();
    t.modules.clear();
    t.graphCalls.clear();
}

} // namespace roofline::collect::framework
