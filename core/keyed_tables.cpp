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

// RandomRain: a pixel's drop layer after cv2.blur is colour x (the drop pixels in its window, border
// reflect_101), divided as cv2.blur divides: a function of that count alone. A key per count that
// occurs (key 0 stays the identity, unused); its table adds the layer, saturated, and dims.
KeyedTables rainKeys(const RainStep& s, int w, int h) {
    KeyedTables out;
    out.width = w;
    out.height = h;
    out.keys.assign(std::size_t(w) * std::size_t(h), 0);
    out.tables.resize(768);
    for (std::size_t c = 0; c < 3; ++c)
        for (std::size_t v = 0; v < 256; ++v) out.tables[c * 256 + v] = static_cast<std::uint8_t>(v);
    if (s.lines.empty()) return out;  // the library returns the image as it is
    std::vector<std::uint8_t> drops(std::size_t(w) * std::size_t(h), 0);
    cpu_drawn::rainDrops(s, w, h, [&](int y, int x0, int x1) {
        std::fill(drops.begin() + std::ptrdiff_t(y) * w + x0, drops.begin() + std::ptrdiff_t(y) * w + x1 + 1,
                  1);
    });
    // The window counts, rows then columns (a blur of 1 or less is none: the count is the pixel's own).
    const int k = std::max(s.blur, 1), a = k / 2;
    std::vector<std::uint32_t> rows(drops.size(), 0), counts(drops.size(), 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int t = x - a; t < x - a + k; ++t)
                rows[std::size_t(y) * std::size_t(w) + std::size_t(x)] +=
                    drops[std::size_t(y) * std::size_t(w) + std::size_t(cpu_drawn::reflect101(t, w))];
    for (int y = 0; y < h; ++y)
        for (int t = y - a; t < y - a + k; ++t) {
            const std::uint32_t* src =
                rows.data() + std::size_t(cpu_drawn::reflect101(t, h)) * std::size_t(w);
            std::uint32_t* dst = counts.data() + std::size_t(y) * std::size_t(w);
            for (int x = 0; x < w; ++x) dst[x] += src[x];
        }
    const cpu_drawn::BoxDivider divide(k);
    const std::array<std::uint8_t, 256> darker = cpu_drawn::rainDarkerTable(s.brightness);
    const bool dim = s.brightness != 1.0;
    std::vector<std::int64_t> keyOf(std::size_t(k) * std::size_t(k) + 1, -1);
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const std::uint32_t n = counts[i];
        if (keyOf[n] < 0) {
            keyOf[n] = static_cast<std::int64_t>(out.count());
            out.tables.resize(out.tables.size() + 768);
            std::uint8_t* t = out.tables.data() + out.tables.size() - 768;
            for (std::size_t c = 0; c < 3; ++c) {
                const std::uint32_t sum = std::uint32_t(s.colour[c]) * n;
                const int layer = k > 1 ? divide(sum) : int(sum);
                for (std::size_t v = 0; v < 256; ++v) {
                    const auto added = static_cast<std::uint8_t>(std::min(255, int(v) + layer));
                    t[c * 256 + v] = dim ? darker[added] : added;
                }
            }
        }
        out.keys[i] = static_cast<std::uint32_t>(keyOf[n]);
    }
    return out;
}

