// COCO's mask encodings, bit for bit as pycocotools (common/maskApi.c) computes them: run-length
// counts, their compressed string form, and the rasterisation of polygons. Written from the
// algorithms' description, checked against pycocotools' own output (tests/data/annotations/
// make_reference.py).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "annotations.h"
#include "error.h"

namespace auglab {

namespace {

// Runs cover the mask column by column (COCO masks are Fortran-ordered), starting with a run of 0s.
void fillFromRuns(const std::vector<std::uint32_t>& counts, Mask& m) {
    const std::size_t h = std::size_t(m.height);
    std::size_t at = 0;
    std::uint8_t value = 0;
    for (std::uint32_t run : counts) {
        for (std::uint32_t i = 0; i < run; ++i, ++at)
            if (value) m.values[(at % h) * std::size_t(m.width) + at / h] = 1;
        value ^= 1;
    }
}

}  // namespace

std::vector<std::uint32_t> rleFromMask(const Mask& m) {
    std::vector<std::uint32_t> counts;
    bool inside = false;
    std::uint32_t run = 0;
    for (int x = 0; x < m.width; ++x)
        for (int y = 0; y < m.height; ++y) {
            const bool v = m.at(x, y) != 0;
            if (v != inside) {
                counts.push_back(run);
                run = 0;
                inside = v;
            }
            ++run;
        }
    counts.push_back(run);
    return counts;
}

Mask maskFromRle(const std::vector<std::uint32_t>& counts, int width, int height) {
    std::uint64_t covered = 0;
    for (std::uint32_t c : counts) covered += c;
    const std::uint64_t pixels = std::uint64_t(std::max(width, 0)) * std::uint64_t(std::max(height, 0));
    if (covered != pixels)
        throw InputError("the RLE runs cover " + std::to_string(covered) + " pixels, a " +
                         std::to_string(width) + "x" + std::to_string(height) + " mask has " +
                         std::to_string(pixels));
    Mask m;
    m.width = width;
    m.height = height;
    m.values.assign(pixels, 0);
    fillFromRuns(counts, m);
    return m;
}

// The compressed form: each count (from the fourth on, its difference from the count two before,
// which is small for smooth shapes) as a signed number in 5-bit groups, least significant first;
// a character is 48 + the group, + 32 when more groups follow. The last group's bit 4 is the sign.
std::string rleToString(const std::vector<std::uint32_t>& counts) {
    std::string s;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        std::int64_t x = counts[i];
        if (i > 2) x -= std::int64_t(counts[i - 2]);
        bool more = true;
        while (more) {
            int c = int(x & 0x1f);
            x >>= 5;  // arithmetic: a negative difference keeps its sign
            more = (c & 0x10) ? x != -1 : x != 0;
            if (more) c |= 0x20;
            s += char(c + 48);
        }
    }
    return s;
}

std::vector<std::uint32_t> rleFromString(std::string_view s, const std::string& where) {
    std::vector<std::uint32_t> counts;
    std::size_t p = 0;
    while (p < s.size()) {
        const std::size_t start = p;
        std::int64_t x = 0;
        int k = 0;
        bool more = true;
        while (more) {
            if (p >= s.size())
                throw InputError(where +
                                 ": the compressed RLE ends inside a number (truncated at character " +
                                 std::to_string(p) + ")");
            const int c = static_cast<unsigned char>(s[p]) - 48;
            if (c < 0 || c > 63)
                throw InputError(where + ": character " + std::to_string(p) + " ('" + std::string(1, s[p]) +
                                 "') is not part of a compressed RLE");
            // 7 groups hold 35 bits: any difference of two 32-bit counts.
            if (k == 7)
                throw InputError(where + ": the number at character " + std::to_string(start) +
                                 " is too long");
            x |= std::int64_t(c & 0x1f) << (5 * k);
            more = (c & 0x20) != 0;
            ++p;
            ++k;
            if (!more && (c & 0x10)) x |= static_cast<std::int64_t>(~std::uint64_t(0) << (5 * k));
        }
        if (counts.size() > 2) x += std::int64_t(counts[counts.size() - 2]);
        if (x < 0 || x > std::int64_t(UINT32_MAX))
            throw InputError(where + ": run " + std::to_string(counts.size()) + " is " + std::to_string(x) +
                             ", not a pixel count");
        counts.push_back(std::uint32_t(x));
    }
    return counts;
}

