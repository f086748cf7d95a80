#pragma once
// The CUDA kernels' steps that read statistics of the whole image first: CLAHE (tile histograms),
// ISONoise (the spread of the lightness) and FancyPCA (mean and covariance). Part of
// cuda_pixel.cuh, which includes it after its arithmetic, noise and colour helpers: the passes that
// gather the statistics, then the pointwise op that uses them. The maths is core/shared_maths.h's,
// the CPU's own; the sums run in the CPU's orders (integer counts, whose order does not matter, or
// float sums one thread at a time in the CPU's order), so the results are the CPU's bit for bit,
// except where libdevice's exp(-lambda) for ISONoise is an ulp from glibc's (see shared_maths.h).

#include "../shared_maths.h"

namespace auglab::cuda {

AUGLAB_HD const unsigned char* passPixel(unsigned char* arena, const DevicePass& p, int width, int x, int y) {
    return at<unsigned char>(arena, p.image) +
           (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) *
               static_cast<std::size_t>(p.channels);
}

// ---- CLAHE --------------------------------------------------------------------------------------

/// kClaheHistogram: the count that position (x, y) of the padded grid adds one to: its tile's bin of
/// the L of the image pixel it mirrors (reflect_101).
AUGLAB_HD int claheBin(unsigned char* arena, const DevicePass& p, int x, int y) {
    const unsigned char* s =
        passPixel(arena, p, p.innerWidth, reflect101(x, p.innerWidth), reflect101(y, p.innerHeight));
    int L, a, b;
    shared::labFromRgb(shared::labTablesAt(arena + p.labTables), s[0], s[1], s[2], L, a, b);
    return ((y / p.tileHeight) * p.tilesX + x / p.tileWidth) * 256 + L;
}

/// kClaheLut: tile k's table from its counts.
AUGLAB_HD void claheTileTable(unsigned char* arena, const DevicePass& p, int k) {
    const std::uint32_t* counts = at<std::uint32_t>(arena, p.sum) + 256 * static_cast<std::size_t>(k);
    int hist[256];
    for (int i = 0; i < 256; ++i) hist[i] = static_cast<int>(counts[i]);
    shared::claheTable(hist, p.clip, p.lutScale,
                       at<std::uint8_t>(arena, p.lut) + 256 * static_cast<std::size_t>(k));
}

/// kOpClahe: the pixel's new lightness from the four nearest tiles' tables; a and b kept.
AUGLAB_HD void claheOp(unsigned char* arena, const DeviceOp& op, int x, int y, int px[4]) {
    const shared::LabTables t = shared::labTablesAt(arena + op.labTables);
    int L, a, b;
    shared::labFromRgb(t, px[0], px[1], px[2], L, a, b);
    int x1, x2, y1, y2;
    float xa, xa1, ya, ya1;
    shared::claheAxis(x, op.invTile[0], op.tiles[0], x1, x2, xa, xa1);
    shared::claheAxis(y, op.invTile[1], op.tiles[1], y1, y2, ya, ya1);
    const std::uint8_t* luts = at<std::uint8_t>(arena, op.luts);
    const std::uint8_t* top = luts + static_cast<std::size_t>(y1 * op.tiles[0]) * 256;
    const std::uint8_t* bottom = luts + static_cast<std::size_t>(y2 * op.tiles[0]) * 256;
    const int newL = shared::claheBlend(top[x1 * 256 + L], top[x2 * 256 + L], bottom[x1 * 256 + L],
                                        bottom[x2 * 256 + L], xa, xa1, ya, ya1);
    shared::labToRgb(t, newL, a, b, px[0], px[1], px[2]);
}

// ---- ISONoise -----------------------------------------------------------------------------------

/// kIsoHistogram: the (max, min) pair this pixel counts in.
AUGLAB_HD int isoPairBin(unsigned char* arena, const DevicePass& p, int x, int y) {
    const unsigned char* s = passPixel(arena, p, p.width, x, y);
    int hi = s[0] > s[1] ? s[0] : s[1], lo = s[0] < s[1] ? s[0] : s[1];
    hi = hi > s[2] ? hi : s[2];
    lo = lo < s[2] ? lo : s[2];
    return hi * 256 + lo;
}

/// kIsoLambda: lambda and exp(-lambda) from the pair counts.
AUGLAB_HD void isoLambda(unsigned char* arena, const DevicePass& p) {
    const double pixels = static_cast<double>(p.width) * p.height;
    const double lambda = shared::isoNoiseLambda(at<std::uint32_t>(arena, p.sum), pixels, p.intensity);
    double* out = at<double>(arena, p.lut);
    out[0] = lambda;
    out[1] = exp(-lambda);
}

/// kOpIsoNoise: the pixel's Poisson count and normal from its noise words, then ISONoise.
AUGLAB_HD void isoNoiseOp(unsigned char* arena, const DeviceOp& op, int x, int y, int px[4]) {
    const double* stats = at<double>(arena, op.luts);
    const Words4 words = pixelNoiseWords(op.seedLo, op.seedHi, x, y);
    const int count = shared::isoNoiseCount(words.w[0], stats[0], stats[1]);
    float normal, unused;
    boxMuller(words.w[2], words.w[3], normal, unused);
    shared::isoNoisePixel(px, count, normal, static_cast<float>(op.colorSigma), static_cast<float>(op.intensity));
}

// ---- FancyPCA -----------------------------------------------------------------------------------

/// kPcaMean: channel c's float32 mean, its running sum pixel by pixel in row order (numpy's). The
/// kernel (pcaMeanKernel) stages the pixels through shared memory and adds them in this order.
AUGLAB_HD void pcaMean(unsigned char* arena, const DevicePass& p, int c) {
    float sum = 0;
    for (int y = 0; y < p.height; ++y)
        for (int x = 0; x < p.width; ++x) sum += shared::unitOf(passPixel(arena, p, p.width, x, y)[c]);
    const double n = static_cast<double>(p.width) * static_cast<double>(p.height);
    at<float>(arena, p.lut)[c] = static_cast<float>(static_cast<double>(sum) / n);
}

/// A pixel's value of channel c centred on the float32 mean, in float64.
AUGLAB_HD double pcaCentred(const unsigned char* s, const float* mean, int c) {
    return static_cast<double>(shared::unitOf(s[c]) - mean[c]);
}

/// kPcaRowSums: row y's sums of the centred values, left to right.
AUGLAB_HD void pcaRowSums(unsigned char* arena, const DevicePass& p, int y) {
    const float* mean = at<float>(arena, p.lut);
    double sums[3] = {0, 0, 0};
    for (int x = 0; x < p.width; ++x) {
        const unsigned char* s = passPixel(arena, p, p.width, x, y);
        for (int c = 0; c < 3; ++c) sums[c] += pcaCentred(s, mean, c);
    }
    double* row = at<double>(arena, p.sum) + static_cast<std::size_t>(y) * kPcaRowDoubles;
    for (int c = 0; c < 3; ++c) row[c] = sums[c];
}

/// kPcaRowProducts: row y's products of the values centred again on their float64 mean (which every
/// row's thread sums itself, over the rows in order).
AUGLAB_HD void pcaRowProducts(unsigned char* arena, const DevicePass& p, int y) {
    const float* mean = at<float>(arena, p.lut);
    const double* rows = at<double>(arena, p.sum);
    double avg[3] = {0, 0, 0};
    for (int r = 0; r < p.height; ++r)
        for (int c = 0; c < 3; ++c) avg[c] += rows[static_cast<std::size_t>(r) * kPcaRowDoubles + c];
    const double n = static_cast<double>(p.width) * static_cast<double>(p.height);
    for (int c = 0; c < 3; ++c) avg[c] /= n;
    constexpr int kPairs[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
    double products[6] = {0, 0, 0, 0, 0, 0};
    for (int x = 0; x < p.width; ++x) {
        const unsigned char* s = passPixel(arena, p, p.width, x, y);
        const double d[3] = {pcaCentred(s, mean, 0) - avg[0], pcaCentred(s, mean, 1) - avg[1],
                             pcaCentred(s, mean, 2) - avg[2]};
        for (int k = 0; k < 6; ++k) products[k] += d[kPairs[k][0]] * d[kPairs[k][1]];
    }
    double* row = at<double>(arena, p.sum) + static_cast<std::size_t>(y) * kPcaRowDoubles + 3;
    for (int k = 0; k < 6; ++k) row[k] = products[k];
}

/// kPcaMatrix: the products summed over the rows in order, then V diag(alpha * lambda).
AUGLAB_HD void pcaMatrix(unsigned char* arena, const DevicePass& p) {
    const double* rows = at<double>(arena, p.sum);
    double products[6] = {0, 0, 0, 0, 0, 0};
    for (int r = 0; r < p.height; ++r)
        for (int k = 0; k < 6; ++k) products[k] += rows[static_cast<std::size_t>(r) * kPcaRowDoubles + 3 + k];
    const double n = static_cast<double>(p.width) * static_cast<double>(p.height);
    shared::fancyPcaMatrix(products, n, p.pcaAlpha, at<double>(arena, p.lut + 16));
}

/// kOpFancyPca: the pixel plus the matrix applied to its centred colour.
AUGLAB_HD void fancyPcaOp(unsigned char* arena, const DeviceOp& op, int px[4]) {
    shared::fancyPcaPixel(px, at<float>(arena, op.luts), at<double>(arena, op.luts + 16));
}

// ---- RandomSunFlare physics_based -------------------------------------------------------------

AUGLAB_HD float* flareLayerAt(unsigned char* arena, Offset layer, int width, int x, int y) {
    return at<float>(arena, layer) + 3 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x);
}

/// kFlareLayer: the colour of the last shape that painted the pixel (black for none).
AUGLAB_HD void flareLayerPixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    const std::uint32_t key = at<std::uint32_t>(arena, p.keys)[static_cast<std::size_t>(y) * p.width + x];
    const std::uint8_t* colour = at<std::uint8_t>(arena, p.colours) + 4 * static_cast<std::size_t>(key);
    float* out = flareLayerAt(arena, p.layer, p.width, x, y);
    for (int c = 0; c < 3; ++c) out[c] = colour[c];
}

