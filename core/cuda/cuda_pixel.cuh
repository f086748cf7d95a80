#pragma once
// The per-pixel maths of the CUDA kernels, written as host+device functions. The kernels
// (cuda_kernels.cu) are thin loops around these; the tests compile the same functions with the host
// compiler and run them without a GPU, against the CPU backend.
//
// They mirror the CPU reference operation for operation (cpu_warp.cpp, cpu_pixel_ops.cpp,
// colour.cpp): the warp in OpenCV's fixed point from the integer coordinate tables that every backend
// shares (warp_fixed_point.h), reduced to 1/32 pixel with integer weights; the colour ops in the same
// integer or float32 steps. On the device every float operation that the CPU rounds separately is
// an explicitly rounded intrinsic (__fmul_rn, __fadd_rn, ...), so nvcc can never contract it into
// an FMA, and the one fused multiply-add of hsvToRgb8 is __fmaf_rn. The results are then the CPU's,
// bit for bit, Gaussian noise included (its log, sin and cos are polynomials: see boxMuller).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cuda_descriptors.h"

#if defined(__CUDACC__)
#define AUGLAB_HD __host__ __device__ __forceinline__
#else
#define AUGLAB_HD inline
#endif

namespace auglab::cuda {

// ---- Arithmetic rounded exactly as the CPU rounds it --------------------------------------------
// The host build of these is only used by the tests; it is compiled with -ffp-contract=off like
// the CPU backend, so a * b + c there is two roundings as well.

AUGLAB_HD float mulF(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
AUGLAB_HD float addF(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
AUGLAB_HD float fmaF(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
AUGLAB_HD double mulD(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
AUGLAB_HD float truncF(float v) {
#if defined(__CUDA_ARCH__)
    return truncf(v);
#else
    return std::trunc(v);
#endif
}
/// Truncation toward zero, as static_cast<int>(float).
AUGLAB_HD int truncToInt(float v) {
#if defined(__CUDA_ARCH__)
    return __float2int_rz(v);
#else
    return static_cast<int>(v);
#endif
}
/// Round half to even, as std::nearbyint in the default rounding mode.
AUGLAB_HD int roundToInt(float v) {
#if defined(__CUDA_ARCH__)
    return __float2int_rn(v);
#else
    return static_cast<int>(std::nearbyint(v));
#endif
}
AUGLAB_HD int clampInt(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}
/// Signed addition that wraps instead of being undefined (the CPU's int addition does on x86).
AUGLAB_HD int wrapAdd(int a, int b) {
    return static_cast<int>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

template <class T>
AUGLAB_HD T* at(unsigned char* arena, Offset offset) {
    return reinterpret_cast<T*>(arena + offset);
}

// ---- Philox4x32-10 and Box-Muller (philox.h, plan.cpp's pixelNoiseWords) -----------------------

struct Words4 {
    std::uint32_t w[4];
};

AUGLAB_HD Words4 pixelNoiseWords(std::uint32_t keyLo, std::uint32_t keyHi, int x, int y) {
    std::uint32_t c0 = static_cast<std::uint32_t>(x), c1 = static_cast<std::uint32_t>(y), c2 = 0x6e6f6973u,
                  c3 = 0;
    std::uint32_t k0 = keyLo, k1 = keyHi;
    for (int round = 0; round < 10; ++round) {
        const std::uint64_t p0 = static_cast<std::uint64_t>(0xD2511F53u) * c0;
        const std::uint64_t p1 = static_cast<std::uint64_t>(0xCD9E8D57u) * c2;
        const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
        const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return Words4{{c0, c1, c2, c3}};
}

/// philox.h's boxMuller, operation for operation: every product and sum rounded on its own, the
/// square root correctly rounded, the rest integer and bit moves; the same bits as the CPU.
AUGLAB_HD float bitsToFloat(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#endif
}
AUGLAB_HD std::uint32_t floatToBits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
#endif
}
AUGLAB_HD float sqrtF(float v) {
#if defined(__CUDA_ARCH__)
    return __fsqrt_rn(v);
#else
    return std::sqrt(v);
#endif
}
AUGLAB_HD float logOfSteps(std::uint32_t k) {
    const float kLog[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                           -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                           2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
    const std::uint32_t bits = floatToBits(static_cast<float>(k));
    int e = static_cast<int>(bits >> 23) - 127;
    float m = bitsToFloat((bits & 0x7FFFFFu) | 0x3F800000u);
    if (m > 1.41421356f) {
        m = mulF(m, 0.5f);
        e = e + 1;
    }
    const float x = addF(m, -1.0f);
    const float z = mulF(x, x);
    float p = kLog[0];
    for (int i = 1; i < 9; ++i) p = addF(mulF(p, x), kLog[i]);
    const float fe = static_cast<float>(e - 24);
    float y = mulF(mulF(p, x), z);
    y = addF(y, mulF(fe, -2.12194440e-4f));
    y = addF(y, -mulF(0.5f, z));
    return addF(addF(x, y), mulF(fe, 0.693359375f));
}
AUGLAB_HD void cosSinOfSteps(std::uint32_t j, float& c, float& s) {
    const std::uint32_t q = (j + (1u << 21)) >> 22;
    const float a = mulF(static_cast<float>(static_cast<std::int32_t>(j) - static_cast<std::int32_t>(q << 22)),
                         static_cast<float>(6.283185307179586476925 / 16777216.0));
    const float z = mulF(a, a);
    float ps = -1.9515295891E-4f;
    ps = addF(mulF(ps, z), 8.3321608736E-3f);
    ps = addF(mulF(ps, z), -1.6666654611E-1f);
    const float sa = addF(mulF(mulF(ps, z), a), a);
    float pc = 2.443315711809948E-5f;
    pc = addF(mulF(pc, z), -1.388731625493765E-3f);
    pc = addF(mulF(pc, z), 4.166664568298827E-2f);
    const float ca = addF(addF(mulF(mulF(pc, z), z), -mulF(0.5f, z)), 1.0f);
    switch (q & 3u) {
        case 0: c = ca, s = sa; break;
        case 1: c = -sa, s = ca; break;
        case 2: c = -ca, s = -sa; break;
        default: c = sa, s = -ca; break;
    }
}
AUGLAB_HD void boxMuller(std::uint32_t w0, std::uint32_t w1, float& n0, float& n1) {
    const float r = sqrtF(mulF(-2.0f, logOfSteps((w0 >> 8) + 1)));
    float c, sn;
    cosSinOfSteps(w1 >> 8, c, sn);
    n0 = mulF(r, c);
    n1 = mulF(r, sn);
}

// ---- The warp (cpu_warp.cpp) --------------------------------------------------------------------

constexpr int kAbBits = 10, kInterBits = 5, kInterSize = 1 << kInterBits;   // warp_fixed_point.h's
enum Border : int { kConstant, kReplicate, kReflect, kReflect101, kWrap };  // BorderMode's order

/// cv::borderInterpolate: the index used for p outside [0, len), or -1 for the constant border.
AUGLAB_HD int borderIndex(int p, int len, int mode) {
    if (static_cast<unsigned>(p) < static_cast<unsigned>(len)) return p;
    switch (mode) {
        case kReplicate:
            return p < 0 ? 0 : len - 1;
        case kReflect: {
            const long long period = 2LL * len;
            long long q = p % period;
            if (q < 0) q += period;
            return static_cast<int>(q < len ? q : period - 1 - q);
        }
        case kReflect101: {
            if (len == 1) return 0;
            const long long period = 2LL * len - 2;
            long long q = p % period;
            if (q < 0) q += period;
            return static_cast<int>(q < len ? q : period - q);
        }
        case kWrap: {
            const int q = p % len;
            return q < 0 ? q + len : q;
        }
        default:
            return -1;
    }
}

/// plan.h's gatherIndex: truncation toward zero, NaN and out-of-range values as INT_MIN (x86),
/// clamped to [lo, hi].
AUGLAB_HD int gatherIndexOf(float s, int lo, int hi) {
    if (!(s >= -2147483648.0f && s < 2147483648.0f)) return lo;  // NaN too
    return clampInt(truncToInt(s), lo, hi);
}

/// The gather (GatherStep) of output pixel (x, y): two float32 sums, then one source pixel.
AUGLAB_HD void gatherPixel(const unsigned char* src, const float* tables, const DeviceWarp& w, int width,
                           int height, int channels, int x, int y, int px[4]) {
    const float* rowA0 = tables;
    const float* rowA1 = tables + height;
    const float* colB0 = tables + 2 * static_cast<std::size_t>(height);
    const float* colB1 = colB0 + width;
    const int i0 = gatherIndexOf(addF(addF(rowA0[y], colB0[x]), w.m02), w.lo, w.hi);
    const int i1 = gatherIndexOf(addF(addF(rowA1[y], colB1[x]), w.m12), w.lo, w.hi);
    const int row = w.dim / 2 - i0, col = w.dim / 2 - 1 + i1;
    const int sx = static_cast<int>(static_cast<long long>(col) * w.inputWidth / w.dim);
    const int sy = static_cast<int>(static_cast<long long>(row) * w.inputHeight / w.dim);
    const unsigned char* s = src + (static_cast<std::size_t>(sy) * static_cast<std::size_t>(w.inputWidth) +
                                    static_cast<std::size_t>(sx)) *
                                       static_cast<std::size_t>(channels);
    for (int c = 0; c < channels; ++c) px[c] = s[c];
}

/// The warped value of output pixel (x, y) of a width x height output: `channels` values into px
/// (alpha included).
AUGLAB_HD void warpPixel(unsigned char* arena, const DeviceWarp& w, int width, int height, int channels,
                         int x, int y, int px[4]) {
    const std::size_t stride = static_cast<std::size_t>(w.rowPixels) * static_cast<std::size_t>(channels);
    const unsigned char* src = at<unsigned char>(arena, w.input) + static_cast<std::size_t>(w.windowY) * stride +
                               static_cast<std::size_t>(w.windowX) * static_cast<std::size_t>(channels);
    const int sw = w.inputWidth, sh = w.inputHeight;
    if (w.copy) {
        const unsigned char* s =
            src + static_cast<std::size_t>(y) * stride + static_cast<std::size_t>(x) * channels;
        for (int c = 0; c < channels; ++c) px[c] = s[c];
        return;
    }
    if (w.gather) {
        gatherPixel(src, at<float>(arena, w.tables), w, width, height, channels, x, y, px);
        return;
    }
    const int* tables = at<int>(arena, w.tables);
    // A projective warp's positions per pixel (projectiveMap), else the affine tables.
    const std::size_t at2 = 2 * (static_cast<std::size_t>(y) * width + x);
    const int adelta = w.projective ? 0 : tables[x], bdelta = w.projective ? 0 : tables[width + x];
    const int rowX = w.projective ? 0 : tables[2 * static_cast<std::size_t>(width) + y];
    const int rowY = w.projective ? 0 : tables[2 * static_cast<std::size_t>(width) + height + y];
    const int cval[4] = {w.fill[0], w.fill[1], w.fill[2], 0};
    auto tap = [&](int sx, int sy) {
        return src + static_cast<std::size_t>(sy) * stride + static_cast<std::size_t>(sx) * channels;
    };
    if (!w.linear) {
        int sx = w.projective ? tables[at2] : wrapAdd(rowX, adelta) >> kAbBits;
        int sy = w.projective ? tables[at2 + 1] : wrapAdd(rowY, bdelta) >> kAbBits;
        if (static_cast<unsigned>(sx) >= static_cast<unsigned>(sw) ||
            static_cast<unsigned>(sy) >= static_cast<unsigned>(sh)) {
            sx = borderIndex(sx, sw, w.border);
            sy = borderIndex(sy, sh, w.border);
            if (sx < 0 || sy < 0) {
                for (int c = 0; c < channels; ++c) px[c] = cval[c];
                return;
            }
        }
        const unsigned char* s = tap(sx, sy);
        for (int c = 0; c < channels; ++c) px[c] = s[c];
        return;
    }
    const int X = w.projective ? tables[at2] : wrapAdd(rowX, adelta) >> (kAbBits - kInterBits);
    const int Y = w.projective ? tables[at2 + 1] : wrapAdd(rowY, bdelta) >> (kAbBits - kInterBits);
    const int sx = X >> kInterBits, sy = Y >> kInterBits;
    const int fx = X & (kInterSize - 1), fy = Y & (kInterSize - 1);
    const int w00 = (kInterSize - fx) * (kInterSize - fy), w01 = fx * (kInterSize - fy);
    const int w10 = (kInterSize - fx) * fy, w11 = fx * fy;
    const unsigned fastW = static_cast<unsigned>(sw > 1 ? sw - 1 : 0),
                   fastH = static_cast<unsigned>(sh > 1 ? sh - 1 : 0);
    if (static_cast<unsigned>(sx) < fastW && static_cast<unsigned>(sy) < fastH) {
        const unsigned char* p = tap(sx, sy);
        for (int c = 0; c < channels; ++c)
            px[c] = (p[c] * w00 + p[c + channels] * w01 + p[stride + c] * w10 +
                     p[stride + c + channels] * w11 + 512) >>
                    10;
        return;
    }
    if (w.border == kConstant && (sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0)) {
        for (int c = 0; c < channels; ++c) px[c] = cval[c];
        return;
    }
    const int x0 = borderIndex(sx, sw, w.border), x1 = borderIndex(sx + 1, sw, w.border);
    const int y0 = borderIndex(sy, sh, w.border), y1 = borderIndex(sy + 1, sh, w.border);
    for (int c = 0; c < channels; ++c) {
        const int v00 = x0 >= 0 && y0 >= 0 ? tap(x0, y0)[c] : cval[c];
        const int v01 = x1 >= 0 && y0 >= 0 ? tap(x1, y0)[c] : cval[c];
        const int v10 = x0 >= 0 && y1 >= 0 ? tap(x0, y1)[c] : cval[c];
        const int v11 = x1 >= 0 && y1 >= 0 ? tap(x1, y1)[c] : cval[c];
        px[c] = (v00 * w00 + v01 * w01 + v10 * w10 + v11 * w11 + 512) >> 10;
    }
}

// ---- Colour (colour.cpp) ------------------------------------------------------------------------

/// OpenCV's 8-bit RGB2HSV; `div` holds sdiv[256] then hdiv[256], as colour.cpp builds them.
AUGLAB_HD void rgbToHsv8(int r, int g, int b, const int* div, int& h, int& s, int& v) {
    constexpr int kShift = 12;
    v = r > g ? r : g;
    v = v > b ? v : b;
    int vmin = r < g ? r : g;
    vmin = vmin < b ? vmin : b;
    const int diff = v - vmin;
    const int vr = v == r ? -1 : 0;
    const int vg = v == g ? -1 : 0;
    s = (diff * div[v] + (1 << (kShift - 1))) >> kShift;
    int hh = (vr & (g - b)) + (~vr & ((vg & (b - r + 2 * diff)) + ((~vg) & (r - g + 4 * diff))));
    hh = (hh * div[256 + diff] + (1 << (kShift - 1))) >> kShift;
    hh += hh < 0 ? 180 : 0;
    h = hh;
}

/// OpenCV's 8-bit HSV2RGB as colour.cpp's hsvToRgb8: float32, the `1 - s*h` terms fused, truncated.
AUGLAB_HD void hsvToRgb8(int h, int s, int v, int& r, int& g, int& b) {
    const float fs = mulF(static_cast<float>(s), 1.0f / 255.0f);
    const float fv = mulF(static_cast<float>(v), 1.0f / 255.0f);
    float fh = mulF(static_cast<float>(h), 6.0f / 180.0f);
    const float pre = truncF(fh);
    fh = addF(fh, -pre);
    const int sector = static_cast<int>(pre) % 6;
    const float tab[4] = {fv, mulF(fv, addF(1.0f, -fs)), mulF(fv, fmaF(-fs, fh, 1.0f)),
                          mulF(fv, fmaF(-fs, addF(1.0f, -fh), 1.0f))};
    constexpr int kSectors[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1}, {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
    b = clampInt(truncToInt(mulF(tab[kSectors[sector][0]], 255.0f)), 0, 255);
    g = clampInt(truncToInt(mulF(tab[kSectors[sector][1]], 255.0f)), 0, 255);
    r = clampInt(truncToInt(mulF(tab[kSectors[sector][2]], 255.0f)), 0, 255);
}

/// OpenCV RGB2GRAY in 15-bit fixed point (colour.h's grayOf).
AUGLAB_HD int grayOf(int r, int g, int b) {
    return (r * 9798 + g * 19235 + b * 3735 + (1 << 14)) >> 15;
}

/// OpenCV's 8-bit RGB2YCrCb and YCrCb2RGB in 14-bit fixed point (colour.h's).
AUGLAB_HD void rgbToYCrCb(int r, int g, int b, int& y, int& cr, int& cb) {
    y = (r * 4899 + g * 9617 + b * 1868 + (1 << 13)) >> 14;
    cr = clampInt(((r - y) * 11682 + (128 << 14) + (1 << 13)) >> 14, 0, 255);
    cb = clampInt(((b - y) * 9241 + (128 << 14) + (1 << 13)) >> 14, 0, 255);
}
AUGLAB_HD void yCrCbToRgb(int y, int cr, int cb, int& r, int& g, int& b) {
    cr -= 128;
    cb -= 128;
    b = clampInt(y + ((cb * 29049 + (1 << 13)) >> 14), 0, 255);
    g = clampInt(y + ((cb * -5636 + cr * -11698 + (1 << 13)) >> 14), 0, 255);
    r = clampInt(y + ((cr * 22987 + (1 << 13)) >> 14), 0, 255);
}

/// brightnessContrastLut's entry v: float32 multiply, then add, clip, truncate.
AUGLAB_HD std::uint8_t brightnessContrastEntry(int v, float alpha, float beta) {
    float x = addF(mulF(static_cast<float>(v), alpha), beta);
    x = x < 0.0f ? 0.0f : (255.0f < x ? 255.0f : x);
    return static_cast<std::uint8_t>(truncToInt(x));
}

/// Border reflect_101 by mirroring steps, as cpu_pixel_ops.cpp's reflect101.
AUGLAB_HD int reflect101(int p, int len) {
    if (len == 1) return 0;
    while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
    return p;
}

}  // namespace auglab::cuda

#include "cuda_image_stats.cuh"  // CLAHE, ISONoise and FancyPCA: their statistics passes and ops

namespace auglab::cuda {

// ---- The pointwise ops (cpu_pixel_ops.cpp) ------------------------------------------------------

AUGLAB_HD void applyOp(unsigned char* arena, const DeviceOp& op, int x, int y, int px[4]) {
    switch (op.kind) {
        case kOpLut: {
            const std::uint8_t* lut = at<std::uint8_t>(arena, op.luts);
            for (int c = 0; c < 3; ++c) px[c] = lut[px[c]];
            return;
        }
        case kOpChannelLut: {
            const std::uint8_t* lut = at<std::uint8_t>(arena, op.luts);
            for (int c = 0; c < 3; ++c) px[c] = lut[256 * c + px[c]];
            return;
        }
        case kOpKeyedLut: {
            const std::uint32_t key =
                at<std::uint32_t>(arena, op.keys)[static_cast<std::size_t>(y) * op.width + x];
            const std::uint8_t* lut = at<std::uint8_t>(arena, op.luts) + static_cast<std::size_t>(key) * 768;
            for (int c = 0; c < 3; ++c) px[c] = lut[256 * c + px[c]];
            return;
        }
        case kOpHsv: {
            const std::uint8_t* l = at<std::uint8_t>(arena, op.luts);
            int h, s, v;
            rgbToHsv8(px[0], px[1], px[2], at<int>(arena, op.divisions), h, s, v);
            hsvToRgb8(l[h], l[256 + s], l[512 + v], px[0], px[1], px[2]);
            return;
        }
        case kOpGray:
            px[0] = px[1] = px[2] = grayOf(px[0], px[1], px[2]);
            return;
        case kOpGrayBlend: {
            // cv2.addWeighted on 8-bit data (core/plan.h grayBlendOf): one rounding of c * alpha + t.
            const float t = mulF(static_cast<float>(grayOf(px[0], px[1], px[2])), op.blendBeta);
            for (int c = 0; c < 3; ++c) {
                float v = fmaF(static_cast<float>(px[c]), op.blendAlpha, t);
                v = v < -1.0f ? -1.0f : (256.0f < v ? 256.0f : v);
                px[c] = clampInt(roundToInt(v), 0, 255);
            }
            return;
        }
        case kOpLumaLut: {
            const std::uint8_t* lut = at<std::uint8_t>(arena, op.luts);
            int l, cr, cb;
            rgbToYCrCb(px[0], px[1], px[2], l, cr, cb);
            yCrCbToRgb(lut[l], cr, cb, px[0], px[1], px[2]);
            return;
        }
        case kOpMatrix: {
            // cv2.transform's 8-bit fixed point (plan.h ChannelMatrixStep): 1/1024, rounded, saturated.
            const int* m = at<int>(arena, op.luts);
            const int r = px[0], g = px[1], b = px[2];
            for (int c = 0; c < 3; ++c)
                px[c] = clampInt((m[3 * c] * r + m[3 * c + 1] * g + m[3 * c + 2] * b + 512) >> 10, 0, 255);
            return;
        }
        case kOpNoise: {
            const Words4 words = pixelNoiseWords(op.seedLo, op.seedHi, x, y);
            float g[4];
            boxMuller(words.w[0], words.w[1], g[0], g[1]);
            boxMuller(words.w[2], words.w[3], g[2], g[3]);
            for (int c = 0; c < 3; ++c) {
                const float z = op.mode ? g[c] : g[0];
                const int delta = truncToInt(addF(op.mean255, mulF(op.std255, z)));
                px[c] = clampInt(px[c] + delta, 0, 255);
            }
            return;
        }
        case kOpDropout: {
            // The CPU fills the holes in order, so where holes overlap the last one wins.
            const int* holes = at<int>(arena, op.holes);
            for (int i = op.holeCount - 1; i >= 0; --i) {
                const int* hole = holes + 4 * static_cast<std::size_t>(i);
                if (x < hole[0] || x >= hole[0] + hole[2] || y < hole[1] || y >= hole[1] + hole[3]) continue;
                if (op.mode == kFillRandom) {
                    const Words4 words = pixelNoiseWords(op.seedLo, op.seedHi, x, y);
                    for (int c = 0; c < 3; ++c) px[c] = static_cast<std::uint8_t>(words.w[c]);
                } else {
                    const std::uint8_t* colour =
                        op.mode == kFillRandomUniform
                            ? at<std::uint8_t>(arena, op.colours) + 4 * static_cast<std::size_t>(i)
                            : op.fill;
                    for (int c = 0; c < 3; ++c) px[c] = colour[c];
                }
                return;
            }
            return;
        }
        case kOpMix: {
            const unsigned char* b = at<unsigned char>(arena, op.partner) +
                                     (static_cast<std::size_t>(y) * static_cast<std::size_t>(op.width) +
                                      static_cast<std::size_t>(x)) *
                                         static_cast<std::size_t>(op.channels);
            if (op.paste) {
                if (x >= op.box[0] && x < op.box[0] + op.box[2] && y >= op.box[1] &&
                    y < op.box[1] + op.box[3])
                    for (int c = 0; c < op.channels; ++c) px[c] = b[c];
                return;
            }
            const std::uint32_t wb = 65536u - op.weight;
            for (int c = 0; c < op.channels; ++c)
                px[c] = static_cast<int>(
                    (op.weight * static_cast<std::uint32_t>(px[c]) + wb * b[c] + 32768u) >> 16);
            return;
        }
        case kOpClahe:
            claheOp(arena, op, x, y, px);
            return;
        case kOpIsoNoise:
            isoNoiseOp(arena, op, x, y, px);
            return;
        case kOpFancyPca:
            fancyPcaOp(arena, op, px);
            return;
        case kOpScreen:
            screenOp(arena, op, x, y, px);
            return;
        default:
            return;
    }
}

// ---- Whole passes, one output pixel (or one LUT entry) at a time --------------------------------

AUGLAB_HD std::size_t pixelIndex(const DevicePass& p, int x, int y) {
    return (static_cast<std::size_t>(y) * static_cast<std::size_t>(p.width) + static_cast<std::size_t>(x)) *
           static_cast<std::size_t>(p.channels);
}

/// kSegment: warp (or read) the pixel, apply the ops in order, write it.
AUGLAB_HD void segmentPixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    unsigned char* out = at<unsigned char>(arena, p.image) + pixelIndex(p, x, y);
    int px[4] = {0, 0, 0, 0};
    if (p.warped)
        warpPixel(arena, p.warp, p.width, p.height, p.channels, x, y, px);
    else
        for (int c = 0; c < p.channels; ++c) px[c] = out[c];
    const DeviceOp* ops = at<DeviceOp>(arena, p.ops);
    for (int i = 0; i < p.opCount; ++i) applyOp(arena, ops[i], x, y, px);
    for (int c = 0; c < p.channels; ++c) out[c] = static_cast<unsigned char>(px[c]);
}

/// kBlurRows: the float row pass of the separable Gaussian, taps summed in order.
AUGLAB_HD void blurRowPixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    const unsigned char* row = at<unsigned char>(arena, p.image) + pixelIndex(p, 0, y);
    const float* k = at<float>(arena, p.kernel);
    const int r = p.taps / 2;
    float a0 = 0, a1 = 0, a2 = 0;
    for (int t = 0; t < p.taps; ++t) {
        const unsigned char* s = row + static_cast<std::size_t>(reflect101(x + t - r, p.width)) * p.channels;
        a0 = addF(a0, mulF(k[t], s[0]));
        a1 = addF(a1, mulF(k[t], s[1]));
        a2 = addF(a2, mulF(k[t], s[2]));
    }
    float* dst = at<float>(arena, p.floats) + 3 * (static_cast<std::size_t>(y) * p.width + x);
    dst[0] = a0;
    dst[1] = a1;
    dst[2] = a2;
}

/// kBlurColumns: the float column pass, rounded to nearest and clipped into the RGB bytes.
AUGLAB_HD void blurColumnPixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    const float* rows = at<float>(arena, p.floats);
    const float* k = at<float>(arena, p.kernel);
    const int r = p.taps / 2;
    float acc[3] = {0, 0, 0};
    for (int t = 0; t < p.taps; ++t) {
        const float* s = rows + 3 * (static_cast<std::size_t>(reflect101(y + t - r, p.height)) * p.width + x);
        for (int c = 0; c < 3; ++c) acc[c] = addF(acc[c], mulF(k[t], s[c]));
    }
    unsigned char* out = at<unsigned char>(arena, p.image) + pixelIndex(p, x, y);
    for (int c = 0; c < 3; ++c) out[c] = static_cast<unsigned char>(clampInt(roundToInt(acc[c]), 0, 255));
}

/// kMedian: cv2.medianBlur's median of the pixel's taps x taps window per colour channel (border
/// replicate), into `floats`: the smallest v with more than taps*taps/2 window values <= v, found by
/// bisection on 0..255.
AUGLAB_HD void medianPixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    const unsigned char* img = at<unsigned char>(arena, p.image);
    const int r = p.taps / 2, half = p.taps * p.taps / 2;
    int lo[3] = {0, 0, 0}, hi[3] = {255, 255, 255};
    for (int step = 0; step < 8; ++step) {
        int mid[3], count[3] = {0, 0, 0};
        for (int c = 0; c < 3; ++c) mid[c] = (lo[c] + hi[c]) / 2;
        for (int dy = -r; dy <= r; ++dy) {
            const int sy = clampInt(y + dy, 0, p.height - 1);
            for (int dx = -r; dx <= r; ++dx) {
                const unsigned char* s = img + pixelIndex(p, clampInt(x + dx, 0, p.width - 1), sy);
                for (int c = 0; c < 3; ++c) count[c] += s[c] <= mid[c] ? 1 : 0;
            }
        }
        for (int c = 0; c < 3; ++c) {
            if (count[c] > half)
                hi[c] = mid[c];
            else
                lo[c] = mid[c] + 1;
        }
    }
    float* dst = at<float>(arena, p.floats) + 3 * (static_cast<std::size_t>(y) * p.width + x);
    for (int c = 0; c < 3; ++c) dst[c] = static_cast<float>(lo[c]);
}

/// kConvolve: cv2.filter2D's float sums, the non-zero taps fused-multiply-added in row-major order
/// (cpu_pixel_ops.cpp),
/// border reflect_101, into `floats`.
AUGLAB_HD void convolvePixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    const unsigned char* img = at<unsigned char>(arena, p.image);
    const float* k = at<float>(arena, p.kernel);
    const int r = p.taps / 2;
    float acc[3] = {0, 0, 0};
    for (int i = 0; i < p.taps; ++i) {
        const int sy = reflect101(y + i - r, p.height);
        for (int j = 0; j < p.taps; ++j) {
            const float kt = k[i * p.taps + j];
            if (kt == 0.0f) continue;
            const unsigned char* s = img + pixelIndex(p, reflect101(x + j - r, p.width), sy);
            for (int c = 0; c < 3; ++c) acc[c] = fmaF(kt, static_cast<float>(s[c]), acc[c]);
        }
    }
    float* dst = at<float>(arena, p.floats) + 3 * (static_cast<std::size_t>(y) * p.width + x);
    for (int c = 0; c < 3; ++c) dst[c] = acc[c];
}

/// kStoreFloats: the floats of a median or convolution pass, rounded to nearest and clipped into the
/// RGB bytes.
AUGLAB_HD void storeFloatsPixel(unsigned char* arena, const DevicePass& p, int x, int y) {
    const float* s = at<float>(arena, p.floats) + 3 * (static_cast<std::size_t>(y) * p.width + x);
    unsigned char* out = at<unsigned char>(arena, p.image) + pixelIndex(p, x, y);
    for (int c = 0; c < 3; ++c) out[c] = static_cast<unsigned char>(clampInt(roundToInt(s[c]), 0, 255));
}

/// kMeanSum: this pixel's share of the integer sum (of R, G and B, or of its gray).
AUGLAB_HD int rgbSumOf(unsigned char* arena, const DevicePass& p, int x, int y) {
    const unsigned char* s = at<unsigned char>(arena, p.image) + pixelIndex(p, x, y);
    return p.meanOfGray ? grayOf(s[0], s[1], s[2]) : s[0] + s[1] + s[2];
}

/// kMeanLut: entry v of brightnessContrastLut(alpha, float(brightness * mean)), the mean in double
/// exactly as core/plan.h's meanOfSum divides.
AUGLAB_HD void meanLutEntry(unsigned char* arena, const DevicePass& p, int v) {
    const double sum = static_cast<double>(*at<std::uint64_t>(arena, p.sum));
    const double pixels = mulD(static_cast<double>(p.width), p.height);
#if defined(__CUDA_ARCH__)
    double mean = __ddiv_rn(sum, p.meanOfGray ? pixels : mulD(3.0, pixels));
    if (p.roundMean) mean = floor(__dadd_rn(mean, 0.5));
    const float beta = __double2float_rn(mulD(p.brightness, mean));
#else
    double mean = sum / (p.meanOfGray ? pixels : 3.0 * pixels);
    if (p.roundMean) mean = std::floor(mean + 0.5);
    const float beta = static_cast<float>(p.brightness * mean);
#endif
    at<std::uint8_t>(arena, p.lut)[v] = brightnessContrastEntry(v, p.alpha, beta);
}

/// kHistogram: the bins (of the 3 x 256 counts) this pixel adds one to; returns how many.
AUGLAB_HD int histogramBins(unsigned char* arena, const DevicePass& p, int x, int y, int bins[3]) {
    const unsigned char* s = at<unsigned char>(arena, p.image) + pixelIndex(p, x, y);
    if (p.equalizeByChannels) {
        bins[0] = s[0];
        bins[1] = 256 + s[1];
        bins[2] = 512 + s[2];
        return 3;
    }
    int l, cr, cb;
    rgbToYCrCb(s[0], s[1], s[2], l, cr, cb);
    bins[0] = l;
    return 1;
}

/// kEqualizeLut: table `c` from counts `c` (core/colour.cpp equalizeLut, the same arithmetic).
AUGLAB_HD void equalizeTable(unsigned char* arena, const DevicePass& p, int c) {
    const std::uint32_t* hist = at<std::uint32_t>(arena, p.sum) + 256 * c;
    std::uint8_t* lut = at<std::uint8_t>(arena, p.lut) + 256 * c;
    for (int v = 0; v < 256; ++v) lut[v] = static_cast<std::uint8_t>(v);
    if (p.equalizePil) {
        int last = -1, nonEmpty = 0;
        std::uint64_t below = 0;
        for (int v = 0; v < 256; ++v)
            if (hist[v]) {
                if (last >= 0) below += hist[last];
                last = v;
                ++nonEmpty;
            }
        const std::uint64_t step = below / 255;
        if (nonEmpty <= 1 || step == 0) return;
        std::uint64_t cum = 0;
        for (int v = 0; v < 256; ++v) {
            cum += hist[v];
            const std::uint64_t q = (cum + step / 2) / step;
            lut[v] = static_cast<std::uint8_t>(q < 255 ? q : 255);
        }
        return;
    }
    int first = 0;
    while (first < 256 && !hist[first]) ++first;
    std::uint64_t total = 0;
    for (int v = 0; v < 256; ++v) total += hist[v];
    if (first == 256 || hist[first] == total) return;
#if defined(__CUDA_ARCH__)
    const float scale = __fdiv_rn(255.0f, __ull2float_rn(total - hist[first]));
#else
    const float scale = 255.0f / static_cast<float>(total - hist[first]);
#endif
    std::uint64_t sum = 0;
    lut[first] = 0;
    for (int k = first + 1; k < 256; ++k) {
        sum += hist[k];
#if defined(__CUDA_ARCH__)
        const float f = __ull2float_rn(sum);
#else
        const float f = static_cast<float>(sum);
#endif
        lut[k] = static_cast<std::uint8_t>(clampInt(roundToInt(mulF(f, scale)), 0, 255));
    }
}

// ---- The grid texture (CUDA-GL interop) ------------------------------------------------------

/// An RGBA8 texel as the 32-bit word a surface holds: R in the low byte, A in the high one.
AUGLAB_HD std::uint32_t packTexel(std::uint32_t r, std::uint32_t g, std::uint32_t b, std::uint32_t a) {
    return r | g << 8 | b << 16 | a << 24;
}

/// The texel of pixel (x, y) of a placed output: its RGB, and its alpha or 255.
AUGLAB_HD std::uint32_t placedTexel(unsigned char* arena, const DevicePlacement& p, int x, int y) {
    const unsigned char* s =
        at<unsigned char>(arena, p.image) +
        (static_cast<std::size_t>(y) * static_cast<std::size_t>(p.width) + static_cast<std::size_t>(x)) *
            static_cast<std::size_t>(p.channels);
    return packTexel(s[0], s[1], s[2], p.channels == 4 ? s[3] : 255u);
}

}  // namespace auglab::cuda
