#pragma once
// Rows of 8-bit pixels looked up into float32 through one 256-entry table per channel (the training
// tail, core/training_tail.cpp), with Google Highway's run-time dispatch: the bytes widened to
// 32-bit indices and gathered, 16 values a step on AVX-512; the scalar loop elsewhere. Lookups
// copy table entries, so every target gives the same values.

#include <cstddef>
#include <cstdint>

namespace auglab::cpu {

/// dst[x * channels + c] = tables[c * 256 + src[x * channels + c]] for `pixels` pixels.
void lookUpFloats(const std::uint8_t* src, std::size_t pixels, int channels, const float* tables, float* dst);

/// The same values written to planes: dst[c * planeStride + x].
void lookUpFloatsPlanar(const std::uint8_t* src, std::size_t pixels, int channels, const float* tables,
                        float* dst, std::size_t planeStride);

/// A short program of float32 operations, each with one constant per channel: what a tail of the
/// standard normalisation and to_float computes, run in registers instead of looked up (the same
/// IEEE operations in the same order, so the same values as the tables).
struct FloatProgram {
    enum class Op : std::uint8_t { Sub, Mul, Div };
    struct Step {
        Op op;
        float c[4];
    };
    static constexpr int kMaxSteps = 8;
    Step steps[kMaxSteps];
    int count = 0;
};

/// float(src) through `program`, interleaved: dst[x * channels + c].
void runFloatProgram(const std::uint8_t* src, std::size_t pixels, int channels, const FloatProgram& program,
                     float* dst);

/// The same written to planes: dst[c * planeStride + x].
void runFloatProgramPlanar(const std::uint8_t* src, std::size_t pixels, int channels,
                           const FloatProgram& program, float* dst, std::size_t planeStride);

/// One value through `program` (channel c): the definition the kernels follow.
inline float floatProgramValue(const FloatProgram& program, int c, std::uint8_t v) {
    float x = v;
    for (int s = 0; s < program.count; ++s) {
        const float k = program.steps[s].c[c];
        switch (program.steps[s].op) {
            case FloatProgram::Op::Sub:
                x = x - k;
                break;
            case FloatProgram::Op::Mul:
                x = x * k;
                break;
            case FloatProgram::Op::Div:
                x = x / k;
                break;
        }
    }
    return x;
}

/// The SIMD target the lookups run on ("AVX3", "AVX2", ... "SCALAR").
const char* tailTarget();

}  // namespace auglab::cpu
