// Stream captures followed from the driver calls that begin and end them (cupti/open_captures):
// a launch asks whether its stream captures only while a capture may be open.
#include "cupti/open_captures.hpp"

#include <cuda.h>
#include <cupti.h>
#include <gtest/gtest.h>

#include <algorithm>

using namespace roofline::cupti;

TEST(OpenCaptures, TheCallsThatBeginAndEndCapturesAreKnownByTheirIds) {
    for (const unsigned cbid : {CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
                                CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
                                CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
                                CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
                                CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
                                CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz})
        EXPECT_EQ(OpenCaptures::kindOf(cbid), OpenCaptures::Call::Begins) << cbid;
    for (const unsigned cbid : {CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
                                CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz})
        EXPECT_EQ(OpenCaptures::kindOf(cbid), OpenCaptures::Call::Ends) << cbid;
    EXPECT_EQ(OpenCaptures::kindOf(CUPTI_DRIVER_TRACE_CBID_cuStreamCreateForCaptureToCig),
              OpenCaptures::Call::Untracked);
    for (const unsigned cbid :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v3,
          CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch})
        EXPECT_EQ(OpenCaptures::kindOf(cbid), OpenCaptures::Call::Other) << cbid;

    const std::vector<unsigned>& ids = OpenCaptures::callbacks();
    EXPECT_EQ(ids.size(), 9u);
    for (const unsigned cbid : ids)
        EXPECT_NE(OpenCaptures::kindOf(cbid), OpenCaptures::Call::Other) << cbid;
    const auto perThread = reinterpret_cast<std::uintptr_t>(CU_STREAM_PER_THREAD);
    EXPECT_EQ(OpenCaptures::streamOf(0, CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz),
              perThread);
    EXPECT_EQ(OpenCaptures::streamOf(0, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz),
              perThread);
    EXPECT_EQ(OpenCaptures::streamOf(0, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2), 0u);
}

TEST(OpenCaptures, EveryLaunchAsksUntilTheCountIsComplete) {
    OpenCaptures c;
    EXPECT_TRUE(c.mayCapture()) << "a subscription made after CUDA started may miss a begin";
    c.returned(0x1000, false);
    EXPECT_TRUE(c.mayCapture());
    c.complete();
    EXPECT_FALSE(c.mayCapture());
    EXPECT_EQ(c.open(), 0);
}

TEST(OpenCaptures, ACaptureIsOpenFromItsBeginsEntryUntilItsStreamStopsCapturing) {
    OpenCaptures c;
    c.complete();
    c.beginning(0x1000); // before the driver turns the stream to capture
    EXPECT_TRUE(c.mayCapture());
    c.returned(0x1000, true); // the begin returned: capturing
    EXPECT_TRUE(c.mayCapture());
    EXPECT_EQ(c.open(), 1);
    c.returned(0x1000, true); // an end that failed (joined streams not rejoined): still open
    EXPECT_TRUE(c.mayCapture());
    c.returned(0x1000, false); // the end: the stream captures no more
    EXPECT_FALSE(c.mayCapture());
    EXPECT_EQ(c.open(), 0);
}

TEST(OpenCaptures, AFailedBeginClosesAndOtherStreamsStayOpen) {
    OpenCaptures c;
    c.complete();
    c.beginning(0x1000);
    c.beginning(0x2000);
    c.returned(0x2000, false); // a begin on the legacy stream, or with a bad mode: refused
    EXPECT_EQ(c.open(), 1);
    c.beginning(0x1000); // a second begin on a capturing stream fails and leaves it capturing
    c.returned(0x1000, true);
    EXPECT_TRUE(c.mayCapture());
    c.beginning(0x3000);
    c.returned(0x3000, true);
    c.returned(0x1000, false); // its capture ends: every entry for the stream goes
    EXPECT_EQ(c.open(), 1);
    EXPECT_TRUE(c.mayCapture());
    c.returned(0x3000, false);
    EXPECT_FALSE(c.mayCapture());
}

TEST(OpenCaptures, ACallNotFollowedMakesEveryLaunchAskForGood) {
    OpenCaptures c;
    c.complete();
    c.lost(); // a stream made for capture another way, or CUPTI detached
    EXPECT_TRUE(c.mayCapture());
    c.beginning(0x1000);
    c.returned(0x1000, false);
    EXPECT_TRUE(c.mayCapture());
}

TEST(OpenCaptures, ThePerThreadStreamIsAnotherStreamOnEachThread) {
    const auto perThread = reinterpret_cast<std::uintptr_t>(CU_STREAM_PER_THREAD);
    const unsigned ptsz = CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz;
    const unsigned plain = CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2;
    const std::uintptr_t a = OpenCaptures::keyOf(OpenCaptures::streamOf(perThread, plain), 0x7f00);
    const std::uintptr_t b = OpenCaptures::keyOf(OpenCaptures::streamOf(perThread, plain), 0x7f40);
    EXPECT_NE(a, b);
    EXPECT_EQ(OpenCaptures::keyOf(OpenCaptures::streamOf(0, ptsz), 0x7f00), a)
        << "0 in a _ptsz call";
    EXPECT_EQ(OpenCaptures::keyOf(OpenCaptures::streamOf(0, plain), 0x7f00), 0u)
        << "the legacy stream";
    EXPECT_EQ(OpenCaptures::keyOf(OpenCaptures::streamOf(0x55550000, ptsz), 0x7f00), 0x55550000u);
    EXPECT_EQ(OpenCaptures::keyOf(OpenCaptures::streamOf(0x55550000, plain), 0x7f40), 0x55550000u);

    OpenCaptures c; // one thread's capture on its per-thread stream leaves another's open
    c.complete();
    c.beginning(a);
    c.beginning(b);
    c.returned(a, false);
    EXPECT_TRUE(c.mayCapture());
    c.returned(b, false);
    EXPECT_FALSE(c.mayCapture());
}
