#pragma once
/// \file cases.hpp
/// roofline-conv's results as SEER data set rows (roofline-conv --seer-csv): one row per
/// verified, passed case SEER can describe, with its engine, time and its kernels' counters.
/// Pure C++.
#include "seer/dataset.hpp"
#include "workloads/case_result.hpp"
#include "workloads/conv_case.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace roofline::seer {

/// The rows of the cases that passed verification and have a SEER description; `skipped` (when
/// given) counts the others by reason ("not verified", "no SEER form", "<status>").
std::vector<SeerRow> rowsFromCases(const std::vector<workloads::CaseResult>& cases,
                                   std::map<std::string, std::size_t>* skipped = nullptr);

/// Writes `kept` (the rows of a data set being resumed), then rowsFromCases(cases), to `path`
/// (atomically; throws roofline::Error(Io)); returns the number of rows added.
std::size_t writeSeerCsv(const std::vector<workloads::CaseResult>& cases, const std::string& path,
                         const std::vector<SeerRow>& kept = {});

/// What identifies a case in a data set: its SEER configuration (canonical), pass and precision.
/// "" for a case SEER cannot describe.
std::string resumeKey(const workloads::ConvCase& c);
std::string resumeKey(const SeerRow& row);

/// The cases of `cases` the data set `rows` has no row for, in order: what a resumed sweep still
/// has to run. A case without a SEER form always runs. A configuration whose engines all failed
/// has no row either, so it runs again.
std::vector<workloads::ConvCase> casesNotIn(const std::vector<workloads::ConvCase>& cases,
                                            const std::vector<SeerRow>& rows);

} // namespace roofline::seer
