// Compiled with -mavx2 (and only called after cpuHasAvx2()). Taps are loaded one pixel at a time:
// on the machines measured here AVX2 gathers were slower than plain loads (0.83x vs 0.91x OpenCV).
// Each load takes both taps of a row (8 bytes: pixel p and p + 1), four pixels share a register.

#include "cpu_warp_avx2.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <climits>
#include <cstring>

namespace auglab {

bool cpuHasAvx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}

namespace {

// Four pixels' tap pairs: 8 bytes from each of four addresses, in the 64-bit slots of a register.
inline __m256i load4x8(const std::uint8_t* base, const int* off, std::size_t extra) {
    std::int64_t v[4];
    for (int i = 0; i < 4; ++i) std::memcpy(&v[i], base + off[i] + extra, 8);
    return _mm256_set_epi64x(v[3], v[2], v[1], v[0]);
}

// The bilinear interpolation of four output pixels, separably and in the same integers as the
// scalar code: per channel h = p0 (32 - fx) + p1 fx along x (pmaddubsw: pixels as unsigned bytes,
// weights as signed bytes, at most 255 * 32 * 2 so never saturating), then h_top (32 - fy) +
// h_bottom fy along y (pmaddwd). That is exactly p00 w00 + p01 w01 + p10 w10 + p11 w11 with
// w00 = (32 - fx)(32 - fy) ..., the integers OpenCV's warpAffine sums.
// `top`/`bottom` hold pixels p, p + 1 of the two source rows, 8 bytes per output pixel; `wx` the
// byte pairs (32 - fx, fx) repeated over each 8-byte slot; `wy0`/`wy1` the 16-bit pairs
// (32 - fy, fy) of the first and second pixel of each 128-bit lane. Returns the four pixels' sums
// (+512, >> 10) as 16-bit values, four channels a pixel: lane 0 pixels 0, 1; lane 1 pixels 2, 3.
template <int CN>
inline __m256i interpolate4(__m256i top, __m256i bottom, __m256i wx, __m256i wy0, __m256i wy1) {
    // Interleave the left and right taps of each channel: r0 r1 g0 g1 b0 b1 (a0 a1 | junk).
    const __m256i interleave = CN == 3
                                   ? _mm256_setr_epi8(0, 3, 1, 4, 2, 5, 6, 7, 8, 11, 9, 12, 10, 13, 14, 15, 0,
                                                      3, 1, 4, 2, 5, 6, 7, 8, 11, 9, 12, 10, 13, 14, 15)
                                   : _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 0,
                                                      4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    const __m256i hTop = _mm256_maddubs_epi16(_mm256_shuffle_epi8(top, interleave), wx);
    const __m256i hBottom = _mm256_maddubs_epi16(_mm256_shuffle_epi8(bottom, interleave), wx);
    const __m256i round = _mm256_set1_epi32(512);
    const __m256i first = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(hTop, hBottom), wy0), round), 10);
    const __m256i second = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(hTop, hBottom), wy1), round), 10);
    return _mm256_packs_epi32(first, second);
}

// Eight pixels of four 16-bit slots each (two registers, pixels 0-3 and 4-7, each `bytes` lane
// holding one pixel per 32 bits as interpolate's results come) stored as CN-channel pixels.
template <int CN>
inline void storePixels8(__m256i bytes, std::uint8_t* out) {
    if (CN == 4) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), bytes);
    } else {
        // Drop every fourth byte: 12 bytes of pixels 0-3 in lane 0, of pixels 4-7 in lane 1.
        const __m256i pack3 = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1,
                                               2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
        const __m256i packed = _mm256_shuffle_epi8(bytes, pack3);
        const __m128i high = _mm256_extracti128_si256(packed, 1);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                         _mm256_castsi256_si128(packed));              // its last 4 bytes are
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 12), high);  // overwritten here
        const std::int32_t last = _mm_extract_epi32(high, 2);
        std::memcpy(out + 20, &last, 4);
    }
}

}  // namespace

