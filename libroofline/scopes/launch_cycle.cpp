#include "scopes/launch_cycle.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace roofline::collect {

namespace {

constexpr std::uint32_t kRunCap = std::numeric_limits<std::uint32_t>::max() / 2;

// Whether `part` occurs in `cycle` read round (any rotation).
bool occursIn(const std::vector<std::uint64_t>& part, const std::vector<std::uint64_t>& cycle) {
    const std::size_t n = cycle.size(), m = part.size();
    if (m == 0 || m > n)
        return false;
    for (std::size_t start = 0; start < n; ++start) {
        std::size_t k = 0;
        while (k < m && cycle[(start + k) % n] == part[k])
            ++k;
        if (k == m)
            return true;
    }
    return false;
}

} // namespace

PeriodRuns::PeriodRuns(std::size_t longest)
    : longest_(std::max<std::size_t>(1, longest)), ring_(longest_ + 1, 0) {}

void PeriodRuns::add(std::uint64_t signature) {
    Seen& s = seen_[signature];
    while (s.first < s.at.size() && next_ - s.at[s.first] > longest_)
        ++s.first;
    scratch_.clear();
    if (next_ > 0)
        continueRuns(signature, s);
    active_.swap(scratch_);
    if (s.first > 64 && 2 * s.first > s.at.size()) {
        s.at.erase(s.at.begin(), s.at.begin() + static_cast<std::ptrdiff_t>(s.first));
        s.first = 0;
    }
    ring_[next_ % ring_.size()] = signature;
    s.at.push_back(next_++);
    if (next_ % longest_ == 0) // signatures not seen within reach are forgotten
        for (auto it = seen_.begin(); it != seen_.end();)
            it = next_ - it->second.at.back() > longest_ ? seen_.erase(it) : std::next(it);
}

void PeriodRuns::continueRuns(std::uint64_t signature, const Seen& now) {
    const std::uint64_t last = next_ - 1;
    const std::uint64_t before = signatureAt(last);
    const auto b = seen_.find(before);
    if (b == seen_.end() || b->second.at.empty())
        return; // not reached: the last launch's signature is kept while within reach
    // The earlier launches of the last one's signature (its own occurrence, `last`, left out),
    // within reach of the launch about to be added: its Seen was trimmed when `last` was added.
    const std::size_t nowCount = now.at.size() - now.first;
    const std::size_t beforeCount = b->second.at.size() - b->second.first - 1;
    std::size_t a = 0; // runs going on, ascending, merged in
    const auto keep = [&](std::uint64_t p) {
        while (a < active_.size() && active_[a].first < p)
            ++a;
        const std::uint32_t r = a < active_.size() && active_[a].first == p ? active_[a].second : 1;
        scratch_.emplace_back(static_cast<std::uint32_t>(p), r + (r < kRunCap));
    };
    // The same signature twice: its occurrences were just trimmed for the launch to be added,
    // which may have dropped one the last launch still reaches; they are the same periods.
    if (nowCount <= beforeCount || before == signature) {
        for (std::size_t k = now.at.size(); k > now.first; --k) { // ascending periods
            const std::uint64_t p = next_ - now.at[k - 1];
            if (p <= last && signatureAt(last - p) == before)
                keep(p);
        }
        return;
    }
    const std::vector<std::uint64_t>& at = b->second.at;
    for (std::size_t k = at.size() - 1; k > b->second.first; --k) { // ascending periods
        const std::uint64_t p = last - at[k - 1];
        if (p > longest_)
            break;
        if (signatureAt(next_ - p) == signature)
            keep(p);
    }
}

std::uint32_t PeriodRuns::run(std::size_t period) const {
    const auto it = std::lower_bound(active_.begin(), active_.end(), period,
                                     [](const std::pair<std::uint32_t, std::uint32_t>& e,
                                        std::size_t p) { return e.first < p; });
    if (it != active_.end() && it->first == period)
        return it->second;
    const std::uint64_t last = next_ - 1;
    return next_ > 0 && period >= 1 && period <= longest_ && period <= last &&
                   signatureAt(last) == signatureAt(last - period)
               ? 1
               : 0;
}

LaunchCycle::LaunchCycle(std::size_t longestCycle)
    : longest_(std::max<std::size_t>(1, longestCycle)), runs_(longest_) {
    history_.reserve(2 * longest_);
}

LaunchCycle::Event LaunchCycle::launch(std::uint64_t signature) {
    // While a confirmed cycle is followed no new one is looked for: the periods' runs, whose cost
    // per launch grows with how often its signature recurs within reach (hundreds of times in a
    // training step's 8192 launches), are left behind and rebuilt from the history if the cycle
    // breaks. A job followed for days pays a comparison per launch.
    if (following_ && confirmed_)
        runsBehind_ = true;
    else
        runs_.add(signature);
    remember(signature);
    ++seen_;
    const Known* resume = resumable(signature);
    Event e = Event::None;
    if (following_)
        e = followed(signature);
    if (!following_ && runsBehind_)
        rebuildRuns();
    if (resume && !(following_ && confirmed_)) {
        // A known cycle matched whole: the next launch begins it (a tentative cycle gives way).
        cycle_ = resume->cycle;
        position_ = 0;
        copies_ = copiesNeeded_ = 0;
        following_ = confirmed_ = true;
    } else if (!following_) {
        if (const std::size_t period = adoptable())
            adopt(period);
    }
    if (inStep_)
        ++inSteps_;
    return e;
}

