#include "image.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace auglab {

Image::Image(int w, int h, int c, Uninitialised) : width(w), height(h), channels(c) {
    if (w < 0 || h < 0 || c < 1 || c > 4) {
        throw std::invalid_argument("Image: bad size " + std::to_string(w) + "x" + std::to_string(h) + "x" +
                                    std::to_string(c));
    }
    stride = static_cast<std::size_t>(w) * static_cast<std::size_t>(c);
    pixels.resize(stride * static_cast<std::size_t>(h));
}

Image::Image(int w, int h, int c, std::uint8_t value) : Image(w, h, c, Uninitialised{}) {
    std::fill(pixels.begin(), pixels.end(), value);
}

bool samePixels(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height || a.channels != b.channels) {
        return false;
    }
    if (a.empty()) {
        return true;
    }
    const std::size_t rowBytes = static_cast<std::size_t>(a.width) * static_cast<std::size_t>(a.channels);
    for (int y = 0; y < a.height; ++y) {
        if (std::memcmp(a.row(y), b.row(y), rowBytes) != 0) {
            return false;
        }
    }
    return true;
}

namespace {

// One source pixel's share of one destination pixel along an axis.
struct Tap {
    int index;
    std::uint32_t weight;
};

// Area weights along one axis, in exact integers. Measured in units of 1/dst of a source pixel,
// destination pixel d covers [d*src, (d+1)*src) and source pixel s covers [s*dst, (s+1)*dst); a tap's
// weight is the length of their overlap. The weights of one destination pixel sum to `src`.
struct AxisTaps {
    std::vector<std::size_t> begin;  // taps of destination pixel d: [begin[d], begin[d+1])
    std::vector<Tap> taps;
};

AxisTaps areaTaps(int src, int dst) {
    AxisTaps axis;
    axis.begin.reserve(static_cast<std::size_t>(dst) + 1);
    const std::int64_t s64 = src;
    const std::int64_t d64 = dst;
    for (std::int64_t d = 0; d < d64; ++d) {
        axis.begin.push_back(axis.taps.size());
        const std::int64_t lo = d * s64;        // destination pixel's start, scaled
        const std::int64_t hi = (d + 1) * s64;  // and end
        for (std::int64_t s = lo / d64; s * d64 < hi; ++s) {
            const std::int64_t overlap = std::min(hi, (s + 1) * d64) - std::max(lo, s * d64);
            if (overlap > 0) {
                axis.taps.push_back({static_cast<int>(s), static_cast<std::uint32_t>(overlap)});
            }
        }
    }
    axis.begin.push_back(axis.taps.size());
    return axis;
}

// Horizontal pass over one source row: sums[x * c + k] = sum of weight * pixel over x's taps.
void filterRow(const std::uint8_t* in, const AxisTaps& tx, int c, std::vector<std::uint64_t>& sums) {
    const std::size_t w = tx.begin.size() - 1;
    for (std::size_t x = 0; x < w; ++x) {
        std::uint64_t sum[4] = {0, 0, 0, 0};
        for (std::size_t t = tx.begin[x]; t < tx.begin[x + 1]; ++t) {
            const std::uint8_t* p = in + static_cast<std::size_t>(tx.taps[t].index) * c;
            for (int k = 0; k < c; ++k) {
                sum[k] += static_cast<std::uint64_t>(tx.taps[t].weight) * p[k];
            }
        }
        std::copy(sum, sum + c, sums.begin() + static_cast<std::ptrdiff_t>(x * c));
    }
}

// The common 2x case: each output is the rounded mean of a 2x2 block (what INTER_AREA does too).
Image halve(const Image& src) {
    Image out(src.width / 2, src.height / 2, src.channels, Image::Uninitialised{});
    const int c = src.channels;
    for (int y = 0; y < out.height; ++y) {
        const std::uint8_t* r0 = src.row(2 * y);
        const std::uint8_t* r1 = src.row(2 * y + 1);
        std::uint8_t* o = out.row(y);
        for (int x = 0; x < out.width; ++x) {
            for (int k = 0; k < c; ++k) {
                const int i = 2 * x * c + k;
                o[x * c + k] = static_cast<std::uint8_t>((r0[i] + r0[i + c] + r1[i] + r1[i + c] + 2) >> 2);
            }
        }
    }
    return out;
}

Image copyPacked(const Image& src) {
    Image out(src.width, src.height, src.channels, Image::Uninitialised{});
    for (int y = 0; y < src.height; ++y) {
        std::memcpy(out.row(y), src.row(y), out.stride);
    }
    return out;
}

}  // namespace

Image resizeArea(const Image& src, int w, int h) {
    if (w < 1 || h < 1 || w > src.width || h > src.height) {
        throw std::invalid_argument("resizeArea: cannot shrink " + std::to_string(src.width) + "x" +
                                    std::to_string(src.height) + " to " + std::to_string(w) + "x" +
                                    std::to_string(h));
    }
    if (w == src.width && h == src.height) {
        return copyPacked(src);
    }
    if (2 * w == src.width && 2 * h == src.height) {
        return halve(src);
    }

    // Separable exact integer box filter: every output value is
    //   sum(wx * wy * pixel) / (srcW * srcH), rounded to nearest (halves up).
    // The numerator is at most 255 * srcW * srcH, far inside 64 bits for any image stb can load.
    const AxisTaps tx = areaTaps(src.width, w);
    const AxisTaps ty = areaTaps(src.height, h);
    const int c = src.channels;
    const std::size_t rowValues = static_cast<std::size_t>(w) * static_cast<std::size_t>(c);
    const std::uint64_t denom =
        static_cast<std::uint64_t>(src.width) * static_cast<std::uint64_t>(src.height);

    Image out(w, h, c, Image::Uninitialised{});
    std::vector<std::uint64_t> rowSums(rowValues);  // one source row, filtered horizontally
    std::vector<std::uint64_t> acc(rowValues);      // one output row before the division
    int filteredRow = -1;  // the source row in rowSums: a row straddling two output rows is filtered once
    for (int y = 0; y < h; ++y) {
        std::fill(acc.begin(), acc.end(), 0);
        for (std::size_t j = ty.begin[y]; j < ty.begin[y + 1]; ++j) {
            if (ty.taps[j].index != filteredRow) {
                filteredRow = ty.taps[j].index;
                filterRow(src.row(filteredRow), tx, c, rowSums);
            }
            const std::uint64_t wy = ty.taps[j].weight;
            for (std::size_t i = 0; i < rowValues; ++i) {
                acc[i] += wy * rowSums[i];
            }
        }
        std::uint8_t* o = out.row(y);
        for (std::size_t i = 0; i < rowValues; ++i) {
            o[i] = static_cast<std::uint8_t>((acc[i] + denom / 2) / denom);
        }
    }
    return out;
}

}  // namespace auglab
