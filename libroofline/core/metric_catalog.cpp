#include "core/metric_catalog.hpp"

#include <roofline/error.hpp>

#include <algorithm>
#include <cstdio>

namespace roofline::core {
namespace {

// A metric list that keeps each name once, in the order first added (addMetrics).
struct MetricList {
    std::vector<std::string> out;
    void operator()(const std::string& m) { addMetrics(out, {m}); }
};

constexpr const char* kSass = "sm__sass_thread_inst_executed_op_";

std::string sass(const char* op) {
    return std::string(kSass) + op + "_pred_on.sum";
}

// CUDA-core work from SASS thread-instruction counters: an FMA is two FLOPs.
Formula cudaCoreFp64() {
    return {{{sass("dadd"), 1}, {sass("dmul"), 1}, {sass("dfma"), 2}}};
}
Formula cudaCoreFp32() {
    return {{{sass("fadd"), 1}, {sass("fmul"), 1}, {sass("ffma"), 2}}};
}
// The half counters count HADD2/HMUL2/HFMA2 *instructions*, the same for packed (__hfma2) and
// scalar (__hfma) use (measured on H100, docs/calibration). We count them as packed: 2 lanes, so
// HFMA2 = 4 FLOPs. Scalar half arithmetic is therefore over-counted by 2x (documented).
Formula cudaCoreFp16() {
    return {{{sass("hadd"), 2}, {sass("hmul"), 2}, {sass("hfma"), 4}}};
}

Formula single(const std::string& metric, double coefficient = 1.0) {
    return {{{metric, coefficient}}};
}
Formula sum(std::initializer_list<const char*> metrics) {
    Formula f;
    for (const char* m : metrics)
        f.terms.push_back({m, 1.0});
    return f;
}

ChipProfile base(std::string family, std::vector<std::string> chips) {
    ChipProfile p;
    p.family = std::move(family);
    p.chips = std::move(chips);
    p.cyclesMetric = "sm__cycles_elapsed.avg";
    p.cycleRateMetric = "sm__cycles_elapsed.avg.per_second";
    p.durationMetric = "gpu__time_duration.sum";
    p.flops[static_cast<std::size_t>(FlopKind::FP64)] = cudaCoreFp64();
    p.flops[static_cast<std::size_t>(FlopKind::FP32)] = cudaCoreFp32();
    p.flops[static_cast<std::size_t>(FlopKind::FP16)] = cudaCoreFp16();
    p.bytes[static_cast<std::size_t>(MemoryLevel::L1)] = single("l1tex__t_bytes.sum");
    p.bytes[static_cast<std::size_t>(MemoryLevel::L2)] = single("lts__t_bytes.sum");
    p.bytes[static_cast<std::size_t>(MemoryLevel::DRAM)] = single("dram__bytes.sum");
    p.dramReadMetric = "dram__bytes_read.sum";
    p.dramWriteMetric = "dram__bytes_write.sum";
    p.l2CycleRateMetric = "lts__cycles_elapsed.avg.per_second";
    // Valid on every family here (CUPTI host API); on GH100 the whole group shares the default
    // detection set's 3 passes, while the L1 t-stage's global *request* counters would add two
    // (l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}): the warp-level SASS instruction counts
    // stand for the requests, as the paper's.
    InstructionCounters& i = p.instructions;
    i.warpInstructions = "smsp__inst_executed.sum";
    i.threadInstructions = "smsp__thread_inst_executed.sum";
    i.threadInstructionsPredicated = "smsp__thread_inst_executed_pred_on.sum";
    const std::string cls = "smsp__sass_thread_inst_executed_op_";
    for (std::size_t c = 0; c < kInstructionClassCount; ++c)
        i.threadClasses[c] =
            cls + std::string(toString(static_cast<InstructionClass>(c))) + "_pred_on.sum";
    i.globalLoadRequests = "smsp__sass_inst_executed_op_global_ld.sum";
    i.globalStoreRequests = "smsp__sass_inst_executed_op_global_st.sum";
    i.globalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
    i.globalStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
    i.globalLoadBytes = "sm__sass_data_bytes_mem_global_op_ld.sum";
    i.globalStoreBytes = "sm__sass_data_bytes_mem_global_op_st.sum";
    i.sharedLoadRequests = "smsp__sass_inst_executed_op_shared_ld.sum";
    i.sharedStoreRequests = "smsp__sass_inst_executed_op_shared_st.sum";
    // Bank conflicts, not the data pipe's shared wavefronts: on GH100 those also count what
    // warp-specialized kernels' barrier waits move (a cuBLAS GEMM: 23 wavefronts per LDS, no
    // conflict), while ncu's conflict counters count only the LDS/STS instructions' own.
    i.sharedLoadConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
    i.sharedStoreConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
    i.sharedLoadBytes = "sm__sass_data_bytes_mem_shared_op_ld.sum";
    i.sharedStoreBytes = "sm__sass_data_bytes_mem_shared_op_st.sum";
    i.l2Sectors = "lts__t_sectors.sum";
    i.dramSectors = "dram__sectors.sum";
    return p;
}

Formula& at(ChipProfile& p, FlopKind k) {
    return p.flops[static_cast<std::size_t>(k)];
}

// Ampere and newer: the sparse-capable tensor types' peak_sustained counts the 2:4 sparse rate
// (H100: bf16 1081344 ops per cycle, twice the dense rate; FP64 tensor has no sparse rate); the
// L1 t-stage's 512 B per SM cycle is 4x the 128 B/cycle that loads reach; and the best L2 kernel
// of `roofline ceilings` reached 59% of lts__t_bytes' 7680 B per L2 cycle (7.67 of 13.0 TB/s at
// the 1696 MHz L2 clock). Measured on the H100 (docs/methodology.md, "Device-peak roofs").
void attainablePeakShares(ChipProfile& p) {
    for (FlopKind k : {FlopKind::TensorTF32, FlopKind::TensorFP16, FlopKind::TensorBF16,
                       FlopKind::TensorFP8, FlopKind::TensorINT8})
        p.peakFlopShare[static_cast<std::size_t>(k)] = 0.5;
    p.peakByteShare[static_cast<std::size_t>(MemoryLevel::L1)] = 0.25;
    p.peakByteShare[static_cast<std::size_t>(MemoryLevel::L2)] = 0.59;
}

// Volta: the NERSC formula.
ChipProfile volta() {
    // Each HMMA.884 warp instruction is 512 FP16 FLOPs on Volta only
    // (on Hopper the same counter also counts HFMA2.MMA, see FACTS.md).
    ChipProfile p = base("Volta", {"GV100"});
    at(p, FlopKind::TensorFP16) = single("sm__inst_executed_pipe_tensor.sum", 512);
    p.validation = "not validated on hardware here (no Volta GPU): NERSC formulas as published";
    return p;
}

// Ampere and newer: sm__ops_path_tensor_* count tensor FLOPs directly (an FMA = 2 ops), per
// source type -- FP16 split by its accumulator (Hopper counts both in one counter).
void opsPathTensor(ChipProfile& p) {
    at(p, FlopKind::TensorFP16) = sum(
        {"sm__ops_path_tensor_src_fp16_dst_fp16.sum", "sm__ops_path_tensor_src_fp16_dst_fp32.sum"});
    at(p, FlopKind::TensorBF16) = single("sm__ops_path_tensor_src_bf16_dst_fp32.sum");
    at(p, FlopKind::TensorTF32) = single("sm__ops_path_tensor_src_tf32_dst_fp32.sum");
    at(p, FlopKind::TensorFP64) = single("sm__ops_path_tensor_src_fp64.sum");
    at(p, FlopKind::TensorINT8) = single("sm__ops_path_tensor_src_int8.sum");
    attainablePeakShares(p);
}

ChipProfile ampere() {
    ChipProfile p = base("Ampere", {"GA100"});
    opsPathTensor(p);
    p.validation = "not validated on hardware here (no Ampere GPU); same counter semantics as "
                   "the Hopper calibration assumed";
    return p;
}

// Ada: Ampere's counters, and FP8.
ChipProfile ada(ChipProfile p) {
    p.family = "Ada";
    p.chips = {"AD102", "AD103", "AD104", "AD106", "AD107"};
    at(p, FlopKind::TensorFP8) = single("sm__ops_path_tensor_src_fp8.sum");
    p.validation = "not validated on hardware here (no Ada GPU); same counter semantics as the "
                   "Hopper calibration assumed";
    return p;
}

// Tensor counters by detection (design 0008): the MMA instruction counters per family, the
// HFMA2.MMA count (register moves the compiler issues on the tensor pipe: not MMA work) and
// the three warpgroup-MMA op counters fit in 3 passes with the core set, against 7 for the
// full set. Measured on the H100 (2026-11-23, training step, 108 cuBLASLt GEMM launches): the
// hmma instruction counter counts warpgroup MMA too (hmma = gmma + hfma2 on every GEMM), and
// each hgmma op counter equals its per-type src counter exactly. So a launch without warp
// MMA beyond those (hmma - hfma2 - gmma = 0) has exactly its hgmma ops as FP16/BF16/TF32
// tensor work -- 0 without GMMA -- and one without DMMA no FP64 tensor work. INT8 needs no
// IMMA and no unexplained tensor instruction (an integer warpgroup MMA counted as GMMA but not
// on the hmma pipe leaves hmma - hfma2 - gmma negative). FP8 is collected (no stand-in).
TensorDetection hopperDetection() {
    TensorDetection d;
    const std::string inst = "sm__inst_executed_pipe_tensor_op_";
    const std::string gmma = "sm__ops_path_tensor_op_hgmma_src_";
    d.counters = {inst + "dmma.sum",
                  inst + "gmma.sum",
                  inst + "hmma.sum",
                  inst + "imma.sum",
                  inst + "hmma_type_hfma2.sum",
                  gmma + "bf16_dst_fp32.sum",
                  gmma + "fp16.sum",
                  gmma + "tf32_dst_fp32.sum"};
    const Formula warpMma{{{inst + "hmma.sum", 1.0},
                           {inst + "hmma_type_hfma2.sum", -1.0},
                           {inst + "gmma.sum", -1.0}}};
    d.inferences = {
        {"sm__ops_path_tensor_src_fp64.sum", {single(inst + "dmma.sum")}, ""},
        {"sm__ops_path_tensor_src_int8.sum", {single(inst + "imma.sum"), warpMma}, ""},
        {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", {warpMma}, gmma + "bf16_dst_fp32.sum"},
        {"sm__ops_path_tensor_src_fp16.sum", {warpMma}, gmma + "fp16.sum"},
        {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", {warpMma}, gmma + "tf32_dst_fp32.sum"},
    };
    // Warp MMA of one type: measured with Nsight Compute on the H200 (GH100; design 0022) --
    // cuDNN's TF32 convolution kernels and the fp32 memory-efficient attention count 2048
    // TF32 ops per warp MMA instruction (m16n8k8), FlashAttention-2's BF16 and FP16 kernels
    // 4096 (m16n8k16): each type's largest mma.sync shape.
    d.warpMma = warpMma;
    d.warpTypes = {
        {"sm__ops_path_tensor_src_tf32_dst_fp32.sum",
         gmma + "tf32_dst_fp32.sum",
         2048,
         {"tf32", "tfloat32"},
         {{"fmha_cutlass", "f32"}}},
        {"sm__ops_path_tensor_src_bf16_dst_fp32.sum",
         gmma + "bf16_dst_fp32.sum",
         4096,
         {"bf16", "bfloat16"},
         {}},
        {"sm__ops_path_tensor_src_fp16.sum", gmma + "fp16.sum", 4096, {"fp16", "half", "f16"}, {}},
    };
    // Seen on the H100 and H200 (design 0022): cuDNN's `sm80_xmma_*`,
    // `cutlass_tensorop_s1688*` and CUTLASS 2 `ImplicitGemmConvolution<... Sm80 ...>`
    // convolutions, FlashAttention-2 (`flash_fwd_kernel`, `flash_bwd_*`) and the
    // memory-efficient attention (`fmha_cutlass*_sm80`) run warp MMA; `sm90_xmma_*`,
    // `nvjet_sm90_*` and CUTLASS 3 `*_sm90_*` GEMMs run warpgroup MMA.
    d.warpKernelMarkers = {"sm70",      "sm_70",       "sm75",   "sm_75",    "sm80",  "sm_80",
                           "sm86",      "sm_86",       "sm89",   "sm_89",    "volta", "turing",
                           "ampere",    "s884",        "h884",   "s1688",    "h1688", "s16816",
                           "h16816",    "i8816",       "i16832", "tensorop", "wmma",  "flash_fwd",
                           "flash_bwd", "fmha_cutlass"};
    d.warpgroupKernelMarkers = {"sm90", "sm_90", "sm100", "sm_100", "gmma", "warpgroup", "nvjet"};
    d.validation = "H100: calibration kernels (FFMA, DFMA, WMMA FP16/BF16/TF32, DMMA, IMMA) "
                   "and cuBLASLt GEMMs (warpgroup MMA) give the same FLOPs per kind with "
                   "detection as with every tensor counter (GpuTensorDetection.*); hgmma op "
                   "counters equal to the src counters on 108 training-step GEMMs";
    return d;
}

ChipProfile hopper() {
    ChipProfile p = base("Hopper", {"GH100"});
    attainablePeakShares(p);
    at(p, FlopKind::TensorFP16) = single("sm__ops_path_tensor_src_fp16.sum"); // both dst types
    at(p, FlopKind::TensorBF16) = single("sm__ops_path_tensor_src_bf16_dst_fp32.sum");
    at(p, FlopKind::TensorTF32) = single("sm__ops_path_tensor_src_tf32_dst_fp32.sum");
    at(p, FlopKind::TensorFP64) = single("sm__ops_path_tensor_src_fp64.sum");
    at(p, FlopKind::TensorFP8) = single("sm__ops_path_tensor_src_fp8.sum");
    at(p, FlopKind::TensorINT8) = single("sm__ops_path_tensor_src_int8.sum");
    p.tensorDetection = hopperDetection();
    // Nsight Compute's roofline sections on CC >= 9.0 (FACTS.md).
    p.bytesNcu[static_cast<std::size_t>(MemoryLevel::L1)] =
        single("l1tex__lsu_writeback_active_mem_lgds.sum", 128);
    p.bytesNcu[static_cast<std::size_t>(MemoryLevel::L2)] =
        single("lts__lts2xbar_cycles_active.sum", 32);
    p.bytesNcu[static_cast<std::size_t>(MemoryLevel::DRAM)] = single("dram__bytes.sum");
    p.validation =
        "validated on H100 SXM (GH100) 2026-11-22 with calibration kernels: FP32 FFMA and FP64 "
        "DFMA exact; FP16 counts HFMA2 instructions (packed factor 2 assumed); tensor FP16 (both "
        "accumulators), BF16, TF32 and FP64 MMA exact; 2026-11-23: cuBLASLt GEMMs of BF16, "
        "FP16, TF32, FP8 (warpgroup MMA) and INT8 (IMMA) exact";
    return p;
}

ChipProfile blackwell() {
    ChipProfile p = base("Blackwell", {"GB100"});
    opsPathTensor(p);
    // FP8 here is the fp8/fp6/fp4 path together: the counters do not separate them.
    at(p, FlopKind::TensorFP8) = sum({"sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp16.sum",
                                      "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum"});
    p.validation = "not validated on hardware here (no Blackwell GPU); same counter "
                   "semantics as the Hopper calibration assumed";
    return p;
}

std::vector<ChipProfile> buildCatalog() {
    const ChipProfile a = ampere();
    return {volta(), a, ada(a), hopper(), blackwell()};
}

} // namespace

const std::vector<ChipProfile>& chipProfiles() {
    static const std::vector<ChipProfile> catalog = buildCatalog();
    return catalog;
}

const ChipProfile& profileForChip(const std::string& chip) {
    for (const auto& p : chipProfiles())
        if (std::find(p.chips.begin(), p.chips.end(), chip) != p.chips.end())
            return p;
    std::string known;
    for (const auto& p : chipProfiles())
        for (const auto& c : p.chips)
            known += (known.empty() ? "" : ", ") + c;
    throw Error(ErrorCode::UnsupportedChip,
                "chip '" + chip +
                    "' has no entry in libroofline's metric catalog (known: " + known +
                    "). Add a ChipProfile in libroofline/core/metric_catalog.cpp and "
                    "validate it with the calibration kernels (docs/methodology.md).");
}

ChipProfile withBytes(const ChipProfile& profile, ByteDefinition definition) {
    if (definition == ByteDefinition::Nersc)
        return profile;
    if (profile.bytesNcu[0].empty())
        throw Error(ErrorCode::InvalidArgument,
                    "the " + profile.family +
                        " catalog entry has no Nsight Compute byte definitions (they are defined "
                        "for compute capability 9.0+: Hopper); use ROOFLINE_BYTES=nersc");
    ChipProfile p = profile;
    p.bytes = profile.bytesNcu;
    return p;
}

std::string describeBytes(const ChipProfile& profile) {
    std::string out;
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        out += (out.empty() ? "" : ", ") + std::string(toString(static_cast<MemoryLevel>(l))) +
               " = " + describe(profile.bytes[l]);
    return out;
}

void addMetrics(std::vector<std::string>& list, const std::vector<std::string>& metrics) {
    for (const std::string& m : metrics)
        if (!m.empty() && std::find(list.begin(), list.end(), m) == list.end())
            list.push_back(m);
}

std::vector<std::string> requiredMetrics(const ChipProfile& p, MetricSet set) {
    MetricList add;
    add(p.cyclesMetric);
    add(p.cycleRateMetric);
    add(p.durationMetric);
    if (set == MetricSet::Full || set == MetricSet::Core)
        for (std::size_t k = 0; k < p.flops.size(); ++k)
            if (set == MetricSet::Full || !isTensor(static_cast<FlopKind>(k)))
                for (const auto& t : p.flops[k].terms)
                    add(t.metric);
    if (set != MetricSet::Time) {
        for (const auto& f : p.bytes)
            for (const auto& t : f.terms)
                add(t.metric);
        add(p.dramReadMetric);
        add(p.dramWriteMetric);
        add(p.l2CycleRateMetric);
    }
    return add.out;
}

std::vector<std::string> instructionMetrics(const ChipProfile& p) {
    const InstructionCounters& i = p.instructions;
    MetricList add;
    add(i.warpInstructions);
    add(i.threadInstructions);
    add(i.threadInstructionsPredicated);
    for (const auto& c : i.threadClasses)
        add(c);
    for (const std::string* m :
         {&i.globalLoadRequests, &i.globalStoreRequests, &i.globalLoadSectors,
          &i.globalStoreSectors, &i.globalLoadBytes, &i.globalStoreBytes, &i.sharedLoadRequests,
          &i.sharedStoreRequests, &i.sharedLoadConflicts, &i.sharedStoreConflicts,
          &i.sharedLoadBytes, &i.sharedStoreBytes, &i.l2Sectors, &i.dramSectors})
        add(*m);
    return add.out;
}

std::string describe(const Formula& formula) {
    if (formula.empty())
        return "-";
    std::string out;
    for (const auto& t : formula.terms) {
        if (!out.empty())
            out += " + ";
        if (t.coefficient != 1.0) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%g x ", t.coefficient);
            out += buf;
        }
        out += t.metric;
    }
    return out;
}

double evaluate(const Formula& formula, const MetricValues& values) {
    double sumValue = 0.0;
    for (const auto& t : formula.terms) {
        const auto it = values.find(t.metric);
        if (it == values.end())
            throw Error(ErrorCode::UnknownMetric,
                        "metric '" + t.metric + "' is needed by a formula but has no value");
        sumValue += t.coefficient * it->second;
    }
    return sumValue;
}

} // namespace roofline::core
