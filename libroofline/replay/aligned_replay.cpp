#include "replay/aligned_replay.hpp"

#include <cmath>
#include <limits>

namespace roofline::collect {
std::vector<std::int64_t> alignLaunches(const std::vector<LaunchKey>& reference,
                                        const std::vector<LaunchKey>& pass, std::size_t lookAhead) {
    const std::size_t n = reference.size(), m = pass.size();
    std::vector<std::int64_t> match(n, -1);
    const auto same = [&](std::size_t i, std::size_t j) {
        return i < n && j < m && reference[i].name == pass[j].name;
    };
    // How well the sequences agree from (i, j) on: matching names over the next few launches.
    const auto agree = [&](std::size_t i, std::size_t j) {
        int score = 0;
        for (std::size_t k = 0; k < 4; ++k)
            score += same(i + k, j + k) ? 1 : 0;
        return score;
    };
    std::size_t i = 0, j = 0;
    while (i < n && j < m) {
        if (same(i, j)) {
            match[i++] = static_cast<std::int64_t>(j++);
            continue;
        }
        // Candidates: where both sequences resume, and how many reference launches each loses.
        struct Candidate {
            std::size_t i, j, lost, skipped;
        };
        Candidate best{i + 1, j + 1, 1, 1}; // one launch replaced by another
        int bestScore = agree(i + 1, j + 1);
        const auto consider = [&](Candidate c) {
            const int score = agree(c.i, c.j);
            if (score > bestScore ||
                (score == bestScore &&
                 (c.lost < best.lost || (c.lost == best.lost && c.skipped < best.skipped)))) {
                best = c;
                bestScore = score;
            }
        };
        for (std::size_t d = 1; d <= lookAhead && j + d < m; ++d)
            if (same(i, j + d)) { // pass inserted d launches
                consider({i, j + d, 0, d});
                break;
            }
        for (std::size_t d = 1; d <= lookAhead && i + d < n; ++d)
            if (same(i + d, j)) { // pass left out d launches
                consider({i + d, j, d, d});
                break;
            }
        i = best.i;
        j = best.j;
    }
    return match;
}

void AlignedGroup::reset() {
    reference_.clear();
    launches_.clear();
    open_.clear();
    configFirst_.clear();
    configPositions_.clear();
    referenceDone_ = false;
    tally_.reset();
}

void AlignedGroup::launch(LaunchKey key) {
    open_.push_back(std::move(key));
}

void AlignedGroup::endPass(std::size_t pass, bool firstOfConfiguration) {
    if (!referenceDone_) {
        reference_ = open_;
        launches_.assign(reference_.size(), Launch{});
        referenceDone_ = true;
    }
    if (firstOfConfiguration) {
        configFirst_ = std::move(open_);
        configPositions_.assign(configFirst_.size(), LaunchVerdict{});
        open_.clear();
        return;
    }
    // A later pass of a multi-pass configuration: CUPTI combines it with the configuration's
    // first pass by position.
    for (std::size_t j = 0; j < configFirst_.size(); ++j) {
        LaunchVerdict& p = configPositions_[j];
        if (p.verdict == Verdict::Unmatched)
            continue;
        if (j >= open_.size()) {
            p = {Verdict::Unmatched, "pass " + std::to_string(pass) + " ended after " +
                                         std::to_string(open_.size()) +
                                         " launches, before this one: its counters are "
                                         "incomplete, so it has none"};
        } else if (open_[j].name != configFirst_[j].name) {
            p = {Verdict::Unmatched,
                 "pass " + std::to_string(pass) + " ran " + launchText(open_[j]) +
                     " at this position (it combines its counters with the previous pass's by "
                     "position, as CUPTI does for a metric needing two passes): its counters "
                     "would combine two kernels, so it has none"};
        } else if (!core::sameConfiguration(open_[j], configFirst_[j])) {
            const std::string why = "pass " + std::to_string(pass) + " ran it as " +
                                    launchText(open_[j]) + " (values kept)";
            p.note = p.note.empty() ? why : p.note + "; " + why;
            p.verdict = Verdict::Differs;
        }
    }
    open_.clear();
}

void AlignedGroup::addConfiguration(std::size_t pass, const std::vector<RangeValues>& ranges) {
    std::vector<std::int64_t> match;
    if (pass == 0) {
        match.resize(reference_.size());
        for (std::size_t i = 0; i < match.size(); ++i)
            match[i] = static_cast<std::int64_t>(i);
    } else {
        match = alignLaunches(reference_, configFirst_);
    }
    const std::string p = "pass " + std::to_string(pass);
    for (std::size_t i = 0; i < launches_.size(); ++i) {
        const std::int64_t j = match[i];
        if (j < 0) {
            tally_.mark(
                launches_[i].result, Verdict::Unmatched,
                "iteration replay: " + p + " did not run " + launchText(reference_[i]) +
                    " here (aligned with pass 0 by kernel name; a launch was left out or "
                    "replaced): the metrics that pass collects are missing, so it has none");
            continue;
        }
        const auto at = static_cast<std::size_t>(j);
        if (at >= ranges.size()) {
            tally_.mark(launches_[i].result, Verdict::Unmatched,
                        "CUPTI recorded no range for it in " + p + " (dropped): it has no values");
            continue;
        }
        if (at < configPositions_.size() && configPositions_[at].verdict != Verdict::Clean)
            tally_.mark(launches_[i].result, configPositions_[at].verdict,
                        "iteration replay: " + configPositions_[at].note);
        if (launches_[i].result.verdict == Verdict::Unmatched)
            continue;
        const RangeValues& r = ranges[at];
        std::vector<double>& values = launches_[i].values;
        if (values.empty())
            values.assign(r.values.size(), std::numeric_limits<double>::quiet_NaN());
        for (std::size_t m = 0; m < r.values.size() && m < values.size(); ++m)
            if (!std::isnan(r.values[m]))
                values[m] = r.values[m];
        const LaunchKey& k = configFirst_.empty() ? reference_[i] : configFirst_[at];
        if (!core::sameConfiguration(k, reference_[i]))
            tally_.mark(launches_[i].result, Verdict::Differs,
                        "launch configuration differs between passes: " + p + " ran it as " +
                            launchText(k) + ", pass 0 as " + launchText(reference_[i]) +
                            " (values kept; " + p + "'s metrics come from that launch)");
    }
}

AlignedGroup::Verdict AlignedGroup::verdict(std::size_t at) const noexcept {
    return at < launches_.size() ? launches_[at].result.verdict : Verdict::Unmatched;
}

const std::string& AlignedGroup::note(std::size_t at) const noexcept {
    static const std::string kNone;
    return at < launches_.size() ? launches_[at].result.note : kNone;
}

std::vector<double> AlignedGroup::takeValues(std::size_t at) {
    return at < launches_.size() ? std::move(launches_[at].values) : std::vector<double>{};
}

} // namespace roofline::collect
