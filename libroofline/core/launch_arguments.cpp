#include "core/launch_arguments.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace roofline::core {

void zeroAddresses(std::string& bytes, const std::vector<std::size_t>& offsets,
                   const std::function<bool(std::uint64_t)>& isAddress) {
    for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
        const std::size_t end = std::min(offsets[i + 1], bytes.size());
        for (std::size_t at = offsets[i]; at + 8 <= end; at += 8) {
            std::uint64_t v = 0;
            std::memcpy(&v, bytes.data() + at, 8);
            if (AddressCache::candidate(v) && isAddress(v))
                std::memset(&bytes[at], 0, 8);
        }
    }
}

AddressCache::Known AddressCache::lookup(std::uint64_t v) const {
    auto it = ranges_.upper_bound(v);
    if (it != ranges_.begin() && v < std::prev(it)->second)
        return Known::Address;
    return notAddresses_.count(v) > 0 ? Known::NotAddress : Known::Unknown;
}

void AddressCache::addRange(std::uint64_t start, std::uint64_t size) {
    if (ranges_.size() >= kMaxRanges)
        ranges_.clear();
    std::uint64_t& end = ranges_[start];
    end = std::max(end, start + size);
}

void AddressCache::addNotAddress(std::uint64_t v) {
    if (notAddresses_.size() >= kMaxNotAddresses)
        notAddresses_.clear();
    notAddresses_.insert(v);
}

} // namespace roofline::core
