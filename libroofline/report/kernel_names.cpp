#include "report/kernel_names.hpp"
#include "report/operator_names.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace roofline::report {
namespace {

// The cut mark: two dots (the table's '~' after an id flags a replay pass, not a cut).
const std::string kCut = "..";
constexpr std::size_t kCutSize = 2;

std::vector<std::string> splitUnderscores(const std::string& s) {
    std::vector<std::string> parts;
    std::size_t at = 0;
    while (true) {
        const std::size_t next = s.find('_', at);
        parts.push_back(s.substr(at, next == std::string::npos ? std::string::npos : next - at));
        if (next == std::string::npos)
            return parts;
        at = next + 1;
    }
}

// A tile or shape: digits 'x' digits ("128x64", "64x64x64", "1x2").
bool isTile(const std::string& t) {
    const std::size_t x = t.find('x');
    return x != std::string::npos && x > 0 && x + 1 < t.size() &&
           std::isdigit(static_cast<unsigned char>(t[x - 1])) &&
           std::isdigit(static_cast<unsigned char>(t[x + 1]));
}

// `s` cut at its end to `width` with the cut mark.
std::string cutEnd(const std::string& s, std::size_t width) {
    if (s.size() <= width)
        return s;
    return width <= kCutSize ? s.substr(0, width) : s.substr(0, width - kCutSize) + kCut;
}

// A plain identifier shortened: a trailing "_kernel" dropped, its longest underscore-separated
// words shrunk down to 4 letters each, then the words that no longer fit left out at the end:
// "vectorized_elementwise_kernel" -> "vect_elem", "multi_tensor_apply_kernel" -> "mult_tens~".
std::string shrinkWords(const std::string& s, std::size_t width) {
    if (s.size() <= width)
        return s;
    std::vector<std::string> words = splitUnderscores(s);
    if (words.size() > 1 && words.back() == "kernel")
        words.pop_back();
    const auto joined = [&] {
        std::string out;
        for (std::size_t i = 0; i < words.size(); ++i)
            out += (i ? "_" : "") + words[i];
        return out;
    };
    std::size_t length = joined().size();
    while (length > width) {
        auto longest =
            std::max_element(words.begin(), words.end(),
                             [](const auto& a, const auto& b) { return a.size() < b.size(); });
        if (longest == words.end() || longest->size() <= 4)
            break;
        longest->pop_back();
        --length;
    }
    if (length <= width)
        return joined();
    std::string out;
    for (const std::string& w : words) {
        const std::string next = out.empty() ? w : out + "_" + w;
        if (next.size() + kCutSize > width)
            break;
        out = next;
    }
    return out.empty() ? cutEnd(joined(), width) : out + kCut;
}

// The names shown together, by family (their first underscore-separated part): how many
// distinct names each family has, and how many of them have each part. Built once per table.
class Families {
public:
    explicit Families(const std::vector<std::string>& names) : names_(names.begin(), names.end()) {
        for (const std::string& n : names_) {
            const auto parts = splitUnderscores(n);
            if (parts.size() < 2)
                continue; // no underscore: in no family
            Family& f = families_[parts[0]];
            ++f.names;
            for (const std::string& p : std::set<std::string>(parts.begin(), parts.end()))
                ++f.parts[p];
        }
    }
    /// The other names of `name`'s family (its parts `parts`), and how many of them have part `p`.
    std::size_t others(const std::string& name, const std::vector<std::string>& parts) const {
        const auto f = families_.find(parts[0]);
        return f == families_.end() ? 0 : f->second.names - (names_.count(name) ? 1 : 0);
    }
    std::size_t seen(const std::string& name, const std::vector<std::string>& parts,
                     const std::string& p) const {
        const auto f = families_.find(parts[0]);
        if (f == families_.end())
            return 0;
        const auto c = f->second.parts.find(p);
        const std::size_t all = c == f->second.parts.end() ? 0 : c->second;
        return all - (names_.count(name) ? 1 : 0); // the name has p: it is one of its parts
    }

private:
    struct Family {
        std::size_t names = 0;
        std::map<std::string, std::size_t> parts;
    };
    std::set<std::string> names_;
    std::map<std::string, Family> families_;
};

// Library kernels named by underscore-separated parts: the family (first part) and the parts
// that tell it from the family's other names stay, then tiles, then the last part (the layout).
std::string keepParts(const std::string& name, std::size_t width, const Families& families) {
    const std::vector<std::string> parts = splitUnderscores(name);
    if (parts.size() < 3)
        return {};
    const std::size_t others = families.others(name, parts);
    std::vector<std::size_t> priority = {0};
    const auto add = [&](std::size_t i) {
        if (std::find(priority.begin(), priority.end(), i) == priority.end())
            priority.push_back(i);
    };
    // not in every other name of the family: distinguishing
    const auto distinguishing = [&](std::size_t i) {
        return others > 0 && families.seen(name, parts, parts[i]) < others;
    };
    add(parts.size() - 1); // the layout ("NTT", "tn_align2")
    // then, in the name's order, distinguishing tiles and words ("128x64", "bprop", "coopA")
    const auto word = [&](std::size_t i) {
        return parts[i].size() >= 5 && std::all_of(parts[i].begin(), parts[i].end(), [](char c) {
                   return std::isalpha(static_cast<unsigned char>(c));
               });
    };
    for (std::size_t i = 1; i < parts.size(); ++i)
        if ((isTile(parts[i]) || word(i)) && distinguishing(i))
            add(i);
    for (std::size_t i = 1; i < parts.size(); ++i)
        if (distinguishing(i))
            add(i);
    for (std::size_t i = 1; i < parts.size(); ++i)
        if (isTile(parts[i]))
            add(i);
    for (std::size_t i = 1; i < parts.size(); ++i)
        add(i);
    std::vector<bool> keep(parts.size(), false);
    const auto render = [&] {
        std::string out;
        bool cut = false;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            if (!keep[i]) {
                cut = true;
                continue;
            }
            if (!out.empty())
                out += cut ? kCut : std::string("_");
            else if (cut)
                out += kCut;
            out += parts[i];
            cut = false;
        }
        if (cut)
            out += kCut;
        return out;
    };
    for (const std::size_t i : priority) {
        keep[i] = true;
        if (render().size() > width)
            keep[i] = false;
    }
    const std::string out = render();
    return keep[0] ? out : std::string();
}

} // namespace

