#include "core/tensor_inference.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <optional>
#include <utility>

namespace roofline::core {
namespace {

bool detecting(const ChipProfile& p, MetricSet set, bool detect) {
    return detect && set == MetricSet::Full && !p.tensorDetection.empty();
}

using ValueOf = std::function<double(const std::string&)>;

ValueOf valuesIn(const std::vector<std::string>& metrics, const std::vector<double>* values) {
    return [&metrics, values](const std::string& m) {
        const auto it = std::find(metrics.begin(), metrics.end(), m);
        const std::size_t at = static_cast<std::size_t>(it - metrics.begin());
        return it == metrics.end() || !values || at >= values->size() ? std::nan("")
                                                                      : (*values)[at];
    };
}

double formulaValue(const Formula& f, const ValueOf& valueOf) {
    double z = 0;
    for (const Term& t : f.terms)
        z += t.coefficient * valueOf(t.metric);
    return z;
}

bool isZero(double v) {
    return !std::isnan(v) && std::fabs(v) < 0.5;
}

bool sameFormula(const Formula& a, const Formula& b) {
    return a.terms.size() == b.terms.size() &&
           std::equal(a.terms.begin(), a.terms.end(), b.terms.begin(),
                      [](const Term& x, const Term& y) {
                          return x.metric == y.metric && x.coefficient == y.coefficient;
                      });
}

const WarpMmaType* soleType(const ChipProfile& p, const ValueOf& valueOf) {
    const TensorDetection& d = p.tensorDetection;
    if (d.warpMma.empty())
        return nullptr;
    const double warp = formulaValue(d.warpMma, valueOf);
    if (std::isnan(warp) || warp < 0.5)
        return nullptr;
    for (const WarpMmaType& t : d.warpTypes) {
        const double ops = valueOf(t.metric) - valueOf(t.warpgroup);
        if (!std::isnan(ops) && std::fabs(ops - t.opsPerInstruction * warp) < 0.5)
            return &t;
    }
    return nullptr;
}

std::string lowered(std::string name) {
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name;
}

bool containsAny(const std::string& name, const std::vector<std::string>& parts) {
    return std::any_of(parts.begin(), parts.end(),
                       [&](const std::string& p) { return name.find(p) != std::string::npos; });
}

// The warp MMA type a lower-case kernel name's hints suggest (its index in `types`), or none.
std::optional<std::size_t> hintedType(const std::vector<WarpMmaType>& types,
                                      const std::string& lower) {
    for (std::size_t i = 0; i < types.size(); ++i)
        if (containsAny(lower, types[i].nameHints))
            return i;
    return std::nullopt;
}

// The warp MMA type a launch's kernel name suggests (its index in `types`), or none.
std::optional<std::size_t> namedType(const std::vector<WarpMmaType>& types,
                                     const std::string& name) {
    return hintedType(types, lowered(name));
}

// The warp MMA type a kernel's name says it runs (its index), or none: built for warp MMA and
// named for a type, or one of a type's implying patterns.
std::optional<std::size_t> warpKernelType(const TensorDetection& d, const std::string& name) {
    const std::string lower = lowered(name);
    if (containsAny(lower, d.warpgroupKernelMarkers))
        return std::nullopt;
    for (std::size_t i = 0; i < d.warpTypes.size(); ++i)
        for (const auto& pattern : d.warpTypes[i].impliedBy)
            if (!pattern.empty() &&
                std::all_of(pattern.begin(), pattern.end(), [&](const std::string& p) {
                    return lower.find(p) != std::string::npos;
                }))
                return i;
    if (!containsAny(lower, d.warpKernelMarkers))
        return std::nullopt;
    return hintedType(d.warpTypes, lower);
}

} // namespace

std::vector<std::string> sessionMetrics(const ChipProfile& p, MetricSet set, bool detect) {
    std::vector<std::string> out = requiredMetrics(p, set);
    if (detecting(p, set, detect))
        addMetrics(out, p.tensorDetection.counters);
    return out;
}

std::vector<std::string> initialMetrics(const ChipProfile& p, MetricSet set, bool detect) {
    std::vector<std::string> out;
    const bool on = detecting(p, set, detect);
    for (const auto& m : sessionMetrics(p, set, detect)) {
        const bool inferred =
            on &&
            std::any_of(p.tensorDetection.inferences.begin(), p.tensorDetection.inferences.end(),
                        [&](const TensorInference& i) { return i.metric == m; });
        if (!inferred)
            out.push_back(m);
    }
    return out;
}

const WarpMmaType* soleWarpMmaType(const ChipProfile& p, const std::vector<std::string>& metrics,
                                   const std::vector<double>& values) {
    return soleType(p, valuesIn(metrics, &values));
}

std::vector<std::string> inferTensorMetrics(const ChipProfile& p,
                                            const std::vector<std::string>& metrics,
                                            std::vector<double>& values) {
    const TensorDetection& d = p.tensorDetection;
    std::vector<std::string> unknown;
    const ValueOf valueOf = valuesIn(metrics, &values);
    // One collected warp MMA type accounts for every warp MMA instruction: the other types ran
    // none, as if the launch had no warp MMA.
    const bool warpExplained = soleType(p, valueOf) != nullptr;
    for (const TensorInference& inf : d.inferences) {
        const auto it = std::find(metrics.begin(), metrics.end(), inf.metric);
        if (it == metrics.end())
            continue;
        const std::size_t at = static_cast<std::size_t>(it - metrics.begin());
        if (at >= values.size() || !std::isnan(values[at]))
            continue; // collected
        // Instruction counts: zero is exact (NaN: a detection counter is missing).
        const bool zero =
            std::all_of(inf.zeroWhen.begin(), inf.zeroWhen.end(), [&](const Formula& f) {
                return (warpExplained && sameFormula(f, d.warpMma)) ||
                       isZero(formulaValue(f, valueOf));
            });
        if (zero) {
            const double v = inf.from.empty() ? 0.0 : valueOf(inf.from);
            if (!std::isnan(v)) {
                values[at] = v;
                continue;
            }
        }
        unknown.push_back(inf.metric);
    }
    return unknown;
}

const WarpMmaType* anticipatedWarpMmaType(const ChipProfile& p,
                                          const std::vector<std::string>& kernelNames,
                                          std::string* example) {
    const TensorDetection& d = p.tensorDetection;
    std::vector<std::size_t> votes(d.warpTypes.size(), 0);
    std::vector<const std::string*> first(d.warpTypes.size(), nullptr);
    for (const std::string& name : kernelNames)
        if (const auto i = warpKernelType(d, name)) {
            ++votes[*i];
            if (!first[*i])
                first[*i] = &name;
        }
    const auto most = std::max_element(votes.begin(), votes.end());
    if (most == votes.end() || *most == 0)
        return nullptr;
    const std::size_t type = static_cast<std::size_t>(most - votes.begin());
    if (example)
        *example = *first[type];
    return &d.warpTypes[type];
}

std::vector<std::string> tensorMetricsToCollect(const ChipProfile& p,
                                                const std::vector<std::string>& metrics,
                                                const std::set<std::string>& unknown,
                                                const std::vector<TensorEvidence>& launches,
                                                const std::set<std::string>& collected) {
    const TensorDetection& d = p.tensorDetection;
    const auto isWarpType = [&](const std::string& m) {
        return std::any_of(d.warpTypes.begin(), d.warpTypes.end(),
                           [&](const WarpMmaType& t) { return t.metric == m; });
    };
    const bool warpUnknown = std::any_of(unknown.begin(), unknown.end(), isWarpType);
    const bool triedOne = std::any_of(collected.begin(), collected.end(), isWarpType);
    if (!warpUnknown || triedOne)
        return {unknown.begin(), unknown.end()};
    // Warp MMA of a type not known yet: one type's counter (a pass or two) instead of every
    // type's, guessed from what the launches show -- a kernel's name first, then the program's
    // warpgroup GEMMs, then the catalog's order. A launch the guess does not account for stays
    // unknown, and the next expansion collects the rest.
    std::vector<double> named(d.warpTypes.size(), 0.0), gemms(d.warpTypes.size(), 0.0);
    for (const TensorEvidence& l : launches) {
        if (const auto i = namedType(d.warpTypes, l.kernel))
            named[*i] += 1;
        const ValueOf valueOf = valuesIn(metrics, l.values);
        for (std::size_t i = 0; i < d.warpTypes.size(); ++i) {
            const double ops = valueOf(d.warpTypes[i].warpgroup);
            if (!std::isnan(ops))
                gemms[i] += ops;
        }
    }
    std::size_t guess = 0;
    for (std::size_t i = 1; i < d.warpTypes.size(); ++i)
        if (std::make_pair(named[i], gemms[i]) > std::make_pair(named[guess], gemms[guess]))
            guess = i;
    std::vector<std::string> out{d.warpTypes[guess].metric};
    // A metric unknown only because the warp MMA instructions are not explained yet (INT8 where
    // no IMMA ran) waits for the guess to explain them.
    for (const std::string& m : unknown) {
        if (isWarpType(m))
            continue;
        const auto inf = std::find_if(d.inferences.begin(), d.inferences.end(),
                                      [&](const TensorInference& i) { return i.metric == m; });
        const bool waits =
            inf != d.inferences.end() &&
            std::all_of(launches.begin(), launches.end(), [&](const TensorEvidence& l) {
                const ValueOf valueOf = valuesIn(metrics, l.values);
                return std::all_of(
                    inf->zeroWhen.begin(), inf->zeroWhen.end(), [&](const Formula& f) {
                        const double z = formulaValue(f, valueOf);
                        return sameFormula(f, d.warpMma) ? !std::isnan(z) && z > -0.5 : isZero(z);
                    });
            });
        if (!waits)
            out.push_back(m);
    }
    return out;
}

} // namespace roofline::core
