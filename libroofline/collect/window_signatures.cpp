#include "collect/window_signatures.hpp"
#include "collect/notes.hpp"
#include "collect/samples.hpp"

namespace roofline::collect {

WindowSignatures::WindowSignatures(std::size_t samples, const std::vector<std::string>& metricNames)
    : samples_(samples), metricNames_(metricNames), work_(workCounters(metricNames)) {}

std::string WindowSignatures::familyOf(const core::Launch& l) {
    std::string s = l.mangledName;
    for (const std::uint32_t v :
         {l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z, l.dynamicSharedBytes}) {
        s += ',';
        s += std::to_string(v);
    }
    return s;
}

bool WindowSignatures::matches(const Class& c, const std::string& arguments) const noexcept {
    if (arguments.size() != c.arguments.size() || c.kept.size() != arguments.size())
        return false;
    for (std::size_t i = 0; i < arguments.size(); ++i)
        if (c.kept[i] && arguments[i] != c.arguments[i])
            return false;
    return true;
}

// An established class whose kept bytes match; else a class still taking samples; else one
// whose samples are in the open window; else none.
long WindowSignatures::classOf(const Family& f, const std::string& arguments) const noexcept {
    for (const std::size_t id : f.classes)
        if (sampled(classes_[id]) && matches(classes_[id], arguments))
            return static_cast<long>(id);
    for (const std::size_t id : f.classes) {
        const Class& c = classes_[id];
        if (c.samples.size() + c.pending.size() < samples_)
            return static_cast<long>(id);
    }
    for (const std::size_t id : f.classes)
        if (!classes_[id].pending.empty())
            return static_cast<long>(id);
    return -1;
}

WindowSignatures::Take WindowSignatures::take(const Launch& l) const {
    if (samples_ == 0)
        return Take::Measure;
    const auto it = families_.find(l.family);
    if (it == families_.end() || it->second.differs)
        return Take::Measure;
    const long id = classOf(it->second, l.arguments);
    if (id < 0)
        return Take::Measure;
    const Class& c = classes_[static_cast<std::size_t>(id)];
    if (c.samples.size() + c.pending.size() < samples_)
        return Take::Measure;
    return c.pending.empty() ? Take::Share : Take::CloseFirst;
}

void WindowSignatures::measuring(const Launch& l, std::int64_t record) {
    ++measured_;
    if (samples_ == 0)
        return;
    Family& f = families_[l.family];
    if (f.differs)
        return; // measured where it runs, no sample needed
    long id = classOf(f, l.arguments);
    if (id < 0) {
        if (f.classes.size() >= kMaxClasses)
            return;
        id = static_cast<long>(classes_.size());
        classes_.push_back(Class{l.family, l.arguments, {}, {}, {}, {}, {}, {}});
        f.classes.push_back(static_cast<std::size_t>(id));
    }
    Class& c = classes_[static_cast<std::size_t>(id)];
    if (c.samples.size() + c.pending.size() >= samples_)
        return; // measured where it runs, no sample needed
    if (c.pending.empty())
        open_.push_back(static_cast<std::size_t>(id));
    c.pending.push_back(record);
    c.pendingArguments.push_back(l.arguments);
}

void WindowSignatures::sharing(const Launch& l, std::int64_t record) {
    const auto it = families_.find(l.family);
    const long id = it == families_.end() ? -1 : classOf(it->second, l.arguments);
    if (id < 0)
        return; // not a class's: take() said Measure
    ++shared_;
    classes_[static_cast<std::size_t>(id)].sharing.push_back(record);
}

void WindowSignatures::windowClosed(const RecordStore& records) {
    for (const std::size_t id : open_) {
        Class& c = classes_[id];
        for (std::size_t i = 0; i < c.pending.size(); ++i) {
            const std::int64_t r = c.pending[i];
            if (r >= 0 && static_cast<std::size_t>(r) < records.size() &&
                !records[r].values.empty()) {
                c.samples.push_back(r);
                c.sampleArguments.push_back(std::move(c.pendingArguments[i]));
            }
        }
        c.pending.clear();
        c.pendingArguments.clear();
        if (!sampled(c))
            continue;
        for (const std::int64_t r : c.samples)
            if (!sameWork(records[c.samples.front()].values, records[r].values, work_))
                families_[c.family].differs = true;
        // The bytes every sample passed alike are the class's; those that differed (buffers)
        // are let go. Samples of other lengths keep nothing: the class matches nothing more.
        c.arguments = c.sampleArguments.front();
        c.kept.assign(c.arguments.size(), 1);
        for (const std::string& a : c.sampleArguments)
            for (std::size_t i = 0; i < c.kept.size(); ++i)
                if (a.size() != c.arguments.size() || a[i] != c.arguments[i])
                    c.kept[i] = 0;
        for (const std::string& a : c.sampleArguments)
            if (a.size() != c.arguments.size())
                c.kept.clear();
    }
    open_.clear();
}

std::size_t WindowSignatures::fill(RecordStore& records) const {
    std::size_t filled = 0;
    for (const Class& c : classes_) {
        if (c.sharing.empty())
            continue;
        std::vector<const core::LaunchInfo*> samples;
        std::string which;
        for (const std::int64_t r : c.samples) {
            samples.push_back(&records[r]);
            which += (which.empty() ? "launches " : ", ") + std::to_string(records[r].launchIndex);
        }
        for (const std::int64_t r : c.sharing) {
            core::LaunchInfo& info = records[r];
            if (samples.empty()) {
                appendNote(info.note, "not measured: no launch of its signature was measured");
            } else {
                takeSampleMean(samples, which, metricNames_, info);
                ++filled;
            }
        }
    }
    return filled;
}

} // namespace roofline::collect
