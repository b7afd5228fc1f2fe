#include "cupti/evaluate.hpp"

#include "core/log.hpp"
#include "core/device_peaks.hpp"
#include "core/metric_catalog.hpp"
#include "cupti/host.hpp"

#include <roofline/error.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <functional>
#include <memory>
#include <sys/wait.h>
#include <unistd.h>

namespace roofline::cupti {
namespace {

// What a v1 recording's raw counter-data images evaluate to: ranges per image, values per launch.
struct ImageValues {
    std::vector<std::size_t> ranges;         // per chunk
    std::vector<std::vector<double>> values; // per launch (empty: not evaluated)
};

ImageValues evaluateImages(const core::Recording& rec) {
    ImageValues out;
    const Host host(rec.chip);
    for (const auto& chunk : rec.counterData)
        out.ranges.push_back(host.rangeCount(chunk));
    out.values.resize(rec.launches.size());
    for (std::size_t i = 0; i < rec.launches.size(); ++i) {
        const auto& l = rec.launches[i];
        if (!l.values.empty() || l.chunk < 0 ||
            l.range >= out.ranges[static_cast<std::size_t>(l.chunk)])
            continue;
        out.values[i] = host.evaluateValues(rec.counterData[static_cast<std::size_t>(l.chunk)],
                                            l.range, rec.metrics);
    }
    return out;
}

constexpr int kChildError = 3; // the child's exit status: an error message follows in the pipe

bool writeAll(int fd, const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

// CUPTI's host evaluation trusts the image it is given: crafted counter-data images with valid
// checksums crash it (SIGSEGV, found by fuzzing). Images read from files are evaluated in a child
// process, so a damaged one ends in a clear error, never in a crash of the program reading the
// recording. `work` runs in the child; what it returns comes back as it was.
std::vector<double> runIsolated(const std::function<std::vector<double>()>& work,
                                const std::string& what) {
    int fds[2];
    if (::pipe(fds) != 0)
        return work();
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return work();
    }
    if (child == 0) { // evaluate, send, and leave without running the parent's exit handlers
        ::close(fds[0]);
        int status = 0;
        try {
            const std::vector<double> v = work();
            status |= writeAll(fds[1], v.data(), v.size() * sizeof(double)) ? 0 : 1;
        } catch (const std::exception& e) { // the error travels to the parent, which throws it
            const Error* error = dynamic_cast<const Error*>(&e);
            const std::int32_t code =
                static_cast<std::int32_t>(error ? error->code() : ErrorCode::Cupti);
            const std::string message = e.what();
            writeAll(fds[1], &code, sizeof code);
            writeAll(fds[1], message.data(), message.size());
            status = kChildError;
        } catch (...) {
            status = kChildError;
        }
        ::close(fds[1]);
        ::_exit(status);
    }
    ::close(fds[1]);
    std::vector<char> bytes;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        bytes.insert(bytes.end(), buffer, buffer + n);
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status))
        throw Error(ErrorCode::CorruptRecording,
                    "'" + what + "': CUPTI's host API crashed (" + strsignal(WTERMSIG(status)) +
                        ") evaluating its raw counter-data images: they are damaged or were not "
                        "written by libroofline. Re-record it (format v2 stores evaluated values)");
    if (WIFEXITED(status) && WEXITSTATUS(status) == kChildError) {
        // The child's error, rethrown here: the images are never evaluated in this process.
        std::int32_t code = static_cast<std::int32_t>(ErrorCode::Cupti);
        if (bytes.size() >= sizeof code)
            std::memcpy(&code, bytes.data(), sizeof code);
        const std::string message = bytes.size() > sizeof code
                                        ? std::string(bytes.begin() + sizeof code, bytes.end())
                                        : "evaluation failed";
        throw Error(static_cast<ErrorCode>(code), message);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || bytes.size() % sizeof(double) != 0)
        throw Error(ErrorCode::Io, "'" + what +
                                       "': the evaluation of its counter-data images "
                                       "could not be passed back (pipe error)");
    std::vector<double> out(bytes.size() / sizeof(double));
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

// ImageValues as one run of numbers (counts are exact in a double): ranges per chunk, then per
// launch its value count and values.
std::vector<double> flatten(const ImageValues& v) {
    std::vector<double> out;
    for (std::size_t r : v.ranges)
        out.push_back(static_cast<double>(r));
    for (const auto& row : v.values) {
        out.push_back(static_cast<double>(row.size()));
        out.insert(out.end(), row.begin(), row.end());
    }
    return out;
}

ImageValues unflatten(const std::vector<double>& flat, const core::Recording& rec,
                      const std::string& what) {
    ImageValues out;
    std::size_t at = 0;
    const auto count = [&](std::size_t most) {
        if (at >= flat.size() || !(flat[at] >= 0) || flat[at] > static_cast<double>(most))
            throw Error(ErrorCode::CorruptRecording,
                        "'" + what +
                            "': the evaluation of its counter-data images is inconsistent");
        return static_cast<std::size_t>(flat[at++]);
    };
    for (std::size_t c = 0; c < rec.counterData.size(); ++c)
        out.ranges.push_back(count(std::size_t(1) << 40));
    out.values.resize(rec.launches.size());
    for (auto& row : out.values) {
        const std::size_t n = count(rec.metrics.size());
        if (at + n > flat.size())
            throw Error(ErrorCode::CorruptRecording,
                        "'" + what + "': the evaluation of its counter-data images was cut short");
        row.assign(flat.begin() + static_cast<std::ptrdiff_t>(at),
                   flat.begin() + static_cast<std::ptrdiff_t>(at + n));
        at += n;
    }
    return out;
}

ImageValues evaluateImagesIsolated(const core::Recording& rec, const std::string& what) {
    return unflatten(runIsolated([&rec] { return flatten(evaluateImages(rec)); }, what), rec,
                     what);
}

} // namespace

