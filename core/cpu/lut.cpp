// The VBMI path is written with intrinsics in functions compiled for that target alone and chosen
// at run time: Highway (1.0.3, Debian 12's) has no 8-bit lookup across a whole 512-bit vector.

#include "cpu/lut.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AUGLAB_VBMI 1
#define AUGLAB_VBMI_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi,bmi2")))
#endif

namespace auglab::cpu {

namespace {

void lookupScalar(const std::uint8_t* src, std::uint8_t* dst, std::size_t n, const Table& t) {
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const std::uint8_t a = t[src[i]], b = t[src[i + 1]], c = t[src[i + 2]], d = t[src[i + 3]];
        dst[i] = a;
        dst[i + 1] = b;
        dst[i + 2] = c;
        dst[i + 3] = d;
    }
    for (; i < n; ++i) dst[i] = t[src[i]];
}

constexpr Table kInversion = [] {
    Table t{};
    for (std::size_t v = 0; v < 256; ++v) t[v] = static_cast<std::uint8_t>(255 - v);
    return t;
}();

// Whether t maps every v to 255 - v (invert_img, solarize at threshold 0, a contrast of -1): then
// the lookup is an exclusive or, one instruction per vector instead of four, and the pass runs at
// the speed of memory. Asked once a call (a row, or a band of packed rows): most tables fail at
// their first entry, an inversion costs a 256-byte memcmp.
bool isInversion(const Table& t) {
    return t[0] == 255 && t[255] == 0 && std::memcmp(t.data(), kInversion.data(), 256) == 0;
}

void invertBytes(const std::uint8_t* src, std::uint8_t* dst, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint8_t>(src[i] ^ 0xFF);  // vectorised
}

// RGBA pixels: colour bytes inverted, alpha kept (a 32-bit exclusive or per pixel, little-endian).
void invertColour4(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels) {
    for (std::size_t p = 0; p < pixels; ++p) {
        std::uint32_t v;
        std::memcpy(&v, src + 4 * p, 4);
        v ^= 0x00FFFFFFu;
        std::memcpy(dst + 4 * p, &v, 4);
    }
}

void lookupChannelsScalar(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels, int channels,
                          const std::array<Table, 3>& t, std::size_t from) {
    const auto cn = static_cast<std::size_t>(channels);
    for (std::size_t p = from; p < pixels; ++p) {
        const std::uint8_t* s = src + p * cn;
        std::uint8_t* d = dst + p * cn;
        const std::uint8_t r = t[0][s[0]], g = t[1][s[1]], b = t[2][s[2]];
        if (channels == 4) d[3] = s[3];
        d[0] = r;
        d[1] = g;
        d[2] = b;
    }
}

#ifdef AUGLAB_VBMI

// A table as four 64-byte quarters.
struct Quarters {
    __m512i q[4];
};

AUGLAB_VBMI_TARGET Quarters quartersOf(const Table& t) {
    Quarters out;
    for (int k = 0; k < 4; ++k) out.q[k] = _mm512_loadu_si512(t.data() + 64 * k);
    return out;
}

// table[v] for each byte of v: entries 0..127 and 128..255 by vpermi2b on two quarters each, the
// byte's top bit choosing between them.
AUGLAB_VBMI_TARGET __m512i lookup64(__m512i v, const Quarters& t) {
    const __m512i low = _mm512_permutex2var_epi8(t.q[0], v, t.q[1]);
    const __m512i high = _mm512_permutex2var_epi8(t.q[2], v, t.q[3]);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), low, high);
}

AUGLAB_VBMI_TARGET void lookupVbmi(const std::uint8_t* src, std::uint8_t* dst, std::size_t n, const Table& table) {
    const Quarters t = quartersOf(table);
    std::size_t i = 0;
    for (; i + 64 <= n; i += 64)
        _mm512_storeu_si512(dst + i, lookup64(_mm512_loadu_si512(src + i), t));
    if (i < n) {  // the last bytes through a masked load and store: nothing outside [0, n) is touched
        const __mmask64 m = _bzhi_u64(~0ULL, static_cast<unsigned>(n - i));
        _mm512_mask_storeu_epi8(dst + i, m, lookup64(_mm512_maskz_loadu_epi8(m, src + i), t));
    }
}

