#pragma once
// Window replay's signatures (docs/design/0026-launches-no-step-covers.md). Launches of one
// family -- kernel, grid, block, dynamic shared memory -- fall into classes by their argument
// bytes: a class's first two launches are its samples, and where those did the same work, the
// argument bytes that differed between them (buffers: pointers) are let go, the ones that were
// equal (sizes, flags) kept. A later launch whose kept bytes match a class is not measured again:
// it runs outside every window and takes the samples' mean. Samples whose work counters differ
// make every later launch of the family measured on its own. Pure logic: no CUDA.
#include "collect/records.hpp"
#include "core/launch.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace roofline::collect {

class WindowSignatures {
public:
    /// `samples` per class (0: every launch measured); `metricNames`: the values' metrics.
    WindowSignatures(std::size_t samples, const std::vector<std::string>& metricNames);

    /// What a launch gets.
    enum class Take {
        Measure,   ///< in a window: a sample, or its family's samples differed
        Share,     ///< no window: its class's samples' mean, at the end
        CloseFirst ///< its class's samples are in the open window: close it, then ask again
    };
    /// A launch as the signatures see it: its family and its argument bytes.
    struct Launch {
        std::string family, arguments;
    };

    /// The family of `l`: kernel, grid, block, dynamic shared memory.
    static std::string familyOf(const core::Launch& l);
    Take take(const Launch& l) const;
    /// Record `record` of `l` went into the open window.
    void measuring(const Launch& l, std::int64_t record);
    /// Record `record` of `l` (whose take() was Share) runs outside every window.
    void sharing(const Launch& l, std::int64_t record);
    /// The open window's records have their values: its samples are compared (one without values
    /// is no sample; its class is sampled again).
    void windowClosed(const RecordStore& records);
    /// Every sharing record gets its class's samples' mean and a note; returns how many got one.
    std::size_t fill(RecordStore& records) const;

    std::size_t classes() const noexcept { return classes_.size(); }
    std::size_t measured() const noexcept { return measured_; }
    std::size_t shared() const noexcept { return shared_; }

    /// Classes a family may hold; launches of a family past it are measured.
    static constexpr std::size_t kMaxClasses = 256;

private:
    struct Class {
        std::string family;
        std::string arguments;             ///< the first sample's
        std::string kept;                  ///< per byte: 1 where the samples' bytes were equal
        std::vector<std::int64_t> samples; ///< evaluated, with values
        std::vector<std::string> sampleArguments;
        std::vector<std::int64_t> pending; ///< in the open window
        std::vector<std::string> pendingArguments;
        std::vector<std::int64_t> sharing; ///< records that take the samples' mean
    };
    struct Family {
        std::vector<std::size_t> classes;
        bool differs = false; ///< a class's samples did different work: all measured
    };
    bool sampled(const Class& c) const noexcept { return c.samples.size() >= samples_; }
    bool matches(const Class& c, const std::string& arguments) const noexcept;
    /// The class `l` belongs to, or -1 (a new one).
    long classOf(const Family& f, const std::string& arguments) const noexcept;

    std::size_t samples_;
    std::vector<std::string> metricNames_;
    std::vector<std::size_t> work_;
    std::unordered_map<std::string, Family> families_;
    std::vector<Class> classes_;
    std::vector<std::size_t> open_; ///< classes with records in the open window
    std::size_t measured_ = 0, shared_ = 0;
};

} // namespace roofline::collect
