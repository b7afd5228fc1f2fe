#include "replay/outside_records.hpp"
#include "collect/notes.hpp"
#include "core/demangle.hpp"
#include "core/merge.hpp"
#include "replay/samples.hpp"
#include "replay/step_places.hpp"

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

// The step as iteration replay recorded it: its launches measured themselves, by signature; the
// signatures another rank measures; and, by position, each launch's signature and the record whose
// values it has.
struct Step {
    std::unordered_map<std::string, int> ids; // signature -> id
    std::unordered_map<int, std::vector<const core::LaunchInfo*>> measured;
    std::unordered_map<int, int> elsewhere; // signature id -> the rank that measures it
    std::vector<int> signatureAt;
    std::vector<const core::LaunchInfo*> valuesAt;

    int idOf(const core::LaunchInfo& r) {
        return ids.try_emplace(signatureOf(r), static_cast<int>(ids.size())).first->second;
    }
};

Step stepOf(const RecordStore& records) {
    Step step;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const core::LaunchInfo& r = records[static_cast<std::int64_t>(i)];
        if (r.iteration < 0 || records.superseded(i))
            continue;
        const int id = step.idOf(r);
        const bool own = !r.values.empty() && r.reusedSamples == 0 && r.countersRank < 0;
        if (own)
            step.measured[id].push_back(&r);
        else if (r.values.empty() && r.countersRank >= 0)
            step.elsewhere.emplace(id, r.countersRank);
        if (r.position < 0 || static_cast<std::size_t>(r.position) >= records.size())
            continue;
        const auto p = static_cast<std::size_t>(r.position);
        if (p >= step.signatureAt.size()) {
            step.signatureAt.resize(p + 1, -1);
            step.valuesAt.resize(p + 1, nullptr);
        }
        step.signatureAt[p] = id;
        if (!r.values.empty() && r.countersRank < 0 && (step.valuesAt[p] == nullptr || own))
            step.valuesAt[p] = &r;
    }
    return step;
}

// The step's launches at `places`, where each has values and all did the same work; else none.
std::vector<const core::LaunchInfo*> samplesAt(const Step& step,
                                               const std::vector<std::int64_t>& places,
                                               const std::vector<std::size_t>& work) {
    std::vector<const core::LaunchInfo*> samples;
    for (const std::int64_t p : places) {
        const core::LaunchInfo* s = step.valuesAt[static_cast<std::size_t>(p)];
        if (s == nullptr)
            return {};
        samples.push_back(s);
    }
    return sameWorkAll(samples, work) ? samples : std::vector<const core::LaunchInfo*>{};
}

} // namespace

void OutsideRecords::add(RecordStore& records, std::int64_t index, const char* why) {
    records_.emplace_back(index, why);
    appendNote(records[index].note, noCountersNote(why) + ", where no window measured it");
}

OutsideRecords::Lent OutsideRecords::lend(RecordStore& records,
                                          const std::vector<std::string>& metricNames) {
    Lent out;
    if (records_.empty())
        return out;
    nameRecords(records);
    Step step = stepOf(records);
    std::vector<int> launches; // the signature of each record, in the order they ran
    launches.reserve(records_.size());
    for (const auto& [index, why] : records_)
        launches.push_back(step.idOf(records[index]));
    StepPlaces places(step.signatureAt);
    const std::vector<std::size_t> work = workCounters(metricNames);
    for (std::size_t k = 0; k < records_.size(); ++k) {
        const auto [index, why] = records_[k];
        core::LaunchInfo& r = records[index];
        const auto it = step.measured.find(launches[k]);
        if (it == step.measured.end()) {
            if (const auto o = step.elsewhere.find(launches[k]); o != step.elsewhere.end()) {
                r.countersRank = o->second;
                r.note = core::awaitingCountersNote(o->second) + "; " + outsideNote(why);
                ++out.awaiting;
            }
            continue; // else its note stands: no launch of the step ran it
        }
        std::vector<const core::LaunchInfo*> samples = it->second;
        std::string which = positionsOf(samples);
        if (!sameWorkAll(samples, work)) {
            // Launches of its signature did different work: the one at its place lends.
            samples = samplesAt(step, places.placesOf(launches, k), work);
            which = positionsOf(samples) + ", where the launches around it ran as around this one";
        }
        if (samples.empty()) {
            r.note = noCountersNote(why) +
                     ", and its signature's launches in the step did different work, and " +
                     (places.exhausted()
                          ? "the search for where it ran stopped at its bound (" +
                                std::to_string(StepPlaces::kMaxComparisons) +
                                " launches compared)"
                          : std::string("none ran where it ran (the same launches around it)")) +
                     ", so none lends it its counters";
            continue;
        }
        r.note.clear();
        takeSampleMean(samples, which, metricNames, r);
        appendNote(r.note, outsideNote(why));
        ++out.lent;
    }
    return out;
}

// Their names, demangled once per kernel.
void OutsideRecords::nameRecords(RecordStore& records) const {
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
}

} // namespace roofline::collect
