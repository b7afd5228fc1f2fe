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
// works); everything else is the reading thread's. Pure logic: no CUDA, no CUPTI.
#include "collect/step_sink.hpp"
#include "core/sample_attribution.hpp"
#include "core/sampled_recording.hpp"

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
    std::size_t ringSteps = 16;           ///< steps whose launches are held
    std::uint64_t writeEverySteps = 100;  ///< a batch at least this often, in steps
    std::uint64_t writeEveryNs = 30000000000ull; ///< and in wall-clock time
    double strayShare = 0.10; ///< a step this far from the running median strays
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
};

struct StepSeriesTally {
    std::uint64_t steps = 0, launches = 0, batches = 0, strays = 0;
    std::uint64_t rows = 0; ///< rows written: steps, short ones merged
    std::uint64_t outsideSteps = 0;  ///< kernels of launches outside every step
    std::uint64_t unmatched = 0;     ///< activity records of launches the host did not report
    std::uint64_t droppedAwaiting = 0; ///< host launches dropped before their activity came
    std::uint64_t droppedSamples = 0;  ///< samples dropped before a step used them
    std::uint64_t late = 0; ///< launches reported for a step already turned into values
    std::uint64_t writeFailures = 0; ///< batches the writer refused (disk full...)
    std::uint64_t lost = 0; ///< launches or step ends dropped for want of memory
    std::uint64_t missing = 0; ///< kernels whose activity record never came (their step went without)
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
    /// What a program's thread said: a launch, or the end of `launch.step` (`ended`).
    struct HostEvent {
        HostLaunch launch;
        bool ended = false;
    };
    struct Pending {
        std::uint64_t expected = 0; ///< kernels its host launches run
        bool ended = false;
        std::vector<Kernel> kernels;
        std::vector<std::uint64_t> ids; ///< its launches' correlation ids
    };
    void log(const HostEvent& event) noexcept;
    /// The host's log taken and applied to the launches awaiting and the steps pending.
    void applyLog();
    void apply(const HostEvent& event);
    bool complete(const Pending& p) const { return p.ended && p.kernels.size() >= p.expected; }
    bool ready(std::int64_t step, bool finishing) const;
    std::vector<core::KernelSpan> spansFor(const std::vector<Kernel>& own,
                                           const std::vector<core::KernelSpan>& later,
                                           std::uint64_t from, std::uint64_t to) const;
    bool takeReady(bool finishing, std::int64_t& step, Pending& p);
    std::vector<core::KernelSpan> laterKernels(std::uint64_t to) const;
    /// A step whose values are due: into the row being gathered, or a row of its own.
    void gather(std::int64_t step, Pending p);
    void flushRow();
    void process(std::int64_t step, Pending p, std::uint64_t steps);
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
    std::vector<std::string> scopeNames_; ///< by number (the scopes' lock)
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
    std::uint64_t samplesEnd_ = 0; ///< the latest sample's end
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
            return first < 0 || (first == 0 && std::string_view(a.second) < std::string_view(b.second));
        }
    };
    std::map<std::pair<std::string, std::string>, core::SampledSignature, SignatureOrder>
        signatures_;
    void addToSignature(const core::SampledLaunch& launch);
    std::uint64_t stepsSinceWrite_ = 0, lastWriteNs_ = 0;
    StepSeriesTally tally_;
    std::int64_t processed_ = -1; ///< the last step turned into values
};

} // namespace roofline::sampling
