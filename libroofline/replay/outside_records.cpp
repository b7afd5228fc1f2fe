#include "replay/outside_records.hpp"
#include "collect/notes.hpp"
#include "core/demangle.hpp"
#include "core/merge.hpp"
#include "replay/samples.hpp"

#include <set>
#include <unordered_map>

namespace roofline::collect {
namespace {

// Kernel, grid, block and shared memory, on its device (devices of one process may differ).
std::string signatureOf(const core::LaunchInfo& r) {
    std::string s = std::to_string(r.device) + ':' + r.mangledName;
    for (const std::uint64_t v : {std::uint64_t{r.grid.x}, std::uint64_t{r.grid.y},
                                  std::uint64_t{r.grid.z}, std::uint64_t{r.block.x},
                                  std::uint64_t{r.block.y}, std::uint64_t{r.block.z},
                                  r.sharedMemBytes}) {
        s += ',';
        s += std::to_string(v);
    }
    return s;
}

// "ran outside every step (between steps)"
std::string outsideNote(const char* why) {
    return std::string("ran outside every step (") + why + ")";
}

// "no counters: ran outside every step (between steps)"
std::string noCountersNote(const char* why) {
    return std::string(kRanOutsideNoCounters) + " (" + why + ")";
}

// "the step's, at positions 3, 40, 77, 81 and 2 more": where in the step they ran.
std::string positionsOf(const std::vector<const core::LaunchInfo*>& samples) {
    std::set<std::int64_t> positions;
    for (const core::LaunchInfo* s : samples)
        positions.insert(s->position);
    std::string s = positions.size() > 1 ? "the step's, at positions " : "the step's, at position ";
    constexpr std::size_t kNamed = 4;
    std::size_t named = 0;
    for (const std::int64_t p : positions) {
        if (named == kNamed)
            break;
        s += (named++ > 0 ? ", " : "") + std::to_string(p);
    }
    if (positions.size() > kNamed)
        s += " and " + std::to_string(positions.size() - kNamed) + " more";
    return s;
}

} // namespace

void OutsideRecords::add(RecordStore& records, std::int64_t index, const char* why) {
    records_.emplace_back(index, why);
    appendNote(records[index].note,
               noCountersNote(why) + ", where no window measured it");
}

OutsideRecords::Lent OutsideRecords::lend(RecordStore& records,
                                          const std::vector<std::string>& metricNames) {
    Lent out;
    if (records_.empty())
        return out;
    // Their names, demangled once per kernel.
    std::unordered_map<std::string, std::string> names;
    for (const auto& [index, why] : records_) {
        core::LaunchInfo& r = records[index];
        if (!r.name.empty())
            continue;
        auto [it, added] = names.try_emplace(r.mangledName);
        if (added)
            it->second = core::demangle(r.mangledName);
        r.name = it->second;
    }
    // The step's launches measured themselves, by signature; and those another rank measures.
    std::unordered_map<std::string, std::vector<const core::LaunchInfo*>> step;
    std::unordered_map<std::string, int> elsewhere;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const core::LaunchInfo& r = records[static_cast<std::int64_t>(i)];
        if (r.iteration < 0 || records.superseded(i))
            continue;
        if (!r.values.empty() && r.reusedSamples == 0 && r.countersRank < 0)
            step[signatureOf(r)].push_back(&r);
        else if (r.values.empty() && r.countersRank >= 0)
            elsewhere.emplace(signatureOf(r), r.countersRank);
    }
    const std::vector<std::size_t> work = workCounters(metricNames);
    for (const auto& [index, why] : records_) {
        core::LaunchInfo& r = records[index];
        const std::string signature = signatureOf(r);
        const auto it = step.find(signature);
        if (it == step.end()) {
            if (const auto o = elsewhere.find(signature); o != elsewhere.end()) {
                r.countersRank = o->second;
                r.note = core::awaitingCountersNote(o->second) + "; " + outsideNote(why);
                ++out.awaiting;
            }
            continue; // else its note stands: no launch of the step ran it
        }
        const std::vector<const core::LaunchInfo*>& samples = it->second;
        bool same = true;
        for (const core::LaunchInfo* s : samples)
            same = same && sameWork(samples[0]->values, s->values, work);
        if (!same) {
            r.note = noCountersNote(why) +
                     ", and its signature's launches in the step did different work, so none "
                     "lends it its counters";
            continue;
        }
        r.note.clear();
        takeSampleMean(samples, positionsOf(samples), metricNames, r);
        appendNote(r.note, outsideNote(why));
        ++out.lent;
    }
    return out;
}

} // namespace roofline::collect