namespace {

std::string abbreviate(const std::string& name, std::size_t width, const Families& families) {
    width = std::max<std::size_t>(width, 8);
    if (name.size() <= width)
        return name;
    // Framework operators ("aten::_to_copy+aten::native_layer_norm [backward]"): whole ones.
    if (operatorLabel(name))
        return fitOperators(name, width);
    // base[token]: the token (a functor, an op) whole if it can be, the base shrunk.
    if (name.back() == ']') {
        if (const std::size_t open = name.find('['); open != std::string::npos && open > 0) {
            const std::string base = name.substr(0, open);
            const std::string token = name.substr(open + 1, name.size() - open - 2);
            const std::size_t baseRoom =
                std::max<std::size_t>(std::min<std::size_t>(base.size(), 5),
                                      width > token.size() + 2 ? width - token.size() - 2 : 0);
            const std::string b = shrinkWords(base, std::min(baseRoom, base.size()));
            const std::size_t tokenRoom = width > b.size() + 2 ? width - b.size() - 2 : 1;
            return b + '[' + cutEnd(token, tokenRoom) + ']';
        }
    }
    // base<arguments>: the base shrunk to leave room for the first arguments.
    if (const std::size_t lt = name.find('<'); lt != std::string::npos && lt > 0) {
        const std::string base = name.substr(0, lt);
        const std::string b =
            shrinkWords(base, std::min(base.size(), std::max<std::size_t>(width / 2, width - 6)));
        if (b.size() + 3 <= width)
            return b + '<' + cutEnd(name.substr(lt + 1), width - b.size() - 1);
        return cutEnd(b, width);
    }
    const std::string parts = keepParts(name, width, families);
    if (!parts.empty())
        return parts;
    return shrinkWords(name, width);
}

// Row `i`, whose first abbreviation `current` reads like the others of `rows`, abbreviated so that
// it reads apart from them: cut around the first place where its name (or, when the names are
// equal, its full identity) differs from another's.
std::string toldApart(const std::vector<std::string>& names,
                      const std::vector<std::string>& identities,
                      const std::vector<std::size_t>& rows, std::size_t i, std::size_t width,
                      const Families& families, const std::string& current) {
    // the first place where this name (or, when the names are equal, the full identity)
    // differs from another that reads alike
    std::size_t differ = 0;
    bool sameName = false;
    std::string whole = names[i];
    for (const std::size_t o : rows) {
        if (identities[o] == identities[i])
            continue;
        sameName = sameName || names[o] == names[i];
        const std::string& a = names[o] == names[i] ? identities[i] : names[i];
        const std::string& b = names[o] == names[i] ? identities[o] : names[o];
        std::size_t k = 0;
        while (k < a.size() && k < b.size() && a[k] == b[k])
            ++k;
        if (names[o] == names[i])
            whole = identities[i];
        differ = std::max(differ, k);
    }
    if (sameName) {
        // the identity's word at the difference, after the name:
        // "reduce_kernel[sum_f~]~long"
        std::size_t from = differ, to = differ;
        while (from > 0 && std::isalnum(static_cast<unsigned char>(whole[from - 1])))
            --from;
        while (to < whole.size() && std::isalnum(static_cast<unsigned char>(whole[to])))
            ++to;
        const std::string word =
            cutEnd(whole.substr(from, std::max<std::size_t>(to - from, 1)), width / 2);
        const std::string told =
            abbreviate(names[i], width - word.size() - kCutSize, families) + kCut + word;
        return told.size() <= width
                   ? told
                   : cutEnd(names[i], width - word.size() - kCutSize) + kCut + word;
    }
    if (names[i].size() <= width)
        return current;
    // operator labels: the first operator, and the first one where they differ
    if (operatorLabel(names[i])) {
        std::size_t keep = 0;
        for (const std::size_t o : rows)
            if (names[o] != names[i] && operatorLabel(names[o]))
                if (const std::size_t k = firstOperatorDifference(names[i], names[o]);
                    k != std::string::npos)
                    keep = std::max(keep, k);
        if (keep > 0)
            return fitOperators(names[i], width, keep);
    }
    // a head of the name, the cut mark, then the name from just before the difference
    const std::size_t tailFrom = differ > 2 ? differ - 2 : 0;
    const std::size_t tailLength = names[i].size() - tailFrom;
    const std::size_t head = std::min(
        tailFrom, tailLength + kCutSize < width ? width - tailLength - kCutSize : std::size_t{5});
    return head == 0 ? cutEnd(names[i], width)
                     : names[i].substr(0, head) + kCut +
                           cutEnd(names[i].substr(tailFrom), width - head - kCutSize);
}

} // namespace

