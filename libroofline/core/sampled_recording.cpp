#include "core/sampled_recording.hpp"

#include "core/device_json.hpp"
#include "core/json_number.hpp"
#include "core/recording_file.hpp"

#include <roofline/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace roofline::core {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxCounters = 256;

std::uint32_t minStreamSections(std::uint32_t) {
    return 0;
}

const ContainerRules kRules{kSampledFormatVersion, minStreamSections};

void writeSection(std::ostream& out, const char (&tag)[5], const json& j) {
    const std::string text = j.dump();
    SectionWriter(out).add(tag, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

json toJson(const SampledHeader& h) {
    return {{"format", "libroofline-sampled"},
            {"library_version", h.libraryVersion},
            {"device", deviceToJson(h.device)},
            {"counters", h.counters},
            {"period_ns", h.periodNs},
            {"ring_steps", h.ringSteps},
            {"pid", h.pid},
            {"rank", h.rank},
            {"world_size", h.worldSize},
            {"started_unix_ns", h.startedUnixNs}};
}

json toJson(const SampledStep& s) {
    return {{"index", s.index},
            {"steps", s.steps},
            {"start_ns", s.startNs},
            {"end_ns", s.endNs},
            {"kernels", s.kernels},
            {"kernel_ns", s.kernelNs},
            {"values", s.values},
            {"between", s.between},
            {"covered_ns", s.coveredNs},
            {"estimated_kernels", s.estimatedKernels},
            {"kernel_records", s.kernelRecords}};
}

json toJson(const SampledLaunch& l) {
    return {{"step", l.step},
            {"name", capped(l.name)},
            {"scope", capped(l.scope)},
            {"start_ns", l.startNs},
            {"end_ns", l.endNs},
            {"values", l.values},
            {"covered_ns", l.coveredNs},
            {"estimated", l.estimated}};
}

json toJson(const SampledSignature& s) {
    return {{"name", capped(s.name)},   {"scope", capped(s.scope)},
            {"launches", s.launches},   {"ns", s.ns},
            {"values", s.values},       {"estimated", s.estimated},
            {"covered_ns", s.coveredNs}};
}

// A values vector of exactly `counters` numbers.
std::vector<double> valuesAt(const json& j, const char* key, std::size_t counters) {
    const json& v = j.at(key);
    if (!v.is_array() || v.size() != counters)
        throw std::out_of_range(std::string("'") + key + "' is not " + std::to_string(counters) +
                                " numbers (one per counter)");
    std::vector<double> out;
    out.reserve(counters);
    for (const json& x : v) {
        if (!x.is_number())
            throw std::out_of_range(std::string("'") + key + "' holds " + shortJson(x));
        out.push_back(x.get<double>());
    }
    return out;
}

SampledHeader headerOf(const json& j) {
    SampledHeader h;
    h.libraryVersion = textAt(j, "library_version", true);
    h.device = deviceFromJson(j.at("device"));
    const json& counters = j.at("counters");
    if (!counters.is_array() || counters.size() > kMaxCounters)
        throw std::out_of_range("'counters' is not a list of at most " +
                                std::to_string(kMaxCounters) + " names");
    for (const json& c : counters) {
        if (!c.is_string() || c.get_ref<const std::string&>().size() > kMaxTextBytes)
            throw std::out_of_range("'counters' holds " + shortJson(c));
        h.counters.push_back(c.get<std::string>());
    }
    h.periodNs = integerAt<std::uint64_t>(j, "period_ns");
    h.ringSteps = integerAt<std::uint64_t>(j, "ring_steps");
    h.pid = integerAt<std::int64_t>(j, "pid");
    h.rank = integerAt<int>(j, "rank");
    h.worldSize = integerAt<int>(j, "world_size");
    h.startedUnixNs = integerAt<std::uint64_t>(j, "started_unix_ns");
    return h;
}

// `covered_ns`, at most `ns`, the time it is part of: recordings written before samples were made
// to tile time counted a kernel's time twice where two samples' timestamps overlapped.
std::uint64_t coveredAt(const json& j, std::uint64_t ns) {
    return std::min(integerAt<std::uint64_t>(j, "covered_ns"), ns);
}

SampledStep stepOf(const json& j, std::size_t counters) {
    SampledStep s;
    s.index = integerAt<std::uint64_t>(j, "index");
    // Absent from recordings of libraries before rows held several steps: one.
    if (j.contains("steps")) {
        s.steps = integerAt<std::uint64_t>(j, "steps");
        if (s.steps == 0)
            throw std::out_of_range("'steps' is 0: a row holds at least one step");
    }
    s.startNs = integerAt<std::uint64_t>(j, "start_ns");
    s.endNs = integerAt<std::uint64_t>(j, "end_ns");
    s.kernels = integerAt<std::uint64_t>(j, "kernels");
    s.kernelNs = integerAt<std::uint64_t>(j, "kernel_ns");
    s.values = valuesAt(j, "values", counters);
    s.between = valuesAt(j, "between", counters);
    // Absent from recordings of libraries before records were kept for a share of the steps.
    if (j.contains("kernel_records")) {
        const json& r = j.at("kernel_records");
        if (!r.is_boolean())
            throw std::out_of_range("'kernel_records' is not true or false");
        s.kernelRecords = r.get<bool>();
    }
    s.coveredNs = coveredAt(j, s.coverableNs());
    s.estimatedKernels = integerAt<std::uint64_t>(j, "estimated_kernels");
    return s;
}

SampledLaunch launchOf(const json& j, std::size_t counters) {
    SampledLaunch l;
    l.step = integerAt<std::uint64_t>(j, "step");
    l.name = textAt(j, "name", true);
    l.scope = textAt(j, "scope", true);
    l.startNs = integerAt<std::uint64_t>(j, "start_ns");
    l.endNs = integerAt<std::uint64_t>(j, "end_ns");
    l.values = valuesAt(j, "values", counters);
    l.coveredNs = coveredAt(j, l.endNs > l.startNs ? l.endNs - l.startNs : 0);
    const json& e = j.at("estimated");
    if (!e.is_boolean())
        throw std::out_of_range("'estimated' is not true or false");
    l.estimated = e.get<bool>();
    return l;
}

SampledSignature signatureOf(const json& j, std::size_t counters) {
    SampledSignature s;
    s.name = textAt(j, "name", true);
    s.scope = textAt(j, "scope", true);
    s.launches = integerAt<std::uint64_t>(j, "launches");
    s.ns = integerAt<std::uint64_t>(j, "ns");
    s.values = valuesAt(j, "values", counters);
    s.estimated = integerAt<std::uint64_t>(j, "estimated");
    // Absent from recordings of libraries before it was kept: not known (0).
    if (j.contains("covered_ns"))
        s.coveredNs = coveredAt(j, s.ns);
    return s;
}

SampledBatch batchOf(const json& j, std::size_t counters) {
    SampledBatch b;
    b.writtenUnixNs = integerAt<std::uint64_t>(j, "written_unix_ns");
    const json& steps = j.at("steps");
    const json& signatures = j.at("signatures");
    const json& launches = j.at("launches");
    if (!steps.is_array() || !signatures.is_array() || !launches.is_array())
        throw std::out_of_range("'steps', 'signatures' and 'launches' are not lists");
    for (const json& s : steps)
        b.steps.push_back(stepOf(s, counters));
    for (const json& s : signatures)
        b.signatures.push_back(signatureOf(s, counters));
    for (const json& l : launches)
        b.launches.push_back(launchOf(l, counters));
    return b;
}

json parsed(const FileSection& s, const std::string& what) {
    try {
        return parseBounded(
            std::string_view(reinterpret_cast<const char*>(s.data.data()), s.data.size()));
    } catch (const std::exception& e) {
        corruptRecording(what, "its '" + s.tag + "' section is not JSON (" + e.what() + ")");
    }
}

} // namespace

struct SampledRecordingWriter::Impl {
    std::string path;
    std::ofstream out;
};

SampledRecordingWriter::SampledRecordingWriter(const std::string& path, const SampledHeader& header)
    : impl_(std::make_unique<Impl>()) {
    impl_->path = path;
    impl_->out.open(path, std::ios::binary | std::ios::trunc);
    if (!impl_->out)
        throw Error(ErrorCode::Io, "cannot write the sampled recording '" + path +
                                       "': check that its folder exists and is writable");
    SectionWriter(impl_->out, kSampledFormatVersion, kStreamedSections);
    writeSection(impl_->out, "SHDR", toJson(header));
    impl_->out.flush();
    if (!impl_->out)
        throw Error(ErrorCode::Io, "writing the sampled recording '" + path + "' failed");
}

SampledRecordingWriter::~SampledRecordingWriter() = default;

void SampledRecordingWriter::append(const SampledBatch& batch) {
    json steps = json::array(), signatures = json::array(), launches = json::array();
    for (const SampledStep& s : batch.steps)
        steps.push_back(toJson(s));
    for (const SampledSignature& s : batch.signatures)
        signatures.push_back(toJson(s));
    for (const SampledLaunch& l : batch.launches)
        launches.push_back(toJson(l));
    writeSection(impl_->out, "SBAT",
                 {{"written_unix_ns", batch.writtenUnixNs},
                  {"steps", steps},
                  {"signatures", signatures},
                  {"launches", launches}});
    impl_->out.flush(); // in the file (the kernel's page cache) before a kill can come
    if (!impl_->out)
        throw Error(ErrorCode::Io,
                    "appending to the sampled recording '" + impl_->path + "' failed (disk full?)");
    ++batches_;
}

SampledRecording readSampledRecording(std::istream& in, const std::string& what) {
    StreamedSections read = readStreamedSections(in, what, kRules);
    SampledRecording rec;
    rec.cut = std::move(read.cut);
    if (read.sections.empty() || read.sections.front().tag != "SHDR")
        corruptRecording(what, "it has no sampled header first" +
                                   (rec.cut.empty() ? std::string() : " (" + rec.cut + ")"));
    try {
        const json h = parsed(read.sections.front(), what);
        if (!h.is_object() || h.value("format", "") != "libroofline-sampled")
            corruptRecording(what, "its header is not a sampled recording's");
        rec.header = headerOf(h);
        for (std::size_t i = 1; i < read.sections.size(); ++i)
            if (read.sections[i].tag == "SBAT") // other tags: a newer writer's, skipped
                rec.batches.push_back(
                    batchOf(parsed(read.sections[i], what), rec.header.counters.size()));
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) { // a field missing, of another type, too long
        corruptRecording(what, e.what());
    }
    return rec;
}

void addTo(SampledSignature& sum, const std::string& name, const std::string& scope,
           std::size_t counters, std::uint64_t launches, std::uint64_t ns,
           const std::vector<double>& values, std::uint64_t estimated, std::uint64_t coveredNs) {
    if (sum.values.empty()) {
        sum.name = name;
        sum.scope = scope;
        sum.values.assign(counters, 0.0);
    }
    sum.launches += launches;
    sum.ns += ns;
    sum.estimated += estimated;
    sum.coveredNs += coveredNs;
    for (std::size_t m = 0; m < sum.values.size() && m < values.size(); ++m)
        sum.values[m] += values[m];
}

bool isSampledRecording(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return in && isStreamedContainer(in);
}

SampledRecording readSampledRecording(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(ErrorCode::Io, "cannot open the sampled recording '" + path + "'");
    return readSampledRecording(in, path);
}

} // namespace roofline::core
