#include "replay/replay_check.hpp"

namespace roofline::collect {
void VerdictTally::reset() {
    issues_ = unmatched_ = 0;
    first_.clear();
}

void VerdictTally::note(const std::string& why) {
    if (first_.empty())
        first_ = why;
}

void VerdictTally::mark(LaunchVerdict& l, ReplayVerdict v, const std::string& why) {
    if (l.verdict == ReplayVerdict::Clean)
        ++issues_;
    if (v == ReplayVerdict::Unmatched && l.verdict != ReplayVerdict::Unmatched) {
        ++unmatched_;
        l.verdict = ReplayVerdict::Unmatched;
        l.note = why; // the values go: what differed before no longer matters
    } else if (l.verdict == ReplayVerdict::Differs && v == ReplayVerdict::Differs) {
        l.note += "; " + why;
    } else if (l.verdict == ReplayVerdict::Clean) {
        l.verdict = v;
        l.note = why;
    }
    note(why);
}

void ReplayCheck::reset() {
    expected_.clear();
    tally_.reset();
    shiftedPass_ = 0;
    shiftedFrom_ = 0;
}

void ReplayCheck::expect(LaunchKey key) {
    expected_.push_back(Position{std::move(key), {}});
}

void ReplayCheck::check(std::size_t pass, std::size_t at, const LaunchKey& key) {
    const std::string where = "iteration replay mismatch: pass " + std::to_string(pass) +
                              " launch " + std::to_string(at) + " is " + launchText(key);
    if (at >= expected_.size()) {
        // No record of its own; it only says the pass went out of step.
        tally_.note(where + " where pass 0 launched nothing");
        return;
    }
    Position& p = expected_[at];
    if (p.key.name != key.name) {
        if (shiftedPass_ != pass) {
            shiftedPass_ = pass;
            shiftedFrom_ = at;
        }
        tally_.mark(p.result, Verdict::Unmatched,
                    where + " where pass 0 launched " + launchText(p.key) +
                        ": its counters would combine two kernels, so it has none" +
                        (at > shiftedFrom_
                             ? " (pass " + std::to_string(pass) + " went out of step at launch " +
                                   std::to_string(shiftedFrom_) +
                                   ": a launch was inserted or left out there)"
                             : std::string()));
        return;
    }
    if (!core::sameConfiguration(p.key, key))
        tally_.mark(p.result, Verdict::Differs,
                    "launch configuration differs between passes: pass " + std::to_string(pass) +
                        " ran it as " + launchText(key) + ", pass 0 as " + launchText(p.key) +
                        " (values kept; pass " + std::to_string(pass) +
                        "'s metrics come from that launch)");
}

void ReplayCheck::endPass(std::size_t pass, std::size_t launches) {
    for (std::size_t at = launches; at < expected_.size(); ++at)
        tally_.mark(expected_[at].result, Verdict::Unmatched,
                    "iteration replay mismatch: pass " + std::to_string(pass) + " ended after " +
                        std::to_string(launches) + " launches, so nothing ran at launch " +
                        std::to_string(at) + " (pass 0: " + launchText(expected_[at].key) +
                        "); its counters are incomplete, so it has none");
}

ReplayCheck::Verdict ReplayCheck::verdict(std::size_t at) const noexcept {
    return at < expected_.size() ? expected_[at].result.verdict : Verdict::Clean;
}

const std::string& ReplayCheck::note(std::size_t at) const noexcept {
    static const std::string kNone;
    return at < expected_.size() ? expected_[at].result.note : kNone;
}

} // namespace roofline::collect
