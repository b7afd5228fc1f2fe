#include "report/instruction_fields.hpp"

#include "core/instruction_model.hpp"
#include "report/format.hpp"

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

namespace roofline::report {
namespace {

const char* const kAccess[] = {"global_ld", "global_st", "shared_ld", "shared_st"};

const AccessCounts& access(const InstructionCounts& c, std::size_t i) {
    const AccessCounts* all[] = {&c.globalLoad, &c.globalStore, &c.sharedLoad, &c.sharedStore};
    return *all[i];
}

// NaN (no denominator) as an empty CSV cell or a JSON null.
std::string cell(double v) {
    return std::isfinite(v) ? number(v) : std::string();
}
nlohmann::json value(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

} // namespace

std::string joinedVerdicts(const KernelRecord& r) {
    std::string text;
    for (const auto& v : r.instructionVerdicts)
        text += (text.empty() ? "" : "; ") + v;
    return text;
}

void writeInstructionCsvHeader(std::ostream& out) {
    out << ",inst_measured,warp_inst,thread_inst,thread_inst_pred_on";
    for (std::size_t k = 0; k < kInstructionClassCount; ++k)
        out << ",thread_inst_" << toString(static_cast<InstructionClass>(k));
    for (const char* a : kAccess) {
        const bool shared = a[0] == 's';
        out << ',' << a << "_requests," << a << (shared ? "_wavefronts," : "_sectors,") << a
            << "_bytes";
    }
    out << ",l2_sectors,dram_sectors,inst_rate,inst_intensity_l1,inst_intensity_l2,"
           "inst_intensity_dram,global_ld_sectors_per_request,global_ld_ideal_sectors,"
           "global_st_sectors_per_request,global_st_ideal_sectors,"
           "shared_ld_wavefronts_per_request,shared_ld_ideal_wavefronts,"
           "shared_st_wavefronts_per_request,shared_st_ideal_wavefronts,thread_efficiency,"
           "inst_verdicts";
}

void writeInstructionCsvCells(const KernelRecord& r, std::ostream& out) {
    const InstructionCounts& c = r.instructions;
    std::vector<std::string> cells = {number(c.warp), number(c.thread),
                                      number(c.threadPredicatedOn)};
    for (double v : c.byClass)
        cells.push_back(number(v));
    for (std::size_t i = 0; i < 4; ++i) {
        const AccessCounts& a = access(c, i);
        for (double v : {a.requests, a.transactions, a.bytes})
            cells.push_back(number(v));
    }
    cells.push_back(number(c.l2Sectors));
    cells.push_back(number(c.dramSectors));
    const core::InstructionModel m = core::instructionModel(c, r.timeSeconds);
    for (double v :
         {m.rate, m.intensity[0], m.intensity[1], m.intensity[2], m.loadSectorsPerRequest,
          m.loadIdealSectors, m.storeSectorsPerRequest, m.storeIdealSectors,
          m.sharedLoadWavefrontsPerRequest, m.sharedLoadIdealWavefronts,
          m.sharedStoreWavefrontsPerRequest, m.sharedStoreIdealWavefronts, m.threadEfficiency})
        cells.push_back(cell(v));
    cells.push_back(csvCell(joinedVerdicts(r)));
    out << ',' << (c.measured ? 1 : 0);
    for (const std::string& text : cells) // without the counters, every other cell is empty
        out << ',' << (c.measured ? text : std::string());
}

nlohmann::json instructionJson(const KernelRecord& r) {
    const InstructionCounts& c = r.instructions;
    if (!c.measured)
        return nullptr;
    nlohmann::json classes = nlohmann::json::object();
    for (std::size_t k = 0; k < kInstructionClassCount; ++k)
        classes[std::string(toString(static_cast<InstructionClass>(k)))] = c.byClass[k];
    const core::InstructionModel m = core::instructionModel(c, r.timeSeconds);
    nlohmann::json j = {{"warp", c.warp},
                        {"thread", c.thread},
                        {"thread_pred_on", c.threadPredicatedOn},
                        {"thread_by_class", classes},
                        {"l2_sectors", c.l2Sectors},
                        {"dram_sectors", c.dramSectors},
                        {"rate", value(m.rate)},
                        {"intensity",
                         {{"L1", value(m.intensity[0])},
                          {"L2", value(m.intensity[1])},
                          {"DRAM", value(m.intensity[2])}}},
                        {"thread_efficiency", value(m.threadEfficiency)},
                        {"verdicts", r.instructionVerdicts}};
    const double perRequest[] = {m.loadSectorsPerRequest, m.storeSectorsPerRequest,
                                 m.sharedLoadWavefrontsPerRequest,
                                 m.sharedStoreWavefrontsPerRequest};
    const double ideal[] = {m.loadIdealSectors, m.storeIdealSectors, m.sharedLoadIdealWavefronts,
                            m.sharedStoreIdealWavefronts};
    for (std::size_t i = 0; i < 4; ++i) {
        const AccessCounts& a = access(c, i);
        const std::string unit = i >= 2 ? "wavefronts" : "sectors";
        j[kAccess[i]] = {{"requests", a.requests},
                         {unit, a.transactions},
                         {"bytes", a.bytes},
                         {unit + "_per_request", value(perRequest[i])},
                         {"ideal_" + unit + "_per_request", value(ideal[i])}};
    }
    return j;
}

} // namespace roofline::report