template <int CN>
bool linearBlock8AtAvx2(const LinearBlockSource& s, __m256i X, __m256i Y, std::uint8_t* out);

void projectivePositions8Avx2(const double* m, double X0, double Y0, double W0, double unit, int x, int* xy) {
    const __m256d m0 = _mm256_set1_pd(m[0]), m3 = _mm256_set1_pd(m[3]), m6 = _mm256_set1_pd(m[6]);
    const __m256d x0 = _mm256_set1_pd(X0), y0 = _mm256_set1_pd(Y0), w0 = _mm256_set1_pd(W0);
    const __m256d u = _mm256_set1_pd(unit), zero = _mm256_setzero_pd();
    const __m256d hi = _mm256_set1_pd(double(INT_MAX)), lo = _mm256_set1_pd(double(INT_MIN));
    __m128i X[2], Y[2];
    for (int k = 0; k < 2; ++k) {
        const __m256d xs =
            _mm256_cvtepi32_pd(_mm_setr_epi32(x + 4 * k, x + 4 * k + 1, x + 4 * k + 2, x + 4 * k + 3));
        const __m256d d = _mm256_add_pd(w0, _mm256_mul_pd(m6, xs));
        // d != 0 ? unit / d : 0 (a zero divisor gives 0; unit / 0 is not computed into the result)
        const __m256d nonzero = _mm256_cmp_pd(d, zero, _CMP_NEQ_UQ);
        const __m256d r = _mm256_and_pd(nonzero, _mm256_div_pd(u, d));
        // std::min(INT_MAX, v): v when v < INT_MAX, else INT_MAX (NaN too); then std::max(INT_MIN, .).
        const auto clamp = [&](__m256d v) { return _mm256_max_pd(_mm256_min_pd(v, hi), lo); };
        const __m256d vx = clamp(_mm256_mul_pd(_mm256_add_pd(x0, _mm256_mul_pd(m0, xs)), r));
        const __m256d vy = clamp(_mm256_mul_pd(_mm256_add_pd(y0, _mm256_mul_pd(m3, xs)), r));
        X[k] = _mm256_cvtpd_epi32(vx);  // nearest even, as nearbyint; in range after the clamp
        Y[k] = _mm256_cvtpd_epi32(vy);
    }
    for (int k = 0; k < 2; ++k) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(xy + 8 * k), _mm_unpacklo_epi32(X[k], Y[k]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(xy + 8 * k + 4), _mm_unpackhi_epi32(X[k], Y[k]));
    }
}

template <int CN>
void linearRowAvx2(const std::uint8_t* row, const int* off, const std::uint64_t* wx, int n, std::int16_t* h) {
    const __m256i interleave = CN == 3
                                   ? _mm256_setr_epi8(0, 3, 1, 4, 2, 5, 6, 7, 8, 11, 9, 12, 10, 13, 14, 15, 0,
                                                      3, 1, 4, 2, 5, 6, 7, 8, 11, 9, 12, 10, 13, 14, 15)
                                   : _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 0,
                                                      4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const __m256i taps = _mm256_shuffle_epi8(load4x8(row, off + i, 0), interleave);
        const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wx + i));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(h + 4 * i), _mm256_maddubs_epi16(taps, w));
    }
    for (; i < n; ++i) {
        const std::uint8_t* p = row + off[i];
        const int w0 = static_cast<int>(wx[i] & 0xff), w1 = static_cast<int>((wx[i] >> 8) & 0xff);
        for (int c = 0; c < CN; ++c) h[4 * i + c] = static_cast<std::int16_t>(p[c] * w0 + p[c + CN] * w1);
    }
}

