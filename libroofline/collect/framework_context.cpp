#include "collect/framework_context.hpp"

#include "core/framework_ops.hpp"
#include "core/launch.hpp"

#include <mutex>
#include <unordered_map>
#include <vector>

namespace roofline::collect::framework {
namespace {

using Kind = core::FrameworkRange::Kind;

struct OpFrame {
    std::string name;
    std::int64_t seq = -1;
    Kind kind = Kind::Op;
    std::string shapes;
    std::string forwardOp, forwardModule; // a backward node: what it differentiates
};

struct ThreadState {
    std::vector<OpFrame> ops;
    std::vector<bool> opened; // per open default-domain range: kept here (true) or a scope
    std::vector<std::string> modules;
};
ThreadState& mine() noexcept {
    thread_local ThreadState state;
    return state;
}

struct Forward {
    std::string op, module, shapes;
};
struct Shared {
    std::mutex mutex;
    std::unordered_map<std::int64_t, Forward> bySeq;
    std::int64_t highest = -1;
    std::map<std::string, std::string> facts;
};
Shared& shared() noexcept {
    static Shared* s = new Shared(); // never destroyed: threads outlive statics
    return *s;
}
// Backward runs soon after its forward: older sequence numbers are let go past this many.
constexpr std::size_t kMaxRemembered = 1u << 18;
constexpr std::int64_t kKeptBehind = 1 << 17;

bool defaultDomain(const char* domain) noexcept {
    return !domain || !*domain;
}

const std::string& currentModule(const ThreadState& t) noexcept {
    static const std::string none;
    return t.modules.empty() ? none : t.modules.back();
}

bool insideBackward(const ThreadState& t) noexcept {
    for (const OpFrame& f : t.ops)
        if (f.kind == Kind::Backward)
            return true;
    return false;
}

void remember(std::int64_t seq, const std::string& op, const std::string& module,
              const std::string& shapes) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.bySeq.size() >= kMaxRemembered) {
        for (auto it = s.bySeq.begin(); it != s.bySeq.end();)
            it = it->first < s.highest - kKeptBehind ? s.bySeq.erase(it) : std::next(it);
        if (s.bySeq.size() >= kMaxRemembered)
            s.bySeq.clear();
    }
    Forward& f = s.bySeq[seq]; // an inner operator with the same seq made the node: it wins
    f.op = op;
    f.module = module;
    f.shapes = shapes;
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

bool startsWith(const std::string& s, const char* p) noexcept {
    return s.rfind(p, 0) == 0;
}

bool communication(const std::string& op) noexcept {
    return startsWith(op, "nccl:") || startsWith(op, "c10d::") || startsWith(op, "gloo:") ||
           op == "record_param_comms";
}

} // namespace

bool pushed(const char* domain, const char* name) noexcept {
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
        if (r.kind == Kind::Backward) {
            Forward fw;
            if (r.seq >= 0 && recall(r.seq, fw)) {
                f.forwardOp = std::move(fw.op);
                f.forwardModule = std::move(fw.module);
                f.shapes = std::move(fw.shapes);
                // The engine's range around this node (no seq of its own) differentiates the
                // same operator: its kernels after the node (gradient accumulation) say so.
                if (!t.ops.empty() && t.ops.back().kind == Kind::Backward && t.ops.back().seq < 0 &&
                    t.ops.back().forwardOp.empty() && t.ops.back().name == r.name) {
                    t.ops.back().forwardOp = f.forwardOp;
                    t.ops.back().forwardModule = f.forwardModule;
                    t.ops.back().shapes = f.shapes;
                }
            }
        } else if (r.seq >= 0 && !insideBackward(t)) {
            remember(r.seq, r.name, currentModule(t), r.sizes);
        }
        if (r.kind != Kind::Backward)
            f.shapes = std::move(r.sizes);
        f.name = std::move(r.name);
        t.ops.push_back(std::move(f));
        t.opened.push_back(true);
        return true;
    } catch (...) {
        return false; // out of memory: the range is a scope as named
    }
}

bool popped(const char* domain) noexcept {
    if (!defaultDomain(domain))
        return false;
    ThreadState& t = mine();
    // None open here: opened on another thread (a process-wide scope) or before libroofline loaded.
    if (t.opened.empty())
        return false;
    const bool op = t.opened.back();
    t.opened.pop_back();
    if (op && !t.ops.empty())
        t.ops.pop_back();
    return op;
}

void moduleEnter(const char* path) noexcept {
    try {
        mine().modules.emplace_back(path ? path : "");
    } catch (...) {
    }
}

void moduleExit() noexcept {
    ThreadState& t = mine();
    if (!t.modules.empty())
        t.modules.pop_back();
}

void describe(core::LaunchInfo& info) {
    const ThreadState& t = mine();
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

void reset() noexcept {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.bySeq.clear();
    s.highest = -1;
    s.facts.clear();
    ThreadState& t = mine();
    t.ops.clear();
    t.opened.clear();
    t.modules.clear();
}

} // namespace roofline::collect::framework
