#pragma once
/// \file session.hpp
/// A profiling session: owns the CUPTI profiler for one device while it lives.

#include <roofline/export.hpp>
#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace roofline {

/// Profiles every kernel launched inside a ProfileScope between construction and stop().
/// One Session may be active per process (CUPTI admits one subscriber). Construction throws
/// roofline::Error with the cause and the fix (no GPU, counters restricted to admins, ...);
/// stop() and the destructor never throw and never abort the application.
///
///     roofline::Session session;                 // Options::fromEnvironment()
///     { roofline::ProfileScope s{"work"}; kernel<<<g, b>>>(...); }
///     for (const auto& r : session.stop()) std::cout << r.name << ' ' << r.totalFlops() << '\n';
///     session.save("run.rfl");                   // evaluate later: roofline report run.rfl
class ROOFLINE_API Session {
public:
    explicit Session(Options options = Options::fromEnvironment());
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    Session(Session&&) = delete;
    Session& operator=(Session&&) = delete;

    /// Ends collection, evaluates the counters and returns one record per profiled launch (in
    /// launch order; launches beyond Options::maxKernels come back with measured == false).
    /// Later calls return the same records. Saves to Options::outputPath when set.
    const std::vector<KernelRecord>& stop();

    /// Writes the recording (config image, counter data, launches, device) for offline
    /// evaluation with `roofline report`. Requires stop(). Written atomically (temp + rename).
    void save(const std::string& path) const;

    bool stopped() const noexcept;
    std::size_t droppedKernels() const noexcept; ///< launches not measured (capacity)
    std::size_t passes() const noexcept;         ///< replay passes the metric set needs
    std::string chip() const;                    ///< e.g. "GH100"
    std::string deviceName() const;              ///< e.g. "NVIDIA H100 80GB HBM3"
    const Ceilings& ceilings() const noexcept;   ///< roofs the records' bounds refer to

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace roofline
