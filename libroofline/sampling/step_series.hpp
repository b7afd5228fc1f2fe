#pragma once
// A sampled job's steps (docs/design/0029): what the host says of each launch (its step and
// scope, from the launch callback), the kernels' activity records, the PM samples and the steps'
// ends come in, from their own threads and in any order; each step whose kernels and samples are
// all in is divided among its kernels (core::attributeSamples) and becomes a SampledStep; the last
// steps' launches are held in a ring, and every N steps or T seconds a batch is handed to the
// writer: the steps since the last batch, the launches of the ring's last step and of every step
// that strayed from the running median. Memory is bounded: the ring, the launches awaiting their
// activity (at most maxAwaiting, the oldest dropped and counted) and the samples not yet used.
// The program's threads only append to a log (one short lock, never held by the reader while it
// works); everything else is the reading thread's. Where the kernels' records are on for a share
// of the steps only (sampling/records_policy), a step without them is the span of GPU time from
// its first launch to the next step's (less the gap the recorded steps leave after their last
// kernel), each taken at the host's launch call and moved by the lag the recorded steps show
// between a launch call and its kernel's start: its values are the samples over that span
// (step_series_spans.cpp). Pure logic: no CUDA, no CUPTI.
#include "collect/step_sink.hpp"
#include "core/sample_attribution.hpp"
#include "core/sampled_recording.hpp"
#include "sampling/records_policy.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace roofline::sampling {

/// A launch as the host saw it: its step (-1: outside every step) and scope (StepSeries::scope).
struct HostLaunch {
    std::uint64_t correlationId = 0;
    std::int64_t step = -1;
    std::uint32_t scope = 0;
    std::uint32_t kernels = 1; ///< kernels it runs: a graph launch's kernel nodes share its id
};

/// A kernel as its activity record gives it.
struct KernelActivity {
    std::uint64_t correlationId = 0;
    std::string name;
    std::uint64_t startNs = 0, endNs = 0;
};

struct StepSeriesConfig {
    std::size_t counters = 0;
    std::size_t clock = core::kNoClock; ///< the counter of SM cycles elapsed, divided by time
    std::uint64_t periodNs = 100000;
    std::size_t ringSteps = 16;                  ///< steps whose launches are held
    std::uint64_t writeEverySteps = 100;         ///< a batch at least this often, in steps
    std::uint64_t writeEveryNs = 30000000000ull; ///< and in wall-clock time
    double strayShare = 0.10;                    ///< a step this far from the running median strays
    /// Stray steps whose launches a write keeps, the farthest from the median since the last
    /// write (an eager loop whose steps jitter strays often: every stray kept would make the file
    /// grow with its launches); the others are counted and flagged in their rows.
    std::size_t strayStepsKept = 4;
    std::size_t medianOf = 101; ///< steps the running median is taken over
    /// Steps shorter than this many periods, each beginning within a period of the one before,
    /// are merged into one row of at least that length (SampledStep::steps): a loop of one short
    /// kernel makes rows a period's samples can be divided among, not one row per launch.
    std::uint64_t shortestRowPeriods = 3;
    std::uint64_t maxRowSteps = 1u << 16; ///< a row holds at most this many steps
    /// Host launches awaiting their activity records beyond this are dropped, oldest first; the
    /// host's log of launches not yet read holds as many at most (further ones are dropped).
    std::size_t maxAwaiting = 1u << 20;
    /// Samples held for steps not yet turned into values (262,144: 26 s at 100 us, ~30 MB);
    /// beyond it the oldest go, and the kernels they covered show it in their coverage.
    std::size_t maxSamples = 1u << 18;
    /// Kernel signatures a write sums apart; launches of further ones go to "(other kernels)".
    std::size_t maxSignatures = 4096;
    /// Which steps get their kernels' records (every one unless a switch is given: see
    /// StepSeries::recordsSwitch).
    RecordsPolicyConfig records;
    std::size_t lagsKept = 16; ///< recorded steps whose lag (launch call to kernel) is kept
    /// Steps go without records only while the recorded steps' median lag is under this share
    /// of their median span: where the host runs ahead of the GPU, the lag varies with the
    /// queue, and spans taken from launch calls land on the neighbours' kernels.
    double mostLagShare = 0.10;
};

