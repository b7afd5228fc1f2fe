// The line a profiled process prints at exit, and the save behind it: how many records, which
// lack counters and why, the launches no record holds and why, and where the recording went.
#include "session/session_state.hpp"

#include "collect/notes.hpp"
#include "core/log.hpp"
#include "cupti/graph_replay.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

namespace roofline::collect {
namespace {

// A step found in the launch stream that it stopped repeating (a decoding loop whose kernels
// change as its cache grows): its passes never lined up, and more steps would not help.
bool stoppedRepeating(const FoundSteps::Summary& f) {
    return !f.programRanges && f.cycle != 0 && f.frameworkSteps == 0 && !f.following;
}

std::string stoppedRepeatingText(const FoundSteps::Summary& f) {
    return "the step found in the launch stream (" + std::to_string(f.cycle) +
           " launches) stopped repeating after " + std::to_string(f.steps) + " steps";
}

// A note's first clause (remarks are "; "-separated), at most 300 characters.
std::string firstClause(const std::string& note) {
    return note.substr(0, std::min(note.find("; "), std::size_t{300}));
}

// A note's kind: its first clause with every number in it blanked, so that notes differing only
// in a figure they quote (the free memory at each window) count as one reason.
std::string noteKind(const std::string& note) {
    const std::string kind = firstClause(note);
    std::string out;
    out.reserve(kind.size());
    for (std::size_t i = 0; i < kind.size(); ++i) {
        const bool digit = kind[i] >= '0' && kind[i] <= '9';
        if (!digit) {
            out += kind[i];
            continue;
        }
        out += '#';
        while (i + 1 < kind.size() &&
               ((kind[i + 1] >= '0' && kind[i + 1] <= '9') ||
                (kind[i + 1] == '.' && i + 2 < kind.size() && kind[i + 2] >= '0' &&
                 kind[i + 2] <= '9')))
            ++i;
    }
    return out;
}

} // namespace

std::string SessionState::whyNoRecord(std::size_t unmeasured) const {
    if (!foundSteps)
        return {};
    const FoundSteps::Summary f = foundSteps->summary();
    if (f.programRanges || f.launches == 0)
        return {};
    if (!records.empty()) {
        // Records, none with counters, and a step the stream stopped repeating.
        if (unmeasured < records.size() || !stoppedRepeating(f))
            return {};
        return "; no launch got counters: " + stoppedRepeatingText(f) +
               " -- its launches change from step to step, as a decoding loop's do: "
               "`roofline run --mode window` measures every launch";
    }
    if (f.frameworkSteps > 0)
        return "; no record: the program opened no NVTX range, and its steps (where " + f.source +
               " ends, seen " + std::to_string(f.frameworkSteps) +
               " times) ended before one was measured: run more steps";
    if (f.cycle == 0)
        return "; no record: the program opened no NVTX range and its " +
               std::to_string(f.launches) + " launches never repeated as a step for " +
               std::to_string(LaunchCycle::kConfirmLaunches) +
               " launches (a one-shot program, or too few steps): `roofline run --mode window` "
               "measures every launch, or put an NVTX range around each step";
    return "; no record: the step found in the launch stream (" + std::to_string(f.cycle) +
           " launches) ended before one was measured: run more steps";
}

// Every record without counters is accounted for on the exit line: the kinds with an answer of
// their own first, then the most frequent of the other notes, and how many have others still.
std::string SessionState::whyUnmeasured(std::size_t unmeasured) const {
    if (unmeasured == 0)
        return {};
    const auto startsWith = [](const std::string& s, std::string_view head) {
        return s.compare(0, head.size(), head) == 0;
    };
    std::size_t graph = 0, cutShort = 0, other = 0;
    struct Kind {
        std::size_t count = 0;
        std::string text; // the latest note of the kind, with its figures
    };
    std::unordered_map<std::string, Kind> notes; // the others, by kind
    for (const KernelRecord& k : records) {
        if (k.measured)
            continue;
        if (startsWith(k.note, kRanOutsideNoCounters) ||
            startsWith(k.note, "counters measured on rank"))
            continue; // accounted for on their own: outside every step, on other ranks
        if (startsWith(k.note, "a kernel node of a CUDA graph launch"))
            ++graph;
        else if (startsWith(k.note, "not measured: the profile stopped") ||
                 startsWith(k.note, "replay incomplete"))
            ++cutShort;
        else {
            ++other;
            Kind& kind = notes[noteKind(k.note)];
            ++kind.count;
            kind.text = firstClause(k.note);
        }
    }
    std::string why;
    if (graph > 0) {
        const std::string reason = cupti::graphRanAsItIs();
        why += "; " + std::to_string(graph) + " of them kernels of CUDA graphs that ran as they " +
               "are" + (reason.empty() ? "" : " (" + reason + ")");
    }
    if (cutShort > 0) {
        const FoundSteps::Summary f = foundSteps ? foundSteps->summary() : FoundSteps::Summary{};
        if (stoppedRepeating(f))
            why += "; " + std::to_string(cutShort) + " of them not measured: " +
                   stoppedRepeatingText(f) +
                   ", before their passes were done -- where a step's launches change from step "
                   "to step, as a decoding loop's do, `roofline run --mode window` measures "
                   "every launch";
        else
            why += "; " + std::to_string(cutShort) +
                   " of them not measured before the session stopped: run more steps";
    }
    if (other > 0) {
        const auto most = std::max_element(notes.begin(), notes.end(), [](auto& a, auto& b) {
            return a.second.count != b.second.count ? a.second.count < b.second.count
                                                    : a.first > b.first;
        });
        const Kind& k = most->second;
        why += "; " + std::to_string(k.count) + " of them: " +
               (k.text.empty() ? std::string("no reason noted") : k.text);
        if (other > k.count)
            why += "; " + std::to_string(other - k.count) +
                   " more for other reasons (`roofline report --group-by launch` gives each "
                   "launch's note)";
    }
    return why;
}

// Launches no step covers that no window measured: records that took the step's counters or say
// why they have none, and beyond the records' bound, counts (design 0026).
std::string SessionState::unrecordedOutside(const CollectionCounts& c) const {
    if (records.empty())
        return {};
    std::string line;
    const std::uint64_t kept = c.tally.outsideRecords, lent = c.tally.outsideLent,
                        awaiting = c.tally.outsideAwaiting;
    bool whySaid = false;
    if (kept > 0) {
        line = "; " + std::to_string(kept) +
               " records of launches outside every step (set-up, warm-up, between steps) that no "
               "window measured: ";
        const std::uint64_t none = kept - std::min(kept, lent + awaiting);
        if (lent == kept)
            line += "each took the counters its signature has in the step";
        else if (lent == 0 && awaiting == 0)
            line += "none took counters from the step";
        else {
            if (lent > 0)
                line += std::to_string(lent) + " took the counters their signature has in the step";
            if (awaiting > 0)
                line += std::string(lent > 0 ? ", " : "") + std::to_string(awaiting) +
                        " take them from another rank's step (`roofline merge`)";
            if (none > 0)
                line += ", " + std::to_string(none) + " have none";
        }
        if (none > 0 && !c.outsideWhy.empty()) {
            line += " (" + c.outsideWhy + ")";
            whySaid = true;
        }
    }
    const std::uint64_t outside = c.tally.outsideIterations;
    if (outside == 0)
        return line;
    line += "; " + std::to_string(outside) +
            " launches outside every step (set-up, warm-up, between steps) got no record";
    if (c.outsideAlikeStep > 0)
        line += ", " + std::to_string(c.outsideAlikeStep) +
                " of them the step's kernels at its launch shapes, measured in the step";
    if (!c.outsideWhy.empty() && !whySaid)
        line += " (" + c.outsideWhy + ")";
    return line;
}

std::string SessionState::profileCost(const CollectionCounts& c, const BackendCost& cost) const {
    if (c.level != Level::Counters || cost.ranges == 0)
        return {};
    const double ms = setupMs + injectionMs() + cost.startMs + cost.passMs + cost.stopMs +
                      cost.creationMs + cost.evaluationMs + cost.memoryMs + cost.waitMs +
                      cost.recordMs;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s", ms / 1000.0);
    return "; " + std::to_string(cost.ranges) + " ranges in " + std::to_string(cost.starts) +
           " passes, " + seconds;
}

void noteRecording(const std::string& path) noexcept {
    // `roofline run` lists every process's recording once the program has exited.
    if (const char* manifest = std::getenv("ROOFLINE_RUN_MANIFEST"); manifest && *manifest)
        if (const int fd = ::open(manifest, O_WRONLY | O_APPEND | O_CLOEXEC); fd >= 0) {
            const std::string line = path + '\n';
            [[maybe_unused]] const auto n = ::write(fd, line.data(), line.size());
            ::close(fd);
        }
}

void SessionState::saveOnce(const CollectionCounts& c, std::size_t unmeasured,
                            const BackendCost& cost) const noexcept {
    try {
        const std::string saved = core::saveRecordingOnce(recorded, outputPath, process.pid);
        if (injected()) {
            const std::string idleAfter =
                idleWallNs != 0 ? "; idle after " + std::to_string(c.completedAfterIterations) +
                                      " iterations (the profile was complete)"
                                : std::string();
            const std::uint64_t foreign = c.tally.foreign;
            const std::string shared =
                foreign > 0
                    ? ", " + std::to_string(foreign) +
                          " of them measured on other ranks (`roofline merge` fills them in)"
                    : std::string();
            const std::string unrecorded = unrecordedOutside(c);
            std::string why = whyNoRecord(unmeasured);
            if (why.empty())
                why = whyUnmeasured(unmeasured);
            const std::string spent = profileCost(c, cost);
            std::fprintf(stderr,
                         "[roofline] process %ld: %zu records (%zu without counters%s) "
                         "saved to %s%s%s%s%s\n",
                         static_cast<long>(process.pid), records.size(), unmeasured, shared.c_str(),
                         saved.c_str(), idleAfter.c_str(), spent.c_str(), why.c_str(),
                         unrecorded.c_str());
            noteRecording(saved);
        }
        if (saved == outputPath)
            core::log().info("libroofline: recording saved to {}", saved);
        else
            core::log().warn("libroofline: recording saved to {}: '{}' holds another "
                             "process's recording of this run (give ROOFLINE_OUTPUT a %p or "
                             "%r so that each process has its own)",
                             saved, outputPath);
    } catch (const std::exception& e) {
        core::log().error("libroofline: saving the recording to '{}' failed: {}", outputPath,
                          e.what());
    }
}

} // namespace roofline::collect