// pycocotools' rleFrPoly: the outline is traced on a grid 5 times finer than the pixels, and a pixel
// is inside when its centre lies below a crossing of the outline in its column (the runs toggle at
// every crossing). The roundings, truncations and comparisons below are those of maskApi.c, in the
// same order, so that the masks agree to the pixel.
Mask maskFromPolygon(const std::vector<double>& xy, int width, int height) {
    Mask m;
    m.width = std::max(width, 0);
    m.height = std::max(height, 0);
    m.values.assign(std::size_t(m.width) * std::size_t(m.height), 0);
    const std::size_t k = xy.size() / 2;
    if (k == 0 || m.width == 0 || m.height == 0) return m;
    // Far beyond any image, and well inside int once scaled (the tracing below is in int, as there).
    constexpr double kLimit = 1e6;
    for (double v : xy)
        if (!(std::abs(v) <= kLimit))
            throw InputError("polygon coordinate " + std::to_string(v) + " is beyond +-1e6 pixels");

    const double scale = 5;
    std::vector<int> x(k + 1), y(k + 1);
    for (std::size_t j = 0; j < k; ++j) {
        x[j] = static_cast<int>(scale * xy[j * 2] + .5);  // truncation toward zero, as C's cast
        y[j] = static_cast<int>(scale * xy[j * 2 + 1] + .5);
    }
    x[k] = x[0];
    y[k] = y[0];

    // Crossings: where consecutive traced points step into another fine column, the pixel column
    // (if that fine column is a pixel centre's) and the first pixel row at or below the crossing.
    const int h = m.height, w = m.width;
    std::vector<std::uint32_t> crossings;
    bool first = true;
    int pu = 0, pv = 0;
    const auto visit = [&](int u, int v) {
        if (!first && u != pu) {
            double xd = double(u < pu ? u : u - 1);
            xd = (xd + .5) / scale - .5;
            if (std::floor(xd) == xd && xd >= 0 && xd <= double(w - 1)) {
                double yd = double(v < pv ? v : pv);
                yd = (yd + .5) / scale - .5;
                if (yd < 0)
                    yd = 0;
                else if (yd > h)
                    yd = h;
                yd = std::ceil(yd);
                crossings.push_back(std::uint32_t(int(xd) * h + int(yd)));
            }
        }
        first = false;
        pu = u;
        pv = v;
    };
    for (std::size_t j = 0; j < k; ++j) {
        int xs = x[j], xe = x[j + 1], ys = y[j], ye = y[j + 1];
        const int dx = std::abs(xe - xs), dy = std::abs(ys - ye);
        // Each edge is stepped along its longer axis in increasing order, the points kept in the
        // edge's own direction.
        const bool flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
        if (flip) {
            std::swap(xs, xe);
            std::swap(ys, ye);
        }
        // A zero-length edge gives one point whose row is never read (its neighbours share its
        // column); maskApi.c divides 0 by 0 there, a slope of 0 is the same without the NaN.
        const double s = dx == 0 && dy == 0 ? 0.0 : dx >= dy ? double(ye - ys) / dx : double(xe - xs) / dy;
        if (dx >= dy) {
            for (int d = 0; d <= dx; ++d) {
                const int t = flip ? dx - d : d;
                visit(t + xs, static_cast<int>(ys + s * t + .5));
            }
        } else {
            for (int d = 0; d <= dy; ++d) {
                const int t = flip ? dy - d : d;
                visit(static_cast<int>(xs + s * t + .5), t + ys);
            }
        }
    }

    // Runs between the sorted crossings; two crossings at the same place cancel.
    crossings.push_back(std::uint32_t(h) * std::uint32_t(w));
    std::sort(crossings.begin(), crossings.end());
    std::vector<std::uint32_t> gaps(crossings.size());
    std::uint32_t previous = 0;
    for (std::size_t j = 0; j < crossings.size(); ++j) {
        gaps[j] = crossings[j] - previous;
        previous = crossings[j];
    }
    std::vector<std::uint32_t> counts{gaps[0]};
    for (std::size_t j = 1; j < gaps.size();) {
        if (gaps[j] > 0) {
            counts.push_back(gaps[j++]);
        } else if (++j < gaps.size()) {
            counts.back() += gaps[j++];
        }
    }
    fillFromRuns(counts, m);
    return m;
}

}  // namespace auglab
