#include "core/reused_buffers.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

using roofline::core::ReusedBuffers;

TEST(ReusedBuffers, ABufferGivenBackIsTheNextTaken) {
    ReusedBuffers buffers(1000, 2);
    EXPECT_EQ(buffers.bytes(), 1000u);
    unsigned char* a = buffers.take();
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 8, 0u);
    EXPECT_EQ(buffers.allocatedOnTake(), 1u);
    a[999] = 7; // the whole size is usable
    buffers.give(a);
    EXPECT_EQ(buffers.available(), 1u);
    EXPECT_EQ(buffers.take(), a);
    EXPECT_EQ(buffers.allocatedOnTake(), 1u);
    buffers.give(a);
}

TEST(ReusedBuffers, SizesAreRoundedUpToTheAlignment) {
    EXPECT_EQ(ReusedBuffers(1001, 1).bytes(), 1008u);
    EXPECT_EQ(ReusedBuffers(0, 1).bytes(), 8u);
}

TEST(ReusedBuffers, PreparedBuffersSpareTheTakersAnAllocation) {
    ReusedBuffers buffers(4096, 3);
    buffers.prepare(5); // no more than are kept
    EXPECT_EQ(buffers.available(), 3u);
    std::vector<unsigned char*> taken;
    for (int i = 0; i < 3; ++i)
        taken.push_back(buffers.take());
    EXPECT_EQ(buffers.allocatedOnTake(), 0u);
    EXPECT_EQ(buffers.available(), 0u);
    taken.push_back(buffers.take());
    EXPECT_EQ(buffers.allocatedOnTake(), 1u);
    for (unsigned char* b : taken)
        buffers.give(b); // the fourth is freed: three are kept
    EXPECT_EQ(buffers.available(), 3u);
    buffers.give(nullptr);
    EXPECT_EQ(buffers.available(), 3u);
}

TEST(ReusedBuffers, ThreadsTakingAndGivingKeepTheBound) {
    ReusedBuffers buffers(256, 4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&buffers] {
            for (int i = 0; i < 2000; ++i) {
                unsigned char* a = buffers.take();
                unsigned char* b = buffers.take();
                ASSERT_NE(a, nullptr);
                ASSERT_NE(b, a);
                a[0] = b[255] = 1;
                buffers.give(a);
                buffers.give(b);
            }
        });
    for (std::thread& t : threads)
        t.join();
    EXPECT_LE(buffers.available(), 4u);
    EXPECT_GT(buffers.available(), 0u);
}
