#pragma once
// Iteration replay's launches outside every step that no window measured (after the process
// allocated pinned memory, between steps: design 0026) still get a record each. At the stop each
// takes the counters its signature (kernel, grid, block, shared memory) has in the step -- the
// mean of the step's measured launches of it, where they did the same work, else the counters of
// the step's launch at its place (the same launches around it: replay/step_places) -- and keeps a
// note saying why it has none otherwise. Bounded: beyond kMaxRecords, launches are counted only. Pure
// logic: unit-tested in test/unit/outside_records_test.cpp.
#include "collect/records.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace roofline::collect {

class OutsideRecords {
public:
    static constexpr std::size_t kMaxRecords = std::size_t{1} << 14;

    /// Whether one more launch gets a record (the others are counted: Tally::outsideIterations).
    bool room() const noexcept { return records_.size() < kMaxRecords; }
    /// `index`, a record made for such a launch, has no counters for now; `why` says why no
    /// window measured it ("between steps").
    void add(RecordStore& records, std::int64_t index, const char* why);
    std::uint64_t size() const noexcept { return records_.size(); }

    struct Lent {
        std::uint64_t lent = 0;     ///< records that took the step's counters
        std::uint64_t awaiting = 0; ///< records whose signature another rank measures
    };
    /// At the stop, before the records are reordered: each record gets its demangled name, and
    /// takes the mean of its signature's launches measured in the step (records of iteration >= 0
    /// with values of their own), where they all did the same work; where they did not, those of
    /// the step's launch whose neighbours are the record's own (StepPlaces). Where ranks share the profile
    /// and only another rank measures the signature, the record names that rank (`roofline
    /// merge` fills it in from that rank's step).
    Lent lend(RecordStore& records, const std::vector<std::string>& metricNames);

private:
    void nameRecords(RecordStore& records) const;

    std::vector<std::pair<std::int64_t, const char*>> records_;
};

} // namespace roofline::collect