// RandomSunFlare's overlay method: a pixel's result depends on its value and on which discs cover it
// (cpu_drawn::applyOverlayFlare). A key per set of covering discs that occurs, made as a tree (a key's
// parent is the set without its last disc); each key's tables replay the blends for every value. A
// child starts from its parent's state after the parent's last disc, so each disc is run once per key.
KeyedTables flareKeys(const FlareStep& s, int w, int h) {
    std::vector<const FlareStep::Circle*> discs;
    for (const auto& c : s.circles) discs.push_back(&c);
    for (const auto& c : s.sun) discs.push_back(&c);
    const std::size_t nCircles = s.circles.size();
    struct Node {
        std::int64_t parent = -1;
        std::size_t last = 0;  ///< the set's last disc (the root has none)
    };
    std::vector<Node> nodes(1);
    std::vector<std::vector<std::int64_t>> next(discs.size());  // per disc: a key's child, -1 unknown
    std::vector<std::uint32_t> keys(std::size_t(w) * std::size_t(h), 0);
    std::vector<std::uint32_t> mark(keys.size(), 0);
    for (std::size_t i = 0; i < discs.size(); ++i) {
        const auto id = static_cast<std::uint32_t>(i + 1);
        raster::filledCircle(w, h, {discs[i]->x, discs[i]->y}, discs[i]->radius, [&](int y, int x0, int x1) {
            for (int x = x0; x <= x1; ++x) {
                const std::size_t p = std::size_t(y) * std::size_t(w) + std::size_t(x);
                if (mark[p] == id) continue;
                mark[p] = id;
                std::uint32_t& key = keys[p];
                if (next[i].size() <= key) next[i].resize(std::size_t(key) + 1, -1);
                if (next[i][key] < 0) {
                    next[i][key] = static_cast<std::int64_t>(nodes.size());
                    nodes.push_back({static_cast<std::int64_t>(key), i});
                }
                key = static_cast<std::uint32_t>(next[i][key]);
            }
        });
    }
    // Each key's state (overlay and result, per channel and value) after its last disc, parents
    // before children (a child is always made after its parent).
    const auto blend = [](int over, int out, float a, float b) {
        const float v = static_cast<float>(over) * a + static_cast<float>(out) * b;
        return static_cast<std::uint8_t>(std::clamp(std::nearbyint(v), 0.0f, 255.0f));
    };
    struct State {
        std::array<std::uint8_t, 768> over, out;
    };
    std::vector<State> states(nodes.size());
    for (std::size_t v = 0; v < 768; ++v)
        states[0].over[v] = states[0].out[v] = static_cast<std::uint8_t>(v % 256);
    // Runs discs [from, to) on a state, the pixel inside none of them.
    const auto runOutside = [&](State& st, std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) {
            if (i == nCircles) st.over = st.out;  // the sun's overlay starts from the result
            for (std::size_t v = 0; v < 768; ++v)
                if (st.over[v] != st.out[v])
                    st.out[v] = blend(st.over[v], st.out[v], discs[i]->alpha, discs[i]->beta);
        }
    };
    KeyedTables out;
    out.width = w;
    out.height = h;
    out.keys = std::move(keys);
    out.tables.resize(nodes.size() * 768);
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        State st;
        if (k == 0) {
            st = states[0];
        } else {
            const Node& n = nodes[k];
            const std::size_t parent = std::size_t(n.parent);
            st = states[parent];
            runOutside(st, parent == 0 ? 0 : nodes[parent].last + 1, n.last);
            const FlareStep::Circle& c = *discs[n.last];
            for (std::size_t v = 0; v < 768; ++v) {
                st.over[v] = c.colour[v / 256];
                st.out[v] = blend(st.over[v], st.out[v], c.alpha, c.beta);
            }
            states[k] = st;
        }
        runOutside(st, k == 0 ? discs.size() : nodes[k].last + 1, discs.size());
        std::copy(st.out.begin(), st.out.end(), out.tables.begin() + std::ptrdiff_t(k * 768));
    }
    return out;
}

}  // namespace

bool drawsKeyedShapes(const PixelStep& step) {
    return std::holds_alternative<ShadowStep>(step) || std::holds_alternative<FogStep>(step) ||
           std::holds_alternative<RainStep>(step) ||
           (std::holds_alternative<FlareStep>(step) && !std::get<FlareStep>(step).physics);
}

KeyedTables keyedTables(const PixelStep& step, int width, int height) {
    if (const auto* s = std::get_if<ShadowStep>(&step)) return shadowKeys(*s, width, height);
    if (const auto* s = std::get_if<FogStep>(&step)) return fogKeys(*s, width, height);
    if (const auto* s = std::get_if<RainStep>(&step)) return rainKeys(*s, width, height);
    if (const auto* s = std::get_if<FlareStep>(&step); s && !s->physics) return flareKeys(*s, width, height);
    throw RuntimeError("keyedTables: not a step drawn as keyed tables");
}

}  // namespace auglab
