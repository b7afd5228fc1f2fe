#include "report/ceilings_table.hpp"

#include <cstdio>
#include <ostream>
#include <string>

namespace roofline::report {
namespace {

std::string rate(double value, const char* unit) {
    if (!(value > 0.0))
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %s", value / 1e12, unit);
    return buf;
}

void row(std::ostream& out, const std::string& roof, double used, double measured, double datasheet,
         const core::RoofMeasurement* m, bool details) {
    const char* unit = core::roofUnit(roof);
    if (used <= 0.0 && measured <= 0.0 && datasheet <= 0.0 && !m)
        return;
    char ratio[16] = "-";
    if (measured > 0.0 && datasheet > 0.0)
        std::snprintf(ratio, sizeof ratio, "%.0f%%", 100.0 * measured / datasheet);
    char line[512];
    std::snprintf(line, sizeof line, "  %-12s %15s %15s %15s %8s", roof.c_str(),
                  rate(used, unit).c_str(), rate(measured, unit).c_str(),
                  rate(datasheet, unit).c_str(), ratio);
    out << line;
    if (details && m) {
        if (m->perSecond > 0.0) {
            out << "  " << m->kernel << ", " << m->shape;
            if (m->smClockHz > 0.0)
                if (m->smClockHz < 1e12) { // no cast of an absurd value from a damaged file
                    char mhz[32];
                    std::snprintf(mhz, sizeof mhz, "%.0f", m->smClockHz / 1e6);
                    out << ", SM clock " << mhz << " MHz";
                }
        } else if (!m->note.empty()) {
            out << "  " << m->note;
        }
    }
    out << '\n';
}

} // namespace

void printCeilings(const core::CeilingsChoice& choice, std::ostream& out, bool details) {
    const core::MeasuredCeilings* m = choice.measured ? &*choice.measured : nullptr;
    char line[256];
    std::snprintf(line, sizeof line, "  %-12s %15s %15s %15s %8s%s\n", "roof", "used", "measured",
                  "datasheet", "meas/ds", details ? "  how measured" : "");
    out << line;
    for (std::size_t k = 0; k < kFlopKindCount; ++k) {
        const std::string roof(toString(static_cast<FlopKind>(k)));
        const core::RoofMeasurement* r = m ? m->find(roof) : nullptr;
        row(out, roof, choice.used.flopsPerSecond[k], r ? r->perSecond : 0.0,
            choice.datasheet.flopsPerSecond[k], r, details);
    }
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l) {
        const std::string roof(toString(static_cast<MemoryLevel>(l)));
        const core::RoofMeasurement* r = m ? m->find(roof) : nullptr;
        row(out, roof, choice.used.bytesPerSecond[l], r ? r->perSecond : 0.0,
            choice.datasheet.bytesPerSecond[l], r, details);
    }
    if (m)
        if (const core::RoofMeasurement* shared = m->find("shared"))
            row(out, "shared", 0.0, shared->perSecond, 0.0, shared, details);
}

} // namespace roofline::report
