#pragma once
// cv2.medianBlur's 8-bit k x k median (k = 5, 7) a row at a time, with Google Highway's run-time
// dispatch: each padded column of the window sorted by a network of vector min/max, then the
// median of each pixel's window by the pruned network of median_network.h on vectors of bytes (a
// median is a value of the window: any exact method gives OpenCV's bytes). The orchestration (rows,
// borders, alpha, threads) is applyMedian in core/cpu_pixel_ops.cpp; tests/test_cpu_kernels.cpp
// checks the kernel on every SIMD target against std::nth_element.

#include <cstddef>
#include <cstdint>

namespace auglab::cpu {

/// Whether medianRow computes a k x k window (5 and 7; 3 has its own sorting network).
constexpr bool medianRowSize(int k) {
    return k == 3 || k == 5 || k == 7 || k == 9;
}

/// The scratch medianRow needs: k rows of the padded width, with a vector's slack.
std::size_t medianScratchBytes(std::size_t n, int k, std::size_t cn);

/// One output row of the k x k median of 8-bit values, every byte on its own (channels interleaved,
/// `cn` bytes a pixel). rows[0..k-1]: the window's source rows, top to bottom, each with the row's
/// n bytes preceded and followed by r = k / 2 pixels (r * cn bytes) of border; out: n bytes.
void medianRow(const std::uint8_t* const* rows, int k, std::size_t n, std::size_t cn, std::uint8_t* scratch,
               std::uint8_t* out);

/// The SIMD target medianRow runs on here ("AVX3", "AVX2", ...).
const char* medianTarget();

}  // namespace auglab::cpu
