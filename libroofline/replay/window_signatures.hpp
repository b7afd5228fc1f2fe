#pragma once
// Window replay's signatures (docs/design/0026-launches-no-step-covers.md): a launch whose
// signature -- kernel, grid, block, shared memory (its launchKey) and its argument bytes with the
// addresses of buffers set to zero (core/launch_arguments.hpp) -- has its samples, and whose
// samples did the same work, is not measured again; it runs outside every window and takes their
// mean. Samples whose work counters differ -- by more than one part in a thousand, or at all in
// their FLOP counts (the data decides the work: each launch's own count is what ncu gives) -- make
// every later launch of the signature measured on its own. Pure logic: no CUDA.
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
    /// `samples` per signature (0: every launch measured); `metricNames`: the values' metrics.
    WindowSignatures(std::size_t samples, const std::vector<std::string>& metricNames);

    /// What a launch of signature `signature` gets.
    enum class Take {
        Measure,   ///< in a window: a sample, or its signature's samples differed
        Share,     ///< no window: its signature's samples' mean, at the end
        CloseFirst ///< its signature's samples are in the open window: close it, then ask again
    };

    /// The signature of `l` without its arguments: its launchKey (kernel, grid, block, shared
    /// memory: collect/launch_key.hpp).
    static std::string of(const core::Launch& l);
    Take take(const std::string& signature) const;
    /// Record `record` of `signature` went into the open window.
    void measuring(const std::string& signature, std::int64_t record);
    /// Record `record` of `signature` runs outside every window, to take its samples' mean.
    void sharing(const std::string& signature, std::int64_t record);
    /// The open window's records have their values: its samples are compared (one without values
    /// is no sample; the signature is measured again). Returns the records of the signatures
    /// whose samples did different work for the first time (one record each).
    std::vector<std::int64_t> windowClosed(const RecordStore& records);
    /// Every sharing record gets its samples' mean and a note; returns how many got one.
    std::size_t fill(RecordStore& records) const;

    /// Launches share their signature's samples (samples per signature above 0).
    bool on() const noexcept { return samples_ > 0; }
    std::size_t signatures() const noexcept { return bySignature_.size(); }
    std::size_t measured() const noexcept { return measured_; }
    std::size_t shared() const noexcept { return shared_; }

private:
    struct Signature {
        std::vector<std::int64_t> samples; ///< evaluated, with values
        std::vector<std::int64_t> pending; ///< in the open window
        std::vector<std::int64_t> sharing; ///< records that take the samples' mean
        bool differs = false;              ///< samples did different work: all measured
    };
    std::size_t samples_;
    std::vector<std::string> metricNames_;
    std::vector<std::size_t> work_, flops_;
    std::unordered_map<std::string, Signature> bySignature_;
    std::vector<std::string> open_; ///< signatures with records in the open window
    std::size_t measured_ = 0, shared_ = 0;
};

} // namespace roofline::collect
