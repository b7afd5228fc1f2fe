#pragma once
// Repeated launches (docs/design/0009): the launches of one iteration as reuse sees them, and
// their signatures. A launch's signature is its launch key (kernel, grid, block, dynamic shared
// memory), its scope path with instance numbers made uniform, and its place in its innermost
// scope instance: its index there, or -- inside a block of launches the instance repeats back to
// back (a backward pass of identical layers in one range, and its forward's: repeats.hpp) -- its
// phase in the block.
// The place is known only once the instance is complete, so signatures are assigned at the end of
// the iteration. Pure logic: no CUDA, unit-tested in test/unit/observed_iteration_test.cpp.
#include "replay/reuse/repeats.hpp"
#include "replay/reuse/reuse_plan.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace roofline::collect {

class ObservedIteration {
public:
    /// A new iteration (what was interned stays).
    void clear() { launches_.clear(); }
    /// Interns a uniform scope path (a caller keeps the id for a scope instance's launches).
    std::uint32_t scope(const std::string& uniformScope);
    /// The next launch of the iteration, in scope `scope` (an id from scope()). `instance`: its
    /// innermost scope instance (any number unique to it; 0: outside every scope); `parent`: the
    /// instance that one is in (0: none); `admitted`: the filters admit it (others have no
    /// signature but keep their place). The hot path: a launch seen before costs a hash lookup
    /// and a name comparison, no string is built.
    void add(const char* mangledName, Dim3 grid, Dim3 block, std::uint32_t sharedMemBytes,
             std::uint32_t scope, std::uint64_t instance, std::uint64_t parent, bool admitted);
    std::size_t size() const noexcept { return launches_.size(); }
    /// The kernels (mangled names, each once) of the iteration's admitted launches.
    std::vector<std::string> kernelNames() const;
    /// Kernel, launch configuration and scope of launch `position` (equal: the same launch).
    std::uint64_t shape(std::size_t position) const noexcept;
    /// The launchKey (collect/launch_key.hpp) of launch `position`.
    const std::string& keyText(std::size_t position) const {
        return *keyText_[launches_.at(position).key];
    }

    /// Signature ids (interned in `plan`, which must be the same on every call; kNotMeasured for
    /// launches not admitted), their families (admitted or not) and labels (each launch's place in
    /// its scope instance), per position. Each scope instance's repeat is searched once per
    /// distinct launch sequence (a program repeats its iterations: later ones cost a hash of their
    /// launches), and each signature's text is built once.
    void assign(ReusePlan& plan, std::vector<std::uint32_t>& signatures,
                std::vector<std::uint32_t>& families, std::vector<std::string>& labels);
    /// Each launch's *parent place*: the place of its innermost scope instance among what its
    /// parent instance holds -- its own launches and its child instances, each a unit, labelled
    /// as places are (phases of a block the parent repeats). "" outside a parent. Launches that
    /// each sit alone in a scope instance of their own (a `matmul` range per call) differ only
    /// here: what a split signature is told apart by first (ReusePlan::refined).
    std::vector<std::string> parentPlaces() const;

    /// The signature of the launch at `position` as if at place `label` of its scope instance
    /// (a launch that differs from the one at its position in the iteration a cycle refers to,
    /// by a data-dependent grid, takes the reference's place).
    std::uint32_t signatureAt(ReusePlan& plan, std::size_t position, const std::string& label);

private:
    struct Launch {
        std::uint32_t key = 0, scope = 0;
        std::uint64_t instance = 0, parent = 0;
        bool admitted = false;
    };
    // What a launch shows, with the name by address: the fast lookup of its key.
    struct Shape {
        const char* name;
        std::uint32_t dims[7];
        bool operator==(const Shape& o) const noexcept {
            return name == o.name && std::equal(std::begin(dims), std::end(dims), o.dims);
        }
    };
    struct ShapeHash {
        std::size_t operator()(const Shape& s) const noexcept;
    };
    std::uint32_t signature(ReusePlan& plan, const Launch& l, const std::string& label);
    std::uint32_t intern(std::map<std::string, std::uint32_t>& ids,
                         std::vector<const std::string*>& texts, const std::string& text);

    std::map<std::string, std::uint32_t> keys_, scopes_, families_;
    std::vector<const std::string*> keyText_, scopeText_, familyText_;
    std::vector<std::uint32_t> familyOfKey_;
    std::vector<std::string> keyName_;                            // per key: its mangled name
    std::unordered_map<Shape, std::uint32_t, ShapeHash> byShape_; // -> key (bounded)
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::string>, std::uint32_t> signatures_;
    std::vector<Launch> launches_;
    std::map<std::uint64_t, std::vector<Repeat>> repeats_; // by hash of a launch sequence (bounded)
};

} // namespace roofline::collect
