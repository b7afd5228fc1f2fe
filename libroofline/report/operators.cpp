#include "report/operators.hpp"

#include "core/framework_ops.hpp"
#include "report/aggregate.hpp"
#include "report/format.hpp"
#include "report/operator_names.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <unordered_map>

namespace roofline::report {

namespace {

// An operator label in `width` characters: whole operators (fitOperators), anything else cut in
// the middle.
std::string operatorCell(const std::string& label, std::size_t width) {
    return operatorLabel(label) ? fitOperators(label, width) : shorten(label, width);
}

// Under this share of its FLOPs on tensor cores a tensor-core operator "did not use them".
constexpr double kMostlyCudaCores = 0.5;

bool convolution(const std::string& op) {
    return op.find("conv") != std::string::npos;
}

} // namespace

std::string factOf(const std::map<std::string, std::string>& facts, const char* key) {
    const auto it = facts.find(key);
    return it == facts.end() ? std::string() : it->second;
}

std::vector<OperatorUse> operatorUse(const std::vector<KernelRecord>& records) {
    std::vector<OperatorUse> out;
    std::unordered_map<std::string, std::size_t> index;
    for (const auto& r : records) {
        if (r.op.empty())
            continue;
        const std::string label = opLabel(r);
        auto [it, fresh] = index.emplace(label, out.size());
        if (fresh) {
            OperatorUse u;
            u.label = label;
            u.op = r.op;
            u.tensorCoreOp = core::tensorCoreOp(r.op);
            out.push_back(std::move(u));
        }
        OperatorUse& u = out[it->second];
        ++u.launches;
        if (!r.measured)
            continue;
        u.seconds += r.timeSeconds > 0 ? r.timeSeconds : 0.0;
        u.flops += r.totalFlops();
        u.tensorFlops += r.tensorFlops();
        u.fp64 += r.flopsOf(FlopKind::FP64);
        u.fp32 += r.flopsOf(FlopKind::FP32);
        u.fp16 += r.flopsOf(FlopKind::FP16);
        if (!r.shapes.empty() && r.timeSeconds > u.longest) {
            u.longest = r.timeSeconds;
            u.shapes = r.shapes;
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const OperatorUse& a, const OperatorUse& b) {
        return a.seconds > b.seconds;
    });
    return out;
}

std::string whyNotTensorCores(const OperatorUse& u,
                              const std::map<std::string, std::string>& facts) {
    if (!u.tensorCoreOp || !(u.flops > 0) || u.tensorShare() >= kMostlyCudaCores)
        return "";
    const double cuda = u.fp64 + u.fp32 + u.fp16;
    if (!(cuda > 0))
        return "";
    const std::int64_t odd = core::firstSizeNotMultiple(u.shapes, 8);
    const std::string shape =
        odd >= 0 ? "; a matrix size (" + std::to_string(odd) + ") is not a multiple of 8" : "";
    if (u.fp64 >= u.fp32 && u.fp64 >= u.fp16)
        return "float64 on CUDA cores (tensor cores take float64 only in some library kernels; "
               "bf16/fp16/TF32 run on them)";
    if (u.fp32 >= u.fp16) {
        const bool conv = convolution(u.op);
        const std::string tf32 = factOf(facts, conv ? "tf32.cudnn" : "tf32.matmul");
        const char* knob =
            conv ? "torch.backends.cudnn.allow_tf32" : "torch.backends.cuda.matmul.allow_tf32";
        if (tf32 == "off")
            return std::string("float32 without TF32: ") + knob +
                   " is False (torch.set_float32_matmul_precision('high') allows TF32) -- or "
                   "autocast to bf16/fp16" +
                   shape;
        if (tf32 == "on")
            return "float32 on CUDA cores although TF32 is allowed: the library chose a CUDA-core "
                   "kernel" +
                   (shape.empty() ? " (small or odd sizes)" : shape);
        return "float32 on CUDA cores: TF32 off or not chosen" + shape;
    }
    return "half precision on CUDA cores: the library chose a CUDA-core kernel" +
           (shape.empty() ? std::string(" (small sizes, or a layout it has no tensor-core "
                                        "kernel for)")
                          : shape);
}

void printTensorCoreUse(const std::vector<KernelRecord>& records,
                        const std::map<std::string, std::string>& facts, std::ostream& out,
                        std::size_t top) {
    const std::vector<OperatorUse> ops = operatorUse(records);
    if (ops.empty())
        return;
    double all = 0, flops = 0, tensor = 0, tcOps = 0, tcOpsOnTc = 0;
    for (const auto& r : records)
        all += r.measured && r.timeSeconds > 0 ? r.timeSeconds : 0.0;
    for (const auto& u : ops) {
        flops += u.flops;
        tensor += u.tensorFlops;
        if (u.tensorCoreOp) {
            tcOps += u.seconds;
            if (u.tensorShare() >= kMostlyCudaCores)
                tcOpsOnTc += u.seconds;
        }
    }
    out << "\ntensor cores  " << percent(tensor, flops) << " of the operators' FLOPs ran on tensor "
        << "cores; operators that can use them took " << percent(tcOps, all) << " of the time, "
        << percent(tcOpsOnTc, all) << " on tensor cores\n";
    std::vector<const OperatorUse*> tc, missed;
    for (const auto& u : ops)
        if (u.tensorCoreOp && u.flops > 0) {
            tc.push_back(&u);
            if (!whyNotTensorCores(u, facts).empty())
                missed.push_back(&u);
        }
    const std::size_t n = top == 0 ? tc.size() : std::min(top, tc.size());
    if (n > 0) {
        out << "  " << std::left << std::setw(52) << "operator (tensor-core kind)" << std::right
            << std::setw(9) << "launches" << std::setw(12) << "time ms" << std::setw(8) << "%time"
            << std::setw(14) << "on tensor" << '\n';
        for (std::size_t i = 0; i < n; ++i)
            out << "  " << std::left << std::setw(52) << operatorCell(tc[i]->label, 50)
                << std::right << std::setw(9) << tc[i]->launches << std::setw(12)
                << milliseconds(tc[i]->seconds) << std::setw(8) << percent(tc[i]->seconds, all)
                << std::setw(14) << percent(tc[i]->tensorFlops, tc[i]->flops) << '\n';
        if (n < tc.size())
            out << "  (" << tc.size() - n << " more; --top 0 lists all)\n";
    }
    if (missed.empty()) {
        out << "  every such operator ran most of its FLOPs on tensor cores\n";
        return;
    }
    out << "could run on tensor cores, did not (" << missed.size() << "):\n";
    for (const OperatorUse* u : missed)
        out << "  " << std::left << std::setw(40) << operatorCell(u->label, 38) << std::right
            << std::setw(10) << milliseconds(u->seconds) << " ms  " << whyNotTensorCores(*u, facts)
            << (u->shapes.empty() ? "" : "; shapes " + shorten(u->shapes, 60)) << '\n';
}

} // namespace roofline::report