// The periods' runs as if every launch the history holds had been added (the history reaches
// twice as far back as any period).
void LaunchCycle::rebuildRuns() {
    runs_ = PeriodRuns(longest_);
    for (const std::uint64_t s : history_)
        runs_.add(s);
    runsBehind_ = false;
}

void LaunchCycle::remember(std::uint64_t signature) {
    if (history_.size() >= 2 * longest_) // keep the last longest_: every period's reach
        history_.erase(history_.begin(),
                       history_.begin() + static_cast<std::ptrdiff_t>(history_.size() - longest_));
    history_.push_back(signature);
}

std::size_t LaunchCycle::adoptable() const {
    const std::size_t top = std::min(longest_, history_.size() / 2);
    // Period 1 first (its run of 1 is not among the runs kept), then the runs of 2 and more.
    if (floor_ < 1 && top >= 1 && runs_.run(1) >= 1 && adoptableAt(1))
        return 1;
    for (const auto& [p, run] : runs_.active()) {
        if (p <= floor_ || p == 1 || run < p)
            continue;
        if (p > top)
            break;
        if (adoptableAt(p))
            return p;
    }
    return 0;
}

// A period whose run holds two copies may be adopted unless it is a repetition of a shorter
// block (the last p launches periodic with a divisor of p), or a known step with something
// between its instances (a validation pass every few steps: the known step resumes after it).
bool LaunchCycle::adoptableAt(std::size_t p) const {
    for (std::size_t d = 1; d * d <= p; ++d) {
        if (p % d != 0)
            continue;
        const std::size_t e = p / d; // d's pair: a divisor too, below p where d > 1
        if ((d < p && runs_.run(d) >= p - d) || (d > 1 && e != d && runs_.run(e) >= p - e))
            return false;
    }
    if (known_.empty())
        return true;
    const std::vector<std::uint64_t> last(history_.end() - static_cast<std::ptrdiff_t>(p),
                                          history_.end());
    return std::none_of(known_.begin(), known_.end(),
                        [&](const Known& k) { return occursIn(k.cycle, last); });
}

// The periodic stretch of `period` ends with the launch just seen: it began runs + period
// launches ago, and the cycle begins there.
void LaunchCycle::adopt(std::size_t period) {
    const std::uint64_t stretch = static_cast<std::uint64_t>(runs_.run(period)) + period;
    const std::uint64_t start = seen_ - stretch; // absolute index of the stretch's first launch
    const std::uint64_t oldest = seen_ - history_.size();
    cycle_.assign(period, 0);
    for (std::uint64_t i = seen_ - period; i < seen_; ++i)
        cycle_[(i - start) % period] = history_[i - oldest];
    position_ = (seen_ - start) % period;
    copies_ = stretch / period;
    copiesNeeded_ =
        std::max<std::uint64_t>(kConfirmCopies, (kConfirmLaunches + period - 1) / period);
    following_ = true;
    confirmed_ = false;
    if (copies_ >= copiesNeeded_)
        confirm();
}

LaunchCycle::Event LaunchCycle::followed(std::uint64_t signature) {
    if (signature != cycle_[position_]) { // the cycle breaks before this launch
        floor_ = std::max(floor_, cycle_.size());
        following_ = confirmed_ = false;
        const bool open = inStep_;
        inStep_ = false;
        return open ? Event::Ends : Event::None;
    }
    Event e = Event::None;
    if (position_ == 0 && confirmed_) {
        e = Event::Begins;
        inStep_ = true;
        ++steps_;
    }
    if (++position_ == cycle_.size()) {
        position_ = 0;
        if (++copies_ >= copiesNeeded_ && !confirmed_)
            confirm();
    }
    return e;
}

void LaunchCycle::confirm() {
    confirmed_ = true;
    forgetNestedIn(cycle_);
    for (const Known& k : known_)
        if (k.cycle.size() == cycle_.size() && occursIn(k.cycle, cycle_))
            return; // known already (the same cycle, found again)
    if (known_.size() >= kKnownCycles)
        known_.erase(known_.begin());
    known_.push_back(Known{cycle_, 0});
}

// Known cycles follow the stream from their first signature on; one matched whole (the longest,
// if several) may resume at the next launch.
const LaunchCycle::Known* LaunchCycle::resumable(std::uint64_t signature) {
    const Known* best = nullptr;
    for (Known& k : known_) {
        if (signature == k.cycle[k.matched])
            ++k.matched;
        else
            k.matched = signature == k.cycle[0] ? 1 : 0;
        if (k.matched == k.cycle.size()) {
            k.matched = 0;
            if (!best || k.cycle.size() > best->cycle.size())
                best = &k;
        }
    }
    return best;
}

void LaunchCycle::forgetNestedIn(const std::vector<std::uint64_t>& cycle) {
    known_.erase(std::remove_if(known_.begin(), known_.end(),
                                [&](const Known& k) {
                                    return k.cycle.size() < cycle.size() &&
                                           occursIn(k.cycle, cycle);
                                }),
                 known_.end());
}

// Eight bytes of the name at a time: a sampled job hashes every launch's name for as long as it
// runs (kernel names of templated libraries are a few hundred characters).
std::uint64_t launchSignature(const core::Launch& launch) noexcept {
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](std::uint64_t word) {
        h = (h ^ word) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    };
    const char* name = launch.mangledName ? launch.mangledName : "";
    const std::size_t n = std::strlen(name);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, name + i, 8);
        mix(word);
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, name + i, n - i);
    mix(tail);
    mix(n);
    for (const std::uint64_t v : {launch.block.x, launch.block.y, launch.block.z})
        mix(v);
    mix(launch.sharedMemBytes());
    return h;
}

} // namespace roofline::collect
