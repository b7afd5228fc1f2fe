#pragma once
// A launch's argument bytes as window replay's classes compare them
// (replay/window_signatures): which buffers a launch reads and writes does not decide its work,
// its sizes do, so the words that hold addresses of memory the driver knows are set to zero.
// Pure: the driver's answer comes through `isAddress`.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

namespace roofline::core {

/// Sets to zero every 8-byte word of each argument -- argument i spans bytes [offsets[i],
/// offsets[i + 1]); its words start at its first byte, as the ABI aligns them -- for which
/// `isAddress` is true.
void zeroAddresses(std::string& bytes, const std::vector<std::size_t>& offsets,
                   const std::function<bool(std::uint64_t)>& isAddress);

/// What is known of values that may be addresses: allocation ranges the driver named, and values
/// it said are none. A cache in front of the driver's pointer query, bounded.
class AddressCache {
public:
    enum class Known { Address, NotAddress, Unknown };
    /// Values that cannot be an address of a 64-bit process's allocation (small integers, two
    /// small 32-bit integers side by side, floating-point bit patterns above 2^57) are never
    /// asked about.
    static bool candidate(std::uint64_t v) noexcept {
        return v >= (std::uint64_t{1} << 32) && v < (std::uint64_t{1} << 57);
    }
    Known lookup(std::uint64_t v) const;
    void addRange(std::uint64_t start, std::uint64_t size);
    void addNotAddress(std::uint64_t v);

    static constexpr std::size_t kMaxRanges = 1 << 16, kMaxNotAddresses = 1 << 16;

private:
    std::map<std::uint64_t, std::uint64_t> ranges_; // start -> end (exclusive)
    std::unordered_set<std::uint64_t> notAddresses_;
};

} // namespace roofline::core
