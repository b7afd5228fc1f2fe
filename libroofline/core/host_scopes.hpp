#pragma once
// Host scopes (include/roofline/host_scope.hpp) and the kernel records launched inside them.
#include <roofline/host_scope.hpp>
#include <roofline/kernel_record.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace roofline::core {

/// The path host scopes are aggregated under and records matched by: the names joined by '/',
/// the outermost one's instance number made uniform when it stands apart ("step 7/fwd" ->
/// "step #/fwd"), as records name their iteration scope.
std::string hostScopeKey(std::string_view path);
/// A record's key: hostScopeKey of its path as the scopes were named.
std::string hostScopeKey(const KernelRecord& record);

/// Adds each record's GPU time (gpu__time_duration; timeSeconds when it has none) and count to
/// every scope of `scopes` that contains it: the same key or a parent's, on the record's thread
/// (or any thread for process-wide scopes, threadId 0).
void attachKernelTime(std::vector<HostScope>& scopes, const std::vector<KernelRecord>& records);

} // namespace roofline::core
