#include "keyed_tables.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "cpu_drawn_ops.h"
#include "error.h"
#include "raster.h"

namespace auglab {

namespace {

// Keys as histories: every pixel starts at key 0 (no shape yet, the identity); a shape that covers
// it moves it to the key of "its history, then this shape's table", made the first time that pair
// occurs. Fog's particles share one table, so a key there is how many particles covered the pixel.
class Histories {
public:
    Histories(int w, int h, std::size_t shapeTables) : next_(shapeTables) {
        out_.width = w;
        out_.height = h;
        out_.keys.assign(std::size_t(w) * std::size_t(h), 0);
        out_.tables.resize(768);
        for (std::size_t c = 0; c < 3; ++c)
            for (std::size_t v = 0; v < 256; ++v) out_.tables[c * 256 + v] = static_cast<std::uint8_t>(v);
    }

    /// Pixel (x, y) covered once more, by a shape with table `table` (applied to every channel).
    void cover(int x, int y, std::size_t shape, const std::array<std::uint8_t, 256>& table) {
        std::uint32_t& key = out_.keys[std::size_t(y) * std::size_t(out_.width) + std::size_t(x)];
        std::vector<std::int64_t>& next = next_[shape];
        if (next.size() <= key) next.resize(std::size_t(key) + 1, -1);
        if (next[key] < 0) {
            next[key] = static_cast<std::int64_t>(out_.count());
            const std::size_t from = std::size_t(key) * 768;
            out_.tables.resize(out_.tables.size() + 768);
            std::uint8_t* t = out_.tables.data() + out_.tables.size() - 768;
            for (std::size_t i = 0; i < 768; ++i) t[i] = table[out_.tables[from + i]];
        }
        key = static_cast<std::uint32_t>(next[key]);
    }

    KeyedTables take() { return std::move(out_); }

private:
    KeyedTables out_;
    std::vector<std::vector<std::int64_t>> next_;  ///< per shape table: a key's next key, -1 unknown yet
};

KeyedTables shadowKeys(const ShadowStep& s, int w, int h) {
    Histories keys(w, h, s.polygons.size());
    std::vector<std::uint32_t> mark(std::size_t(w) * std::size_t(h), 0);
    std::vector<raster::Point> pts;
    for (std::size_t i = 0; i < s.polygons.size(); ++i) {
        const ShadowStep::Polygon& poly = s.polygons[i];
        const std::array<std::uint8_t, 256> darker = cpu_drawn::shadowTable(poly.darkness);
        pts.clear();
        for (const auto& v : poly.vertices) pts.push_back({v[0], v[1]});
        // fillPoly's runs may overlap (its outline and its fill): each pixel once.
        const auto id = static_cast<std::uint32_t>(i + 1);
        raster::fillPoly(w, h, pts, 8, [&](int y, int x0, int x1) {
            for (int x = x0; x <= x1; ++x) {
                std::uint32_t& m = mark[std::size_t(y) * std::size_t(w) + std::size_t(x)];
                if (m == id) continue;
                m = id;
                keys.cover(x, y, i, darker);
            }
        });
    }
    return keys.take();
}

KeyedTables fogKeys(const FogStep& s, int w, int h) {
    Histories keys(w, h, 1);
    const std::array<std::uint8_t, 256> blended = cpu_drawn::fogTable(s);
    // raster::filledCircle gives each row of a disc once: each pixel of each particle once.
    for (const auto& pt : s.particles)
        raster::filledCircle(w, h, {pt[0], pt[1]}, pt[2], [&](int y, int x0, int x1) {
            for (int x = x0; x <= x1; ++x) keys.cover(x, y, 0, blended);
        });
    return keys.take();
}

}  // namespace

bool drawsKeyedShapes(const PixelStep& step) {
    return std::holds_alternative<ShadowStep>(step) || std::holds_alternative<FogStep>(step);
}

KeyedTables keyedTables(const PixelStep& step, int width, int height) {
    if (const auto* s = std::get_if<ShadowStep>(&step)) return shadowKeys(*s, width, height);
    if (const auto* s = std::get_if<FogStep>(&step)) return fogKeys(*s, width, height);
    throw RuntimeError("keyedTables: not a step drawn as keyed tables");
}

}  // namespace auglab
