#pragma once
/// \file cases.hpp
/// roofline-conv's results as SEER data set rows (roofline-conv --seer-csv): one row per
/// verified, passed case SEER can describe, with its engine, time and its kernels' counters.
/// Pure C++.
#include "seer/dataset.hpp"
#include "workloads/case_result.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace roofline::seer {

/// The rows of the cases that passed verification and have a SEER description; `skipped` (when
/// given) counts the others by reason ("not verified", "no SEER form", "<status>").
std::vector<SeerRow> rowsFromCases(const std::vector<workloads::CaseResult>& cases,
                                   std::map<std::string, std::size_t>* skipped = nullptr);

/// Writes rowsFromCases(cases) to `path` (atomically; throws roofline::Error(Io)); returns the
/// number of rows.
std::size_t writeSeerCsv(const std::vector<workloads::CaseResult>& cases, const std::string& path);

} // namespace roofline::seer
