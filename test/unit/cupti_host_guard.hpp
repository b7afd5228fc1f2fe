#pragma once
// Tests that call CUPTI's host API (metric validation, pass counts, evaluation of counter-data
// images) cannot run under AddressSanitizer: CUPTI loads libnvperf_host.so with RTLD_DEEPBIND,
// which the sanitizer runtime refuses. They run in the ordinary build; the sanitized build
// (ROOFLINE_SANITIZE, test/run.sh) skips them with this reason.
#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__)
#define ROOFLINE_NEEDS_CUPTI_HOST()                                                                \
    GTEST_SKIP() << "CUPTI's host API loads libnvperf_host.so with RTLD_DEEPBIND, which "          \
                    "AddressSanitizer cannot run; the unsanitized build runs this test"
#else
#define ROOFLINE_NEEDS_CUPTI_HOST() static_cast<void>(0)
#endif