struct StepSeriesTally {
    std::uint64_t steps = 0, launches = 0, batches = 0, strays = 0;
    std::uint64_t rows = 0;            ///< rows written: steps, short ones merged
    std::uint64_t outsideSteps = 0;    ///< kernels of launches outside every step
    std::uint64_t unmatched = 0;       ///< activity records of launches the host did not report
    std::uint64_t droppedAwaiting = 0; ///< host launches dropped before their activity came
    std::uint64_t droppedSamples = 0;  ///< samples dropped before a step used them
    std::uint64_t late = 0;            ///< launches reported for a step already turned into values
    std::uint64_t writeFailures = 0;   ///< batches the writer refused (disk full...)
    std::uint64_t lost = 0;            ///< launches or step ends dropped for want of memory
    std::uint64_t missing =
        0; ///< kernels whose activity record never came (their step went without)
    /// Steps whose kernels' records were off: their values are their spans' samples.
    std::uint64_t withoutRecords = 0;
    /// Launches of a recorded step made while records were off (another thread's, past its
    /// step's end): counted, not awaited.
    std::uint64_t unrecordedLaunches = 0;
    std::uint64_t trials = 0;   ///< the records' cost measured in the program (RecordsPolicy)
    RecordsTrial lastTrial;     ///< what the last one found
    double lagNs = 0;           ///< the median lag from a step's first launch call to its kernel
    std::uint64_t switches = 0; ///< times the records were turned on or off
    std::uint64_t switchNs = 0; ///< their time on the program's threads, all told
};

/// The collector's sampling strategy feeds it as a StepSink (from the program's threads).
class StepSeries final : public collect::StepSink {
public:
    using Write = std::function<void(const core::SampledBatch&)>;
    StepSeries(const StepSeriesConfig& config, Write write);

    void launched(const HostLaunch& launch);
    /// StepSink: a scope path's number (an allocation failure gives the unnamed scope's, 0).
    std::uint32_t scope(const std::string& path) noexcept override;
    /// StepSink: a launch from the collector, logged (beyond the log's bound it is dropped,
    /// counted).
    void launched(std::uint64_t correlationId, std::int64_t step, std::uint32_t scope,
                  std::uint32_t kernels) noexcept override;
    void kernels(std::vector<KernelActivity> activity);
    void samples(const std::vector<core::CounterSample>& samples);
    /// The host left step `step`: no launch of it comes after this.
    void stepEnded(std::int64_t step) noexcept override;
    /// StepSink: step `step` begins, at its first launch (before launched() is told of it): the
    /// policy says whether its kernels' records are on, and `turn` turns them on or off.
    void stepBegins(std::int64_t step) noexcept override;
    /// Records on a share of the steps: `turn(on)` turns the kernels' activity records on or off
    /// (on the program's thread, inside the launch call the step begins with, whose kernel it
    /// then covers or not), `now()` reads the clock of the records' timestamps. Without them
    /// every step's kernels are recorded. Set before any step begins.
    void recordsSwitch(std::function<void(bool)> turn, std::function<std::uint64_t()> now);
    /// Turns every step whose kernels and samples are in into a SampledStep; writes a batch when
    /// due. `nowUnixNs`: the wall clock.
    void advance(std::uint64_t nowUnixNs);
    /// Every ended step becomes one, with the samples there are; the last batch is written.
    void finish(std::uint64_t nowUnixNs);
    StepSeriesTally tally() const;
    /// The launches held (the ring and the steps awaiting), for the memory bound's tests.
    std::size_t launchesHeld() const;

