#include "core/xla_ops.hpp"

#include <cctype>
#include <vector>

namespace roofline::core {
namespace {

constexpr std::string_view kThunk = "Thunk:#";
constexpr std::size_t kMaxComponents = 64;

// The value of `key` ("hlo_op=") in the fields of "Thunk:#k=v,k=v#": to the next ',' -- the
// name's to ",hlo_op=", the field after it, as an op_name may hold commas.
std::string_view field(std::string_view fields, std::string_view key) {
    std::size_t at = 0;
    while (true) {
        at = fields.find(key, at);
        if (at == std::string_view::npos)
            return {};
        if (at == 0 || fields[at - 1] == ',')
            break;
        at += key.size();
    }
    const std::size_t from = at + key.size();
    std::size_t to = key == "name=" ? fields.find(",hlo_op=", from) : fields.find(',', from);
    if (to == std::string_view::npos)
        to = fields.size();
    return fields.substr(from, to - from);
}

// "jit(step)/transpose(jvp(Model))/Dense_0/dot_general" split at '/' outside parentheses.
std::vector<std::string_view> components(std::string_view name) {
    std::vector<std::string_view> out;
    int depth = 0;
    std::size_t from = 0;
    for (std::size_t i = 0; i <= name.size() && out.size() < kMaxComponents; ++i) {
        if (i == name.size() || (name[i] == '/' && depth == 0)) {
            if (i > from)
                out.push_back(name.substr(from, i - from));
            from = i + 1;
        } else if (name[i] == '(') {
            ++depth;
        } else if (name[i] == ')' && depth > 0) {
            --depth;
        }
    }
    return out;
}

// "transpose(jvp(Model))" -> "transpose", "Model" (the innermost argument); "Dense_0" -> "", "".
void unwrap(std::string_view c, std::string_view& transform, std::string_view& inner) {
    const std::size_t open = c.find('(');
    if (open == std::string_view::npos || c.back() != ')') {
        transform = {};
        inner = {};
        return;
    }
    transform = c.substr(0, open);
    inner = c.substr(open + 1, c.size() - open - 2);
    while (true) {
        const std::size_t o = inner.find('(');
        if (o == std::string_view::npos || inner.empty() || inner.back() != ')')
            break;
        inner = inner.substr(o + 1, inner.size() - o - 2);
    }
}

// "loop_multiply_fusion.1" -> "loop_multiply_fusion"
std::string_view withoutNumber(std::string_view hlo) {
    const std::size_t dot = hlo.rfind('.');
    if (dot == std::string_view::npos || dot + 1 == hlo.size())
        return hlo;
    for (std::size_t i = dot + 1; i < hlo.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(hlo[i])))
            return hlo;
    return hlo.substr(0, dot);
}

// JAX's primitives are lower-case ("dot_general", "reduce_sum", "integer_pow"); Flax names its
// modules in their class's case ("Dense_0"), so a fusion's op_name that ends in one is a path.
bool primitive(std::string_view c) noexcept {
    if (c.empty() || !std::islower(static_cast<unsigned char>(c.front())))
        return false;
    for (const char ch : c)
        if (!std::islower(static_cast<unsigned char>(ch)) &&
            !std::isdigit(static_cast<unsigned char>(ch)) && ch != '_')
            return false;
    return true;
}

} // namespace

bool xlaOperationRange(std::string_view name) noexcept {
    return name.substr(0, kThunk.size()) == kThunk;
}

bool xlaExecutableRun(std::string_view name) noexcept {
    return name.substr(0, 10) == "XlaModule:";
}

bool parseXlaOperation(std::string_view text, XlaOperation& out) {
    if (!xlaOperationRange(text))
        return false;
    std::string_view fields = text.substr(kThunk.size());
    if (!fields.empty() && fields.back() == '#')
        fields.remove_suffix(1);
    out = {};
    const std::string_view hlo = field(fields, "hlo_op=");
    out.hlo = hlo;
    const std::string_view name = field(fields, "name=");
    if (name.empty()) {
        if (hlo.substr(0, 14) != "command_buffer" && !hlo.empty())
            out.op = "xla::" + std::string(withoutNumber(hlo));
        return true;
    }
    const std::vector<std::string_view> parts = components(name);
    std::string function; // jit(step) -> "step"
    std::string module;
    bool backward = false;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        std::string_view transform, inner;
        unwrap(parts[i], transform, inner);
        if (transform.empty()) {
            if (i + 1 == parts.size() && primitive(parts[i])) {
                out.op = "jax::" + std::string(parts[i]);
                break;
            }
            module += (module.empty() ? "" : ".") + std::string(parts[i]);
            continue;
        }
        if (parts[i].find("transpose(") != std::string_view::npos)
            backward = true;
        if (transform == "jit" || transform == "pjit") {
            if (function.empty())
                function = inner;
            continue;
        }
        if (!inner.empty())
            module += (module.empty() ? "" : ".") + std::string(inner);
    }
    if (out.op.empty() && !hlo.empty())
        out.op = "xla::" + std::string(withoutNumber(hlo));
    out.phase = backward ? "backward" : "forward";
    out.module = module.empty() ? function : module;
    return true;
}

} // namespace roofline::core
