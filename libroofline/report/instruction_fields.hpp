#pragma once
// The instruction roofline's fields of a record in the CSV and JSON outputs (docs/recording-
// format.md): its counts, the model's quantities and the verdicts, empty (CSV) or null (JSON)
// where the group was not measured.
#include <roofline/kernel_record.hpp>

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace roofline::report {

/// The record's verdicts joined by "; " (CSV, table); "" without any.
std::string joinedVerdicts(const KernelRecord& record);
/// ",inst_measured,warp_inst,..." -- the CSV header cells, each after a comma.
void writeInstructionCsvHeader(std::ostream& out);
/// The record's cells in the header's order, each after a comma.
void writeInstructionCsvCells(const KernelRecord& record, std::ostream& out);
/// {"warp": ..., "global_ld": {...}, "intensity": {...}, "verdicts": [...]}; null when the
/// group was not measured.
nlohmann::json instructionJson(const KernelRecord& record);

} // namespace roofline::report