    struct Kernel {
        KernelActivity activity;
        std::uint32_t scope = 0;
    };

private:
    /// What a program's thread said: a launch, the end of `launch.step` (`ended`) or its
    /// begin (`begun`), with the records' state then and the clock at a begin or an end.
    struct HostEvent {
        HostLaunch launch;
        bool ended = false;
        bool begun = false;
        bool records = true;
        std::uint64_t hostNs = 0;
    };
    struct Pending {
        std::uint64_t expected = 0; ///< kernels its host launches run
        bool ended = false;
        bool records = true; ///< its kernels' activity records are on
        std::uint64_t hostBeginNs = 0,
                      hostEndNs = 0;            ///< its first launch call, its end (0: not known)
        std::uint64_t spanFrom = 0, spanTo = 0; ///< without records: its estimated GPU span
        std::vector<Kernel> kernels;
        std::vector<std::uint64_t> ids; ///< its launches' correlation ids
    };
    void log(HostEvent event) noexcept;
    /// The host's log taken and applied to the launches awaiting and the steps pending.
    void applyLog();
    void apply(const HostEvent& event);
    bool complete(const Pending& p) const {
        return p.ended && (!p.records || p.kernels.size() >= p.expected);
    }
    /// A step without records: its span, from its launch calls moved by the lag, bounded by the
    /// row before and the next step's first kernel; false while the next step's begin, the lag
    /// or the samples over it are not in (`finishing`: with what there is).
    bool unrecordedSpan(std::map<std::int64_t, Pending>::const_iterator at, bool finishing,
                        std::uint64_t& from, std::uint64_t& to) const;
    void processUnrecorded(std::int64_t step, const Pending& p, std::uint64_t steps);
    /// A recorded step after `at` has all its records and the samples past its end.
    bool laterRecordedSettled(std::map<std::int64_t, Pending>::const_iterator at) const;
    /// The recorded steps' median lag from a step's first launch call to its first kernel's start.
    std::uint64_t lag() const;
    void noteLag(const Pending& p, std::uint64_t firstKernelNs);
    /// The GPU span a pending step's values cover: its kernels', or its estimate.
    std::pair<std::uint64_t, std::uint64_t> spanOfPending(const Pending& p) const;
    bool ready(std::int64_t step, bool finishing) const;
    std::vector<core::KernelSpan> spansFor(const std::vector<Kernel>& own,
                                           const std::vector<core::KernelSpan>& later,
                                           std::uint64_t from, std::uint64_t to) const;
    bool takeReady(bool finishing, std::int64_t& step, Pending& p);
    /// `after`: the step's end, before which no step without records is taken to run.
    std::vector<core::KernelSpan> laterKernels(std::uint64_t to, std::uint64_t after) const;
    /// A step whose values are due: into the row being gathered, or a row of its own.
    void gather(std::int64_t step, Pending p);
    void flushRow();
    void process(std::int64_t step, Pending p, std::uint64_t steps);
    void releaseUpTo(std::uint64_t endNs);
    std::deque<core::CounterSample>::const_iterator firstSampleEndingAfter(std::uint64_t ns) const;
    void trimAwaitingOrder();
    /// How far `ns` is from the running median, as a share of it, when it strays; else 0.
    double strays(double ns);
    void keepStray(double distance, std::vector<core::SampledLaunch> launches);
    /// The batch to write now (empty when none is due), taken out under the lock.
    core::SampledBatch due(std::uint64_t nowUnixNs, bool force);
    void handOver(core::SampledBatch batch);
    /// The steps that are ready (every ended one when finishing) into values, and the batch due.
    void drain(std::uint64_t nowUnixNs, bool finishing);
    void dropOldestAwaiting();

