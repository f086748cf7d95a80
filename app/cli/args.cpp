#include "args.h"

#include <charconv>

namespace auglab::cli {

Args::Args(const std::vector<std::string>& argv, const Spec& spec) {
    for (std::size_t i = 0; i < argv.size(); ++i) {
        std::string a = argv[i];
        if (a.rfind("--", 0) != 0 || a == "--") {
            if (static_cast<int>(positional_.size()) >= spec.maxPositional)
                throw UsageError{"unexpected argument '" + a + "'"};
            positional_.push_back(a);
            continue;
        }
        std::optional<std::string> inlineValue;
        if (const auto eq = a.find('='); eq != std::string::npos) {
            inlineValue = a.substr(eq + 1);
            a = a.substr(0, eq);
        }
        const std::string name = a.substr(2);
        if (spec.flags.count(name)) {
            if (inlineValue) throw UsageError{"option --" + name + " takes no value"};
            flags_.insert(name);
        } else if (spec.valueOptions.count(name)) {
            if (values_.count(name)) throw UsageError{"option --" + name + " given twice"};
            if (inlineValue) {
                values_[name] = *inlineValue;
            } else {
                if (i + 1 >= argv.size()) throw UsageError{"option --" + name + " needs a value"};
                values_[name] = argv[++i];
            }
        } else if (spec.listOptions.count(name)) {
            auto& list = lists_[name];
            if (inlineValue) list.push_back(*inlineValue);
            while (i + 1 < argv.size() && argv[i + 1].rfind("--", 0) != 0) list.push_back(argv[++i]);
            if (list.empty()) throw UsageError{"option --" + name + " needs at least one value"};
        } else {
            throw UsageError{"unknown option --" + name};
        }
    }
}

std::optional<std::string> Args::value(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Args::required(const std::string& name) const {
    const auto v = value(name);
    if (!v) throw UsageError{"missing required option --" + name};
    return *v;
}

std::vector<std::string> Args::list(const std::string& name) const {
    const auto it = lists_.find(name);
    return it == lists_.end() ? std::vector<std::string>{} : it->second;
}

long long Args::integer(const std::string& name, long long def, long long lower, long long upper) const {
    const auto v = value(name);
    if (!v) return def;
    long long out = 0;
    const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || ptr != v->data() + v->size())
        throw UsageError{"--" + name + ": expected an integer, got '" + *v + "'"};
    if (out < lower || out > upper)
        throw UsageError{"--" + name + ": " + *v + " is outside " + std::to_string(lower) + ".." + std::to_string(upper)};
    return out;
}

unsigned long long Args::unsignedInteger(const std::string& name, unsigned long long def) const {
    const auto v = value(name);
    if (!v) return def;
    unsigned long long out = 0;
    const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || ptr != v->data() + v->size())
        throw UsageError{"--" + name + ": expected a non-negative integer, got '" + *v + "'"};
    return out;
}

}  // namespace auglab::cli
