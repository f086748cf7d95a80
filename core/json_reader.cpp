#include "json_reader.h"

#include <charconv>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "error.h"

namespace auglab {

namespace {

// Tracks where the parser is, so a duplicate key can be reported with its path.
// Frames are reused as the parser goes in and out (a large COCO file has millions of objects): the
// keys seen are a short vector searched in order, a hash set once an object has many.
struct PathFrame {
    bool isArray = false;
    std::size_t index = 0;
    std::string key;
    std::vector<std::string> keys;
    std::unordered_set<std::string> manyKeys;

    void reset(bool array) {
        isArray = array;
        index = 0;
        key.clear();
        keys.clear();
        manyKeys.clear();
    }
    /// False when `k` was seen before in this object.
    bool insert(const std::string& k) {
        if (!manyKeys.empty()) return manyKeys.insert(k).second;
        if (std::find(keys.begin(), keys.end(), k) != keys.end()) return false;
        keys.push_back(k);
        if (keys.size() > 16) {
            manyKeys.insert(keys.begin(), keys.end());
            keys.clear();
        }
        return true;
    }
};

std::string framePath(const std::vector<PathFrame>& frames, std::size_t depth) {
    std::string path;
    for (std::size_t i = 0; i + 1 < depth; ++i) {
        const PathFrame& f = frames[i];
        if (f.isArray)
            path += "[" + std::to_string(f.index) + "]";
        else
            path += (path.empty() ? "" : ".") + f.key;
    }
    return path;
}

std::pair<int, int> lineAndColumn(std::string_view text, std::size_t byte) {
    int line = 1, col = 1;
    for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return {line, col};
}

/// The error for a document nested deeper than kMaxJsonDepth, at the path of the value that passed it.
[[noreturn]] void tooDeep(const std::string& what, const std::vector<PathFrame>& frames, std::size_t depth) {
    std::string path = framePath(frames, depth + 1);
    if (path.empty()) path = "(document)";
    throw InputError(what + ": " + path.substr(0, 400) + (path.size() > 400 ? "..." : "") +
                     ": arrays and objects nested deeper than " + std::to_string(kMaxJsonDepth) +
                     " levels");
}

}  // namespace

/// A SAX pass that only looks for duplicate keys (no values are built): a large COCO file takes
/// a fraction of what the DOM parser's callbacks cost, and the plain parse that follows is fast.
class DuplicateKeys final : public nlohmann::json_sax<nlohmann::json> {
public:
    explicit DuplicateKeys(const std::string& what) : what_(what) {}
    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return enter(false); }
    bool start_array(std::size_t) override { return enter(true); }
    bool end_object() override { return leave(); }
    bool end_array() override { return leave(); }
    bool key(string_t& k) override {
        PathFrame& f = frames_[depth_ - 1];
        if (!f.insert(k)) {
            f.key = k;
            enter(false);
            throw InputError(what_ + ": " + framePath(frames_, depth_) + ": duplicate key \"" + k + "\"");
        }
        f.key = k;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

private:
    bool value() {
        if (depth_ > 0 && frames_[depth_ - 1].isArray) ++frames_[depth_ - 1].index;
        return true;
    }
    bool enter(bool array) {
        if (depth_ >= kMaxJsonDepth) tooDeep(what_, frames_, depth_);
        if (frames_.size() <= depth_) frames_.emplace_back();
        frames_[depth_++].reset(array);
        return true;
    }
    bool leave() {
        --depth_;
        return value();
    }
    const std::string& what_;
    std::vector<PathFrame> frames_;
    std::size_t depth_ = 0;
};

nlohmann::json parseJsonStrict(std::string_view text, const std::string& what) {
    {
        // Well-formed text without duplicate keys (nearly every file): two fast passes. Anything else
        // goes through the callback parser below, which says where it broke.
        DuplicateKeys check(what);
        bool wellFormed = false;
        try {
            wellFormed = nlohmann::json::sax_parse(text.begin(), text.end(), &check);
        } catch (const nlohmann::json::exception&) {
            wellFormed = false;
        }
        if (wellFormed) return nlohmann::json::parse(text.begin(), text.end());
    }
    std::vector<PathFrame> frames;
    std::size_t depth = 0;
    auto enter = [&](bool array) {
        if (depth >= kMaxJsonDepth) tooDeep(what, frames, depth);
        if (frames.size() <= depth) frames.emplace_back();
        frames[depth++].reset(array);
    };
    auto elementDone = [&] {
        if (depth > 0 && frames[depth - 1].isArray) ++frames[depth - 1].index;
    };
    auto callback = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        switch (event) {
            case E::object_start:
                enter(false);
                break;
            case E::array_start:
                enter(true);
                break;
            case E::object_end:
            case E::array_end:
                --depth;
                elementDone();
                break;
            case E::key: {
                const std::string& key = parsed.get_ref<const std::string&>();
                PathFrame& f = frames[depth - 1];
                if (!f.insert(key)) {
                    f.key = key;
                    enter(false);
                    const std::string path = framePath(frames, depth);
                    throw InputError(what + ": " + path + ": duplicate key \"" + key + "\"");
                }
                f.key = key;
                break;
            }
            case E::value:
                elementDone();
                break;
        }
        return true;
    };
    try {
        return nlohmann::json::parse(text.begin(), text.end(), callback);
    } catch (const nlohmann::json::parse_error& e) {
        const auto [line, col] = lineAndColumn(text, e.byte > 0 ? e.byte - 1 : 0);
        std::string reason = e.what();
        // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line..";
        // keep the part after the last ": " which says what was expected.
        const auto pos = reason.rfind(": ");
        if (pos != std::string::npos) reason = reason.substr(pos + 2);
        throw InputError(what + ": invalid JSON at line " + std::to_string(line) + ", column " +
                         std::to_string(col) + ": " + reason);
    } catch (const nlohmann::json::out_of_range& e) {
        // A number beyond the double range ("1e400") is reported as out_of_range.406, not as a
        // parse_error, and carries no position. Parsing stops at the first such number, so the first
        // occurrence of its text is almost always the culprit.
        std::string reason = e.what();
        const auto pos = reason.find("number overflow");
        if (pos != std::string::npos) reason = reason.substr(pos);
        const auto q1 = reason.find('\''), q2 = reason.rfind('\'');
        std::string where;
        if (q1 != std::string::npos && q2 > q1) {
            const auto at = text.find(reason.substr(q1 + 1, q2 - q1 - 1));
            if (at != std::string_view::npos) {
                const auto [line, col] = lineAndColumn(text, at);
                where = " at line " + std::to_string(line) + ", column " + std::to_string(col);
            }
        }
        throw InputError(what + ": invalid JSON" + where + ": " + reason + " (beyond the range of a double)");
    }
}

