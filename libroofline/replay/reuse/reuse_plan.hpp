#pragma once
// Repeated launches measured less often (docs/design/0009-repeated-launches.md):
// launches with the same signature -- kernel, grid, block, dynamic shared memory, scope path with
// instance numbers made uniform ("Train step #/Layer #") and place within the innermost scope
// instance (its order there, or its phase in a block of launches repeated: repeats.hpp) -- are
// measured `samples` times (or
// as often as the iteration launches them, when less); the others take the mean of those
// measurements. ReusePlan chooses the windows of an iteration (positions [begin, end)) that
// iteration replay measures so that every signature gets its samples, and nothing else where it
// can: runs of launches whose signature has its samples are left out unless shorter than `maxGap`
// (a new window costs its passes' fixed cost; a launch inside one costs a range per pass). Pure
// logic: no CUDA, unit-tested in test/unit/reuse_plan_test.cpp.
#include "collect/launch_key.hpp"
#include "replay/window.hpp"

#include <roofline/kernel_record.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline::collect {

// A reuse signature is a launchKey (collect/launch_key.hpp) with the launch's uniform scope path
// and its label within its scope instance (ObservedIteration).

/// The longest of `windows` (launches), 0 for none.
std::size_t longestOf(const std::vector<Window>& windows);

class ReusePlan {
public:
    static constexpr std::uint32_t kNotMeasured = 0xffffffffu; ///< a position filters refuse

    ReusePlan(std::size_t samples, std::size_t maxGap) : samples_(samples), maxGap_(maxGap) {}
    /// Launches with their samples a window may hold between two it needs.
    std::size_t maxGap() const noexcept { return maxGap_; }

    /// Interns a signature: its id. `family`: the signature without the grid (launches whose
    /// grid depends on the data form one family).
    std::uint32_t id(const std::string& signature, const std::string& family = {});
    /// The id of an interned signature; kNotMeasured when it is new.
    std::uint32_t find(const std::string& signature) const;
    /// Some signature of `id`'s family has samples (a data-dependent launch seen before with
    /// another grid): a later iteration need not start a cycle for it alone.
    bool familyMeasured(std::uint32_t id) const;
    /// `id`'s family (kNotMeasured for kNotMeasured).
    std::uint32_t family(std::uint32_t id) const;
    /// Shares the signatures of `iteration` without samples and without an owner among `count`
    /// data-parallel ranks: in the order of their first launch, rank 0 takes the longest run
    /// whose windows (next() from the start, at most `capacity` long) number no more than
    /// 1/count of those one rank alone would measure (rounded up), rank 1 the next run, and so
    /// on; the last takes the rest. A signature whose family has an owner already (the same
    /// kernel, block and place with another grid) is that rank's. Signatures another rank owns
    /// count as measured here: next() leaves them out, familyMeasured() is true. Every rank
    /// sharing the same iteration chooses the same owners.
    void share(const std::vector<std::uint32_t>& iteration, std::uint32_t index,
               std::uint32_t count, std::size_t capacity);
    /// The rank that measures signature `id` (or, before share() has seen it, its family) when
    /// it is not this one; -1: this rank (or no sharing).
    int foreignOwner(std::uint32_t id) const noexcept;
    /// Signatures interned so far.
    std::size_t signatures() const noexcept { return ids_.size(); }

