#include "cudnn/conv_runner.hpp"

#include "cudnn/conv_graph.hpp"
#include "cudnn/cuda_util.hpp"
#include "cudnn/reference.hpp"

#include <algorithm>
#include <limits>

namespace roofline::bench {

using workloads::CaseResult;
using workloads::CaseStatus;
using workloads::ConvCase;
using workloads::ConvPass;
using workloads::Precision;

namespace {

ConvGeometry geometry(const ConvCase& c) {
    ConvGeometry g{};
    g.n = c.n;
    g.c = c.c;
    g.k = c.k;
    g.groups = c.groups;
    const auto out = c.output();
    for (int i = 0; i < 3; ++i) {
        const auto u = static_cast<std::size_t>(i);
        g.in[i] = c.input[u];
        g.filter[i] = c.filter[u];
        g.out[i] = out[u];
        g.stride[i] = c.stride[u];
        g.dilation[i] = c.dilation[u];
        g.padPre[i] = c.padPre[u];
    }
    const ConvStrides s = convStrides(c);
    for (int i = 0; i < 5; ++i) {
        g.xStride[i] = s.x[i];
        g.wStride[i] = s.w[i];
        g.yStride[i] = s.y[i];
    }
    return g;
}

// The case's buffers: x (or dx), w (or dw), y (or dy), the output's reference, inputs filled.
struct ConvBuffers {
    DeviceBuffer tensor[3];
    long long elements[3];
    int output; // which of the three the pass writes
    DeviceBuffer reference;
};

ConvBuffers prepare(const ConvCase& c, int index, const RunContext& ctx) {
    ConvBuffers b;
    const ElementType type = elementTypeOf(c.precision);
    const std::size_t bytes = static_cast<std::size_t>(workloads::elementBytes(c.precision));
    b.elements[0] = c.inputElements();
    b.elements[1] = c.filterElements();
    b.elements[2] = c.outputElements();
    const char* names[3] = {"x", "w", "y"};
    for (int t = 0; t < 3; ++t)
        b.tensor[t] = DeviceBuffer(static_cast<std::size_t>(b.elements[t]) * bytes, names[t]);
    b.output = c.pass == ConvPass::Forward ? 2 : c.pass == ConvPass::BackwardData ? 0 : 1;
    for (int t = 0; t < 3; ++t)
        if (t != b.output)
            fillUniform(b.tensor[t].get(), b.elements[t], type,
                        caseSeed(ctx.settings.seed, index, t), -1.0f, 1.0f, ctx.stream);
    if (ctx.settings.verify) {
        b.reference = DeviceBuffer(static_cast<std::size_t>(b.elements[b.output]) * sizeof(double),
                                   "reference result");
        const ConvGeometry g = geometry(c);
        auto* ref = b.reference.as<double>();
        switch (c.pass) {
        case ConvPass::Forward:
            referenceConvForward(g, type, b.tensor[0].get(), b.tensor[1].get(), ref, ctx.stream);
            break;
        case ConvPass::BackwardData:
            referenceConvBackwardData(g, type, b.tensor[2].get(), b.tensor[1].get(), ref,
                                      ctx.stream);
            break;
        case ConvPass::BackwardFilter:
            referenceConvBackwardFilter(g, type, b.tensor[0].get(), b.tensor[2].get(), ref,
                                        ctx.stream);
            break;
        }
    }
    BENCH_CUDA(cudaStreamSynchronize(ctx.stream));
    return b;
}

std::uint64_t workspaceLimit(const RunContext& ctx) {
    const std::uint64_t free = freeDeviceMemory();
    const std::uint64_t margin = 256ull << 20; // leave room for cuDNN's and CUPTI's own buffers
    const std::uint64_t available = free > margin ? free - margin : 0;
    return ctx.settings.maxWorkspace ? std::min(ctx.settings.maxWorkspace, available) : available;
}

std::string mib(std::int64_t bytes) {
    return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

// Verification, timing and (when `profile`) the profiled replay of one plan.
void runPlan(const ConvCase& c, const ConvGraph& graph, const ConvPlan& plan, ConvBuffers& b,
             RunContext& ctx, CaseResult& r, bool profile = true) {
    r.algorithm = plan.name();
    r.workspaceBytes = static_cast<double>(plan.workspaceBytes);
    DeviceBuffer workspace(static_cast<std::size_t>(plan.workspaceBytes), "workspace");
    const BackendDescriptor pack =
        makeVariantPack(b.tensor[0].get(), b.tensor[1].get(), b.tensor[2].get(), workspace.get());
    auto work = [&] { graph.execute(plan, pack); };
    const ElementType type = elementTypeOf(c.precision);
    void* out = b.tensor[b.output].get();
    if (ctx.settings.verify) {
        PhaseTimer timer(ctx.phases, &PhaseTimes::verify);
        // NaN everywhere first: an engine that leaves elements unwritten cannot pass.
        BENCH_CUDA(cudaMemsetAsync(out, 0xFF, b.tensor[b.output].bytes(), ctx.stream));
        work();
        const Comparison cmp = compareWithReference(out, type, b.reference.as<double>(),
                                                    b.elements[b.output], ctx.stream);
        judge(r, cmp.error(), cmp.nonFinite, r.tolerance); // set by the case header or --tolerance
    }
    std::vector<double> times;
    {
        PhaseTimer timer(ctx.phases, &PhaseTimes::timing);
        times = timeRuns(work, ctx.stream, ctx.settings.warmup, ctx.settings.repeats);
    }
    r.repeats = static_cast<int>(times.size());
    r.eventMedianSeconds = median(times);
    r.eventMinSeconds = times.empty() ? 0.0 : times.front();
    r.eventSeconds = times;
    if (profile)
        profileCase(ctx, r.scope, r.pass, work);
}

// The engines of one configuration that passed (`plans[i]` ran as `results[index[i]]`), profiled
// together: each replay pass runs every engine once under its own scope, so a pass's fixed cost is
// paid once per configuration rather than once per engine. They share one workspace (the
// largest); a failure fails them all.
void profileTogether(const ConvGraph& graph, const std::vector<ConvPlan>& plans,
                     const std::vector<std::size_t>& index, std::vector<CaseResult>& results,
                     ConvBuffers& b, const RunContext& ctx) {
    if (!ctx.session || plans.empty())
        return;
    std::int64_t largest = 0;
    for (const ConvPlan& p : plans)
        largest = std::max(largest, p.workspaceBytes);
    CaseResult outcome;
    guardCase(outcome, [&] {
        DeviceBuffer workspace(static_cast<std::size_t>(largest), "workspace");
        std::vector<BackendDescriptor> packs; // one per plan; reserved: the works refer to them
        packs.reserve(plans.size());
        std::vector<ProfiledWork> works;
        for (std::size_t i = 0; i < plans.size(); ++i) {
            packs.push_back(makeVariantPack(b.tensor[0].get(), b.tensor[1].get(), b.tensor[2].get(),
                                            workspace.get()));
            // The case's scope is "<configuration>/<engine>": the configuration's scope is each
            // pass's iteration scope, the engine's opens inside it.
            const CaseResult& r = results[index[i]];
            works.push_back(
                {r.scope.substr(r.scope.rfind('/') + 1), r.pass,
                 [&graph, &plan = plans[i], &pack = packs.back()] { graph.execute(plan, pack); }});
        }
        const std::string& first = results[index.front()].scope;
        profileCases(ctx, works, first.substr(0, first.rfind('/')));
    });
    if (outcome.status != CaseStatus::Passed)
        for (std::size_t i : index) {
            results[i].status = outcome.status;
            results[i].reason = "profiling the configuration's engines together: " + outcome.reason;
        }
}

} // namespace

CaseResult convCaseHeader(const ConvCase& c, int index) {
    CaseResult r;
    r.index = index;
    r.name = c.name.empty() ? "conv" + std::to_string(index) : c.name;
    r.scope = caseScope('c', index, r.name);
    r.workload = c.spatialDims == 3 ? "conv3d" : "conv2d";
    r.shape = c.shape();
    r.pass = toString(c.pass);
    r.precision = toString(c.precision);
    r.layout = toString(c.layout, c.spatialDims);
    r.source = c.source;
    r.analyticFlops = c.flops();
    r.tolerance = workloads::accumulationTolerance(c.precision, c.reductionLength());
    r.seerConfig = c.seerLine();
    r.layerCount = c.count;
    return r;
}

namespace {

// cuDNN's heuristic order for this case: each engine's rank in it (SEER data sets compare the
// model's pick with the heuristic's). A failed query only leaves the ranks unknown, unless it
// left the device unusable (false, with `query` saying why).
bool heuristicOrder(ConvGraph& graph, RunContext& ctx, CaseResult& query,
                    std::vector<std::int64_t>& order) {
    return guardCase(query, [&] {
        PhaseTimer timer(ctx.phases, &PhaseTimes::plans);
        for (const ConvPlan& p : graph.heuristicPlans(16))
            if (std::find(order.begin(), order.end(), p.engine) == order.end())
                order.push_back(p.engine);
    });
}

// Engine `e` of the case, run and timed when cuDNN offers it for this case, its precision and
// the workspace limit. False when the device became unusable.
bool runEngine(const ConvCase& c, ConvGraph& graph, std::int64_t e, ConvBuffers& buffers,
               RunContext& ctx, const std::vector<std::int64_t>& order, CaseResult& r,
               ConvPlan& plan) {
    r.scope += "/eng" + std::to_string(e); // profiled inside the configuration's scope
    r.algorithm = "eng" + std::to_string(e);
    const auto rank = std::find(order.begin(), order.end(), e);
    r.heuristicRank = rank == order.end() ? -1 : static_cast<int>(rank - order.begin());
    std::string whyNot;
    {
        PhaseTimer timer(ctx.phases, &PhaseTimes::plans);
        plan = graph.planForEngine(e, whyNot);
    }
    if (!plan.plan.get()) {
        r.status = CaseStatus::Unsupported;
        r.reason = "cuDNN: " + whyNot;
    } else if (const std::string m = graph.precisionMismatch(plan); !m.empty()) {
        r.algorithm = plan.name();
        r.status = CaseStatus::Unsupported;
        r.reason = m;
    } else if (const std::uint64_t limit = workspaceLimit(ctx);
               static_cast<std::uint64_t>(plan.workspaceBytes) > limit) {
        r.algorithm = plan.name();
        r.status = CaseStatus::NoMemory;
        r.reason = "workspace " + mib(plan.workspaceBytes) + " does not fit (limit " +
                   mib(static_cast<std::int64_t>(limit)) + ")";
    } else if (!guardCase(r, [&] { runPlan(c, graph, plan, buffers, ctx, r, false); })) {
        return false;
    }
    return true;
}

// --algo every: each engine a case of its own, those that ran profiled together.
std::vector<CaseResult> runEveryEngine(const ConvCase& c, CaseResult header, ConvGraph& graph,
                                       ConvBuffers& buffers, RunContext& ctx) {
    std::vector<std::int64_t> order;
    CaseResult query = header;
    if (!heuristicOrder(graph, ctx, query, order))
        return {query};
    std::vector<CaseResult> results;
    std::vector<ConvPlan> passedPlans; // run and timed: profiled together below
    std::vector<std::size_t> passedIndex;
    const auto& only = ctx.settings.engines;
    for (std::int64_t e = 0; e < graph.engineCount(); ++e) {
        if (!only.empty() && std::find(only.begin(), only.end(), e) == only.end())
            continue;
        CaseResult r = header;
        ConvPlan plan;
        if (!runEngine(c, graph, e, buffers, ctx, order, r, plan)) {
            results.push_back(r);
            return results; // the device is unusable: the driver skips what remains
        }
        if (plan.plan.get() &&
            (r.status == CaseStatus::Passed || r.status == CaseStatus::VerifyFailed)) {
            passedPlans.push_back(std::move(plan));
            passedIndex.push_back(results.size());
        }
        results.push_back(r);
    }
    profileTogether(graph, passedPlans, passedIndex, results, buffers, ctx);
    if (results.empty()) {
        header.status = CaseStatus::Unsupported;
        header.reason = "cuDNN reports no engine for this graph";
        results.push_back(header);
    }
    return results;
}

// The plans --algo heuristic or exhaustive chooses among (`lastWhyNot`: cuDNN's last refusal).
std::vector<ConvPlan> candidatePlans(ConvGraph& graph, const RunContext& ctx,
                                     std::string& lastWhyNot) {
    if (ctx.settings.algo == AlgoMode::Heuristic)
        return graph.heuristicPlans(16);
    std::vector<ConvPlan> candidates;
    for (std::int64_t e = 0; e < graph.engineCount(); ++e) {
        ConvPlan plan = graph.planForEngine(e, lastWhyNot);
        if (plan.plan.get() && graph.precisionMismatch(plan).empty())
            candidates.push_back(std::move(plan));
    }
    return candidates;
}

// Every fitting plan timed briefly (as cudnnFind did): the fastest one's index.
std::size_t fastestPlan(ConvGraph& graph, const std::vector<ConvPlan>& fitting,
                        ConvBuffers& buffers, RunContext& ctx) {
    std::size_t chosen = 0;
    double best = std::numeric_limits<double>::max();
    for (std::size_t i = 0; i < fitting.size(); ++i) {
        DeviceBuffer ws(static_cast<std::size_t>(fitting[i].workspaceBytes), "workspace");
        const BackendDescriptor pack = makeVariantPack(
            buffers.tensor[0].get(), buffers.tensor[1].get(), buffers.tensor[2].get(), ws.get());
        double t = std::numeric_limits<double>::max();
        try {
            t = median(timeRuns([&] { graph.execute(fitting[i], pack); }, ctx.stream, 1, 3));
        } catch (const CudnnError&) {
            continue; // refused at execution: not a candidate
        }
        if (t < best) {
            best = t;
            chosen = i;
        }
    }
    return chosen;
}

// --algo heuristic or exhaustive: one plan chosen among those whose workspace fits, run.
CaseResult runChosenPlan(const ConvCase& c, CaseResult r, ConvGraph& graph, ConvBuffers& buffers,
                         RunContext& ctx) {
    guardCase(r, [&] {
        std::string lastWhyNot;
        std::vector<ConvPlan> candidates = candidatePlans(graph, ctx, lastWhyNot);
        const std::uint64_t limit = workspaceLimit(ctx);
        std::int64_t smallestTooBig = 0;
        std::vector<ConvPlan> fitting;
        for (auto& plan : candidates) {
            if (static_cast<std::uint64_t>(plan.workspaceBytes) <= limit)
                fitting.push_back(std::move(plan));
            else if (smallestTooBig == 0 || plan.workspaceBytes < smallestTooBig)
                smallestTooBig = plan.workspaceBytes;
        }
        if (fitting.empty()) {
            if (smallestTooBig > 0) {
                r.status = CaseStatus::NoMemory;
                r.reason = "every engine's workspace exceeds the limit (smallest " +
                           mib(smallestTooBig) + ", limit " +
                           mib(static_cast<std::int64_t>(limit)) + ")";
            } else {
                r.status = CaseStatus::Unsupported;
                r.reason = "cuDNN has no " + toString(c.precision) + " engine for this " +
                           r.layout + " " + r.pass + " convolution" +
                           (lastWhyNot.empty() ? "" : " (last refusal: " + lastWhyNot + ")");
            }
            return;
        }
        const bool exhaustive = ctx.settings.algo == AlgoMode::Exhaustive;
        const std::size_t chosen =
            exhaustive && fitting.size() > 1 ? fastestPlan(graph, fitting, buffers, ctx) : 0;
        runPlan(c, graph, fitting[chosen], buffers, ctx, r);
        if (exhaustive)
            r.algorithm += " fastest of " + std::to_string(fitting.size());
    });
    return r;
}

} // namespace

std::vector<CaseResult> runConvCase(const ConvCase& c, int index, RunContext& ctx) {
    CaseResult header = convCaseHeader(c, index);
    if (ctx.settings.tolerance > 0)
        header.tolerance = ctx.settings.tolerance;
    if (const std::string why = c.invalidReason(); !why.empty()) {
        header.status = CaseStatus::Invalid;
        header.reason = why;
        return {header};
    }
    std::unique_ptr<ConvGraph> graph;
    ConvBuffers buffers;
    const bool prepared = guardCase(header, [&] {
        PhaseTimer timer(ctx.phases, &PhaseTimes::setup);
        graph = std::make_unique<ConvGraph>(ctx.handle, c);
        buffers = prepare(c, index, ctx);
    });
    if (!prepared || header.status != CaseStatus::Passed)
        return {header};
    if (ctx.settings.algo == AlgoMode::Every)
        return runEveryEngine(c, header, *graph, buffers, ctx);
    return {runChosenPlan(c, header, *graph, buffers, ctx)};
}

} // namespace roofline::bench
