#pragma once
// ReusedBuffers: fixed-size, 8-byte-aligned buffers whose pages are already mapped, handed out
// and taken back.
//
// CUPTI asks for an activity buffer on the thread that launches a kernel, and zeroes it there. A
// buffer freshly allocated for that (4 MiB) stalled the launch 2-3 ms on the H200, mostly on the
// first touch of its pages; one used before costs the zeroing alone. Thread-safe; keeps at most
// `kept` free buffers (a bound on the memory held while nothing is recorded).
#include <cstddef>
#include <mutex>
#include <vector>

namespace roofline::core {

class ReusedBuffers {
public:
    ReusedBuffers(std::size_t bytes, std::size_t kept);
    ~ReusedBuffers();
    ReusedBuffers(const ReusedBuffers&) = delete;
    ReusedBuffers& operator=(const ReusedBuffers&) = delete;

    /// Allocates (and touches) free buffers until `count` are free, at most `kept`; fewer where
    /// memory runs out. Never throws.
    void prepare(std::size_t count) noexcept;
    /// A buffer of bytes() bytes, or null when no memory is left. Never throws.
    unsigned char* take() noexcept;
    /// A buffer back, kept for the next take() while fewer than `kept` are free, else freed.
    /// Null is ignored.
    void give(unsigned char* buffer) noexcept;

    std::size_t bytes() const noexcept { return bytes_; }
    std::size_t available() const;
    /// The take() calls that found no free buffer (each allocated on its caller's thread).
    std::size_t allocatedOnTake() const;

private:
    unsigned char* allocate() noexcept;

    const std::size_t bytes_;
    const std::size_t kept_;
    mutable std::mutex mutex_;
    std::vector<unsigned char*> free_;
    std::size_t allocatedOnTake_ = 0;
};

} // namespace roofline::core