std::vector<KernelRecord> evaluateRecording(const core::Recording& rec, const Ceilings& ceilings) {
    std::vector<KernelRecord> records;
    records.reserve(rec.launches.size());
    if (rec.metrics.empty()) { // timing-only recording
        for (const auto& launch : rec.launches)
            records.push_back(core::unmeasuredRecord(launch, ""));
        core::addOccupancy(records, rec.device);
        core::assignKernelIds(records);
        return records;
    }
    const core::ChipProfile profile =
        core::withBytes(core::profileForChip(rec.chip),
                        rec.bytes == "ncu" ? ByteDefinition::Ncu : ByteDefinition::Nersc);

    // v1 recordings hold raw images only: evaluate them with the CUPTI host API. Auto ranges are
    // matched to launches by order; if CUPTI saw kernels our launch callbacks did not (or the
    // reverse), that order is unreliable: say so on every record of the chunk.
    const bool v1 = rec.version < 2;
    ImageValues images;
    std::vector<std::size_t> rangesPerChunk;
    std::vector<std::string> chunkNote(rec.counterData.size());
    if (v1) {
        images = evaluateImagesIsolated(rec, "the recording");
        rangesPerChunk = images.ranges;
        std::vector<std::size_t> launchesPerChunk(rec.counterData.size(), 0);
        for (const auto& l : rec.launches)
            if (l.chunk >= 0)
                ++launchesPerChunk[static_cast<std::size_t>(l.chunk)];
        for (std::size_t c = 0; c < rec.counterData.size(); ++c) {
            if (rangesPerChunk[c] == launchesPerChunk[c])
                continue;
            chunkNote[c] = "CUPTI recorded " + std::to_string(rangesPerChunk[c]) +
                           " kernel ranges for " + std::to_string(launchesPerChunk[c]) +
                           " launches seen: names and scopes may be misattributed";
            core::log().warn("{}", chunkNote[c]);
        }
    }

    for (std::size_t i = 0; i < rec.launches.size(); ++i) {
        const core::LaunchInfo& stored = rec.launches[i];
        if (!v1 || !stored.values.empty()) {
            records.push_back(core::recordFromLaunch(profile, stored, rec.metrics, ceilings));
            continue;
        }
        if (stored.chunk < 0) {
            // A launch without values says why in its note (replay mismatch, dropped range);
            // one without a note had no room in the counter-data image of the format-1
            // recording (current versions decode and reuse images: no launch is left out).
            records.push_back(core::unmeasuredRecord(
                stored, stored.note.empty()
                            ? "no room in the counter-data image when this format-1 recording was "
                              "made; a recording made with this libroofline measures every launch"
                            : ""));
            continue;
        }
        const auto chunk = static_cast<std::size_t>(stored.chunk);
        if (stored.range >= rangesPerChunk[chunk]) {
            records.push_back(core::unmeasuredRecord(
                stored, "CUPTI recorded no range for this launch (dropped while decoding)"));
            continue;
        }
        core::LaunchInfo launch = stored;
        launch.values = images.values[i];
        records.push_back(core::recordFromLaunch(profile, launch, rec.metrics, ceilings));
        if (!chunkNote[chunk].empty())
            records.back().note += (records.back().note.empty() ? "" : "; ") + chunkNote[chunk];
    }
    core::addOccupancy(records, rec.device);
    core::assignKernelIds(records);
    return records;
}

} // namespace roofline::cupti

namespace roofline::cupti {

Ceilings devicePeakCeilings(const core::Recording& rec, bool isolated) {
    if ((rec.counterData.empty() && rec.devicePeaks.empty()) || rec.chip.empty())
        return {};
    try {
        const core::ChipProfile& profile = core::profileForChip(rec.chip);
        const std::vector<core::PeakRoof> roofs = core::peakRoofs(profile);
        const std::vector<std::string> metrics = core::peakMetrics(roofs);
        std::vector<double> values;
        if (!rec.devicePeaks.empty()) { // evaluated when it was recorded
            for (const auto& m : metrics) {
                const auto at = std::find_if(rec.devicePeaks.begin(), rec.devicePeaks.end(),
                                             [&m](const auto& p) { return p.first == m; });
                values.push_back(at == rec.devicePeaks.end() ? 0.0 : at->second);
            }
        } else {
            const auto evaluate = [&rec, &metrics] {
                return Host(rec.chip).evaluateValues(rec.counterData.front(), 0, metrics);
            };
            values = isolated ? runIsolated(evaluate, "the recording") : evaluate();
        }
        core::PeakClocks clocks;
        clocks.smHz = rec.device.smClockHz;
        clocks.memoryHz = rec.device.memoryClockHz;
        clocks.l2Hz = core::medianMetric(rec.launches, rec.metrics, profile.l2CycleRateMetric);
        return core::deviceCeilings(roofs, values, clocks, rec.device);
    } catch (const std::exception& e) {
        core::log().warn("the device's peak rates could not be evaluated ({}): roofs the measured "
                         "ceilings lack come from the datasheet",
                         e.what());
    }
    return {};
}

} // namespace roofline::cupti
