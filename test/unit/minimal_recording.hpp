#pragma once
// A recording with the least a reader accepts (no launches), for round trips of its optional
// objects.
#include "core/recording.hpp"

namespace roofline::test {

inline core::Recording minimalRecording() {
    core::Recording rec;
    rec.libraryVersion = "test";
    rec.createdUtc = "2026-11-23T00:00:00Z";
    rec.mode = "kernel-replay";
    rec.chip = "GH100";
    rec.metrics = {"sm__cycles_elapsed.avg"};
    rec.configImage = {1, 2, 3};
    return rec;
}

} // namespace roofline::test
