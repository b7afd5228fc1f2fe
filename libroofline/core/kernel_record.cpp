#include <roofline/kernel_record.hpp>

#include <cstdio>

namespace roofline {

const char* toString(ReplayStatus status) {
    switch (status) {
    case ReplayStatus::Differs:
        return "differs";
    case ReplayStatus::Unmatched:
        return "unmatched";
    case ReplayStatus::Clean:
        break;
    }
    return "clean";
}

std::string_view toString(FlopKind kind) noexcept {
    switch (kind) {
    case FlopKind::FP64:
        return "fp64";
    case FlopKind::FP32:
        return "fp32";
    case FlopKind::FP16:
        return "fp16";
    case FlopKind::TensorFP64:
        return "tensor_fp64";
    case FlopKind::TensorTF32:
        return "tensor_tf32";
    case FlopKind::TensorFP16:
        return "tensor_fp16";
    case FlopKind::TensorBF16:
        return "tensor_bf16";
    case FlopKind::TensorFP8:
        return "tensor_fp8";
    case FlopKind::TensorINT8:
        return "tensor_int8";
    }
    return "unknown";
}

std::string_view toString(InstructionClass kind) noexcept {
    switch (kind) {
    case InstructionClass::Integer:
        return "integer";
    case InstructionClass::FP32:
        return "fp32";
    case InstructionClass::FP64:
        return "fp64";
    case InstructionClass::FP16:
        return "fp16";
    case InstructionClass::Memory:
        return "memory";
    case InstructionClass::Control:
        return "control";
    }
    return "unknown";
}

std::string_view toString(MemoryLevel level) noexcept {
    switch (level) {
    case MemoryLevel::L1:
        return "L1";
    case MemoryLevel::L2:
        return "L2";
    case MemoryLevel::DRAM:
        return "DRAM";
    }
    return "unknown";
}

const char* toString(RoofSource source) noexcept {
    switch (source) {
    case RoofSource::None:
        return "";
    case RoofSource::Measured:
        return "measured";
    case RoofSource::Device:
        return "device peak";
    case RoofSource::Datasheet:
        return "datasheet";
    }
    return "";
}

const char* toString(Limiter limiter) noexcept {
    switch (limiter) {
    case Limiter::None:
        return "";
    case Limiter::FewBlocks:
        return "few blocks";
    case Limiter::Occupancy:
        return "occupancy";
    case Limiter::Latency:
        return "latency";
    case Limiter::ShapeUnknown:
        return "no shape";
    }
    return "";
}

std::string toString(const Bound& bound) {
    if (bound.kind == Bound::Kind::Unknown)
        return "unknown";
    const std::string_view what =
        bound.kind == Bound::Kind::Compute ? toString(bound.flop) : toString(bound.level);
    char percent[32];
    std::snprintf(percent, sizeof percent, " %.0f%%", bound.fractionOfPeak * 100.0);
    const std::string roof = std::string(what) + percent;
    if (bound.limiter == Limiter::None)
        return roof;
    return std::string(toString(bound.limiter)) + " (" + roof + ")";
}

double KernelRecord::totalFlops() const noexcept {
    double sum = 0.0;
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        if (isFloatingPoint(static_cast<FlopKind>(k)))
            sum += flops[k];
    return sum;
}

double KernelRecord::tensorShare() const noexcept {
    const double total = totalFlops();
    return total > 0.0 ? tensorFlops() / total : 0.0;
}

bool KernelRecord::noFloatingPointWork() const noexcept {
    return measured && timeSeconds > 0.0 &&
           !floatingPointWork(totalFlops(), bytes.data(), kMemoryLevelCount);
}

double KernelRecord::tensorFlops() const noexcept {
    double sum = 0.0;
    for (std::size_t k = 0; k < kFlopKindCount; ++k) {
        const auto kind = static_cast<FlopKind>(k);
        if (isTensor(kind) && isFloatingPoint(kind))
            sum += flops[k];
    }
    return sum;
}

double KernelRecord::intensity(MemoryLevel level) const noexcept {
    const double b = bytesAt(level);
    return b > 0.0 ? totalFlops() / b : 0.0;
}

double KernelRecord::flopRate() const noexcept {
    return timeSeconds > 0.0 ? totalFlops() / timeSeconds : 0.0;
}

double KernelRecord::byteRate(MemoryLevel level) const noexcept {
    return timeSeconds > 0.0 ? bytesAt(level) / timeSeconds : 0.0;
}

} // namespace roofline
