#pragma once
// Two ways to call CUPTI/CUDA: setup code throws roofline::Error (with the raw status, the call's
// text, file and line, and the fix where we know it); teardown code logs and returns the status.
#include <cupti_result.h>

namespace roofline::cupti {
[[noreturn]] void throwCupti(CUptiResult status, const char* call, const char* file, int line);
CUptiResult logCupti(CUptiResult status, const char* call, const char* file, int line) noexcept;
[[noreturn]] void throwCuda(int status, const char* call, const char* file, int line);
} // namespace roofline::cupti

#define ROOFLINE_CUPTI_CHECK(call)                                                                 \
    do {                                                                                           \
        const CUptiResult roofline_status_ = (call);                                               \
        if (roofline_status_ != CUPTI_SUCCESS)                                                     \
            ::roofline::cupti::throwCupti(roofline_status_, #call, __FILE__, __LINE__);            \
    } while (0)

#define ROOFLINE_CUPTI_LOG(call) ::roofline::cupti::logCupti((call), #call, __FILE__, __LINE__)

#define ROOFLINE_CU_CHECK(call)                                                                    \
    do {                                                                                           \
        const CUresult roofline_status_ = (call);                                                  \
        if (roofline_status_ != CUDA_SUCCESS)                                                      \
            ::roofline::cupti::throwCuda(static_cast<int>(roofline_status_), #call, __FILE__,      \
                                         __LINE__);                                                \
    } while (0)