template <int CN>
void linearColumnsAvx2(const std::int16_t* top, const std::int16_t* bottom, int fy, int n,
                       std::uint8_t* out) {
    const __m256i wy = _mm256_set1_epi32(((fy) << 16) | (32 - fy));
    const __m256i round = _mm256_set1_epi32(512);
    // Four pixels (16 slots) of top and bottom: unpacklo pairs pixels 0 and 2, unpackhi 1 and 3.
    const auto four = [&](const std::int16_t* t, const std::int16_t* b) {
        const __m256i vt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t));
        const __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
        const __m256i lo = _mm256_srai_epi32(
            _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(vt, vb), wy), round), 10);
        const __m256i hi = _mm256_srai_epi32(
            _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(vt, vb), wy), round), 10);
        return _mm256_packs_epi32(lo, hi);  // lane 0 pixels 0, 1; lane 1 pixels 2, 3
    };
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i bytes =
            _mm256_permutevar8x32_epi32(_mm256_packus_epi16(four(top + 4 * i, bottom + 4 * i),
                                                            four(top + 4 * i + 16, bottom + 4 * i + 16)),
                                        _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
        storePixels8<CN>(bytes, out + CN * i);
    }
    for (; i < n; ++i)
        for (int c = 0; c < CN; ++c)
            out[CN * i + c] =
                static_cast<std::uint8_t>((top[4 * i + c] * (32 - fy) + bottom[4 * i + c] * fy + 512) >> 10);
}

template void linearRowAvx2<3>(const std::uint8_t*, const int*, const std::uint64_t*, int, std::int16_t*);
template void linearRowAvx2<4>(const std::uint8_t*, const int*, const std::uint64_t*, int, std::int16_t*);
template void linearColumnsAvx2<3>(const std::int16_t*, const std::int16_t*, int, int, std::uint8_t*);
template void linearColumnsAvx2<4>(const std::int16_t*, const std::int16_t*, int, int, std::uint8_t*);

template <int CN>
bool linearBlock8Avx2(const LinearBlockSource& s, int X0, int Y0, const int* adelta, const int* bdelta,
                      std::uint8_t* out) {
    const __m256i X = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_set1_epi32(X0), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(adelta))),
        5);
    const __m256i Y = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_set1_epi32(Y0), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bdelta))),
        5);
    return linearBlock8AtAvx2<CN>(s, X, Y, out);
}

template <int CN>
bool linearBlock8PositionsAvx2(const LinearBlockSource& s, const int* xy, std::uint8_t* out) {
    // X and Y interleaved: the even and the odd 32-bit values of two registers.
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xy));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xy + 8));
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i pa = _mm256_permutevar8x32_epi32(a, even), pb = _mm256_permutevar8x32_epi32(b, even);
    const __m256i X = _mm256_permute2x128_si256(pa, pb, 0x20), Y = _mm256_permute2x128_si256(pa, pb, 0x31);
    return linearBlock8AtAvx2<CN>(s, X, Y, out);
}

