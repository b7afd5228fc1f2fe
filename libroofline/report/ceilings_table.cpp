#include "report/ceilings_table.hpp"

#include "core/roofline_model.hpp"

#include <cstdio>
#include <ostream>
#include <string>

namespace roofline::report {
namespace {

// The value in units of 1e12 (TFLOP/s, TOP/s, TB/s), "-" when unknown.
// (The warp-issue ceiling, near 1e12 instructions per second, with three decimals.)
std::string rate(double value, int decimals = 1) {
    if (!(value > 0.0))
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value / 1e12);
    return buf;
}

struct RoofRow {
    std::string roof;
    double used = 0, measured = 0, device = 0, datasheet = 0;
    RoofSource source = RoofSource::None;
    const core::RoofMeasurement* m = nullptr;
};

void row(std::ostream& out, const RoofRow& r, bool details) {
    const char* unit = core::roofUnit(r.roof);
    if (r.used <= 0.0 && r.measured <= 0.0 && r.device <= 0.0 && r.datasheet <= 0.0 && !r.m)
        return;
    char line[512];
    const int d = r.roof == core::kWarpIssueRoof ? 3 : 1;
    std::snprintf(line, sizeof line, "  %-12s %-7s %9s  %-11s %9s %11s %9s", r.roof.c_str(), unit,
                  rate(r.used, d).c_str(), toString(r.source), rate(r.measured, d).c_str(),
                  rate(r.device, d).c_str(), rate(r.datasheet, d).c_str());
    out << line;
    const core::RoofMeasurement* m = r.m;
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
    std::snprintf(line, sizeof line, "  %-12s %-7s %9s  %-11s %9s %11s %9s%s\n", "roof", "unit",
                  "used", "from", "measured", "device peak", "datasheet",
                  details ? "  how measured" : "");
    out << line;
    for (core::RoofRef roof : core::allRoofs()) {
        RoofRow r;
        r.roof = core::roofName(roof);
        r.m = m ? m->find(r.roof) : nullptr;
        r.used = core::rateOf(choice.used, roof);
        r.source = core::sourceOf(choice.used, roof);
        r.measured = r.m ? r.m->perSecond : 0.0;
        r.device = core::rateOf(choice.device, roof);
        r.datasheet = core::rateOf(choice.datasheet, roof);
        row(out, r, details);
    }
    {
        RoofRow r;
        r.roof = std::string(core::kWarpIssueRoof);
        r.m = m ? m->find(r.roof) : nullptr;
        r.used = choice.used.warpInstructionsPerSecond;
        r.source = choice.used.warpIssueSource;
        r.measured = r.m ? r.m->perSecond : 0.0;
        r.device = choice.device.warpInstructionsPerSecond;
        r.datasheet = choice.datasheet.warpInstructionsPerSecond;
        row(out, r, details);
    }
    if (m)
        if (const core::RoofMeasurement* shared = m->find("shared")) {
            RoofRow r;
            r.roof = "shared";
            r.m = shared;
            r.measured = shared->perSecond;
            row(out, r, details);
        }
}

} // namespace roofline::report
