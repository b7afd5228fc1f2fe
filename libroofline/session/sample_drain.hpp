#pragma once
// A PM sampler's buffer decoded on a thread of its own, on a fixed cadence (docs/design/0029).
// CUPTI loses samples when a decode fills the counter-data image (those after it come without
// timestamps) and, once the device's buffer overflows, every sample until sampling restarts; so
// the buffer is decoded often, into an image that holds a few decodes' worth, by a thread that
// does nothing else. The reading thread takes what it decoded, with what was lost, and does the
// rest (kernel records, the steps' values, the writes) on its own cadence.
#include "cupti/pm_sampler.hpp"
#include "session/sampled_run.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace roofline::collect {

class SampleDrain {
public:
    /// One decode of the device's buffer: at most `maxRounds` rounds, every one until the buffer
    /// is empty with `untilEmpty` (cupti::PmSampler::decode; a fake in the tests). May throw.
    using Decode = std::function<cupti::PmDecode(int maxRounds, bool untilEmpty)>;
    /// Rounds of a decode on the thread, which takes what a round brings (what comes in
    /// meanwhile waits for the next decode) unless the round filled the image: a backlog beyond
    /// these waits too, so that a stop never waits long. The last decode, after the stop,
    /// empties the buffer in at most kRoundsAtLast.
    static constexpr int kRoundsOnThread = 4;
    static constexpr int kRoundsAtLast = 64;
    /// Samples waiting for the reading thread, at most: those beyond are dropped and counted
    /// missing (the reading thread fell behind by seconds).
    static constexpr std::size_t kPendingMost = 1u << 16;

    SampleDrain(Decode decode, std::chrono::milliseconds every) noexcept;
    ~SampleDrain();
    SampleDrain(const SampleDrain&) = delete;
    SampleDrain& operator=(const SampleDrain&) = delete;

    /// The thread starts decoding (the sampler already started); false when no thread could
    /// be started: take() decodes on the caller's thread.
    bool start() noexcept;
    /// The thread ends its decode under way and stops; the sampler is the caller's again.
    void stop() noexcept;
    /// What was decoded since the last take: its samples, losses, costs and the first failure
    /// (no kernel records). With no thread, or with `last`, the caller's thread decodes the rest
    /// itself first.
    SourceRead take(bool last) noexcept;

private:
    void loop() noexcept;
    // One decode of the sampler into the pending read, under the lock for the append only;
    // `last`: after the stop, until the buffer is empty.
    void decodeOnce(bool last) noexcept;

    Decode decode_;
    std::chrono::milliseconds every_;
    std::mutex mutex_; // pending_, stopping_
    std::condition_variable wake_;
    bool stopping_ = false;
    SourceRead pending_;
    std::thread thread_;
};

} // namespace roofline::collect
