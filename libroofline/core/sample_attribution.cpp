#include "core/sample_attribution.hpp"

#include <algorithm>
#include <numeric>

namespace roofline::core {
namespace {

// The kernels running over one sample (in the order they start: `active` is), and the instants
// where one of them starts or ends.
struct Overlap {
    std::vector<std::size_t> kernels;
    std::vector<std::uint64_t> cuts;
};

Overlap overlapOf(const CounterSample& s, const std::vector<KernelSpan>& spans,
                  const std::vector<std::size_t>& active) {
    Overlap o;
    o.cuts = {s.startNs, s.endNs};
    for (std::size_t k : active) {
        const KernelSpan& span = spans[k];
        if (span.endNs <= s.startNs || span.startNs >= s.endNs)
            continue;
        o.kernels.push_back(k);
        if (span.startNs > s.startNs)
            o.cuts.push_back(span.startNs);
        if (span.endNs < s.endNs)
            o.cuts.push_back(span.endNs);
    }
    std::sort(o.cuts.begin(), o.cuts.end());
    o.cuts.erase(std::unique(o.cuts.begin(), o.cuts.end()), o.cuts.end());
    return o;
}

// Calls `piece(t0, t1, running)` for each piece [t0, t1) of a sample between its cuts, with the
// kernels running over all of it (start <= t0, end >= t1), in one sweep: o.kernels come in the
// order they start, a kernel joins once it has started and leaves once it ends before t1 -- a
// sample with hundreds of short kernels costs their number, not its square.
template <typename Piece>
void sweep(const std::vector<KernelSpan>& spans, const Overlap& o, Piece&& piece) {
    std::vector<std::size_t> running;
    std::size_t next = 0;
    for (std::size_t c = 0; c + 1 < o.cuts.size(); ++c) {
        const std::uint64_t t0 = o.cuts[c], t1 = o.cuts[c + 1];
        while (next < o.kernels.size() && spans[o.kernels[next]].startNs <= t0)
            running.push_back(o.kernels[next++]);
        running.erase(std::remove_if(running.begin(), running.end(),
                                     [&](std::size_t k) { return spans[k].endNs < t1; }),
                      running.end());
        piece(t0, t1, running);
    }
}

// One sample's values, piece by piece between its cuts, to the kernels running in each piece:
// over the time some kernel runs (the counters grow with the kernels' work, not in the gaps
// between launches); a sample in which none runs is the device's between kernels. The clock goes
// by time: each running kernel gets the piece's cycles, the pieces with none go between.
void divide(const CounterSample& s, const std::vector<KernelSpan>& spans, const Overlap& o,
            std::size_t counters, std::size_t clock, Attribution& out) {
    for (std::size_t k : o.kernels)
        ++out.kernels[k].samples;
    std::uint64_t busy = 0;
    sweep(spans, o, [&](std::uint64_t t0, std::uint64_t t1, const std::vector<std::size_t>& r) {
        if (!r.empty())
            busy += t1 - t0;
    });
    if (busy == 0) {
        for (std::size_t m = 0; m < counters; ++m)
            out.between[m] += s.values[m];
        return;
    }
    const double length = static_cast<double>(s.endNs - s.startNs);
    const double cycles = clock < counters ? s.values[clock] : 0;
    sweep(spans, o, [&](std::uint64_t t0, std::uint64_t t1, const std::vector<std::size_t>& r) {
        const double piece = static_cast<double>(t1 - t0);
        if (r.empty()) {
            if (clock < counters)
                out.between[clock] += cycles * piece / length;
            return;
        }
        const double each = piece / static_cast<double>(busy) / static_cast<double>(r.size());
        for (std::size_t k : r) {
            SampledKernel& kernel = out.kernels[k];
            kernel.coveredNs += t1 - t0;
            for (std::size_t m = 0; m < counters; ++m)
                kernel.values[m] += m == clock ? cycles * piece / length : s.values[m] * each;
        }
    });
}

} // namespace

Attribution attributeSamples(const std::vector<CounterSample>& samples,
                             const std::vector<KernelSpan>& kernels, std::size_t counters,
                             std::uint64_t periodNs, std::size_t clock) {
    Attribution out;
    out.between.assign(counters, 0.0);
    out.kernels.resize(kernels.size());
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        out.kernels[k].values.assign(counters, 0.0);
        const std::uint64_t length = kernels[k].lengthNs();
        out.kernels[k].estimated = length < kEstimatedBelowPeriods * periodNs || length == 0;
    }
    std::vector<std::size_t> bySample(samples.size()), byKernel(kernels.size());
    std::iota(bySample.begin(), bySample.end(), std::size_t{0});
    std::iota(byKernel.begin(), byKernel.end(), std::size_t{0});
    std::stable_sort(bySample.begin(), bySample.end(), [&](std::size_t a, std::size_t b) {
        return samples[a].startNs < samples[b].startNs;
    });
    std::stable_sort(byKernel.begin(), byKernel.end(), [&](std::size_t a, std::size_t b) {
        return kernels[a].startNs < kernels[b].startNs;
    });
    std::vector<std::size_t> active; // kernels begun before the current sample ends
    std::size_t next = 0;
    for (std::size_t i : bySample) {
        const CounterSample& s = samples[i];
        if (s.endNs <= s.startNs || s.values.size() != counters)
            continue;
        ++out.samplesUsed;
        while (next < byKernel.size() && kernels[byKernel[next]].startNs < s.endNs)
            active.push_back(byKernel[next++]);
        // Kernels over before this sample begins are over for every later one too.
        active.erase(std::remove_if(active.begin(), active.end(),
                                    [&](std::size_t k) { return kernels[k].endNs <= s.startNs; }),
                     active.end());
        divide(s, kernels, overlapOf(s, kernels, active), counters, clock, out);
    }
    // Samples whose times overlap cover the same time twice: a kernel is covered at most for as
    // long as it ran.
    for (std::size_t k = 0; k < kernels.size(); ++k)
        out.kernels[k].coveredNs = std::min(out.kernels[k].coveredNs, kernels[k].lengthNs());
    return out;
}

} // namespace roofline::core
