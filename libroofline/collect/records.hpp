#pragma once
// The collector's records: one per measured launch (or scope instance), in the order they were
// made, with the raw counter-data images kept for the recording. A record whose measurement was
// abandoned (its group measured again) is superseded and removed at the end; iteration replay's
// records go back to program order then. Pure: no CUDA.
#include "core/recording.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

class RecordStore {
public:
    /// Appends `info` (its launch_index set to its place); returns its index.
    std::int64_t add(core::LaunchInfo info);
    core::LaunchInfo& operator[](std::int64_t index) {
        return records_[static_cast<std::size_t>(index)];
    }
    const core::LaunchInfo& operator[](std::int64_t index) const {
        return records_[static_cast<std::size_t>(index)];
    }
    std::size_t size() const noexcept { return records_.size(); }
    std::vector<core::LaunchInfo>& all() noexcept { return records_; }

    /// The records of `members` (-1: none) are measured again elsewhere: finish() removes them.
    /// Clears `members`.
    void supersede(std::vector<std::int64_t>& members);
    bool superseded(std::size_t index) const noexcept {
        return index < superseded_.size() && superseded_[index];
    }
    std::uint64_t supersededCount() const noexcept { return supersededCount_; }
    /// `note` on every record of `members` (-1: none) that has no values yet.
    void noteUnmeasured(const std::vector<std::int64_t>& members, const std::string& note);

    /// Keeps `image` when the images kept so far and it fit in `limit` bytes; returns its chunk
    /// number, or -1.
    int keepImage(std::vector<std::uint8_t> image, std::size_t limit);
    std::size_t keptBytes() const noexcept { return keptBytes_; }
    std::vector<std::vector<std::uint8_t>>& keptImages() noexcept { return kept_; }

    /// Removes superseded records; `programOrder`: each iteration's records by their position in
    /// it, complete iterations one after another (records without a position stay behind the
    /// one they followed). launch_index is the place in the final order.
    void finish(bool programOrder);

private:
    void orderByPosition();

    std::vector<core::LaunchInfo> records_;
    std::vector<bool> superseded_;
    std::uint64_t supersededCount_ = 0;
    std::vector<std::vector<std::uint8_t>> kept_;
    std::size_t keptBytes_ = 0;
};

} // namespace roofline::collect
