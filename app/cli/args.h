#pragma once
// A small strict command-line parser: `--name value`, `--name=value`, flags, and options that take
// several values (`--image a.png b.png`). Anything unknown is a usage error (exit code 2).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace auglab::cli {

/// Bad usage: the message is printed with a hint to run --help; exit code 2.
struct UsageError {
    std::string message;
};

class Args {
public:
    struct Spec {
        std::set<std::string> valueOptions;  ///< take one value
        std::set<std::string> listOptions;   ///< take one or more values
        std::set<std::string> flags;         ///< take none
        int maxPositional = 0;
    };

    Args(const std::vector<std::string>& argv, const Spec& spec);

    bool flag(const std::string& name) const { return flags_.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string required(const std::string& name) const;
    std::vector<std::string> list(const std::string& name) const;
    const std::vector<std::string>& positional() const { return positional_; }

    /// Typed values with range checks; errors name the option.
    long long integer(const std::string& name, long long def, long long lower, long long upper) const;
    unsigned long long unsignedInteger(const std::string& name, unsigned long long def) const;

private:
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> lists_;
    std::set<std::string> flags_;
    std::vector<std::string> positional_;
};

}  // namespace auglab::cli
