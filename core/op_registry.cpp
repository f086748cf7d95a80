#include "op_registry.h"

#include <stdexcept>

#include "ops/op_module.h"

namespace auglab {

namespace {

std::vector<OpDesc> buildRegistry() {
    std::vector<OpDesc> ops;
    for (std::size_t i = 0; i < opModules().size(); ++i) {
        const auto id = static_cast<OpId>(i);
        ops.push_back(opModule(id).describe(id));
        if (ops.back().id != id) throw std::logic_error("op module " + ops.back().name + " describes another id");
    }
    return ops;
}

}  // namespace

const ParamDesc* OpDesc::param(std::string_view key) const {
    const int i = paramIndex(key);
    return i < 0 ? nullptr : &params[static_cast<std::size_t>(i)];
}

int OpDesc::paramIndex(std::string_view key) const {
    for (std::size_t i = 0; i < params.size(); ++i)
        if (params[i].key == key) return static_cast<int>(i);
    return -1;
}

const std::vector<OpDesc>& opRegistry() {
    static const std::vector<OpDesc> registry = buildRegistry();
    return registry;
}

const OpDesc* findOp(std::string_view name) {
    for (const OpDesc& d : opRegistry())
        if (d.name == name) return &d;
    return nullptr;
}

const OpDesc& opDesc(OpId id) {
    for (const OpDesc& d : opRegistry())
        if (d.id == id) return d;
    throw std::logic_error("op id missing from the registry");
}

}  // namespace auglab
