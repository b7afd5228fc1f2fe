#pragma once
// The instruction roofline's fields of a record in the CSV and JSON outputs (docs/recording-
// format.md): its counts, the model's quantities and the verdicts, empty (CSV) or null (JSON)
// where the group was not measured.
#include <roofline/kernel_record.hpp>

#include <nlohmann/json.hpp>

#include <iosfwd>

namespace roofline::report {

/// ",inst_measured,warp_inst,..." -- the CSV header cells, each after a comma.
void writeInstructionCsvHeader(std::ostream& out);
/// The record's cells in the header's order, each after a comma.
void writeInstructionCsvCells(const KernelRecord& record, std::ostream& out);
/// {"warp": ..., "global_load": {...}, "intensity": {...}, "verdicts": [...]}; null when the
/// group was not measured.
nlohmann::json instructionJson(const KernelRecord& record);

/// The model's quantities of one record, for tables and charts: NaN where unknown.
struct InstructionFigures {
    double rate, intensityL1, intensityL2, intensityDram;
    double loadSectorsPerRequest, loadIdealSectors, storeSectorsPerRequest, storeIdealSectors;
    double sharedLoadWavefrontsPerRequest, sharedLoadIdealWavefronts;
    double sharedStoreWavefrontsPerRequest, sharedStoreIdealWavefronts, threadEfficiency;
};
InstructionFigures instructionFigures(const KernelRecord& record);

} // namespace roofline::report
