#include "replay/reuse/reuse_plan.hpp"

#include <algorithm>

namespace roofline::collect {

std::uint32_t ReusePlan::family(std::uint32_t id) const {
    return id < familyOf_.size() ? familyOf_[id] : kNotMeasured;
}

std::uint32_t ReusePlan::id(const std::string& signature, const std::string& family) {
    const auto [it, added] = ids_.emplace(signature, static_cast<std::uint32_t>(ids_.size()));
    if (added) {
        samplesOf_.emplace_back();
        text_.push_back(&it->first); // map nodes do not move
        split_.push_back(false);
        kind_.push_back(Kind::Plain);
        const auto [f, newFamily] = families_.emplace(family.empty() ? signature : family,
                                                      static_cast<std::uint32_t>(families_.size()));
        if (newFamily) {
            familySamples_.push_back(0);
            familyText_.push_back(f->first);
        }
        familyOf_.push_back(f->second);
    }
    return it->second;
}

void ReusePlan::split(std::uint32_t id) {
    if (id < split_.size())
        split_[id] = true;
}

std::uint32_t ReusePlan::derived(std::uint32_t id, const std::string& suffix, Kind kind) {
    if (id >= text_.size())
        return kNotMeasured;
    const std::string text = *text_[id] + suffix;
    const std::string family = familyText_[familyOf_[id]];
    const std::uint32_t d = this->id(text, family);
    kind_[d] = kind;
    return d;
}

std::uint32_t ReusePlan::refined(std::uint32_t id, const std::string& parentPlace) {
    return derived(id, "^" + parentPlace, Kind::Refined);
}

std::uint32_t ReusePlan::positional(std::uint32_t id, std::size_t position) {
    return derived(id, "@" + std::to_string(position), Kind::Positional);
}

std::uint32_t ReusePlan::resolve(std::uint32_t id, std::size_t position,
                                 const std::string& parentPlace) {
    while (isSplit(id) && !isPositional(id))
        id = kind_[id] == Kind::Plain && !parentPlace.empty() ? refined(id, parentPlace)
                                                              : positional(id, position);
    return id;
}

std::uint32_t ReusePlan::find(const std::string& signature) const {
    const auto it = ids_.find(signature);
    return it == ids_.end() ? kNotMeasured : it->second;
}

bool ReusePlan::familyMeasured(std::uint32_t id) const {
    return id < familyOf_.size() && (familySamples_[familyOf_[id]] > 0 || foreignOwner(id) >= 0);
}

int ReusePlan::foreignOwner(std::uint32_t id) const noexcept {
    int owner = id < ownerOf_.size() ? ownerOf_[id] : kUnshared;
    if (owner == kUnshared && id < familyOf_.size())
        if (const auto f = familyOwner_.find(familyOf_[id]); f != familyOwner_.end())
            owner = f->second;
    return owner >= 0 ? owner : -1;
}

void ReusePlan::share(const std::vector<std::uint32_t>& iteration, std::uint32_t index,
                      std::uint32_t count, std::size_t capacity) {
    if (count < 2 || iteration.empty())
        return;
    ownerOf_.resize(ids_.size(), kUnshared);
    const auto own = [&](std::uint32_t id, int owner) {
        ownerOf_[id] = owner;
        familyOwner_.emplace(familyOf_[id], owner);
    };
    for (std::uint32_t id : iteration) {
        if (id >= ownerOf_.size() || ownerOf_[id] != kUnshared)
            continue; // not measured, or its owner chosen
        if (sampleCount(id) > 0)
            own(id, kOwnedHere); // measured here already
        else if (const auto f = familyOwner_.find(familyOf_[id]); f != familyOwner_.end())
            own(id, f->second); // a grid of a family someone measures
    }
    // The signatures to share, in the order of their first launch.
    std::vector<std::uint32_t> order;
    std::vector<char> seen(ownerOf_.size(), 0);
    for (std::uint32_t id : iteration)
        if (id < ownerOf_.size() && ownerOf_[id] == kUnshared && !seen[id]) {
            seen[id] = 1;
            order.push_back(id);
        }
    const auto windowsOf = [&](std::size_t begin, std::size_t end) {
        std::vector<char> only(ownerOf_.size(), 0);
        for (std::size_t i = begin; i < end; ++i)
            only[order[i]] = 1;
        return windows(iteration, capacity, only);
    };
    const std::size_t whole = windowsOf(0, order.size());
    const std::size_t target = (whole + count - 1) / count;
    std::size_t begin = 0;
    for (std::uint32_t rank = 0; rank < count && begin < order.size(); ++rank) {
        // Fewer windows than ranks: the first ranks take a window each and the others none (a
        // rank whose share is empty has its profile from the others). Splitting one window's
        // signatures instead costs a rank a window more wherever a signature of its share turns
        // out to hold different work (measured on two H200s: 8 iterations against 5 alone).
        std::size_t end = order.size();
        if (rank + 1 < count) { // the longest run within the target, at least one signature
            std::size_t lo = begin + 1, hi = order.size();
            while (lo < hi) {
                const std::size_t mid = (lo + hi + 1) / 2;
                if (windowsOf(begin, mid) <= target)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            end = lo;
        }
        for (std::size_t i = begin; i < end; ++i)
            own(order[i], rank == index ? kOwnedHere : static_cast<int>(rank));
        begin = end;
    }
}

std::size_t ReusePlan::sampleCount(std::uint32_t id) const {
    return id < samplesOf_.size() ? samplesOf_[id].size() : 0;
}

void ReusePlan::addSample(std::uint32_t id, std::size_t launch) {
    if (id < samplesOf_.size()) {
        samplesOf_[id].push_back(launch);
        ++familySamples_[familyOf_[id]];
    }
}

const std::vector<std::size_t>& ReusePlan::samples(std::uint32_t id) const {
    static const std::vector<std::size_t> none;
    return id < samplesOf_.size() ? samplesOf_[id] : none;
}

std::optional<Window> ReusePlan::next(const std::vector<std::uint32_t>& iteration, std::size_t from,
                                      std::size_t capacity, std::size_t gap) const {
    std::map<std::uint32_t, std::size_t> planned; // what this window adds
    return next(iteration, from, capacity, planned, nullptr, gap);
}

std::vector<Window> ReusePlan::plannedWindows(const std::vector<std::uint32_t>& iteration,
                                              std::size_t capacity, std::size_t firstCapacity,
                                              std::size_t gap) const {
    std::map<std::uint32_t, std::size_t> planned; // what the windows so far add
    std::vector<Window> all;
    std::size_t from = 0;
    std::size_t holds = firstCapacity > 0 ? firstCapacity : capacity;
    while (const auto w = next(iteration, from, holds, planned, nullptr, gap)) {
        all.push_back(*w);
        from = w->end;
        holds = capacity;
    }
    return all;
}

std::size_t longestOf(const std::vector<Window>& windows) {
    std::size_t longest = 0;
    for (const Window& w : windows)
        longest = std::max(longest, w.end - w.begin);
    return longest;
}

std::size_t ReusePlan::longestWindow(const std::vector<std::uint32_t>& iteration,
                                     std::size_t capacity) const {
    return longestOf(plannedWindows(iteration, capacity));
}

std::size_t ReusePlan::windows(const std::vector<std::uint32_t>& iteration, std::size_t capacity,
                               const std::vector<char>& only) const {
    std::map<std::uint32_t, std::size_t> planned;
    std::size_t n = 0, from = 0;
    while (const auto w = next(iteration, from, capacity, planned, &only)) {
        ++n;
        from = w->end;
    }
    return n;
}

std::optional<Window> ReusePlan::next(const std::vector<std::uint32_t>& iteration, std::size_t from,
                                      std::size_t capacity,
                                      std::map<std::uint32_t, std::size_t>& planned,
                                      const std::vector<char>* only, std::size_t gapLimit) const {
    if (capacity == 0)
        return std::nullopt;
    const std::size_t maxGap = gapLimit > 0 ? gapLimit : maxGap_;
    // A signature needs min(samples, its launches in the iteration) samples: one launched once
    // per iteration is measured once.
    std::map<std::uint32_t, std::size_t> occurs;
    for (std::uint32_t id : iteration)
        ++occurs[id];
    const auto needed = [&](std::uint32_t id) {
        if (id == kNotMeasured ||
            (only ? id >= only->size() || !(*only)[id] : foreignOwner(id) >= 0))
            return false;
        const auto it = planned.find(id);
        return sampleCount(id) + (it == planned.end() ? 0 : it->second) <
               std::min(samples_, occurs[id]);
    };
    std::size_t begin = from;
    while (begin < iteration.size() && !needed(iteration[begin]))
        ++begin;
    if (begin >= iteration.size())
        return std::nullopt;
    std::size_t last = begin, gap = 0;
    for (std::size_t p = begin; p < iteration.size() && p - begin < capacity; ++p) {
        const std::uint32_t id = iteration[p];
        if (needed(id)) {
            last = p;
            gap = 0;
        } else if (++gap > maxGap) {
            break;
        }
        if (id != kNotMeasured)
            ++planned[id]; // measured in this window, needed or not
    }
    return Window{begin, last + 1};
}

} // namespace roofline::collect
