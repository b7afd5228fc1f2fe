#include "core/framework_ops.hpp"

#include <algorithm>
#include <cctype>

namespace roofline::core {
namespace {

constexpr std::string_view kSeq = ", seq = ";
constexpr std::string_view kOpId = ", op_id = ";
constexpr std::string_view kSizes = ", sizes = ";
constexpr std::size_t kMaxArguments = 64, kMaxDims = 16;

bool startsWith(std::string_view s, std::string_view p) noexcept {
    return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

// "[[8, 256, 512], [2048], []]" at the start of `s`: the shapes, up to the limits (the rest
// skipped); empty when it does not read as shapes.
std::vector<std::vector<std::int64_t>> shapesOf(std::string_view s) {
    std::vector<std::vector<std::int64_t>> out;
    if (s.empty() || s[0] != '[')
        return out;
    std::size_t i = 1;
    while (i < s.size() && s[i] != ']') {
        while (i < s.size() && (s[i] == ' ' || s[i] == ','))
            ++i;
        if (i >= s.size() || s[i] != '[')
            break;
        ++i;
        std::vector<std::int64_t> dims;
        while (i < s.size() && s[i] != ']') {
            if (std::isdigit(static_cast<unsigned char>(s[i]))) {
                std::int64_t v = 0;
                int digits = 0;
                while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
                    if (++digits <= 18)
                        v = v * 10 + (s[i] - '0');
                    ++i;
                }
                if (dims.size() < kMaxDims)
                    dims.push_back(v);
            } else {
                ++i;
            }
        }
        ++i; // the argument's ']'
        if (out.size() < kMaxArguments)
            out.push_back(std::move(dims));
    }
    return out;
}

bool backwardNode(std::string_view name) noexcept {
    std::size_t end = name.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1])))
        --end;
    constexpr std::string_view kBackward = "Backward";
    return end > kBackward.size() &&
           name.substr(end - kBackward.size(), kBackward.size()) == kBackward;
}

} // namespace

std::vector<std::vector<std::int64_t>> parseShapes(std::string_view text) {
    return shapesOf(text);
}

std::int64_t firstSizeNotMultiple(std::string_view shapes, std::int64_t multiple) {
    for (const auto& dims : shapesOf(shapes)) {
        if (dims.size() < 2)
            continue;
        for (std::size_t i = dims.size() - 2; i < dims.size(); ++i)
            if (multiple > 0 && dims[i] % multiple != 0)
                return dims[i];
    }
    return -1;
}

bool hasPerCallFields(std::string_view text) noexcept {
    return text.find(kOpId) != std::string_view::npos || text.find(kSeq) != std::string_view::npos;
}

FrameworkRange parseFrameworkRange(std::string_view text) {
    FrameworkRange r;
    std::size_t cut = text.size();
    for (std::string_view field : {kSeq, kOpId, kSizes})
        cut = std::min(cut, text.find(field));
    if (cut == text.size() || !hasPerCallFields(text)) {
        r.name = std::string(text);
        return r;
    }
    r.name = std::string(text.substr(0, cut));
    if (const std::size_t at = text.find(kSeq); at != std::string_view::npos) {
        std::size_t i = at + kSeq.size();
        std::int64_t v = 0;
        int digits = 0;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 18)
            v = v * 10 + (text[i++] - '0'), ++digits;
        r.seq = digits > 0 ? v : -1;
    }
    if (const std::size_t at = text.find(kSizes); at != std::string_view::npos) {
        std::string_view sizes = text.substr(at + kSizes.size());
        sizes = sizes.substr(0, sizes.find(", input_op_ids"));
        r.sizes = std::string(sizes.substr(0, 512));
    }
    // The autograd engine's range around a node's call (and the gradient accumulation after it).
    constexpr std::string_view kEvaluate = "autograd::engine::evaluate_function: ";
    if (startsWith(r.name, kEvaluate)) {
        r.name.erase(0, kEvaluate.size());
        r.kind = FrameworkRange::Kind::Backward;
        return r;
    }
    // Every range with PyTorch's per-call fields is one of its RecordFunctions: an operator
    // ("aten::addmm", "detach", "record_param_comms"), a backward node, or a record_function the
    // program or a library opened ("DistributedDataParallel.forward"). None is a scope: DDP's
    // set-up runs operators before the first step, and as scopes they would be taken for the
    // iteration.
    r.kind = backwardNode(r.name) ? FrameworkRange::Kind::Backward : FrameworkRange::Kind::Op;
    return r;
}

std::string optimizerOf(std::string_view op) {
    for (std::string_view prefix : {"Optimizer.step#", "Optimizer.zero_grad#"})
        if (startsWith(op, prefix)) {
            const std::string_view rest = op.substr(prefix.size());
            return std::string(rest.substr(0, rest.find('.')));
        }
    return {};
}

bool tensorCoreOp(std::string_view op) noexcept {
    const std::size_t ns = op.rfind("::");
    const std::string_view n = ns == std::string_view::npos ? op : op.substr(ns + 2);
    for (std::string_view p : {"mm", "addmm", "_addmm", "bmm", "baddbmm", "addbmm", "matmul",
                               "linear", "_scaled_mm", "einsum", "tensordot", "_int_mm"})
        if (n == p || (startsWith(n, p) && p.size() > 2) || startsWith(n, "_addmm_"))
            return true;
    for (std::string_view part : {"conv", "attention", "lstm", "gru", "rnn_", "_rnn"})
        if (n.find(part) != std::string_view::npos)
            return true;
    return false;
}

std::string inductorFusedOps(std::string_view kernelName) {
    if (!startsWith(kernelName, "triton_"))
        return {};
    const std::size_t fused = kernelName.find("_fused_");
    if (fused == std::string_view::npos)
        return {};
    std::string_view ops = kernelName.substr(fused + 7);
    // Inductor numbers its kernels: "..._0", "..._12"; a trailing "(...)" is a demangled signature.
    ops = ops.substr(0, ops.find('('));
    std::size_t end = ops.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(ops[end - 1])))
        --end;
    if (end < ops.size() && end > 0 && ops[end - 1] == '_')
        ops = ops.substr(0, end - 1);
    return ops.empty() ? std::string() : "inductor::fused_" + std::string(ops);
}

} // namespace roofline::core
