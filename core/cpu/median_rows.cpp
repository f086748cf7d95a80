// Highway's dynamic dispatch, as box_rows.cpp: compiled once per SIMD target, the best one chosen at
// run time. The networks (median_network.h) are constants: each comparator is unrolled with its
// slots known, so the window's vectors stay in registers where the target has enough.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/median_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "cpu/median_network.h"
#include "cpu/median_rows.h"

namespace auglab::cpu::median_network {
#ifndef AUGLAB_MEDIAN_NETWORKS_ONCE
#define AUGLAB_MEDIAN_NETWORKS_ONCE
inline constexpr auto kColumns3 = sortNetwork<3>();
inline constexpr auto kColumns5 = sortNetwork<5>();
inline constexpr auto kColumns7 = sortNetwork<7>();
inline constexpr auto kColumns9 = sortNetwork<9>();
inline constexpr auto kMedian3 = medianNetwork<3>();
inline constexpr auto kMedian5 = medianNetwork<5>();
inline constexpr auto kMedian7 = medianNetwork<7>();
inline constexpr auto kMedian9 = medianNetwork<9>();

template <int K>
constexpr const auto& columns() {
    if constexpr (K == 3) return kColumns3;
    if constexpr (K == 5) return kColumns5;
    if constexpr (K == 7) return kColumns7;
    if constexpr (K == 9) return kColumns9;
}

template <int K>
constexpr const auto& median() {
    if constexpr (K == 3) return kMedian3;
    if constexpr (K == 5) return kMedian5;
    if constexpr (K == 7) return kMedian7;
    if constexpr (K == 9) return kMedian9;
}

// The scratch rows' stride: the padded width and a vector's slack (AVX-512's 64 bytes; 256 for the
// widest scalable vectors).
inline std::size_t scratchStride(std::size_t n, int k, std::size_t cn) {
    return n + static_cast<std::size_t>(k - 1) * cn + 256;
}
#endif
}  // namespace auglab::cpu::median_network

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace mn = median_network;

// One comparator with its slots and kind as constants (v: the vectors or the bytes of a window).
template <mn::Op op, class V>
HWY_INLINE void Compare(V* v) {
    const V a = v[op.a], b = v[op.b];
    if constexpr (op.kind != mn::Kind::Max) v[op.a] = hn::Min(a, b);
    if constexpr (op.kind != mn::Kind::Min) v[op.b] = hn::Max(a, b);
}

template <const auto& net, std::size_t Begin, class V, std::size_t... I>
HWY_INLINE void RunFrom(V* v, std::index_sequence<I...>) {
    (Compare<net.ops[Begin + I]>(v), ...);
}

// The comparators from Begin on, 128 per fold expression (clang nests at most 256).
template <const auto& net, class V, std::size_t Begin = 0>
HWY_INLINE void RunNetwork(V* v) {
    constexpr auto count = static_cast<std::size_t>(net.count);
    if constexpr (Begin < count) {
        RunFrom<net, Begin>(v, std::make_index_sequence<std::min<std::size_t>(128, count - Begin)>());
        RunNetwork<net, V, Begin + 128>(v);
    }
}

template <int K>
void MedianRowK(const std::uint8_t* const* HWY_RESTRICT rows, std::size_t n, std::size_t cn,
                std::uint8_t* HWY_RESTRICT scratch, std::uint8_t* HWY_RESTRICT out) {
    const hn::ScalableTag<std::uint8_t> d;
    using V = hn::Vec<decltype(d)>;
    const std::size_t N = hn::Lanes(d), padded = n + static_cast<std::size_t>(K - 1) * cn;
    const std::size_t stride = mn::scratchStride(n, K, cn);
    // Each padded column's K values sorted, smallest in scratch row 0.
    std::size_t x = 0;
    V v[K * K];
    for (; x + N <= padded; x += N) {
        for (int i = 0; i < K; ++i) v[i] = hn::LoadU(d, rows[i] + x);
        RunNetwork<mn::columns<K>()>(v);
        for (int i = 0; i < K; ++i) hn::StoreU(v[i], d, scratch + static_cast<std::size_t>(i) * stride + x);
    }
    for (; x < padded; ++x) {
        std::uint8_t column[K];
        for (int i = 0; i < K; ++i) column[i] = rows[i][x];
        std::sort(column, column + K);
        for (int i = 0; i < K; ++i) scratch[static_cast<std::size_t>(i) * stride + x] = column[i];
    }
    // Each pixel's window: rank i of the column j pixels across, the median network on them. The
    // last vector reads into the slack (its extra lanes are not stored).
    constexpr auto& net = mn::median<K>();
    for (x = 0; x < n; x += N) {
        for (int i = 0; i < K; ++i)
            for (int j = 0; j < K; ++j)
                v[i * K + j] = hn::LoadU(d, scratch + static_cast<std::size_t>(i) * stride + x + j * cn);
        RunNetwork<net>(v);
        if (x + N <= n) {
            hn::StoreU(v[net.out], d, out + x);
        } else {
            HWY_ALIGN std::uint8_t last[hn::MaxLanes(d)];
            hn::Store(v[net.out], d, last);
            std::memcpy(out + x, last, n - x);
        }
    }
}

void MedianRow(const std::uint8_t* const* HWY_RESTRICT rows, int k, std::size_t n, std::size_t cn,
               std::uint8_t* HWY_RESTRICT scratch, std::uint8_t* HWY_RESTRICT out) {
    switch (k) {
        case 3: return MedianRowK<3>(rows, n, cn, scratch, out);
        case 5: return MedianRowK<5>(rows, n, cn, scratch, out);
        case 7: return MedianRowK<7>(rows, n, cn, scratch, out);
        default: return MedianRowK<9>(rows, n, cn, scratch, out);
    }
}

const char* MedianTarget() {
    return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace auglab::cpu {

HWY_EXPORT(MedianRow);
HWY_EXPORT(MedianTarget);

std::size_t medianScratchBytes(std::size_t n, int k, std::size_t cn) {
    return static_cast<std::size_t>(k) * median_network::scratchStride(n, k, cn);
}

void medianRow(const std::uint8_t* const* rows, int k, std::size_t n, std::size_t cn, std::uint8_t* scratch,
               std::uint8_t* out) {
    HWY_DYNAMIC_DISPATCH(MedianRow)(rows, k, n, cn, scratch, out);
}

const char* medianTarget() {
    return HWY_DYNAMIC_DISPATCH(MedianTarget)();
}

}  // namespace auglab::cpu
#endif
