#include "replay/window_signatures.hpp"
#include "collect/launch_key.hpp"
#include "collect/notes.hpp"
#include "replay/samples.hpp"

#include <algorithm>

namespace roofline::collect {

WindowSignatures::WindowSignatures(std::size_t samples, const std::vector<std::string>& metricNames)
    : samples_(samples), metricNames_(metricNames), work_(workCounters(metricNames)),
      flops_(flopCounters(metricNames)) {}

std::string WindowSignatures::of(const core::Launch& l) {
    return launchKey(l.mangledName, l.grid, l.block, l.sharedMemBytes());
}

WindowSignatures::Take WindowSignatures::take(const std::string& signature) const {
    if (samples_ == 0)
        return Take::Measure;
    const auto it = bySignature_.find(signature);
    if (it == bySignature_.end())
        return Take::Measure;
    const Signature& s = it->second;
    if (s.differs || s.samples.size() + s.pending.size() < samples_)
        return Take::Measure;
    return s.pending.empty() ? Take::Share : Take::CloseFirst;
}

void WindowSignatures::measuring(const std::string& signature, std::int64_t record) {
    ++measured_;
    if (samples_ == 0)
        return;
    Signature& s = bySignature_[signature];
    if (s.differs || s.samples.size() + s.pending.size() >= samples_)
        return; // measured where it runs, no sample needed
    if (s.pending.empty())
        open_.push_back(signature);
    s.pending.push_back(record);
}

void WindowSignatures::sharing(const std::string& signature, std::int64_t record) {
    ++shared_;
    bySignature_[signature].sharing.push_back(record);
}

std::vector<std::int64_t> WindowSignatures::windowClosed(const RecordStore& records) {
    std::vector<std::int64_t> differing;
    for (const std::string& name : open_) {
        Signature& s = bySignature_[name];
        for (const std::int64_t r : s.pending)
            if (r >= 0 && static_cast<std::size_t>(r) < records.size() &&
                !records[r].values.empty())
                s.samples.push_back(r);
        s.pending.clear();
        const bool before = s.differs;
        for (const std::int64_t r : s.samples) {
            const auto& first = records[s.samples.front()].values;
            if (!sameWork(first, records[r].values, work_) ||
                !sameFlops(first, records[r].values, flops_))
                s.differs = true;
        }
        if (s.differs && !before)
            differing.push_back(s.samples.front());
    }
    open_.clear();
    return differing;
}

std::size_t WindowSignatures::fill(RecordStore& records) const {
    std::size_t filled = 0;
    for (const auto& [name, s] : bySignature_) {
        if (s.sharing.empty())
            continue;
        std::vector<const core::LaunchInfo*> samples;
        std::string which;
        for (const std::int64_t r : s.samples) {
            samples.push_back(&records[r]);
            which += (which.empty() ? "launches " : ", ") + std::to_string(records[r].launchIndex);
        }
        for (const std::int64_t r : s.sharing) {
            core::LaunchInfo& info = records[r];
            if (samples.empty())
                appendNote(info.note, "not measured: no launch of its signature was measured");
            else {
                takeSampleMean(samples, which, metricNames_, info);
                ++filled;
            }
        }
    }
    return filled;
}

} // namespace roofline::collect