// Bytes of channel c in a vector that starts at byte `phase` of a pixel (0 <= phase < channels),
// for every phase and channel, made at compile time.
struct ChannelMasks {
    __mmask64 m[4][3] = {};  // [phase][channel]
};
constexpr ChannelMasks masksFor(int channels) {
    ChannelMasks out;
    for (int phase = 0; phase < channels; ++phase)
        for (int i = 0; i < 64; ++i) {
            const int c = (i + phase) % channels;
            if (c < 3) out.m[phase][c] |= __mmask64{1} << i;
        }
    return out;
}
constexpr ChannelMasks kMasks3 = masksFor(3), kMasks4 = masksFor(4);

// One vector of pixels: each colour channel through its table (by `masks`, those of the vector's
// phase), alpha kept.
AUGLAB_VBMI_TARGET __m512i lookupPixels64(__m512i v, const __mmask64* masks, const Quarters& r, const Quarters& g,
                                          const Quarters& b) {
    __m512i out = _mm512_mask_blend_epi8(masks[0], v, lookup64(v, r));
    out = _mm512_mask_blend_epi8(masks[1], out, lookup64(v, g));
    return _mm512_mask_blend_epi8(masks[2], out, lookup64(v, b));
}

AUGLAB_VBMI_TARGET void lookupChannelsVbmi(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels,
                                           int channels, const std::array<Table, 3>& tables) {
    const Quarters r = quartersOf(tables[0]), g = quartersOf(tables[1]), b = quartersOf(tables[2]);
    const ChannelMasks& masks = channels == 4 ? kMasks4 : kMasks3;
    const std::size_t n = pixels * static_cast<std::size_t>(channels);
    std::size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const std::size_t phase = i % static_cast<std::size_t>(channels);
        _mm512_storeu_si512(dst + i, lookupPixels64(_mm512_loadu_si512(src + i), masks.m[phase], r, g, b));
    }
    if (i < n) {  // the rest (a vector may end inside a pixel) masked: each byte read and written once
        const std::size_t phase = i % static_cast<std::size_t>(channels);
        const __mmask64 m = _bzhi_u64(~0ULL, static_cast<unsigned>(n - i));
        _mm512_mask_storeu_epi8(dst + i, m,
                                lookupPixels64(_mm512_maskz_loadu_epi8(m, src + i), masks.m[phase], r, g, b));
    }
}

bool hasVbmi() {
    static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("bmi2");
    return yes;
}

#endif

}  // namespace

void lookup(const std::uint8_t* src, std::uint8_t* dst, std::size_t n, const Table& table) {
    if (isInversion(table)) return invertBytes(src, dst, n);
#ifdef AUGLAB_VBMI
    if (hasVbmi()) return lookupVbmi(src, dst, n, table);
#endif
    lookupScalar(src, dst, n, table);
}

void lookupChannels(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels, int channels,
                    const std::array<Table, 3>& tables) {
    if (isInversion(tables[0]) && tables[1] == tables[0] && tables[2] == tables[0])
        return channels == 3 ? invertBytes(src, dst, 3 * pixels) : invertColour4(src, dst, pixels);
#ifdef AUGLAB_VBMI
    if (hasVbmi()) return lookupChannelsVbmi(src, dst, pixels, channels, tables);
#endif
    lookupChannelsScalar(src, dst, pixels, channels, tables, 0);
}

const char* lookupTarget() {
#ifdef AUGLAB_VBMI
    if (hasVbmi()) return "avx512vbmi";
#endif
    return "scalar";
}

}  // namespace auglab::cpu
