#include "source_levels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "error.h"

namespace auglab {

namespace {

// Block means of 2^k x 2^k pixels. Blocks cut short by the right or bottom edge are completed by
// repeating the last column and row, as a JPEG encoder pads its blocks, so that a JPEG decoded at
// 1/2^k agrees with this at the edges too. Means are rounded to nearest, ties to even: a tie is
// common in small blocks (a quarter of all 2x2 sums), and rounding ties up would brighten every
// level made from an already reduced image by 1/8 of a level on average. Acc holds a block's sum:
// 32 bits while 4^k * 255 fits (k <= 11), 64 beyond.
// sum / count rounded to nearest, ties to even, for count = 2^shift: adding count/2 - 1, plus one
// more when the quotient is odd, carries exactly the sums past a tie, and a tie only when odd.
template <typename Acc>
Acc roundedMean(Acc sum, Acc count, int shift) {
    return (sum + count / 2 - 1 + ((sum >> shift) & 1)) >> shift;
}

template <typename Acc>
Image blockMeans(const ImageView& src, int k) {
    const int c = src.channels;
    int w = 0, h = 0;
    SourceLevels::levelSize(src.width, src.height, k, w, h);
    Image out(w, h, c, Image::Uninitialised{});
    std::vector<Acc> sums(static_cast<std::size_t>(w) * static_cast<std::size_t>(c));
    const int lastX = src.width - 1, paddedWidth = w << k;
    const Acc count = Acc{1} << (2 * k);
    for (int oy = 0; oy < h; ++oy) {
        std::fill(sums.begin(), sums.end(), Acc{0});
        for (int y = oy << k; y < (oy + 1) << k; ++y) {
            const std::uint8_t* p = src.row(std::min(y, src.height - 1));
            for (int x = 0; x < src.width; ++x) {
                Acc* s = &sums[static_cast<std::size_t>(x >> k) * static_cast<std::size_t>(c)];
                for (int ch = 0; ch < c; ++ch) s[ch] += p[x * c + ch];
            }
            Acc* s = &sums[static_cast<std::size_t>(w - 1) * static_cast<std::size_t>(c)];
            for (int ch = 0; ch < c; ++ch) s[ch] += static_cast<Acc>(paddedWidth - src.width) * p[lastX * c + ch];
        }
        std::uint8_t* o = out.row(oy);
        for (std::size_t i = 0; i < sums.size(); ++i) o[i] = static_cast<std::uint8_t>(roundedMean(sums[i], count, 2 * k));
    }
    return out;
}

// Level k + 1 from level k, the common step (a JPEG decoded at 1/8, a tile at 1/16): two rows at a
// time, two pixels a time, no index arithmetic in the loop.
Image halve(const ImageView& src) {
    const int c = src.channels;
    int w = 0, h = 0;
    SourceLevels::levelSize(src.width, src.height, 1, w, h);
    Image out(w, h, c, Image::Uninitialised{});
    const int pairs = src.width / 2;
    for (int oy = 0; oy < h; ++oy) {
        const std::uint8_t* a = src.row(2 * oy);
        const std::uint8_t* b = src.row(std::min(2 * oy + 1, src.height - 1));
        std::uint8_t* o = out.row(oy);
        for (int x = 0; x < pairs * c; x += c, a += 2 * c, b += 2 * c)
            for (int ch = 0; ch < c; ++ch)
                o[x + ch] = static_cast<std::uint8_t>(roundedMean<unsigned>(a[ch] + a[c + ch] + b[ch] + b[c + ch], 4, 2));
        if (src.width % 2 != 0)  // the last column, repeated
            for (int ch = 0; ch < c; ++ch)
                o[pairs * c + ch] = static_cast<std::uint8_t>(roundedMean<unsigned>(2 * (a[ch] + b[ch]), 4, 2));
    }
    return out;
}

}  // namespace

SourceLevels::SourceLevels(Image full) : width_(full.width), height_(full.height), channels_(full.channels) {
    levels_.emplace(0, std::move(full));
}

SourceLevels::SourceLevels(ImageView borrowed)
    : width_(borrowed.width), height_(borrowed.height), channels_(borrowed.channels), borrowed_(borrowed) {}

SourceLevels::SourceLevels(Image image, int level, int fullWidth, int fullHeight)
    : width_(fullWidth), height_(fullHeight), channels_(image.channels), first_(level) {
    int w = 0, h = 0;
    levelSize(fullWidth, fullHeight, level, w, h);
    if (level < 0 || image.width != w || image.height != h)
        throw RuntimeError("level " + std::to_string(level) + " of a " + std::to_string(fullWidth) + "x" +
                           std::to_string(fullHeight) + " source is " + std::to_string(w) + "x" + std::to_string(h) +
                           ", not " + std::to_string(image.width) + "x" + std::to_string(image.height));
    levels_.emplace(level, std::move(image));
}

std::size_t SourceLevels::bytes() const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const auto& [k, image] : levels_) n += image.pixels.size();
    return n;
}

int SourceLevels::levelForScale(double scale, int width, int height) {
    if (!(scale < 1.0) || !(scale > 0.0)) return 0;
    const int k = static_cast<int>(std::floor(std::log2(1.0 / scale) + 1e-9));
    const int maxLevel = static_cast<int>(std::floor(std::log2(std::max(1, std::min(width, height)))));
    return std::clamp(k, 0, maxLevel);
}

const Image& SourceLevels::level(int k) {
    std::lock_guard lock(mutex_);
    if (k < first_)
        throw RuntimeError("level " + std::to_string(k) + " of this image was not decoded (it starts at level " +
                           std::to_string(first_) + ")");
    auto it = levels_.find(k);
    if (it == levels_.end()) it = levels_.emplace(k, reduce(firstView(), k - first_)).first;
    return it->second;
}

ImageView SourceLevels::view(int k) {
    if (k == 0 && borrowed_.data) return borrowed_;
    return level(k);
}

ImageView SourceLevels::firstView() const {
    if (borrowed_.data) return borrowed_;
    return levels_.at(first_);
}

void SourceLevels::levelSize(int width, int height, int k, int& w, int& h) {
    const std::int64_t f = std::int64_t{1} << std::clamp(k, 0, 40);
    w = static_cast<int>(std::max<std::int64_t>(1, (width + f - 1) / f));
    h = static_cast<int>(std::max<std::int64_t>(1, (height + f - 1) / f));
}

Image SourceLevels::reduce(const ImageView& image, int k) {
    if (k <= 0) {
        Image copy(image.width, image.height, image.channels, Image::Uninitialised{});
        const std::size_t bytes = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.channels);
        for (int y = 0; y < image.height; ++y) std::memcpy(copy.row(y), image.row(y), bytes);
        return copy;
    }
    if (k == 1) return halve(image);
    return k <= 11 ? blockMeans<std::uint32_t>(image, k) : blockMeans<std::uint64_t>(image, k);
}

}  // namespace auglab
