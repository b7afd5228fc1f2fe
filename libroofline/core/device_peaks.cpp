#include "core/device_peaks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace roofline::core {
namespace {

const char* clockName(PeakClock clock) {
    switch (clock) {
    case PeakClock::Sm:
        return "SM clock";
    case PeakClock::L2:
        return "L2 clock";
    case PeakClock::Memory:
        return "memory clock";
    }
    return "";
}

double clockHz(const PeakClocks& clocks, PeakClock clock) {
    switch (clock) {
    case PeakClock::Sm:
        return clocks.smHz;
    case PeakClock::L2:
        return clocks.l2Hz;
    case PeakClock::Memory:
        return clocks.memoryHz;
    }
    return 0;
}

} // namespace

std::vector<PeakRoof> peakRoofs(const ChipProfile& profile) {
    std::vector<PeakRoof> out;
    for (std::size_t k = 0; k < kFlopKindCount; ++k) {
        const Formula& f = profile.flops[k];
        if (f.empty())
            continue;
        // CUDA cores: the term with the most FLOPs per instruction (the FMA) sets the peak.
        const Term* best = &f.terms.front();
        if (!isTensor(static_cast<FlopKind>(k)))
            for (const Term& t : f.terms)
                best = t.coefficient > best->coefficient ? &t : best;
        out.push_back({{true, k},
                       best->metric + ".peak_sustained",
                       best->coefficient * profile.peakFlopShare[k],
                       PeakClock::Sm});
    }
    const PeakClock clocks[kMemoryLevelCount] = {PeakClock::Sm, PeakClock::L2, PeakClock::Memory};
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l) {
        const Formula& f = profile.bytes[l];
        if (f.empty())
            continue;
        out.push_back({{false, l},
                       f.terms.front().metric + ".peak_sustained",
                       f.terms.front().coefficient * profile.peakByteShare[l],
                       clocks[l]});
    }
    return out;
}

std::vector<std::string> peakMetrics(const std::vector<PeakRoof>& roofs) {
    std::vector<std::string> out;
    for (const auto& r : roofs)
        out.push_back(r.metric);
    return out;
}

Ceilings deviceCeilings(const std::vector<PeakRoof>& roofs, const std::vector<double>& values,
                        const PeakClocks& clocks, const DeviceInfo& device) {
    Ceilings c;
    std::string noClock;
    for (std::size_t i = 0; i < roofs.size() && i < values.size(); ++i) {
        const PeakRoof& r = roofs[i];
        const double hz = clockHz(clocks, r.clock);
        if (!(values[i] > 0) || !std::isfinite(values[i]))
            continue;
        if (!(hz > 0)) {
            const std::string what = roofName(r.roof) + " (no " + clockName(r.clock) +
                                     (r.clock == PeakClock::L2 ? " in this recording: record it "
                                                                 "again for an L2 roof)"
                                                               : ")");
            noClock += (noClock.empty() ? "" : ", ") + what;
            continue;
        }
        setRoof(c, r.roof, values[i] * r.perUnit * hz, RoofSource::Device);
    }
    // One warp instruction per scheduler per cycle, 4 schedulers per SM (every family here).
    if (const double hz = clockHz(clocks, PeakClock::Sm); hz > 0 && device.smCount > 0) {
        c.warpInstructionsPerSecond = warpIssuePerSecond(device.smCount, hz);
        c.warpIssueSource = RoofSource::Device;
    }
    c.name =
        (device.name.empty() ? std::string("unknown device") : device.name) + " (device peaks)";
    c.source = "the counters' peak_sustained rates times the clocks";
    for (PeakClock k : {PeakClock::Sm, PeakClock::L2, PeakClock::Memory})
        if (clockHz(clocks, k) > 0) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%s %s %.0f MHz", k == PeakClock::Sm ? ":" : ",",
                          clockName(k), clockHz(clocks, k) / 1e6);
            c.source += buf;
        }
    if (!noClock.empty())
        c.source += "; none for " + noClock;
    return c;
}

double medianMetric(const std::vector<LaunchInfo>& launches,
                    const std::vector<std::string>& metrics, const std::string& metric) {
    const auto at = std::find(metrics.begin(), metrics.end(), metric);
    if (metric.empty() || at == metrics.end())
        return 0;
    const auto i = static_cast<std::size_t>(at - metrics.begin());
    std::vector<double> v;
    for (const auto& l : launches)
        if (i < l.values.size() && l.values[i] > 0 && std::isfinite(l.values[i]))
            v.push_back(l.values[i]);
    if (v.empty())
        return 0;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

Ceilings combineCeilings(const Ceilings& measured, const Ceilings& device,
                         const Ceilings& datasheet) {
    Ceilings c;
    const Ceilings* in[] = {&measured, &device, &datasheet};
    bool any[3] = {false, false, false};
    for (RoofRef roof : allRoofs())
        for (std::size_t s = 0; s < 3; ++s)
            if (rateOf(*in[s], roof) > 0) {
                setRoof(c, roof, rateOf(*in[s], roof), sourceOf(*in[s], roof));
                any[s] = true;
                break;
            }
    for (const Ceilings* s : in)
        if (s->warpInstructionsPerSecond > 0) {
            c.warpInstructionsPerSecond = s->warpInstructionsPerSecond;
            c.warpIssueSource = s->warpIssueSource;
            break;
        }
    // Named after the best source in use; the source text lists every one.
    const std::size_t first = any[0] ? 0 : any[1] ? 1 : 2;
    c.name = in[first]->name;
    c.source = in[first]->source;
    for (std::size_t s = first + 1; s < 3; ++s)
        if (any[s])
            c.source +=
                "; " + std::string(s == 1 ? "device peaks: " : "datasheet: ") + in[s]->source;
    return c;
}

std::string describeSources(const Ceilings& c) {
    std::string out;
    for (RoofSource s : {RoofSource::Measured, RoofSource::Device, RoofSource::Datasheet}) {
        std::string roofs;
        for (RoofRef roof : allRoofs())
            if (sourceOf(c, roof) == s && rateOf(c, roof) > 0)
                roofs += (roofs.empty() ? "" : ", ") + roofName(roof);
        if (!roofs.empty())
            out += (out.empty() ? "" : "; ") + std::string(toString(s)) + ": " + roofs;
    }
    return out;
}

} // namespace roofline::core
