#pragma once
// A record's note: "; "-separated remarks, each once.
#include <string>

namespace roofline::collect {

inline void appendNote(std::string& note, const std::string& text) {
    if (!text.empty() && note.find(text) == std::string::npos)
        note += (note.empty() ? "" : "; ") + text;
}

/// How the note of a launch outside every step that no window measured, and that took no
/// counters from the step, begins (replay/outside_records; the exit line counts them apart).
inline constexpr const char* kRanOutsideNoCounters = "no counters: ran outside every step";

} // namespace roofline::collect
