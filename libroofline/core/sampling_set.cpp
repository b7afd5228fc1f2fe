#include "core/sampling_set.hpp"

#include <roofline/error.hpp>

#include <algorithm>
#include <cctype>

namespace roofline::core {
namespace {

// GH100 (H100, H200): the TriageCompute group's real-time counters are the pipe activity that fits
// one pass beside time and the three byte counters; the plain pipe counters
// (sm__pipe_tensor_cycles_active, sm__thread_inst_executed_pipe_fma_pred_on,
// sm__pipe_fp64_cycles_active) each take a second pass with them (design 0029).
SamplingSet hopper() {
    SamplingSet s;
    s.family = "Hopper";
    s.chips = {"GH100"};
    s.cyclesMetric = "sm__cycles_elapsed.avg";
    s.bytes = {"l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes.sum"};
    s.dramReadMetric = "dram__bytes_read.sum";
    s.dramWriteMetric = "dram__bytes_write.sum";
    s.fmaInstructions = "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.sum";
    s.warpInstructions = "TPC.TriageCompute.sm__inst_executed_realtime.sum";
    s.threadInstructions = "SM_A.TriageCompute.sm__thread_inst_executed_pred_on_realtime.sum";
    s.fp64PipeCycles = "TPC.TriageCompute.sm__pipe_fp64_cycles_active_realtime.sum";
    s.tensorPipeCycles = "TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.sum";
    // cuBLAS GEMMs on an H200 (2026-11-29): BF16 `nvjet_sm90_tst_*`, FP16 `nvjet_sm90_hsh_*`
    // 1024 FLOPs per tensor-pipe cycle, TF32 `sm90_xmma_gemm_*tf32*` 512, FP64 (DMMA)
    // `sm90_xmma_gemm_f64f64*` 64, each exactly. nvjet names the A type first: t BF16, h FP16.
    s.tensorRates = {
        {FlopKind::TensorTF32, 512, {"tf32", "tfloat32"}},
        {FlopKind::TensorFP64, 64, {"f64f64", "dmma", "dgemm"}},
        {FlopKind::TensorBF16, 1024, {"bf16", "bfloat16", "nvjet_sm90_t"}},
        {FlopKind::TensorFP16, 1024, {"fp16", "f16", "half", "nvjet_sm90_h"}},
    };
    s.validation = "one pass on GH100 checked with CUPTI 13.0's host API; on an H200 "
                   "(2026-11-29) an FFMA kernel's sampled FMA-pipe warp instructions were its "
                   "FFMA count within 1 % and its FP32 estimate its FLOPs within 0.05 %; a DFMA "
                   "kernel kept the FP64 pipe 2 cycles per warp DFMA; cuBLAS GEMMs did exactly "
                   "1024 (BF16, FP16), 512 (TF32) and 64 (FP64) FLOPs per tensor-pipe cycle";
    return s;
}

} // namespace

std::vector<std::string> SamplingSet::metrics() const {
    std::vector<std::string> out;
    const auto add = [&out](const std::string& m) {
        if (!m.empty() && std::find(out.begin(), out.end(), m) == out.end())
            out.push_back(m);
    };
    add(cyclesMetric);
    for (const std::string& b : bytes)
        add(b);
    add(dramReadMetric);
    add(dramWriteMetric);
    add(fmaInstructions);
    add(warpInstructions);
    add(threadInstructions);
    add(fp64PipeCycles);
    add(tensorPipeCycles);
    return out;
}

const TensorRate* tensorRateFor(const SamplingSet& set, const std::string& demangled) {
    std::string name = demangled;
    for (char& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const TensorRate& r : set.tensorRates)
        for (const std::string& hint : r.nameHints)
            if (name.find(hint) != std::string::npos)
                return &r;
    return nullptr;
}

const std::vector<SamplingSet>& samplingSets() {
    static const std::vector<SamplingSet> sets = {hopper()};
    return sets;
}

const SamplingSet& samplingSetForChip(const std::string& chip) {
    std::string known;
    for (const SamplingSet& s : samplingSets()) {
        if (std::find(s.chips.begin(), s.chips.end(), chip) != s.chips.end())
            return s;
        for (const std::string& c : s.chips)
            known += (known.empty() ? "" : ", ") + c;
    }
    throw Error(ErrorCode::UnsupportedChip,
                "sampling is not defined for chip '" + chip + "' (its counters are chip-specific; "
                "defined for: " + known + "). Use the replay profile (the default mode) there.");
}

} // namespace roofline::core
