#pragma once
// A record's note: "; "-separated remarks, each once.
#include <string>

namespace roofline::collect {

inline void appendNote(std::string& note, const std::string& text) {
    if (!text.empty() && note.find(text) == std::string::npos)
        note += (note.empty() ? "" : "; ") + text;
}

} // namespace roofline::collect
