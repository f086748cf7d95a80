#pragma once
// The SIMD targets the CPU kernels (core/cpu) were compiled for, for tests that check every one.

#include <functional>

namespace auglab::cpu {

/// Runs `body` once for each SIMD target that the kernels were compiled for and this CPU runs,
/// with Highway's dispatch held to that target meanwhile (its name passed: "AVX3", "AVX2", "SSE4",
/// ...); the normal dispatch (the best target) afterwards, even when `body` throws.
void forEachSimdTarget(const std::function<void(const char* name)>& body);

}  // namespace auglab::cpu
