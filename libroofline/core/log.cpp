#include "core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>

namespace roofline::core {

spdlog::logger& log() noexcept {
    // Never registered globally: the host application's own spdlog setup stays untouched.
    static spdlog::logger* logger = [] {
        auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
        auto* l = new spdlog::logger("roofline", std::move(sink)); // lives until exit, by design
        l->set_pattern("[roofline %^%l%$] %v");
        const char* level = std::getenv("ROOFLINE_LOG_LEVEL");
        l->set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
        return l;
    }();
    return *logger;
}

} // namespace roofline::core
