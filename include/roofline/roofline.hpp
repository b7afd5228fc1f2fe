#pragma once
/// \file roofline.hpp
/// libroofline: in-process hierarchical-roofline profiling of CUDA kernels.
///
///     #include <roofline/roofline.hpp>
///     roofline::Session session;
///     { roofline::ProfileScope scope{"solve"}; solve<<<grid, block>>>(...); }
///     roofline::printTable(session.stop(), std::cout);

#include <roofline/error.hpp>
#include <roofline/export.hpp>
#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>
#include <roofline/profile_scope.hpp>
#include <roofline/report.hpp>
#include <roofline/session.hpp>
#include <roofline/version.hpp>
