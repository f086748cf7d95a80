#pragma once
// Strict reading of JSON documents: every fault is an InputError that names the JSON path
// (`pipeline[2].holes`) and what was expected. Used by the preset and replay parsers.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "op_registry.h"

namespace auglab {

/// How deeply arrays and objects may nest in a document read by parseJsonStrict. Nothing AugLab
/// reads needs more than a few dozen levels (a preset's groups, a COCO polygon); a deeper document
/// would only serve to exhaust the stack of the code that copies, walks or writes it.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// Parses text as JSON. Syntax errors report line and column; duplicate keys are errors (a
/// silently ignored key is how settings get lost); arrays and objects nested deeper than
/// kMaxJsonDepth are refused with the path where the limit was passed. `what` names the document
/// in messages.
nlohmann::json parseJsonStrict(std::string_view text, const std::string& what);

/// A JSON value together with its path, with typed getters that throw InputError on a mismatch.
class JsonReader {
public:
    JsonReader(const nlohmann::json& value, std::string path) : v_(&value), path_(std::move(path)) {}

    const nlohmann::json& json() const { return *v_; }
    const std::string& path() const { return path_; }

    [[noreturn]] void fail(const std::string& message) const;

    /// Child readers; the paths grow as `a.b` and `a[3]`.
    JsonReader member(std::string_view key) const;
    JsonReader element(std::size_t index) const;
    bool has(std::string_view key) const;

    /// Requires an object whose keys are all in `allowed`; the first unknown key is an error.
    void requireObject(std::initializer_list<std::string_view> allowed) const;
    void requireObject() const;
    std::size_t arraySize() const;  ///< requires an array

    std::string string() const;
    bool boolean() const;
    double number() const;  ///< any finite JSON number
    /// Integers as JSON Schema's "integer" type has them: a number whose fraction is zero (1.0 too,
    /// up to 2^53, where a float is still exact).
    std::int64_t integer(std::int64_t lower, std::int64_t upper) const;
    std::uint64_t unsignedInteger() const;
    /// A 64-bit value written as a string of decimal digits ("18446744073709551615"), so that JSON
    /// readers that keep numbers as doubles do not round it; a plain non-negative integer is read
    /// too (files written before).
    std::uint64_t unsignedInteger64() const;
    double numberIn(double lower, double upper) const;
    /// [min, max] with lower <= min <= max <= upper; integers only when `integers`.
    Range range(double lower, double upper, bool integers) const;

private:
    std::string describeType() const;
    std::string describeValue() const;  ///< a number as written, else its type
    const nlohmann::json* v_;
    std::string path_;
};

/// Formats a number for messages without trailing zeros ("0.1", "8", "-15").
std::string formatNumber(double v);

}  // namespace auglab
