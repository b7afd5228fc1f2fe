#include "core/reused_buffers.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace roofline::core {

namespace {
constexpr std::size_t kAlignment = 8;
} // namespace

ReusedBuffers::ReusedBuffers(std::size_t bytes, std::size_t kept)
    : bytes_((std::max(bytes, kAlignment) + kAlignment - 1) / kAlignment * kAlignment),
      kept_(kept) {
    free_.reserve(kept_);
}

ReusedBuffers::~ReusedBuffers() {
    for (unsigned char* b : free_)
        std::free(b);
}

unsigned char* ReusedBuffers::allocate() noexcept {
    auto* b = static_cast<unsigned char*>(std::aligned_alloc(kAlignment, bytes_));
    if (b)
        std::memset(b, 0, bytes_); // every page mapped now, not at its first record
    return b;
}

void ReusedBuffers::prepare(std::size_t count) noexcept {
    count = std::min(count, kept_);
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (free_.size() >= count)
                return;
        }
        unsigned char* b = allocate(); // outside the lock: touching the pages takes milliseconds
        if (!b)
            return;
        give(b);
    }
}

unsigned char* ReusedBuffers::take() noexcept {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!free_.empty()) {
            unsigned char* b = free_.back();
            free_.pop_back();
            return b;
        }
        ++allocatedOnTake_;
    }
    return allocate();
}

void ReusedBuffers::give(unsigned char* buffer) noexcept {
    if (!buffer)
        return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (free_.size() < kept_) { // capacity reserved for kept_: no allocation here
            free_.push_back(buffer);
            return;
        }
    }
    std::free(buffer);
}

std::size_t ReusedBuffers::available() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return free_.size();
}

std::size_t ReusedBuffers::allocatedOnTake() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return allocatedOnTake_;
}

} // namespace roofline::core