/// kFlareRows: the Gaussian's row pass for the channels of the mask, summed in float64 over the taps
/// in order, stored as float32; the other channels copied.
AUGLAB_HD void flareRowPixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    const double* taps = at<double>(arena, p.kernel);
    const int r = p.taps / 2;
    float* out = flareLayerAt(arena, p.layerTmp, p.width, x, y);
    const float* own = flareLayerAt(arena, p.layer, p.width, x, y);
    for (int c = 0; c < 3; ++c) {
        if (!(p.channelMask >> c & 1)) {
            out[c] = own[c];
            continue;
        }
        double acc = 0;
        for (int t = 0; t < p.taps; ++t)
            acc += taps[t] * flareLayerAt(arena, p.layer, p.width, reflect101(x + t - r, p.width), y)[c];
        out[c] = static_cast<float>(acc);
    }
}

/// kFlareColumns: the column pass back into the layer (the mask's channels only).
AUGLAB_HD void flareColumnPixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    const double* taps = at<double>(arena, p.kernel);
    const int r = p.taps / 2;
    float* out = flareLayerAt(arena, p.layer, p.width, x, y);
    for (int c = 0; c < 3; ++c) {
        if (!(p.channelMask >> c & 1)) continue;
        double acc = 0;
        for (int t = 0; t < p.taps; ++t)
            acc += taps[t] * flareLayerAt(arena, p.layerTmp, p.width, x, reflect101(y + t - r, p.height))[c];
        out[c] = static_cast<float>(acc);
    }
}

/// kFlareFade: the layer times 1 - min(distance to the sun / fade, 1), in float64.
AUGLAB_HD void flareFadePixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    const long long dx = x - p.sunX, dy = y - p.sunY;
    double d = sqrt(static_cast<double>(dx * dx + dy * dy)) / p.fade;
    d = d < 0.0 ? 0.0 : (d > 1.0 ? 1.0 : d);
    const double m = 1 - d;
    float* v = flareLayerAt(arena, p.layer, p.width, x, y);
    for (int c = 0; c < 3; ++c) v[c] = static_cast<float>(static_cast<double>(v[c]) * m);
}

/// kOpScreen: 255 - (255 - v)(255 - f) / 255 in float32, clipped, truncated.
AUGLAB_HD void screenOp(unsigned char* arena, const DeviceOp& op, int x, int y, int px[4]) {
    const float* f = flareLayerAt(arena, op.luts, op.width, x, y);
    for (int c = 0; c < 3; ++c) {
        const float product = static_cast<float>(255 - px[c]) * (255.0f - f[c]);
        float v = 255.0f - product / 255.0f;
        v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
        px[c] = static_cast<int>(v);
    }
}

}  // namespace auglab::cuda
