#include "collect/records.hpp"
#include "collect/notes.hpp"

#include <algorithm>
#include <map>

namespace roofline::collect {

std::int64_t RecordStore::add(core::LaunchInfo info) {
    info.launchIndex = records_.size();
    records_.push_back(std::move(info));
    return static_cast<std::int64_t>(records_.size() - 1);
}

void RecordStore::supersede(std::vector<std::int64_t>& members) {
    if (superseded_.size() < records_.size())
        superseded_.resize(records_.size(), false);
    for (std::int64_t m : members)
        if (m >= 0 && !superseded_[static_cast<std::size_t>(m)]) {
            superseded_[static_cast<std::size_t>(m)] = true;
            ++supersededCount_;
        }
    members.clear();
}

void RecordStore::noteUnmeasured(const std::vector<std::int64_t>& members,
                                 const std::string& note) {
    for (std::int64_t m : members)
        if (m >= 0 && (*this)[m].values.empty())
            appendNote((*this)[m].note, note);
}

int RecordStore::keepImage(std::vector<std::uint8_t> image, std::size_t limit) {
    if (image.empty() || keptBytes_ + image.size() > limit)
        return -1;
    keptBytes_ += image.size();
    kept_.push_back(std::move(image));
    return static_cast<int>(kept_.size() - 1);
}

void RecordStore::finish(bool programOrder) {
    if (supersededCount_ > 0) {
        std::vector<core::LaunchInfo> kept;
        kept.reserve(records_.size() - supersededCount_);
        for (std::size_t i = 0; i < records_.size(); ++i)
            if (!superseded(i)) {
                kept.push_back(std::move(records_[i]));
                kept.back().launchIndex = kept.size() - 1;
            }
        records_.swap(kept);
        superseded_.clear();
    }
    if (programOrder)
        orderByPosition();
}

// Iteration replay measures an iteration window by window, each window on whatever iterations
// its passes ran (a reuse cycle measures the windows its signatures need, in any order): the
// records go back to program order, each iteration's launches by their position in it, and
// launch_index becomes their place in that order. Several complete iterations (short ones share
// a pass) follow one another; records with no position (graph kernels, timing-only launches)
// stay behind the record they followed.
void RecordStore::orderByPosition() {
    if (records_.empty())
        return;
    struct Place {
        std::uint64_t copy = 0;     // how many records of its position came before it
        std::int64_t position = -1; // in its iteration
    };
    std::vector<Place> keys(records_.size());
    std::map<std::int64_t, std::uint64_t> copies;
    Place last;
    for (std::size_t i = 0; i < records_.size(); ++i) {
        const std::int64_t p = records_[i].position;
        if (p >= 0)
            last = {copies[p]++, p};
        keys[i] = last;
    }
    std::vector<std::size_t> order(records_.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return keys[a].copy != keys[b].copy ? keys[a].copy < keys[b].copy
                                            : keys[a].position < keys[b].position;
    });
    std::vector<core::LaunchInfo> ordered;
    ordered.reserve(records_.size());
    for (std::size_t i : order) {
        ordered.push_back(std::move(records_[i]));
        ordered.back().launchIndex = ordered.size() - 1;
    }
    records_.swap(ordered);
}

} // namespace roofline::collect
