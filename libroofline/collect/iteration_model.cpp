#include "collect/iteration_model.hpp"

#include "core/scope_names.hpp"

#include <algorithm>
#include <cctype>

namespace roofline::collect {

void IterationModel::rangeStarted(std::uint64_t id, const std::string& domain,
                                  const std::string& name) {
    startEnd_[id] = Frame{domain, name, {}};
}

std::vector<core::NvtxRange> IterationModel::views(const Stack& stack) const {
    std::vector<core::NvtxRange> v;
    v.reserve(stack.size());
    for (const Frame& f : stack)
        v.push_back({f.domain, f.name});
    return v;
}

std::vector<core::NvtxRange> IterationModel::startEndViews() const {
    std::vector<core::NvtxRange> v;
    for (const auto& [id, f] : startEnd_)
        v.push_back({f.domain, f.name});
    return v;
}

bool libraryDomain(std::string_view domain) noexcept {
    // "TSL": XLA's runtime (JAX, TensorFlow) annotates each executable and each of its
    // operations in it once a tool is attached -- its operations, not the program's step.
    static constexpr std::string_view kLibraries[] = {
        "NCCL",  "RCCL",     "NVSHMEM",  "cuDNN", "CUDNN",  "cuBLAS",   "cuBLASLt", "CUBLAS",
        "cuFFT", "cuSPARSE", "cuSOLVER", "NPP",   "nvJPEG", "TensorRT", "TSL"};
    return std::find(std::begin(kLibraries), std::end(kLibraries), domain) != std::end(kLibraries);
}

std::size_t IterationModel::iterationIndex(const Stack& stack) const {
    if (range_.empty()) { // the outermost range a library did not open
        std::size_t i = 0;
        while (i < stack.size() && libraryDomain(stack[i].domain))
            ++i;
        return i;
    }
    for (std::size_t i = 0; i < stack.size(); ++i)
        if (core::isInstanceOf(stack[i].name, range_))
            return i;
    return stack.size();
}

std::string IterationModel::path(const Stack& stack, std::size_t from, bool raw) const {
    const std::size_t index =
        !raw || range_.empty() ? iterationIndex(stack) : stack.size(); // needed by either below
    const std::size_t iteration = raw ? stack.size() : index;
    // A library's range around the iteration (one left open: NCCL's communicator set-up) is not
    // where its launches are.
    const std::size_t outer = range_.empty() ? index : 0;
    std::string p;
    for (std::size_t i = std::max(from, outer < stack.size() ? outer : 0); i < stack.size(); ++i) {
        if (!p.empty())
            p += '/';
        p += i == iteration ? core::uniformInstance(stack[i].name) : stack[i].name;
    }
    if (p.empty() && from == 0 && !startEnd_.empty())
        p = startEnd_.rbegin()->second.name; // kernels inside start/end ranges only
    return p;
}

std::string IterationModel::uniformPath(const Stack& stack) const {
    const std::string p = path(stack, 0, true); // raw: "case1" is not an instance of "case0"
    std::string out;
    std::size_t at = 0;
    while (at <= p.size()) {
        const std::size_t slash = std::min(p.find('/', at), p.size());
        if (!out.empty() || at > 0)
            out += '/';
        const std::string part = p.substr(at, slash - at);
        // "Layer 7" is an instance of a repeated scope; "conv2" or "eng28" names a different one.
        out += core::separatedInstance(part) ? core::uniformInstance(part) : part;
        at = slash + 1;
    }
    return out;
}

void IterationModel::setScope(core::LaunchInfo& info, const Stack& stack) const {
    info.scopePath = path(stack);
    const std::size_t iteration = iterationIndex(stack);
    if (iteration >= stack.size())
        return;
    const Frame& f = stack[iteration];
    info.iteration = f.instance;
    // The raw path differs only when the iteration scope's name ends in a number.
    if (!f.name.empty() && std::isdigit(static_cast<unsigned char>(f.name.back()))) {
        info.scopePathRaw = path(stack, 0, true);
        info.iterationScope = f.name;
    }
}

// Without a configured iteration range the outermost scope is the iteration scope, and a
// trailing number in its name is only taken for an instance when it stands apart from the word
// before it ("Train step 7", "iter_7", not "eng7") and at least three differently numbered scopes
// share the rest of the name ("Train step 0", "Train step 1", ...). Otherwise (benchmark cases
// "c0.conv0.eng7", "c3.seer17", a one-off "conv 1") the records keep the names as opened.
void IterationModel::settlePaths(RecordStore& records) const {
    if (!range_.empty())
        return;
    for (core::LaunchInfo& l : records.all()) {
        if (l.scopePathRaw.empty())
            continue;
        const auto it = numbered_.find(core::uniformInstance(l.iterationScope));
        if (it != numbered_.end() && it->second.size() >= 3 &&
            core::separatedInstance(l.iterationScope))
            continue;
        if (l.scopeRecord && l.name == core::uniformInstance(l.iterationScope))
            l.name = l.iterationScope;
        l.scopePath = std::move(l.scopePathRaw);
        l.scopePathRaw.clear();
    }
}

bool IterationModel::isIterationFrame(const Stack& stack) {
    if (stack.empty() || iterationIndex(stack) != stack.size() - 1)
        return false;
    if (!range_.empty() || helper_ || stack.back().domain == kFoundStepDomain)
        return true; // a found step never decides the family of the program's own ranges
    const std::string& name = stack.back().name;
    if (!familyDecided_) {
        familyDecided_ = true;
        if (core::separatedInstance(name))
            family_ = core::uniformInstance(name);
    }
    return family_.empty() || core::uniformInstance(name) == family_;
}

bool IterationModel::pushed(Stack& stack) {
    Frame& f = stack.back();
    f.iteration = isIterationFrame(stack);
    if (!f.iteration)
        return false;
    const std::int64_t number = core::instanceNumber(f.name);
    f.instance = number >= 0 ? number : scopes_;
    ++scopes_;
    if (number >= 0) {
        try {
            auto& names = numbered_[core::uniformInstance(f.name)];
            if (names.size() < 3)
                names.insert(f.name);
        } catch (...) {
            // out of memory: this scope's records keep the name as opened
        }
    }
    return true;
}

bool IterationModel::opened(std::uint64_t thread) {
    if (open_++ > 0)
        return false;
    ++seen_;
    thread_ = thread;
    return true;
}

bool IterationModel::closed() {
    return open_ > 0 && --open_ == 0;
}

// A loop's steady iteration is the one most iterations look like: a first step that also
// validates, or a last one that only validates, launch other counts than the training steps
// between them. The first iteration counts only when no other ended.
void IterationModel::countLaunches(std::uint64_t launches) {
    if (ended_ >= 2 && launches != last_)
        varied_ = true;
    last_ = launches;
    ++ended_;
    if (ended_ == 1)
        firstLaunches_ = launches;
    else if (counts_.size() < kMaxLaunchCounts || counts_.count(launches) > 0)
        try {
            auto& [iterations, last] = counts_[launches];
            ++iterations;
            last = ended_;
        } catch (...) {
            // out of memory: this iteration's count is not considered
        }
}

std::uint64_t IterationModel::steadyLaunches() const {
    std::uint64_t best = firstLaunches_, iterations = 0, last = 0;
    for (const auto& [launches, seen] : counts_)
        if (seen.first > iterations || (seen.first == iterations && seen.second > last)) {
            best = launches;
            iterations = seen.first;
            last = seen.second;
        }
    return best;
}

} // namespace roofline::collect