    StepSeriesConfig config_;
    Write write_;
    // Two locks, taken in this order when both are: the reader's (everything below the log: what
    // kernels(), samples(), advance() and finish() work on, one caller at a time) and the log's
    // (what the program's threads append to, for a push_back; the reader holds it to swap the log
    // out). Scopes have their own, taken at a scope instance's first launch.
    mutable std::mutex readerMutex_;
    mutable std::mutex logMutex_;
    std::vector<HostEvent> log_;
    std::uint64_t logDropped_ = 0; ///< launches the full log refused (the log's lock)
    std::uint64_t logLost_ = 0;    ///< launches or ends lost for want of memory (the log's lock)
    mutable std::mutex scopesMutex_;
    std::unordered_map<std::string, std::uint32_t> scopeNumbers_;
    std::vector<std::string> scopeNames_;   ///< by number (the scopes' lock)
    std::vector<std::string> readerScopes_; ///< a copy of scopeNames_ the reader names launches by
    const std::string& scopeName(std::uint32_t scope);
    std::unordered_map<std::uint64_t, HostLaunch> awaiting_;
    std::deque<std::uint64_t> awaitingOrder_;
    std::map<std::int64_t, Pending> pending_;
    std::vector<HostEvent> taken_; ///< the log last taken (its capacity kept)
    /// The row being gathered from short steps: its first step, their kernels, its GPU span.
    struct Row {
        std::int64_t first = -1;
        std::uint64_t steps = 0, startNs = 0, endNs = 0;
        Pending pending;
    } row_;
    /// Kernels of steps turned into values that the held samples still cover.
    std::vector<core::KernelSpan> recentKernels_;
    std::deque<core::CounterSample> samples_; ///< in time order
    std::uint64_t samplesEnd_ = 0;            ///< the latest sample's end
    std::deque<std::vector<core::SampledLaunch>> ring_;
    std::deque<double> recent_; ///< the last steps' times, for the median
    core::SampledBatch batch_;
    /// The stray steps whose launches the next write keeps (distance from the median, launches).
    std::vector<std::pair<double, std::vector<core::SampledLaunch>>> strayLaunches_;
    /// Every signature's sums over the steps since the last write (name, scope).
    /// Signatures are looked up by views of a launch's name and scope (no key built per launch).
    using SignatureView = std::pair<std::string_view, std::string_view>;
    struct SignatureOrder {
        using is_transparent = void;
        template <typename A, typename B> bool operator()(const A& a, const B& b) const {
            const int first = std::string_view(a.first).compare(std::string_view(b.first));
            return first < 0 ||
                   (first == 0 && std::string_view(a.second) < std::string_view(b.second));
        }
    };
    std::map<std::pair<std::string, std::string>, core::SampledSignature, SignatureOrder>
        signatures_;
    void addToSignature(const core::SampledLaunch& launch);
    std::uint64_t stepsSinceWrite_ = 0, lastWriteNs_ = 0;
    StepSeriesTally tally_;
    std::int64_t processed_ = -1;    ///< the last step turned into values
    std::uint64_t lastEndNs_ = 0;    ///< the GPU end of the last row turned into values
    std::deque<std::uint64_t> lags_; ///< the last recorded steps' lags
    /// The last recorded rows' gaps from their last kernel's end to the next row's start, and
    /// the end of the last recorded row whose gap is still to come (0: none).
    std::deque<std::uint64_t> gaps_;
    std::uint64_t gapFrom_ = 0;
    std::uint64_t gap() const;
    /// A row begins on the GPU at `startNs`: the gap after the recorded row before it noted.
    void noteRowStart(std::uint64_t startNs);
    // The records' switch: the policy and the state under the log's lock.
    std::function<void(bool)> turn_;
    std::function<std::uint64_t()> now_;
    RecordsPolicy policy_;
    bool recordsOn_ = true;
    std::uint64_t switches_ = 0, switchNs_ = 0; ///< the switches made (under the log's lock)
    /// The recorded steps show the host pacing the GPU (lag small against the step): steps may
    /// go without records (written by the reader, read by stepBegins, under the log's lock).
    bool hostPaces_ = false;
    std::deque<std::uint64_t> recordedSpans_; ///< the last recorded rows' spans per step (reader)
    void noteHostPace(std::uint64_t spanNs, std::uint64_t steps);
};

} // namespace roofline::sampling
