#include "replay/reuse/observed_iteration.hpp"

namespace roofline::collect {

std::uint32_t ObservedIteration::intern(std::map<std::string, std::uint32_t>& ids,
                                        std::vector<const std::string*>& texts,
                                        const std::string& text) {
    const auto [it, added] = ids.emplace(text, static_cast<std::uint32_t>(texts.size()));
    if (added)
        texts.push_back(&it->first); // map nodes do not move
    return it->second;
}

std::uint32_t ObservedIteration::scope(const std::string& uniformScope) {
    return intern(scopes_, scopeText_, uniformScope);
}

std::size_t ObservedIteration::ShapeHash::operator()(const Shape& s) const noexcept {
    std::uint64_t h = reinterpret_cast<std::uintptr_t>(s.name) * 0x9e3779b97f4a7c15ull;
    for (std::uint32_t d : s.dims)
        h = (h ^ d) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
}

void ObservedIteration::add(const char* mangledName, Dim3 grid, Dim3 block,
                            std::uint32_t sharedMemBytes, std::uint32_t scope,
                            std::uint64_t instance, std::uint64_t parent, bool admitted) {
    const Shape shape{mangledName,
                      {grid.x, grid.y, grid.z, block.x, block.y, block.z, sharedMemBytes}};
    Launch l;
    const auto hit = byShape_.find(shape);
    // The name's address is only a hint (the driver may reuse it): its text decides.
    if (hit != byShape_.end() && keyName_[hit->second] == mangledName) {
        l.key = hit->second;
    } else {
        const std::size_t known = keyText_.size();
        l.key = intern(keys_, keyText_, launchKey(mangledName, grid, block, sharedMemBytes));
        if (l.key == known) { // a new key: its family and name
            familyOfKey_.push_back(
                intern(families_, familyText_, familyKey(mangledName, block, sharedMemBytes)));
            keyName_.emplace_back(mangledName);
        }
        if (byShape_.size() >= 65536)
            byShape_.clear();
        byShape_[shape] = l.key;
    }
    l.scope = scope;
    l.instance = instance;
    l.parent = parent;
    l.admitted = admitted;
    launches_.push_back(l);
}

std::uint64_t ObservedIteration::shape(std::size_t position) const noexcept {
    if (position >= launches_.size())
        return ~std::uint64_t{0};
    const Launch& l = launches_[position];
    return (std::uint64_t{l.key} << 32) | l.scope;
}

std::vector<std::string> ObservedIteration::kernelNames() const {
    std::vector<bool> seen(keyName_.size(), false);
    std::vector<std::string> out;
    for (const Launch& l : launches_)
        if (l.admitted && l.key < seen.size() && !seen[l.key]) {
            seen[l.key] = true;
            out.push_back(keyName_[l.key]);
        }
    std::sort(out.begin(), out.end()); // a kernel of several launch configurations: once
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Each signature's text is built once: later iterations find it by key, scope and label.
std::uint32_t ObservedIteration::signature(ReusePlan& plan, const Launch& l,
                                           const std::string& label) {
    auto known = signatures_.find(std::make_tuple(l.key, l.scope, label));
    if (known != signatures_.end())
        return known->second;
    const std::string where = '|' + *scopeText_[l.scope] + '|' + label;
    const std::string text = *keyText_[l.key] + where;
    std::uint32_t id = plan.find(text);
    if (id == ReusePlan::kNotMeasured)
        id = plan.id(text, *familyText_[familyOfKey_[l.key]] + where);
    signatures_.emplace(std::make_tuple(l.key, l.scope, label), id);
    return id;
}

std::uint32_t ObservedIteration::signatureAt(ReusePlan& plan, std::size_t position,
                                             const std::string& label) {
    return position < launches_.size() ? signature(plan, launches_[position], label)
                                       : ReusePlan::kNotMeasured;
}

namespace {
std::uint64_t hashOf(const std::vector<std::uint32_t>& keys) {
    std::uint64_t h = 14695981039346656037ull; // FNV-1a over the keys' bytes
    for (std::uint32_t k : keys)
        for (int b = 0; b < 4; ++b) {
            h ^= (k >> (8 * b)) & 0xffu;
            h *= 1099511628211ull;
        }
    return h ^ keys.size();
}

// Each of `repeats` describes a repeat of `keys`.
bool holds(const std::vector<Repeat>& repeats, const std::vector<std::uint32_t>& keys) {
    for (const Repeat& r : repeats) {
        if (r.end() > keys.size())
            return false;
        for (std::size_t i = r.start; i + r.period < r.end(); ++i)
            if (keys[i] != keys[i + r.period])
                return false;
    }
    return true;
}
} // namespace

void ObservedIteration::assign(ReusePlan& plan, std::vector<std::uint32_t>& signatures,
                               std::vector<std::uint32_t>& families,
                               std::vector<std::string>& labels) {
    // Each scope instance's launches in order, then its repeated blocks.
    std::map<std::uint64_t, std::vector<std::size_t>> byInstance;
    for (std::size_t p = 0; p < launches_.size(); ++p)
        byInstance[launches_[p].instance].push_back(p);
    labels.assign(launches_.size(), std::string());
    for (const auto& [instance, positions] : byInstance) {
        std::vector<std::uint32_t> keys;
        keys.reserve(positions.size());
        for (std::size_t p : positions)
            keys.push_back(launches_[p].key);
        const std::uint64_t h = hashOf(keys);
        auto known = repeats_.find(h);
        if (known == repeats_.end() || !holds(known->second, keys)) { // holds(): a collision
            if (repeats_.size() >= 1024)
                repeats_.clear();
            known = repeats_.insert_or_assign(h, findRepeats(keys)).first;
        }
        const std::vector<Repeat>& r = known->second;
        for (std::size_t i = 0; i < positions.size(); ++i)
            labels[positions[i]] = phaseLabel(r, i);
    }
    signatures.assign(launches_.size(), ReusePlan::kNotMeasured);
    families.assign(launches_.size(), ReusePlan::kNotMeasured);
    for (std::size_t p = 0; p < launches_.size(); ++p) {
        // Every launch has its family (an iteration the filters admit looks like the ones
        // around it); only admitted ones get a signature to measure.
        const Launch& l = launches_[p];
        const std::uint32_t id = signature(plan, l, labels[p]);
        families[p] = plan.family(id);
        if (l.admitted)
            signatures[p] = id;
    }
}

std::vector<std::string> ObservedIteration::parentPlaces() const {
    // What each instance holds, in order: its own launches and its child instances, one unit
    // each (a child by its first launch, told apart by its scope and launch keys).
    std::map<std::uint64_t, std::vector<std::uint64_t>> children; // parent -> child instances
    std::map<std::uint64_t, std::vector<std::uint32_t>> keysOf;   // instance -> its launch keys
    std::map<std::uint64_t, std::uint32_t> scopeOf;
    for (const Launch& l : launches_) {
        auto& keys = keysOf[l.instance];
        if (keys.empty() && l.parent != 0)
            children[l.parent].push_back(l.instance);
        keys.push_back(l.key);
        scopeOf.emplace(l.instance, l.scope);
    }
    std::map<std::uint64_t, std::string> placeOf; // child instance -> its place in its parent
    for (const auto& [parent, kids] : children) {
        // The parent's units in order: its own launches and its children, by first launch.
        std::vector<std::uint32_t> tokens;
        std::vector<std::uint64_t> unitOf; // per token: the child instance, 0 for a launch
        std::map<std::uint64_t, bool> started;
        std::map<std::vector<std::uint32_t>, std::uint32_t> unitIds;
        for (const Launch& l : launches_) {
            if (l.instance == parent) {
                tokens.push_back(l.key);
                unitOf.push_back(0);
            } else if (l.parent == parent && !started[l.instance]) {
                started[l.instance] = true;
                std::vector<std::uint32_t> unit{scopeOf[l.instance]};
                const auto& keys = keysOf[l.instance];
                unit.insert(unit.end(), keys.begin(), keys.end());
                // Units are numbered apart from launch keys (high bit set).
                const auto id =
                    unitIds.emplace(unit, 0x80000000u | static_cast<std::uint32_t>(unitIds.size()))
                        .first->second;
                tokens.push_back(id);
                unitOf.push_back(l.instance);
            }
        }
        const Repeat r = findRepeat(tokens);
        for (std::size_t i = 0; i < tokens.size(); ++i)
            if (unitOf[i] != 0)
                placeOf[unitOf[i]] = phaseLabel(r, i);
    }
    std::vector<std::string> out(launches_.size());
    for (std::size_t p = 0; p < launches_.size(); ++p)
        if (const auto it = placeOf.find(launches_[p].instance); it != placeOf.end())
            out[p] = it->second;
    return out;
}

} // namespace roofline::collect
