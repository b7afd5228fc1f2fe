// A launch's argument bytes as window replay's signatures compare them (core/launch_arguments):
// the words holding buffer addresses set to zero, sizes kept; and the cache in front of the
// driver's pointer query.
#include "core/launch_arguments.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

using namespace roofline::core;

namespace {

void put(std::string& bytes, std::uint64_t v) {
    char w[8];
    std::memcpy(w, &v, 8);
    bytes.append(w, 8);
}

std::uint64_t word(const std::string& bytes, std::size_t at) {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes.data() + at, 8);
    return v;
}

} // namespace

// An elementwise kernel's arguments: an int count, then a struct of three buffer addresses and
// a size pair. Only the addresses the driver knows go to zero; the count, the sizes (two 32-bit
// integers side by side, never asked about) and a large value that is no address stay.
TEST(LaunchArguments, AddressesGoToZeroSizesStay) {
    const std::uint64_t a = 0x7f3a00000000, b = 0x7f3a00100200, c = 0x7f3a00200004;
    const std::uint64_t notAddress = 0x7f3b00000000;
    std::string bytes;
    bytes.append("\x40\x00\x00\x00", 4); // int numel = 64
    const std::size_t structAt = bytes.size();
    put(bytes, a);
    put(bytes, b);
    put(bytes, c);
    put(bytes, (std::uint64_t{3} << 32) | 64); // {int 64, int 3}
    put(bytes, notAddress);
    std::set<std::uint64_t> asked;
    const std::set<std::uint64_t> known = {a, b, c};
    zeroAddresses(bytes, {0, structAt, bytes.size()}, [&](std::uint64_t v) {
        asked.insert(v);
        return known.count(v) > 0;
    });
    EXPECT_EQ(bytes.substr(0, 4), std::string("\x40\x00\x00\x00", 4));
    EXPECT_EQ(word(bytes, structAt), 0u);
    EXPECT_EQ(word(bytes, structAt + 8), 0u);
    EXPECT_EQ(word(bytes, structAt + 16), 0u);
    EXPECT_EQ(word(bytes, structAt + 24), (std::uint64_t{3} << 32) | 64);
    EXPECT_EQ(word(bytes, structAt + 32), notAddress);
    EXPECT_EQ(asked, (std::set<std::uint64_t>{a, b, c, (std::uint64_t{3} << 32) | 64, notAddress}))
        << "the int count is no word of its own";
}

// Two launches of one kernel on other buffers with the same sizes compare equal; with another
// size they do not.
TEST(LaunchArguments, OtherBuffersSameSizesCompareEqual) {
    auto args = [](std::uint64_t buffer, std::uint64_t size) {
        std::string bytes;
        put(bytes, buffer);
        put(bytes, size);
        zeroAddresses(bytes, {0, 8, 16}, [](std::uint64_t v) { return v >= 0x7f0000000000; });
        return bytes;
    };
    EXPECT_EQ(args(0x7f0000001000, 4096), args(0x7f0000900000, 4096));
    EXPECT_NE(args(0x7f0000001000, 4096), args(0x7f0000001000, 8192));
}

// The cache answers inside a range the driver named, remembers values that are none, and
// forgets when full rather than grow.
TEST(LaunchArguments, TheAddressCacheKnowsRangesAndNonAddresses) {
    AddressCache cache;
    EXPECT_EQ(cache.lookup(0x7f0000001000), AddressCache::Known::Unknown);
    cache.addRange(0x7f0000000000, 0x200000);
    EXPECT_EQ(cache.lookup(0x7f0000000000), AddressCache::Known::Address);
    EXPECT_EQ(cache.lookup(0x7f00001fffff), AddressCache::Known::Address);
    EXPECT_EQ(cache.lookup(0x7f0000200000), AddressCache::Known::Unknown) << "one past the end";
    EXPECT_EQ(cache.lookup(0x7effffffffff), AddressCache::Known::Unknown);
    cache.addNotAddress(0x500000000);
    EXPECT_EQ(cache.lookup(0x500000000), AddressCache::Known::NotAddress);
    for (std::uint64_t i = 0; i < AddressCache::kMaxNotAddresses; ++i)
        cache.addNotAddress(0x600000000 + i);
    EXPECT_EQ(cache.lookup(0x500000000), AddressCache::Known::Unknown) << "forgotten when full";
    EXPECT_FALSE(AddressCache::candidate(64));
    EXPECT_FALSE(AddressCache::candidate(0x3ff0000000000000)) << "1.0 as a double";
    EXPECT_TRUE(AddressCache::candidate(0x7f0000000000));
}
