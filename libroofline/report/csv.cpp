#include "core/atomic_file.hpp"
#include "report/format.hpp"
#include "report/instruction_fields.hpp"

#include <roofline/report.hpp>

#include <ostream>

namespace roofline {
namespace {
using report::csvCell;
}

void writeCsv(const std::vector<KernelRecord>& records, std::ostream& out) {
    out << "launch_index,name,mangled_name,scope,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
           "stream,thread_id,device,scope_record,kernels,measured,note,time_s,gpu_duration_s,"
           "sm_clock_hz";
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        out << ",flops_" << toString(static_cast<FlopKind>(k));
    out << ",total_flops,tensor_flops";
    for (const char* l : {"l1", "l2", "dram"})
        out << ",bytes_" << l;
    for (const char* l : {"l1", "l2", "dram"})
        out << ",intensity_" << l;
    out << ",flop_rate";
    for (const char* l : {"l1", "l2", "dram"})
        out << ",byte_rate_" << l;
    out << ",bound,bound_fraction,tensor_share,no_fp_work,scope_raw,iteration,replay,short_name,"
           "bound_kind,bound_roof,rank,registers,shared_mem_bytes,resident_blocks,waves,bound_"
           "limiter,counters_rank,lacks,position,op,phase,module,shapes,kernel_id";
    report::writeInstructionCsvHeader(out);
    out << '\n';
    using report::number;
    for (const auto& r : records) {
        out << r.launchIndex << ',' << csvCell(r.name) << ',' << csvCell(r.mangledName) << ','
            << csvCell(r.scopePath) << ',' << r.grid.x << ',' << r.grid.y << ',' << r.grid.z << ','
            << r.block.x << ',' << r.block.y << ',' << r.block.z << ',' << r.stream << ','
            << r.threadId << ',' << r.device << ',' << (r.scopeRecord ? 1 : 0) << ',' << r.kernels
            << ',' << (r.measured ? 1 : 0) << ',' << csvCell(r.note) << ',' << number(r.timeSeconds)
            << ',' << number(r.gpuDurationSeconds) << ',' << number(r.smClockHz);
        for (double f : r.flops)
            out << ',' << number(f);
        out << ',' << number(r.totalFlops()) << ',' << number(r.tensorFlops());
        for (double b : r.bytes)
            out << ',' << number(b);
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
            out << ',' << number(r.intensity(static_cast<MemoryLevel>(l)));
        out << ',' << number(r.flopRate());
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
            out << ',' << number(r.byteRate(static_cast<MemoryLevel>(l)));
        out << ',' << csvCell(toString(r.bound)) << ',' << number(r.bound.fractionOfPeak) << ','
            << number(r.tensorShare()) << ',' << (r.noFloatingPointWork() ? 1 : 0) << ','
            << csvCell(r.scopePathRaw) << ',' << r.iteration << ',' << toString(r.replay) << ','
            << csvCell(report::displayName(r.name)) << ','
            << (r.bound.kind == Bound::Kind::Compute  ? "compute"
                : r.bound.kind == Bound::Kind::Memory ? "memory"
                                                      : "unknown")
            << ','
            << (r.bound.kind == Bound::Kind::Compute  ? toString(r.bound.flop)
                : r.bound.kind == Bound::Kind::Memory ? toString(r.bound.level)
                                                      : std::string_view(""))
            << ',' << r.rank << ',' << r.registersPerThread << ',' << r.sharedMemBytes << ','
            << r.residentBlocksPerSm << ',' << number(r.waves) << ',' << toString(r.bound.limiter)
            << ',' << r.countersRank << ',' << csvCell(r.lacks) << ',' << r.position << ','
            << csvCell(r.op) << ',' << csvCell(r.phase) << ',' << csvCell(r.module) << ','
            << csvCell(r.shapes) << ',' << r.kernelId;
        report::writeInstructionCsvCells(r, out);
        out << '\n';
    }
}

void writeCsv(const std::vector<KernelRecord>& records, const std::string& path) {
    core::writeFileAtomically(path, [&](std::ostream& out) { writeCsv(records, out); });
}

} // namespace roofline