    /// Signature `id`'s samples did different work: from now on its launches are told apart --
    /// first by the place of their scope instance in its parent (refined()), then, for a refined
    /// signature split again, by their position in the iteration (positional()).
    void split(std::uint32_t id);
    bool isSplit(std::uint32_t id) const noexcept { return id < split_.size() && split_[id]; }
    /// The signature of split signature `id`'s launches whose scope instance has place
    /// `parentPlace` in its parent instance (interned once, in `id`'s family).
    std::uint32_t refined(std::uint32_t id, const std::string& parentPlace);
    /// The signature of split signature `id`'s launch at `position` of the iteration.
    std::uint32_t positional(std::uint32_t id, std::size_t position);
    /// What a split signature's launch becomes: its refined signature (when `id` is not refined
    /// yet and its scope instance has a parent) or its positional one, and so on while that is
    /// split too. Positional signatures are never split.
    std::uint32_t resolve(std::uint32_t id, std::size_t position, const std::string& parentPlace);
    bool isPositional(std::uint32_t id) const noexcept {
        return id < kind_.size() && kind_[id] == Kind::Positional;
    }
    /// Moves the samples of signature `id` to the signatures `to(launch)` gives them.
    template <typename To> void moveSamples(std::uint32_t id, To&& to);
    /// Samples measured so far for signature `id`.
    std::size_t sampleCount(std::uint32_t id) const;
    /// A measured launch of signature `id` (its launch index) completed with values.
    void addSample(std::uint32_t id, std::size_t launch);
    const std::vector<std::size_t>& samples(std::uint32_t id) const;

    /// The next window of `iteration` (signature ids per position; kNotMeasured: never
    /// measured) at or after `from`, at most `capacity` long, or nothing when every signature
    /// from there on has its samples (counting the positions the window itself measures). A
    /// window ends before a run of more than `gap` launches it need not measure (0: maxGap()).
    std::optional<Window> next(const std::vector<std::uint32_t>& iteration, std::size_t from,
                               std::size_t capacity, std::size_t gap = 0) const;

    /// The windows next() would give from the start of `iteration`, window after window, if each
    /// measured what it holds; the first one holds up to `firstCapacity` launches (0: capacity).
    std::vector<Window> plannedWindows(const std::vector<std::uint32_t>& iteration,
                                       std::size_t capacity, std::size_t firstCapacity = 0,
                                       std::size_t gap = 0) const;
    /// The longest of them (what a cycle's counter-data image must hold).
    std::size_t longestWindow(const std::vector<std::uint32_t>& iteration,
                              std::size_t capacity) const;

private:
    /// `only` (when given, per id): the signatures to measure, instead of those this rank owns.
    std::optional<Window> next(const std::vector<std::uint32_t>& iteration, std::size_t from,
                               std::size_t capacity, std::map<std::uint32_t, std::size_t>& planned,
                               const std::vector<char>* only = nullptr,
                               std::size_t gap = 0) const;
    /// The windows next() gives from the start of `iteration` for the signatures `only` marks.
    std::size_t windows(const std::vector<std::uint32_t>& iteration, std::size_t capacity,
                        const std::vector<char>& only) const;

    std::size_t samples_, maxGap_;
    std::map<std::string, std::uint32_t> ids_;
    std::vector<const std::string*> text_; // per id: its signature text (a key of ids_)
    std::vector<bool> split_;              // per id: split()
    enum class Kind : std::uint8_t { Plain, Refined, Positional };
    std::vector<Kind> kind_; // per id: how it was made
    std::uint32_t derived(std::uint32_t id, const std::string& suffix, Kind kind);
    std::vector<std::string> familyText_;             // per family: its text
    std::vector<std::vector<std::size_t>> samplesOf_; // per id: launch indices
    std::map<std::string, std::uint32_t> families_;
    std::vector<std::uint32_t> familyOf_;    // per id
    std::vector<std::size_t> familySamples_; // per family
    static constexpr int kOwnedHere = -1, kUnshared = -2;
    std::vector<int> ownerOf_; // per id: kOwnedHere, the owning rank, or kUnshared (not yet)
    std::map<std::uint32_t, int> familyOwner_; // per family with an owner: as ownerOf_
};

template <typename To> void ReusePlan::moveSamples(std::uint32_t id, To&& to) {
    if (id >= samplesOf_.size())
        return;
    std::vector<std::size_t> moved;
    moved.swap(samplesOf_[id]);
    familySamples_[familyOf_[id]] -= moved.size();
    for (std::size_t launch : moved)
        if (const std::uint32_t target = to(launch); target != kNotMeasured)
            addSample(target, launch);
}

} // namespace roofline::collect
