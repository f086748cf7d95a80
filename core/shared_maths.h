#pragma once
// Maths that the CPU reference and the CUDA kernels compile from the same source (host and device):
// the float HLS conversions and the noise of ISONoise, the 3 x 3 symmetric eigenproblem of
// FancyPCA, CLAHE's tile tables and blend, and OpenCV's 8-bit Lab conversions on their tables. One
// definition, so the backends cannot drift apart: the CPU calls these (core/colour.cpp,
// core/cpu_pixel_ops.cpp), the kernels call them (core/cuda/cuda_image_stats.cuh).
//
// Every float operation is written as the CPU rounds it: the host build has -ffp-contract=off and
// the device build --fmad=false, so a * b + c is two roundings on both, and the fused ones are
// spelled fmaf. Division and square root are correctly rounded on both (nvcc's defaults). The
// exception is ISONoise's exp(-lambda), from glibc on the host and libdevice on the device (an ulp
// apart at most, which moves a count only for a word at a threshold's very edge).

#include <float.h>
#include <math.h>

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define AUGLAB_SHARED __host__ __device__ inline
#else
#define AUGLAB_SHARED inline
#endif

namespace auglab::shared {

// ---- Float HLS (OpenCV's vector path) -----------------------------------------------------------

/// core/colour.h rgbToHlsF: OpenCV's float RGB2HLS, values in [0, 1], H in degrees.
AUGLAB_SHARED void rgbToHlsF(float r, float g, float b, float& h, float& l, float& s) {
    const float rg = r < g ? g : r, vmax = rg < b ? b : rg;  // std::max's order
    const float mg = g < r ? g : r, vmin = b < mg ? b : mg;
    const float diff = vmax - vmin, sum = vmax + vmin;
    l = sum * 0.5f;
    if (diff <= FLT_EPSILON) {
        h = s = 0;
        return;
    }
    s = l < 0.5f ? diff / sum : diff / (2.0f - sum);
    const float d60 = 60.0f / diff;
    if (vmax == r)
        h = g < b ? fmaf(g - b, d60, 360.0f) : (g - b) * d60;
    else if (vmax == g)
        h = fmaf(b - r, d60, 120.0f);
    else
        h = fmaf(r - g, d60, 240.0f);
}

/// core/colour.h hlsToRgbF: OpenCV's float HLS2RGB.
AUGLAB_SHARED void hlsToRgbF(float h, float l, float s, float& r, float& g, float& b) {
    if (s == 0) {
        r = g = b = l;
        return;
    }
    const float p2 = l <= 0.5f ? l * (1.0f + s) : l + s - l * s;
    const float p1 = 2.0f * l - p2;
    float hh = h * (6.0f / 360.0f);
    if (hh >= 6.0f) hh -= 6.0f;
    int sector = static_cast<int>(hh);  // truncated: a negative hue stays in sector 0
    const float f = hh - static_cast<float>(sector);
    sector = sector < 0 ? 0 : (sector > 5 ? 5 : sector);
    const float tab[4] = {p2, p1, fmaf(p2 - p1, 1.0f - f, p1), fmaf(p2 - p1, f, p1)};
    constexpr int kSectors[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1}, {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
    b = tab[kSectors[sector][0]];
    g = tab[kSectors[sector][1]];
    r = tab[kSectors[sector][2]];
}

// ---- ISONoise -----------------------------------------------------------------------------------

/// The lightness of a pixel whose 8-bit maximum and minimum are hi and lo, as rgbToHlsF gives it.
AUGLAB_SHARED float hlsLightness(int hi, int lo) {
    return (static_cast<float>(hi) / 255.0f + static_cast<float>(lo) / 255.0f) * 0.5f;
}

/// ISONoise's lambda from the counts of each pixel's (8-bit max, min) pair (hi * 256 + lo, 65,536
/// of them) over `pixels` pixels: intensity x the population standard deviation of the lightness,
/// its sums in float64 in the order of the pairs.
template <class Count>
AUGLAB_SHARED double isoNoiseLambda(const Count* pairs, double pixels, double intensity) {
    double sum = 0, squares = 0;
    for (int hi = 0; hi < 256; ++hi)
        for (int lo = 0; lo <= hi; ++lo) {
            const Count n = pairs[hi * 256 + lo];
            if (!n) continue;
            const float l = hlsLightness(hi, lo);
            sum += static_cast<double>(n) * l;
            squares += static_cast<double>(n) * (static_cast<double>(l) * l);
        }
    const double mean = sum / pixels;
    const double variance = squares / pixels - mean * mean;
    return sqrt(variance > 0.0 ? variance : 0.0) * intensity;
}

/// The most a pixel's ISONoise count can be (the inversion stops there).
constexpr int kIsoMaxCount = 100000;

/// A pixel's ISONoise count from its noise word w0 (core/plan.h IsoNoise): a Poisson(lambda) draw by
/// inversion of the uniform w0 / 2^32, the probabilities and their running sum in float64 from
/// p0 = exp(-lambda): the first k with w0 < (sum of the first k + 1 probabilities) x 2^32 (or a
/// probability underflowed to 0, or kIsoMaxCount). The CPU kernel compares w0 with these thresholds,
/// tabled once per image (isoNoiseThresholds), the CUDA kernel sums them per pixel: the same counts.
AUGLAB_SHARED int isoNoiseCount(std::uint32_t w0, double lambda, double p0) {
    const double u = static_cast<double>(w0);
    double p = p0, cumulative = p;
    int count = 0;
    while (u >= cumulative * 4294967296.0 && count < kIsoMaxCount && p > 0) {
        ++count;
        p *= lambda / count;
        cumulative += p;
    }
    return count;
}

/// ISONoise on one pixel's R, G, B (core/plan.h IsoNoiseStep), given its count and its hue's
/// standard normal, in float32: H += normal x colorSigma, L += count x intensity x (1 - L), each
/// product rounded before its sum.
AUGLAB_SHARED void isoNoisePixel(int px[3], int count, float normal, float colorSigma, float intensity) {
    float h, l, sat;
    rgbToHlsF(static_cast<float>(px[0]) / 255.0f, static_cast<float>(px[1]) / 255.0f,
              static_cast<float>(px[2]) / 255.0f, h, l, sat);
    h = h + normal * colorSigma;
    const float oneMinusL = 1.0f - l;
    l = l + static_cast<float>(count) * intensity * oneMinusL;
    float rgb[3];
    hlsToRgbF(h, l, sat, rgb[0], rgb[1], rgb[2]);
    for (int c = 0; c < 3; ++c) {
        const float v = rgb[c] < 0.0f ? 0.0f : (rgb[c] > 1.0f ? 1.0f : rgb[c]);
        px[c] = static_cast<int>(nearbyintf(v * 255.0f));
    }
}

// ---- FancyPCA -----------------------------------------------------------------------------------

/// The eigenpairs of a symmetric 3 x 3 matrix (row-major), by cyclic Jacobi rotations in float64:
/// the eigenvalues in descending order, the eigenvectors as the columns of `vectors` (row-major),
/// each with its largest-magnitude component positive (the first of equal ones).
AUGLAB_SHARED void symmetricEigen3(const double m[9], double values[3], double vectors[9]) {
    double a[9], v[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 9; ++i) a[i] = m[i];
    constexpr int kPairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int sweep = 0; sweep < 64; ++sweep) {
        const double off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
        const double diag = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
        if (off == 0 || off <= 1e-36 * diag) break;
        for (const auto& pq : kPairs) {
            const int p = pq[0], q = pq[1];
            const double apq = a[3 * p + q];
            if (apq == 0) continue;
            // The rotation that zeroes a[p][q]: t = tan of its angle, the smaller root.
            const double theta = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
            const double t = fabs(theta) > 1e150
                                 ? 0.5 / theta
                                 : (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
            const double c = 1 / sqrt(t * t + 1), s = t * c;
            for (int k = 0; k < 3; ++k) {
                const double kp = a[3 * k + p], kq = a[3 * k + q];
                a[3 * k + p] = c * kp - s * kq;
                a[3 * k + q] = s * kp + c * kq;
            }
            for (int k = 0; k < 3; ++k) {
                const double pk = a[3 * p + k], qk = a[3 * q + k];
                a[3 * p + k] = c * pk - s * qk;
                a[3 * q + k] = s * pk + c * qk;
            }
            for (int k = 0; k < 3; ++k) {
                const double kp = v[3 * k + p], kq = v[3 * k + q];
                v[3 * k + p] = c * kp - s * kq;
                v[3 * k + q] = s * kp + c * kq;
            }
        }
    }
    int order[3] = {0, 1, 2};  // a stable sort of three, largest first
    for (int i = 1; i < 3; ++i)
        for (int j = i; j > 0 && a[4 * order[j]] > a[4 * order[j - 1]]; --j) {
            const int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int i = 0; i < 3; ++i) {
        const int src = order[i];
        values[i] = a[4 * src];
        int big = 0;
        for (int r = 1; r < 3; ++r)
            if (fabs(v[3 * r + src]) > fabs(v[3 * big + src])) big = r;
        const double sign = v[3 * big + src] < 0 ? -1.0 : 1.0;
        for (int r = 0; r < 3; ++r) vectors[3 * r + i] = sign * v[3 * r + src];
    }
}

/// FancyPCA's matrix V diag(alpha * lambda) from the covariance's upper triangle sums (the six
/// products 00, 01, 02, 11, 12, 22 summed over the n pixels).
AUGLAB_SHARED void fancyPcaMatrix(const double products[6], double n, const float alpha[3], double m[9]) {
    constexpr int kPairs[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
    double cov[9];
    for (int k = 0; k < 6; ++k) {
        const double v = n > 1 ? products[k] / (n - 1) : 0.0;
        cov[3 * kPairs[k][0] + kPairs[k][1]] = cov[3 * kPairs[k][1] + kPairs[k][0]] = v;
    }
    double lambda[3], vectors[9];
    symmetricEigen3(cov, lambda, vectors);
    for (int r = 0; r < 3; ++r)
        for (int i = 0; i < 3; ++i)
            m[3 * r + i] = vectors[3 * r + i] * (static_cast<double>(alpha[i]) * lambda[i]);
}

/// The library's to_float of an 8-bit value: float32 v / 255.
AUGLAB_SHARED float unitOf(int v) {
    return static_cast<float>(v) / 255.0f;
}

/// FancyPCA on one pixel's R, G, B: each plus M applied to its colour centred on the float32 mean,
/// in float64, clipped to [0, 1], as float32, rint(x * 255).
AUGLAB_SHARED void fancyPcaPixel(int px[3], const float mean[3], const double m[9]) {
    const double c[3] = {static_cast<double>(unitOf(px[0]) - mean[0]),
                         static_cast<double>(unitOf(px[1]) - mean[1]),
                         static_cast<double>(unitOf(px[2]) - mean[2])};
    int out[3];
    for (int r = 0; r < 3; ++r) {
        const double noise = m[3 * r] * c[0] + m[3 * r + 1] * c[1] + m[3 * r + 2] * c[2];
        double v = static_cast<double>(unitOf(px[r])) + noise;
        v = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
        out[r] = static_cast<int>(nearbyintf(static_cast<float>(v) * 255.0f));
    }
    for (int r = 0; r < 3; ++r) px[r] = out[r];
}

// ---- CLAHE --------------------------------------------------------------------------------------

/// CLAHE's tile size for a w x h image and a tx x ty grid: the tiles cover the image or, unless both
/// sides divide by the grid, the image padded (reflect_101) at its right by tx - w % tx columns and
/// at its bottom by ty - h % ty rows: a whole extra tile's width (height) where that side divides, as
/// OpenCV pads.
AUGLAB_SHARED void claheTileSize(int w, int h, int tx, int ty, int& tileW, int& tileH) {
    const bool pad = w % tx != 0 || h % ty != 0;
    tileW = (pad ? w + tx - w % tx : w) / tx;
    tileH = (pad ? h + ty - h % ty : h) / ty;
}

/// A tile's clip limit in counts: int(clipLimit * area / 256), at least 1; 0 (none) for a limit of 0.
AUGLAB_SHARED int claheClip(double clipLimit, int area) {
    if (!(clipLimit > 0)) return 0;
    const int c = static_cast<int>(clipLimit * area / 256);
    return c > 1 ? c : 1;
}

/// One tile's table from its histogram (clipped in place): counts above `clip` (0: none) cut and the
/// excess spread evenly, the remainder one by one from bin 0 in steps of 256 / remainder; then the
/// cumulative counts times lutScale, rounded to nearest even, at most 255 (cv::CLAHE's).
AUGLAB_SHARED void claheTable(int hist[256], int clip, float lutScale, std::uint8_t lut[256]) {
    int clipped = 0;
    if (clip > 0)
        for (int i = 0; i < 256; ++i)
            if (hist[i] > clip) {
                clipped += hist[i] - clip;
                hist[i] = clip;
            }
    const int batch = clipped / 256;
    int residual = clipped - batch * 256;
    for (int i = 0; i < 256; ++i) hist[i] += batch;
    if (residual != 0) {
        const int step = 256 / residual > 1 ? 256 / residual : 1;
        for (int i = 0; i < 256 && residual > 0; i += step, --residual) ++hist[i];
    }
    int sum = 0;
    for (int i = 0; i < 256; ++i) {
        sum += hist[i];
        const float v = nearbyintf(static_cast<float>(sum) * lutScale);
        lut[i] = static_cast<std::uint8_t>(v < 255.0f ? v : 255.0f);
    }
}

/// The tiles around position i of an axis and their weights: f = i / tile - 0.5 (inv = 1 / tile in
/// float32), t1 = max(floor(f), 0), t2 = min(floor(f) + 1, tiles - 1), a = f - floor(f), a1 = 1 - a.
AUGLAB_SHARED void claheAxis(int i, float inv, int tiles, int& t1, int& t2, float& a, float& a1) {
    const float f = static_cast<float>(i) * inv - 0.5f;
    const int t = static_cast<int>(floorf(f));
    a = f - static_cast<float>(t);
    a1 = 1.0f - a;
    t1 = t > 0 ? t : 0;
    t2 = t + 1 < tiles - 1 ? t + 1 : tiles - 1;
}

/// The new lightness: the four tables' entries blended bilinearly in float32, rounded to nearest
/// even, at most 255.
AUGLAB_SHARED int claheBlend(int top1, int top2, int bottom1, int bottom2, float xa, float xa1, float ya,
                             float ya1) {
    const float res = (static_cast<float>(top1) * xa1 + static_cast<float>(top2) * xa) * ya1 +
                      (static_cast<float>(bottom1) * xa1 + static_cast<float>(bottom2) * xa) * ya;
    const float r = nearbyintf(res);
    return static_cast<int>(r < 255.0f ? r : 255.0f);
}

// ---- OpenCV's 8-bit Lab (core/colour.h Lab8) ----------------------------------------------------

/// Where Lab8's tables lie in one packed block (Lab8::packed), for a device copy: byte offsets.
namespace lab_layout {
constexpr std::size_t kGamma = 0;                     ///< 256 uint16: sRGB to linear, * 255 * 8
constexpr std::size_t kCbrt = kGamma + 256 * 2;       ///< 3072 uint16: f(t) * 2^15 for t = i / 2040
constexpr std::size_t kToXyz = kCbrt + 3072 * 2;      ///< 9 int: rows X / Xn, Y, Z / Zn
constexpr std::size_t kYf = kToXyz + 9 * 4;           ///< 512 uint16: per L, Y and f(Y), * 2^14
constexpr std::size_t kInvGamma = kYf + 512 * 2;      ///< 4096 uint16: linear (12-bit) to sRGB
constexpr std::size_t kToRgb = kInvGamma + 4096 * 2;  ///< 9 int: rows R, G, B
constexpr std::size_t kAbToXz = kToRgb + 9 * 4;       ///< kAbToXzSize int: f to X or Z, from kMinAb
constexpr int kAbToXzSize = 16384 * 9 / 4;
constexpr int kMinAb = -8145;
constexpr std::size_t kBytes = kAbToXz + kAbToXzSize * 4;
static_assert(kToXyz % 4 == 0 && kToRgb % 4 == 0 && kAbToXz % 4 == 0, "int tables must be aligned");
}  // namespace lab_layout

/// Lab8's tables, wherever they are.
struct LabTables {
    const std::uint16_t* gamma;
    const std::uint16_t* cbrt;
    const int* toXyz;
    const std::uint16_t* yf;
    const std::uint16_t* invGamma;
    const int* toRgb;
    const int* abToXz;  ///< indexed from lab_layout::kMinAb
};

/// The tables of a packed block (lab_layout).
AUGLAB_SHARED LabTables labTablesAt(const unsigned char* base) {
    using namespace lab_layout;
    return LabTables{reinterpret_cast<const std::uint16_t*>(base + kGamma),
                     reinterpret_cast<const std::uint16_t*>(base + kCbrt),
                     reinterpret_cast<const int*>(base + kToXyz),
                     reinterpret_cast<const std::uint16_t*>(base + kYf),
                     reinterpret_cast<const std::uint16_t*>(base + kInvGamma),
                     reinterpret_cast<const int*>(base + kToRgb),
                     reinterpret_cast<const int*>(base + kAbToXz)};
}

AUGLAB_SHARED int labClamp8(int v) {
    return v < 0 ? 0 : (v > 255 ? 255 : v);
}

/// RGB2Lab: gamma-expanded channels (11-bit), XYZ by 12-bit coefficients, the cube-root table.
AUGLAB_SHARED void labFromRgb(const LabTables& t, int r, int g, int b, int& L, int& a, int& bb) {
    const int R = t.gamma[r], G = t.gamma[g], B = t.gamma[b];
    int f[3];
    for (int row = 0; row < 3; ++row) {
        const int* c = t.toXyz + 3 * row;
        f[row] = t.cbrt[(R * c[0] + G * c[1] + B * c[2] + (1 << 11)) >> 12];
    }
    constexpr int half = 1 << 14, ab = 128 << 15;
    L = labClamp8((296 * f[1] - 1336934 + half) >> 15);  // (116 * 255 + 50) / 100, 16 * 255 * 2^15 / 100
    a = labClamp8((500 * (f[0] - f[1]) + ab + half) >> 15);
    bb = labClamp8((200 * (f[1] - f[2]) + ab + half) >> 15);
}

/// Lab2RGB (OpenCV's Lab2RGBinteger): Y and f(Y) from L by a table, f(X), f(Z) from a, b in 14-bit
/// fixed point, X and Z by a table, RGB by 12-bit coefficients, then the inverse gamma.
AUGLAB_SHARED void labToRgb(const LabTables& t, int L, int a, int b, int& r, int& g, int& bb) {
    const int y = t.yf[2 * L], ify = t.yf[2 * L + 1];
    const int adiv = ((5 * a * 53687 + (1 << 7)) >> 13) - 128 * 16384 / 500;
    const int bdiv = ((b * 41943 + (1 << 4)) >> 9) - 128 * 16384 / 200 + 1;
    const int x = t.abToXz[ify + adiv - lab_layout::kMinAb], z = t.abToXz[ify - bdiv - lab_layout::kMinAb];
    int out[3];
    for (int row = 0; row < 3; ++row) {
        const int* c = t.toRgb + 3 * row;
        int v = (c[0] * x + c[1] * y + c[2] * z + (1 << 13)) >> 14;
        v = v < 0 ? 0 : (v > 4095 ? 4095 : v);
        out[row] = t.invGamma[v];
    }
    r = out[0];
    g = out[1];
    bb = out[2];
}

}  // namespace auglab::shared