template <int CN>
bool linearBlock8AtAvx2(const LinearBlockSource& s, __m256i X, __m256i Y, std::uint8_t* out) {
    const __m256i sx = _mm256_srai_epi32(X, 5), sy = _mm256_srai_epi32(Y, 5);
    const __m256i minus1 = _mm256_set1_epi32(-1);
    const __m256i inside = _mm256_and_si256(
        _mm256_and_si256(_mm256_cmpgt_epi32(sx, minus1), _mm256_cmpgt_epi32(_mm256_set1_epi32(s.fastW), sx)),
        _mm256_and_si256(_mm256_cmpgt_epi32(sy, minus1), _mm256_cmpgt_epi32(_mm256_set1_epi32(s.fastH), sy)));
    if (_mm256_movemask_epi8(inside) != -1) return false;
    const __m256i offset = _mm256_add_epi32(_mm256_mullo_epi32(sy, _mm256_set1_epi32(int(s.stride))),
                                            _mm256_mullo_epi32(sx, _mm256_set1_epi32(CN)));
    if (CN == 3) {
        // A 3-channel tap pair is 6 bytes, loaded as 8: keep every load inside the buffer.
        const __m256i limit = _mm256_set1_epi32(int(s.size - s.stride - 8));
        if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(offset, limit)) != 0) return false;
    }
    const __m256i mask = _mm256_set1_epi32(31), n32 = _mm256_set1_epi32(32);
    const __m256i fx = _mm256_and_si256(X, mask), fy = _mm256_and_si256(Y, mask);
    // Per pixel: bytes (32 - fx, fx) twice in 32 bits; 16-bit (32 - fy, fy) in 32 bits.
    const __m256i wx16 = _mm256_or_si256(_mm256_sub_epi32(n32, fx), _mm256_slli_epi32(fx, 8));
    const __m256i wx = _mm256_or_si256(wx16, _mm256_slli_epi32(wx16, 16));
    const __m256i wy = _mm256_or_si256(_mm256_sub_epi32(n32, fy), _mm256_slli_epi32(fy, 16));
    alignas(32) int off[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(off), offset);
    __m256i sums[2];
    for (int g = 0; g < 2; ++g) {  // pixels 4g .. 4g + 3
        const int p = 4 * g;
        const __m256i top = load4x8(s.pixels, off + p, 0), bottom = load4x8(s.pixels, off + p, s.stride);
        const __m256i wxg = _mm256_permutevar8x32_epi32(
            wx, _mm256_setr_epi32(p, p, p + 1, p + 1, p + 2, p + 2, p + 3, p + 3));
        const __m256i wy0 =
            _mm256_permutevar8x32_epi32(wy, _mm256_setr_epi32(p, p, p, p, p + 2, p + 2, p + 2, p + 2));
        const __m256i wy1 = _mm256_permutevar8x32_epi32(
            wy, _mm256_setr_epi32(p + 1, p + 1, p + 1, p + 1, p + 3, p + 3, p + 3, p + 3));
        sums[g] = interpolate4<CN>(top, bottom, wxg, wy0, wy1);
    }
    // Bytes, one pixel per 32 bits: lane 0 pixels 0 1 4 5, lane 1 pixels 2 3 6 7; put in order.
    const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(sums[0], sums[1]),
                                                      _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
    storePixels8<CN>(bytes, out);
    return true;
}

template bool linearBlock8Avx2<3>(const LinearBlockSource&, int, int, const int*, const int*, std::uint8_t*);
template bool linearBlock8Avx2<4>(const LinearBlockSource&, int, int, const int*, const int*, std::uint8_t*);
template bool linearBlock8PositionsAvx2<3>(const LinearBlockSource&, const int*, std::uint8_t*);
template bool linearBlock8PositionsAvx2<4>(const LinearBlockSource&, const int*, std::uint8_t*);

}  // namespace auglab

#else

namespace auglab {
bool cpuHasAvx2() {
    return false;
}
template <int CN>
bool linearBlock8Avx2(const LinearBlockSource&, int, int, const int*, const int*, std::uint8_t*) {
    return false;
}
template bool linearBlock8Avx2<3>(const LinearBlockSource&, int, int, const int*, const int*, std::uint8_t*);
template bool linearBlock8Avx2<4>(const LinearBlockSource&, int, int, const int*, const int*, std::uint8_t*);
template <int CN>
bool linearBlock8PositionsAvx2(const LinearBlockSource&, const int*, std::uint8_t*) {
    return false;
}
void projectivePositions8Avx2(const double*, double, double, double, double, int, int*) {}
template bool linearBlock8PositionsAvx2<3>(const LinearBlockSource&, const int*, std::uint8_t*);
template bool linearBlock8PositionsAvx2<4>(const LinearBlockSource&, const int*, std::uint8_t*);
template <int CN>
void linearRowAvx2(const std::uint8_t*, const int*, const std::uint64_t*, int, std::int16_t*) {}
template <int CN>
void linearColumnsAvx2(const std::int16_t*, const std::int16_t*, int, int, std::uint8_t*) {}
template void linearRowAvx2<3>(const std::uint8_t*, const int*, const std::uint64_t*, int, std::int16_t*);
template void linearRowAvx2<4>(const std::uint8_t*, const int*, const std::uint64_t*, int, std::int16_t*);
template void linearColumnsAvx2<3>(const std::int16_t*, const std::int16_t*, int, int, std::uint8_t*);
template void linearColumnsAvx2<4>(const std::int16_t*, const std::int16_t*, int, int, std::uint8_t*);
}  // namespace auglab

#endif
