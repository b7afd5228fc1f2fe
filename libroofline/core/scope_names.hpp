#pragma once
// Iteration scopes whose names carry the instance ("Train step 35", "step_7", "iter#3"): the
// instance part made uniform ("Train step #") so that every iteration's kernels share one scope
// path, and the instance number kept apart. Only the iteration scope is made uniform: "Layer 3"
// and "Layer 4" inside it are different layers and stay distinct.
#include <cstdint>
#include <string>

namespace roofline::core {

/// `name` with its trailing decimal number replaced by '#'; unchanged when it has none.
std::string uniformInstance(const std::string& name);
/// The trailing decimal number of `name`; -1 when it has none (or it does not fit).
std::int64_t instanceNumber(const std::string& name);
/// Whether the trailing number of `name` stands apart from the word before it ("Train step 35",
/// "step_7", "iter#3", "epoch=2"), the way iteration counters are written; "eng0", "conv2" and
/// "c3.seer17" are identifiers, not instances. Used to guess iteration scopes when none is
/// configured.
bool separatedInstance(const std::string& name);
/// Whether scope `name` is an instance of the iteration scope `pattern`: the same name, the same
/// name with an instance number after it ("Train step" matches "Train step 35"), or the uniform
/// form ("Train step #" matches "Train step 35").
bool isInstanceOf(const std::string& name, const std::string& pattern);

} // namespace roofline::core