std::string formatNumber(double v) {
    std::ostringstream s;
    s.precision(15);
    s << v;
    return s.str();
}

void JsonReader::fail(const std::string& message) const {
    throw InputError((path_.empty() ? std::string("(document)") : path_) + ": " + message);
}

std::string JsonReader::describeType() const {
    switch (v_->type()) {
        case nlohmann::json::value_t::null:
            return "null";
        case nlohmann::json::value_t::boolean:
            return "a boolean";
        case nlohmann::json::value_t::string:
            return "a string";
        case nlohmann::json::value_t::array:
            return "an array";
        case nlohmann::json::value_t::object:
            return "an object";
        case nlohmann::json::value_t::number_float:
            return "a number";
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
            return "an integer";
        default:
            return "an unsupported value";
    }
}

JsonReader JsonReader::member(std::string_view key) const {
    requireObject();
    const auto it = v_->find(key);
    if (it == v_->end()) fail("missing required key \"" + std::string(key) + "\"");
    return JsonReader(*it, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

JsonReader JsonReader::element(std::size_t index) const {
    return JsonReader((*v_)[index], path_ + "[" + std::to_string(index) + "]");
}

bool JsonReader::has(std::string_view key) const {
    return v_->is_object() && v_->contains(key);
}

void JsonReader::requireObject() const {
    if (!v_->is_object()) fail("expected an object, got " + describeType());
}

void JsonReader::requireObject(std::initializer_list<std::string_view> allowed) const {
    requireObject();
    for (const auto& item : v_->items()) {
        bool known = false;
        for (std::string_view a : allowed) known = known || a == item.key();
        if (!known) {
            std::string list;
            for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
            const std::string where = path_.empty() ? item.key() : path_ + "." + item.key();
            throw InputError(where + ": unknown key (expected one of: " + list + ")");
        }
    }
}

std::size_t JsonReader::arraySize() const {
    if (!v_->is_array()) fail("expected an array, got " + describeType());
    return v_->size();
}

std::string JsonReader::string() const {
    if (!v_->is_string()) fail("expected a string, got " + describeType());
    return v_->get<std::string>();
}

bool JsonReader::boolean() const {
    if (!v_->is_boolean()) fail("expected true or false, got " + describeType());
    return v_->get<bool>();
}

double JsonReader::number() const {
    if (!v_->is_number()) fail("expected a number, got " + describeType());
    const double d = v_->get<double>();
    if (!std::isfinite(d)) fail("expected a finite number");
    return d;
}

namespace {

// JSON Schema's "integer" (the bundled schema's type for counts and seeds) is any number whose
// fraction is zero: 1.0 is the integer 1. Written as a float, only values up to 2^53 are exact.
std::optional<std::int64_t> integralFloat(const nlohmann::json& v) {
    if (!v.is_number_float()) return std::nullopt;
    const double d = v.get<double>();
    if (!(std::abs(d) <= 9007199254740992.0) || d != std::floor(d)) return std::nullopt;
    return static_cast<std::int64_t>(d);
}

}  // namespace

std::int64_t JsonReader::integer(std::int64_t lower, std::int64_t upper) const {
    const std::optional<std::int64_t> fromFloat = integralFloat(*v_);
    if (!v_->is_number_integer() && !fromFloat) fail("expected an integer, got " + describeValue());
    if (v_->is_number_unsigned() && v_->get<std::uint64_t>() > static_cast<std::uint64_t>(upper))
        fail("value " + v_->dump() + " is above the maximum " + std::to_string(upper));
    const std::int64_t i = fromFloat ? *fromFloat : v_->get<std::int64_t>();
    if (i < lower) fail("value " + std::to_string(i) + " is below the minimum " + std::to_string(lower));
    if (i > upper) fail("value " + std::to_string(i) + " is above the maximum " + std::to_string(upper));
    return i;
}

std::uint64_t JsonReader::unsignedInteger() const {
    if (const std::optional<std::int64_t> fromFloat = integralFloat(*v_); fromFloat && *fromFloat >= 0)
        return static_cast<std::uint64_t>(*fromFloat);
    if (!v_->is_number_unsigned()) {
        if (v_->is_number()) fail("expected a non-negative integer, got " + describeValue());
        fail("expected a non-negative integer, got " + describeType());
    }
    return v_->get<std::uint64_t>();
}

std::string JsonReader::describeValue() const {
    return v_->is_number() ? v_->dump() : describeType();
}

std::uint64_t JsonReader::unsignedInteger64() const {
    if (!v_->is_string()) return unsignedInteger();
    const std::string& text = v_->get_ref<const std::string&>();
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
        fail("expected a non-negative 64-bit integer as decimal digits, got \"" + text + "\"");
    return value;
}

double JsonReader::numberIn(double lower, double upper) const {
    const double d = number();
    if (d < lower) fail("value " + formatNumber(d) + " is below the minimum " + formatNumber(lower));
    if (d > upper) fail("value " + formatNumber(d) + " is above the maximum " + formatNumber(upper));
    return d;
}

Range JsonReader::range(double lower, double upper, bool integers) const {
    if (!v_->is_array() || v_->size() != 2) {
        if (v_->is_number())
            fail("expected a [min, max] pair, got a single number (ranges are always explicit)");
        fail("expected a [min, max] pair, got " +
             (v_->is_array() ? "an array of " + std::to_string(v_->size()) : describeType()));
    }
    Range r;
    for (std::size_t i = 0; i < 2; ++i) {
        const JsonReader e = element(i);
        const double v = integers ? static_cast<double>(e.integer(INT64_MIN, INT64_MAX)) : e.number();
        (i == 0 ? r.min : r.max) = v;
    }
    if (r.min > r.max) fail("min " + formatNumber(r.min) + " > max " + formatNumber(r.max));
    if (r.min < lower)
        fail("min " + formatNumber(r.min) + " is below the lower bound " + formatNumber(lower));
    if (r.max > upper)
        fail("max " + formatNumber(r.max) + " is above the upper bound " + formatNumber(upper));
    return r;
}

}  // namespace auglab