std::string abbreviateName(const std::string& name, std::size_t width,
                           const std::vector<std::string>& family) {
    return abbreviate(name, width, Families(family));
}

std::vector<std::string> abbreviateNames(const std::vector<std::string>& names,
                                         const std::vector<std::string>& identities,
                                         std::size_t width) {
    const Families families(names);
    std::map<std::string, std::string> once; // a name shown in many rows is cut once
    std::vector<std::string> out;
    out.reserve(names.size());
    for (const std::string& n : names) {
        auto it = once.find(n);
        if (it == once.end())
            it = once.emplace(n, abbreviate(n, width, families)).first;
        out.push_back(it->second);
    }
    // Pairs that still read alike: cut around the first place where the full names differ.
    std::map<std::string, std::set<std::string>> identitiesOf;
    for (std::size_t i = 0; i < names.size(); ++i)
        identitiesOf[out[i]].insert(identities[i]);
    const std::vector<std::string> first = out; // collisions as first abbreviated
    // Each distinct (name, identity) that reads like another is resolved once, at its first row,
    // against the distinct others of its group; its other rows copy the result.
    std::map<std::pair<std::string, std::string>, std::size_t> firstRow;
    std::map<std::string, std::vector<std::size_t>> alike; // by their first abbreviation
    for (std::size_t i = 0; i < names.size(); ++i)
        if (identitiesOf[first[i]].size() >= 2 &&
            firstRow.emplace(std::make_pair(names[i], identities[i]), i).second)
            alike[first[i]].push_back(i);
    for (const auto& [abbreviation, rows] : alike)
        for (const std::size_t i : rows)
            out[i] = toldApart(names, identities, rows, i, width, families, out[i]);
    for (std::size_t i = 0; i < names.size(); ++i)
        if (const auto it = firstRow.find({names[i], identities[i]}); it != firstRow.end())
            out[i] = out[it->second];
    return out;
}

} // namespace roofline::report
