#include "seer/sample.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <set>

namespace roofline::seer {

namespace {

class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() { return splitMix64(state_); }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; } // [0, 1)
    double logUniform(double lo, double hi) {
        return std::exp(std::log(lo) + uniform() * (std::log(hi) - std::log(lo)));
    }
    int integer(int lo, int hi) { // [lo, hi]
        return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
    }

private:
    std::uint64_t state_;
};

// Channel counts as networks have them: small ones exact, from 16 on multiples of 8.
double channels(double drawn) {
    const double c = std::round(drawn);
    return c < 16 ? c : std::round(c / 8) * 8;
}

int kernelWidth(Random& r) {
    const double u = r.uniform();
    return u < 0.35 ? 1 : u < 0.75 ? 3 : u < 0.88 ? 5 : 7;
}

} // namespace

std::vector<ConvParams> sampleConfigs(const SampleOptions& o) {
    Random r(o.seed);
    std::vector<ConvParams> configs;
    std::set<std::string> seen;
    const std::size_t attempts = o.count * 2000 + 100000;
    for (std::size_t a = 0; a < attempts && configs.size() < o.count; ++a) {
        ConvParams c;
        c.batch = std::ldexp(1.0, r.integer(0, 8));
        c.inChannels = r.uniform() < 0.1 ? 3 : channels(r.logUniform(4, 2048));
        c.outChannels = channels(r.logUniform(8, 2048));
        c.inWidth = std::round(r.logUniform(7, 224));
        c.kernelWidth = kernelWidth(r);
        c.stride = r.uniform() < 0.7 ? 1 : 2;
        c.padding = c.kernelWidth > 1 && r.uniform() < 0.7 ? std::floor(c.kernelWidth / 2) : 0;
        const double span = c.inWidth + 2 * c.padding - c.kernelWidth;
        if (span < 0)
            continue;
        c.outWidth = std::floor(span / c.stride) + 1;
        const double macs = c.macs();
        const double largest =
            4.0 * std::max({c.batch * c.inChannels * c.inWidth * c.inWidth,
                            c.batch * c.outChannels * c.outWidth * c.outWidth,
                            c.outChannels * c.inChannels * c.kernelWidth * c.kernelWidth});
        if (macs < o.minMacs || macs > o.maxMacs || largest > o.maxTensorBytes)
            continue;
        if (seen.insert(c.key()).second)
            configs.push_back(c);
    }
    if (configs.size() < o.count)
        throw SeerError("only " + std::to_string(configs.size()) + " of " +
                        std::to_string(o.count) +
                        " configurations fall within the bounds: widen --min-macs/--max-macs");
    return configs;
}

void writeSeerConfigs(const std::vector<ConvParams>& configs, const SampleOptions& o,
                      std::ostream& out) {
    out << "# " << configs.size() << " random convolution configurations in SEER's one-line "
        << "format:\n# batch in_channels in_width out_channels out_width kernel_width stride "
           "padding\n# roofline-seer sample --count "
        << o.count << " --seed " << o.seed << " --min-macs " << o.minMacs << " --max-macs "
        << o.maxMacs << " --max-tensor-mib " << o.maxTensorBytes / (1024.0 * 1024.0) << '\n';
    for (const auto& c : configs)
        out << c.key() << '\n';
}

} // namespace roofline::seer
