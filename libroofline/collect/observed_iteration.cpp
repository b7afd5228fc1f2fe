#include "collect/observed_iteration.hpp"

namespace roofline::collect {

std::uint32_t ObservedIteration::intern(std::map<std::string, std::uint32_t>& ids,
                                        std::vector<const std::string*>& texts,
                                        const std::string& text) {
    const auto [it, added] = ids.emplace(text, static_cast<std::uint32_t>(texts.size()));
    if (added)
        texts.push_back(&it->first); // map nodes do not move
    return it->second;
}

void ObservedIteration::add(const std::string& launchKey, const std::string& familyKey,
                            const std::string& uniformScope, std::uint64_t instance,
                            bool admitted) {
    Launch l;
    const std::size_t known = keyText_.size();
    l.key = intern(keys_, keyText_, launchKey);
    if (l.key == known) // a new key: its family
        familyOfKey_.push_back(intern(families_, familyText_, familyKey));
    l.scope = intern(scopes_, scopeText_, uniformScope);
    l.instance = instance;
    l.admitted = admitted;
    launches_.push_back(l);
}

std::uint64_t ObservedIteration::shape(std::size_t position) const noexcept {
    if (position >= launches_.size())
        return ~std::uint64_t{0};
    const Launch& l = launches_[position];
    return (std::uint64_t{l.key} << 32) | l.scope;
}

std::uint32_t ObservedIteration::signature(ReusePlan& plan, const std::string& launchKey,
                                           const std::string& familyKey,
                                           const std::string& uniformScope,
                                           const std::string& label) {
    const std::string where = '|' + uniformScope + '|' + label;
    const std::string signature = launchKey + where;
    const std::uint32_t id = plan.find(signature);
    return id != ReusePlan::kNotMeasured ? id : plan.id(signature, familyKey + where);
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

// `r` describes a repeat of `keys` (or none).
bool holds(const Repeat& r, const std::vector<std::uint32_t>& keys) {
    if (r.period == 0)
        return true;
    if (r.end() > keys.size())
        return false;
    for (std::size_t i = r.start; i + r.period < r.end(); ++i)
        if (keys[i] != keys[i + r.period])
            return false;
    return true;
}
} // namespace

void ObservedIteration::assign(ReusePlan& plan, std::vector<std::uint32_t>& signatures,
                               std::vector<std::uint32_t>& families,
                               std::vector<std::string>& labels) {
    // Each scope instance's launches in order, then its repeat.
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
            known = repeats_.insert_or_assign(h, findRepeat(keys)).first;
        }
        const Repeat r = known->second;
        for (std::size_t i = 0; i < positions.size(); ++i)
            labels[positions[i]] = phaseLabel(r, i);
    }
    signatures.assign(launches_.size(), ReusePlan::kNotMeasured);
    families.assign(launches_.size(), ReusePlan::kNotMeasured);
    for (std::size_t p = 0; p < launches_.size(); ++p) {
        const Launch& l = launches_[p];
        if (!l.admitted)
            continue;
        signatures[p] = signature(plan, *keyText_[l.key], *familyText_[familyOfKey_[l.key]],
                                  *scopeText_[l.scope], labels[p]);
        families[p] = plan.family(signatures[p]);
    }
}

} // namespace roofline::collect
