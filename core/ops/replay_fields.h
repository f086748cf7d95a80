#pragma once
// Reading and writing the members of a replay record (OpModule::writeReplay / readReplay).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "error.h"
#include "json_reader.h"
#include "op_types.h"

namespace auglab::replay_fields {

inline nlohmann::ordered_json rgbJson(const Rgb& c) {
    return nlohmann::ordered_json::array({c[0], c[1], c[2]});
}

inline Rgb readRgb(const JsonReader& r) {
    if (r.arraySize() != 3) r.fail("expected [r, g, b] with 3 integers 0..255");
    Rgb c{};
    for (std::size_t i = 0; i < 3; ++i) c[i] = static_cast<std::uint8_t>(r.element(i).integer(0, 255));
    return c;
}

/// A window [x, y, width, height] in pixels (a crop's place and size).
struct Window {
    int x = 0, y = 0, width = 1, height = 1;
};

inline Window readWindow(const JsonReader& r) {
    if (r.arraySize() != 4) r.fail("expected [x, y, width, height]");
    return {static_cast<int>(r.element(0).integer(0, 1'000'000)),
            static_cast<int>(r.element(1).integer(0, 1'000'000)),
            static_cast<int>(r.element(2).integer(1, 1'000'000)),
            static_cast<int>(r.element(3).integer(1, 1'000'000))};
}

inline double num(const JsonReader& r, std::string_view key, double lower, double upper) {
    return r.member(key).numberIn(lower, upper);
}

/// A string that must be `a` or `b` (the error at `v` names both).
inline std::string eitherOf(const JsonReader& v, const char* a, const char* b) {
    std::string s = v.string();
    if (s != a && s != b) v.fail(std::string("expected \"") + a + "\" or \"" + b + "\"");
    return s;
}

/// A permutation of 0..N-1 (an order of channels or of steps): N distinct indices, each named by
/// `what` ("channel") in the error that reports a repeat; `expected` is the message for a wrong count.
template <std::size_t N>
std::array<int, N> readPermutation(const JsonReader& r, const char* what, const std::string& expected) {
    if (r.arraySize() != N) r.fail(expected);
    std::array<int, N> order{};
    std::array<bool, N> seen{};
    for (std::size_t i = 0; i < N; ++i) {
        const auto k = static_cast<int>(r.element(i).integer(0, static_cast<std::int64_t>(N) - 1));
        if (seen[std::size_t(k)])
            r.element(i).fail(std::string(what) + " " + std::to_string(k) + " is listed twice");
        seen[std::size_t(k)] = true;
        order[i] = k;
    }
    return order;
}

inline Interpolation readInterpolation(const JsonReader& r, std::string_view key) {
    const JsonReader v = r.member(key);
    try {
        return interpolationFromName(v.string());
    } catch (const InputError& e) {
        v.fail(e.what());
    }
}

inline BorderMode readBorder(const JsonReader& r, std::string_view key) {
    const JsonReader v = r.member(key);
    try {
        return borderFromName(v.string());
    } catch (const InputError& e) {
        v.fail(e.what());
    }
}

}  // namespace auglab::replay_fields
