#pragma once
// Kernel names cut to a table's column without losing what tells kernels apart: the functor of
// a generic kernel (`vectorized_elementwise_kernel[FillFunctor]`), the tile and layout of a
// library GEMM (`nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NTT`), the pass of a generated kernel
// (`cudnn_..._flash_bprop_...`). A cut is marked with "..".
#include <cstddef>
#include <string>
#include <vector>

namespace roofline::report {

/// `name` in at most `width` characters (at least 8). `family`: the other names shown with it,
/// whose differences decide which underscore-separated parts of a library kernel's name stay.
std::string abbreviateName(const std::string& name, std::size_t width,
                           const std::vector<std::string>& family = {});

/// Each of `names` abbreviated to `width`, distinct where `identities` differ: a pair that
/// still reads alike is cut around where the full names first differ.
std::vector<std::string> abbreviateNames(const std::vector<std::string>& names,
                                         const std::vector<std::string>& identities,
                                         std::size_t width);

} // namespace roofline::report
