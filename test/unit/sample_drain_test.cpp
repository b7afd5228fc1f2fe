// The drain of a device's sample buffer (session/sample_drain.hpp) on a fake decode: it decodes
// on its thread with the thread's rounds, the last decode after the stop empties the buffer, what
// was lost and the first failure reach the reading thread, and samples beyond the bound are
// counted, never kept.
#include "session/sample_drain.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace roofline::collect {
namespace {

// A device whose every decode brings `perDecode` samples following the last, with the losses
// set for it; records how it was called.
class FakeDevice {
public:
    std::mutex mutex;
    std::size_t perDecode = 2;
    std::uint64_t missing = 0;
    std::uint32_t fullImages = 0, restarts = 0, startSpans = 0, longSamples = 0;
    bool overflow = false;
    int throwsNext = 0; // decodes that fail before the next one succeeds
    struct Call {
        int maxRounds;
        bool untilEmpty;
        std::thread::id thread;
    };
    std::vector<Call> calls;
    std::uint64_t clock = 0, samples = 0;

    SampleDrain::Decode decode() {
        return [this](int maxRounds, bool untilEmpty) {
            std::lock_guard<std::mutex> lock(mutex);
            calls.push_back({maxRounds, untilEmpty, std::this_thread::get_id()});
            if (throwsNext > 0) {
                --throwsNext;
                throw Error(ErrorCode::Cupti, "CUPTI_ERROR_UNKNOWN in the decode");
            }
            cupti::PmDecode d;
            for (std::size_t i = 0; i < perDecode; ++i, clock += 100)
                d.samples.push_back({clock, clock + 100, {1.0, 2.0}});
            samples += perDecode;
            d.rounds = 1;
            d.missing = missing;
            d.fullImages = fullImages;
            d.restarts = restarts;
            d.startSpans = startSpans;
            d.longSamples = longSamples;
            d.overflow = overflow;
            d.decodeMs = 1;
            d.evaluateMs = 0.5;
            d.resetMs = 0.25;
            return d;
        };
    }
    std::size_t callCount() {
        std::lock_guard<std::mutex> lock(mutex);
        return calls.size();
    }
};

// Its thread decodes on its cadence with the thread's rounds; reads take what it decoded, in
// order; the last decode, on the thread that stops, empties the buffer; every sample decoded is
// taken once.
TEST(SampleDrain, DecodesOnItsThreadAndTheLastDecodeEmptiesTheBuffer) {
    FakeDevice device;
    SampleDrain drain(device.decode(), std::chrono::milliseconds(2));
    ASSERT_TRUE(drain.start());
    while (device.callCount() < 3)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::vector<core::CounterSample> taken;
    SourceRead r = drain.take(false);
    taken.insert(taken.end(), r.samples.begin(), r.samples.end());
    drain.stop();
    const std::size_t onThread = device.callCount();
    const SourceRead last = drain.take(true);
    taken.insert(taken.end(), last.samples.begin(), last.samples.end());
    ASSERT_EQ(device.calls.size(), onThread + 1);
    for (std::size_t i = 0; i < onThread; ++i) {
        EXPECT_EQ(device.calls[i].maxRounds, SampleDrain::kRoundsOnThread);
        EXPECT_FALSE(device.calls[i].untilEmpty);
        EXPECT_NE(device.calls[i].thread, std::this_thread::get_id());
    }
    EXPECT_EQ(device.calls.back().maxRounds, SampleDrain::kRoundsAtLast);
    EXPECT_TRUE(device.calls.back().untilEmpty);
    EXPECT_EQ(device.calls.back().thread, std::this_thread::get_id());
    ASSERT_EQ(taken.size(), device.samples);
    for (std::size_t i = 0; i < taken.size(); ++i) {
        EXPECT_EQ(taken[i].startNs, 100 * i);
        EXPECT_EQ(taken[i].values, (std::vector<double>{1.0, 2.0}));
    }
    EXPECT_GT(last.decodeMs, 0);
}

// What the device lost is summed over the decodes a read takes, with their costs; a read takes
// each loss once. A sample over several periods is lost time mid-run, but not as the first after
// a start (the idle time before the device's first work).
TEST(SampleDrain, TheLossesOfEveryDecodeReachTheRead) {
    FakeDevice device;
    device.missing = 5;
    device.fullImages = 1;
    device.restarts = 1;
    device.startSpans = 1;
    device.longSamples = 2;
    device.overflow = true;
    SampleDrain drain(device.decode(), std::chrono::milliseconds(1));
    SourceRead r = drain.take(false); // no thread started: the read decodes itself
    r = drain.take(false); // a second read replaces the first's
    EXPECT_EQ(r.samples.size(), 2u);
    EXPECT_EQ(r.missing, 5u);
    EXPECT_EQ(r.fullImages, 1u);
    EXPECT_EQ(r.restarts, 1u);
    EXPECT_EQ(r.longSamples, 2u); // the start's span is no loss
    EXPECT_TRUE(r.overflow);
    EXPECT_DOUBLE_EQ(r.decodeMs, 1.0);
    EXPECT_DOUBLE_EQ(r.evaluateMs, 0.75); // evaluation and the image's reset
    EXPECT_EQ(device.calls.size(), 2u);
    EXPECT_EQ(device.calls[0].maxRounds, SampleDrain::kRoundsOnThread);
}

// A failed decode is kept for the read (the first one's reason), and the decodes after it go on.
TEST(SampleDrain, AFailedDecodeIsToldAndTheNextOnesGoOn) {
    FakeDevice device;
    device.throwsNext = 2;
    SampleDrain drain(device.decode(), std::chrono::milliseconds(1));
    SourceRead r = drain.take(false);
    EXPECT_NE(r.failure.find("CUPTI_ERROR_UNKNOWN in the decode"), std::string::npos) << r.failure;
    EXPECT_TRUE(r.samples.empty());
    r = drain.take(false);
    EXPECT_FALSE(r.failure.empty());
    r = drain.take(false);
    EXPECT_TRUE(r.failure.empty());
    EXPECT_EQ(r.samples.size(), 2u);
}

// Samples the reading thread has not taken are bounded: those beyond the bound are counted
// missing, not kept.
TEST(SampleDrain, SamplesBeyondTheBoundAreCountedMissing) {
    FakeDevice device;
    device.perDecode = SampleDrain::kPendingMost + 10;
    SampleDrain drain(device.decode(), std::chrono::milliseconds(1));
    SourceRead r = drain.take(false);
    EXPECT_EQ(r.samples.size(), SampleDrain::kPendingMost);
    EXPECT_EQ(r.missing, 10u);
}

// A drain stopped twice, or never started, stops at once.
TEST(SampleDrain, StopsOnceAndWhenNeverStarted) {
    FakeDevice device;
    {
        SampleDrain idle(device.decode(), std::chrono::milliseconds(1));
        idle.stop();
        idle.stop();
    }
    EXPECT_TRUE(device.calls.empty());
    SampleDrain drain(device.decode(), std::chrono::hours(1));
    ASSERT_TRUE(drain.start());
    drain.stop(); // wakes the thread from its hour's wait
    drain.stop();
    EXPECT_TRUE(device.calls.empty());
}

} // namespace
} // namespace roofline::collect
