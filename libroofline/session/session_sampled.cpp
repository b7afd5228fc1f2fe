// The end of a sampled session (docs/design/0029): the run's last batch written, and what it
// recorded, lost and cost said -- on standard error under `roofline run`, in the log otherwise.
#include "session/session_state.hpp"

#include "core/log.hpp"

#include <cstdio>
#include <string>

namespace roofline::collect {
namespace {

std::string count(std::uint64_t n, const char* what) {
    return std::to_string(n) + " " + what;
}

// What the run could not account for, each with where it shows; "" when nothing was lost.
std::string losses(const SampledRunSummary& r) {
    std::string out;
    const auto add = [&out](std::uint64_t n, const std::string& text) {
        if (n > 0)
            out += "; " + std::to_string(n) + " " + text;
    };
    const sampling::StepSeriesTally& t = r.series;
    add(r.missingSamples, "sampling periods have no sample (lost on the device: the kernels "
                          "they covered show it in their coverage)");
    add(r.fullImages, "decodes filled their image (CUPTI drops the samples that follow)");
    add(r.overflows, "reads found the device's sample buffer overflowed (sampling restarted " +
                         std::to_string(r.restarts) + " times)");
    add(r.longSamples, "samples spanned more than four periods and were left out (their time is "
                       "lost: the kernels in it show it in their coverage)");
    add(r.readFailures, "reads could not decode the samples (" + r.firstFailure + ")");
    add(t.droppedSamples, "samples dropped before a step used them");
    add(t.droppedAwaiting, "launches dropped while awaiting their kernels' records");
    add(r.droppedKernels, "kernel record buffers dropped by CUPTI");
    add(t.late, "launches came after their step was written");
    add(t.writeFailures, "batches could not be written");
    add(t.lost, "launches or step ends lost for want of memory");
    add(r.incompleteKernels, "kernel records came without a start or an end (left out)");
    add(t.missing, "kernels' records never came (their steps went without them)");
    add(t.unrecordedLaunches, "kernels of recorded steps were launched while their records were "
                              "off (another thread's, after the next step began): not in their "
                              "steps' values");
    return out;
}

// Which steps' kernels were recorded, and what the program's steps showed them to cost; "" where
// every step's were and nothing was measured.
std::string recordsSaid(const sampling::StepSeriesTally& t) {
    if (t.trials == 0 && t.withoutRecords == 0)
        return "";
    std::string out = "; kernel records on " + std::to_string(t.steps - t.withoutRecords) + " of " +
                      std::to_string(t.steps) + " steps";
    if (t.trials > 0) {
        const sampling::RecordsTrial& r = t.lastTrial;
        char said[200];
        std::snprintf(said, sizeof said,
                      " (the last of %llu trials found them costing %+.1f %% of a step: %.2f ms "
                      "with, %.2f ms without)",
                      static_cast<unsigned long long>(t.trials), 100.0 * r.cost, r.withNs / 1e6,
                      r.withoutNs / 1e6);
        out += said;
    }
    if (t.switches > 0) {
        char took[120];
        std::snprintf(took, sizeof took, ", switched %llu times (%.1f ms on the program's threads)",
                      static_cast<unsigned long long>(t.switches),
                      static_cast<double>(t.switchNs) / 1e6);
        out += took;
    }
    if (t.withoutRecords > 0) {
        char lag[120];
        std::snprintf(lag, sizeof lag, ", the others' spans from their launch calls (lag %.0f us)",
                      t.lagNs / 1e3);
        out += lag;
    }
    return out;
}

} // namespace

void SessionState::finishSampled() noexcept {
    const SampledRunSummary r = sampled->finish();
    const sampling::StepSeriesTally& t = r.series;
    const std::string lost = losses(r);
    const std::string noStep =
        t.steps == 0 ? "; no step was found (no NVTX range, no framework step, no repeating "
                       "launch sequence): the recording holds no step"
                     : "";
    const double wallMs = 1000.0 * r.wallSeconds;
    const double share = wallMs > 0 ? 100.0 * r.readMs / wallMs : 0.0;
    const double drainMs = r.decodeMs + r.evaluateMs;
    const double drainShare = wallMs > 0 ? 100.0 * drainMs / wallMs : 0.0;
    char cost[480];
    std::snprintf(cost, sizeof cost,
                  "; its reading thread was busy %.0f ms of %.1f s (%.1f %%: %.0f ms reading the "
                  "kernels' records, the rest dividing the samples and writing), its drain "
                  "thread %.0f ms (%.1f %%: %.0f ms decoding the device's buffer, %.0f ms "
                  "evaluating the samples and resetting the image)",
                  r.readMs, r.wallSeconds, share, r.recordsMs, drainMs, drainShare, r.decodeMs,
                  r.evaluateMs);
    const std::string rows =
        t.rows < t.steps ? " in " + count(t.rows, "rows") + " (short steps merged)" : "";
    const std::string text =
        count(t.steps, "steps") + " sampled" + rows + " (" + count(t.launches, "kernels") + ", " +
        count(t.outsideSteps, "outside every step") + ", " + count(r.samples, "samples") + ", " +
        count(t.strays, "strays") + ") written to " + sampled->path() + " in " +
        count(r.batchesWritten, "batches") + recordsSaid(t) + cost + noStep + lost;
    if (injected())
        std::fprintf(stderr, "[roofline] process %ld: %s\n", static_cast<long>(process.pid),
                     text.c_str());
    if (lost.empty() && t.steps > 0)
        core::log().info("libroofline: {}", text);
    else
        core::log().warn("libroofline: {}", text);
}

} // namespace roofline::collect
