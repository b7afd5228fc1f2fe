// With ROOFLINE_DISABLED, ProfileScope must compile to nothing: no state, no calls into the
// library (this file links no libroofline symbol for it).
#define ROOFLINE_DISABLED 1
#include <roofline/profile_scope.hpp>

#include <gtest/gtest.h>

#include <type_traits>

TEST(DisabledScope, IsAnEmptyTypeThatStillCompiles) {
    static_assert(std::is_empty_v<roofline::ProfileScope>);
    static_assert(!std::is_copy_constructible_v<roofline::ProfileScope>);
    static_assert(!std::is_move_constructible_v<roofline::ProfileScope>);
    static_assert(std::is_nothrow_constructible_v<roofline::ProfileScope, const char*>);
    roofline::ProfileScope scope{"compiled out"};
    (void)scope;
    SUCCEED();
}
