#include "report/instruction_fields.hpp"

#include "core/instruction_model.hpp"
#include "report/format.hpp"

#include <cmath>
#include <ostream>
#include <string>

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

std::string joined(const std::vector<std::string>& verdicts) {
    std::string text;
    for (const auto& v : verdicts)
        text += (text.empty() ? "" : "; ") + v;
    return text;
}

} // namespace

InstructionFigures instructionFigures(const KernelRecord& r) {
    const core::InstructionModel m = core::instructionModel(r.instructions, r.timeSeconds);
    return {m.rate,
            m.intensity[0],
            m.intensity[1],
            m.intensity[2],
            m.loadSectorsPerRequest,
            m.loadIdealSectors,
            m.storeSectorsPerRequest,
            m.storeIdealSectors,
            m.sharedLoadWavefrontsPerRequest,
            m.sharedLoadIdealWavefronts,
            m.sharedStoreWavefrontsPerRequest,
            m.sharedStoreIdealWavefronts,
            m.threadEfficiency};
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
    out << ',' << (c.measured ? 1 : 0);
    if (!c.measured) { // every other cell empty
        for (int i = 0; i < 3 + int(kInstructionClassCount) + 12 + 2 + 13 + 1; ++i)
            out << ',';
        return;
    }
    out << ',' << number(c.warp) << ',' << number(c.thread) << ',' << number(c.threadPredicatedOn);
    for (double v : c.byClass)
        out << ',' << number(v);
    for (std::size_t i = 0; i < 4; ++i) {
        const AccessCounts& a = access(c, i);
        out << ',' << number(a.requests) << ',' << number(a.transactions) << ',' << number(a.bytes);
    }
    out << ',' << number(c.l2Sectors) << ',' << number(c.dramSectors);
    const InstructionFigures f = instructionFigures(r);
    for (double v :
         {f.rate, f.intensityL1, f.intensityL2, f.intensityDram, f.loadSectorsPerRequest,
          f.loadIdealSectors, f.storeSectorsPerRequest, f.storeIdealSectors,
          f.sharedLoadWavefrontsPerRequest, f.sharedLoadIdealWavefronts,
          f.sharedStoreWavefrontsPerRequest, f.sharedStoreIdealWavefronts, f.threadEfficiency})
        out << ',' << cell(v);
    out << ',' << csvCell(joined(r.instructionVerdicts));
}

nlohmann::json instructionJson(const KernelRecord& r) {
    const InstructionCounts& c = r.instructions;
    if (!c.measured)
        return nullptr;
    nlohmann::json classes = nlohmann::json::object();
    for (std::size_t k = 0; k < kInstructionClassCount; ++k)
        classes[std::string(toString(static_cast<InstructionClass>(k)))] = c.byClass[k];
    const InstructionFigures f = instructionFigures(r);
    nlohmann::json j = {{"warp", c.warp},
                        {"thread", c.thread},
                        {"thread_pred_on", c.threadPredicatedOn},
                        {"thread_by_class", classes},
                        {"l2_sectors", c.l2Sectors},
                        {"dram_sectors", c.dramSectors},
                        {"rate", value(f.rate)},
                        {"intensity",
                         {{"L1", value(f.intensityL1)},
                          {"L2", value(f.intensityL2)},
                          {"DRAM", value(f.intensityDram)}}},
                        {"thread_efficiency", value(f.threadEfficiency)},
                        {"verdicts", r.instructionVerdicts}};
    const double perRequest[] = {f.loadSectorsPerRequest, f.storeSectorsPerRequest,
                                 f.sharedLoadWavefrontsPerRequest,
                                 f.sharedStoreWavefrontsPerRequest};
    const double ideal[] = {f.loadIdealSectors, f.storeIdealSectors, f.sharedLoadIdealWavefronts,
                            f.sharedStoreIdealWavefronts};
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
