#pragma once
// The comparator networks of the k x k median (k = 3, 5, 7) over a window whose columns are already
// sorted, generated at compile time (median_rows.cpp runs them on vectors of pixels; the tests check
// them with the 0-1 principle).
//
// The window is a matrix M[i][j]: column j (the j-th pixel across) holds its k values sorted, i the
// rank (0 the smallest). Sorting each row i across the columns keeps the columns sorted, and then
// M[i][j] has at least (i+1)(j+1) values at or below it and (k-i)(k-j) at or above it: only the
// entries that can still hold rank m = k*k/2 are candidates, those certainly below it are counted
// (L), and the median is the candidates' (m - L)-th value. Rows and candidates are sorted by
// Batcher's odd-even merge sort (trimmed to n inputs: a comparator past the end would meet +inf
// and never swap), and every comparator whose results the median never reads is dropped, those
// with one result read becoming a single min or max.

#include <array>
#include <cstddef>

namespace auglab::cpu::median_network {

/// One comparator on slots a < b: kind Exchange sets (v[a], v[b]) = (min, max); Min only v[a] =
/// min(v[a], v[b]); Max only v[b] = max(v[a], v[b]).
enum class Kind : int { Exchange, Min, Max };

struct Op {
    int a = 0, b = 0;
    Kind kind = Kind::Exchange;
};

/// Batcher's odd-even merge sort of n slots: calls add(i, j) for each comparator, i < j.
template <class Add>
constexpr void batcher(int n, Add&& add) {
    for (int p = 1; p < n; p *= 2)
        for (int k = p; k >= 1; k /= 2)
            for (int j = k % p; j + k < n; j += 2 * k)
                for (int i = 0; i < k && i < n - j - k; ++i)
                    if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) add(i + j, i + j + k);
}

/// Batcher's network for n slots as exchanges (the column sort; at most 16 comparators for k = 7).
template <int N>
struct SortNetwork {
    std::array<Op, 32> ops{};
    int count = 0;
};

template <int N>
constexpr SortNetwork<N> sortNetwork() {
    SortNetwork<N> s;
    batcher(N, [&](int a, int b) { s.ops[static_cast<std::size_t>(s.count++)] = {a, b, Kind::Exchange}; });
    return s;
}

inline constexpr std::size_t kMaxOps = 600;  // k = 9 needs 543

template <int K>
struct MedianNetwork {
    std::array<Op, kMaxOps> ops{};
    int count = 0;
    int out = 0;  ///< the slot holding the median at the end
};

template <int K>
constexpr MedianNetwork<K> medianNetwork() {
    constexpr int n = K * K, m = n / 2;
    std::array<Op, 2 * kMaxOps> all{};
    int total = 0;
    const auto push = [&](int a, int b) { all[static_cast<std::size_t>(total++)] = {a, b, Kind::Exchange}; };
    for (int i = 0; i < K; ++i) batcher(K, [&](int a, int b) { push(i * K + a, i * K + b); });
    std::array<int, n> candidates{};
    int c = 0, below = 0;
    for (int i = 0; i < K; ++i)
        for (int j = 0; j < K; ++j) {
            const int lowest = (i + 1) * (j + 1) - 1, highest = n - (K - i) * (K - j);
            if (highest < m)
                ++below;
            else if (lowest <= m)
                candidates[static_cast<std::size_t>(c++)] = i * K + j;
        }
    batcher(c, [&](int a, int b) {
        push(candidates[static_cast<std::size_t>(a)], candidates[static_cast<std::size_t>(b)]);
    });
    MedianNetwork<K> net;
    net.out = candidates[static_cast<std::size_t>(m - below)];
    // Backwards from the median: keep what it reads.
    std::array<bool, n> needed{};
    needed[static_cast<std::size_t>(net.out)] = true;
    std::array<Op, kMaxOps> reversed{};
    for (int t = total - 1; t >= 0; --t) {
        const Op& op = all[static_cast<std::size_t>(t)];
        const bool na = needed[static_cast<std::size_t>(op.a)], nb = needed[static_cast<std::size_t>(op.b)];
        if (!na && !nb) continue;
        const Kind kind = na && nb ? Kind::Exchange : na ? Kind::Min : Kind::Max;
        needed[static_cast<std::size_t>(op.a)] = needed[static_cast<std::size_t>(op.b)] = true;
        reversed[static_cast<std::size_t>(net.count++)] = {op.a, op.b, kind};
    }
    for (int t = 0; t < net.count; ++t)
        net.ops[static_cast<std::size_t>(t)] = reversed[static_cast<std::size_t>(net.count - 1 - t)];
    return net;
}

}  // namespace auglab::cpu::median_network
