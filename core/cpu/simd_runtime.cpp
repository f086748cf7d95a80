// Highway's run-time target choice, defined here instead of linking libhwy.so.
//
// The kernels in core/cpu use Highway's headers for everything (the code of every target and the
// dispatch tables); from its shared library they need only the three functions below, which say
// which of the compiled targets this CPU runs. Debian's libhwy.so.1.0.3 also calibrates its
// benchmark timer in a static initialiser, which costs every process that loads it ~4.4 ms (an
// empty program: 0.7 → 5.1 ms, `perf stat -r 30`) — a third of `auglab-cli`'s start-up and
// `import auglab`'s, paid by every augment run and DataLoader worker for a function never called.
//
// So this file answers the same question from CPUID and XGETBV. A target is reported only when
// the CPU has every instruction set its code may use — the feature list Highway compiles that
// target with (HWY_TARGET_STR in hwy/ops/set_macros-inl.h) — and the OS saves the registers it
// needs; where in doubt it asks for more, which can only choose a lower target, never fault.
// test_cpu_kernels checks the answer against libhwy's own on the machine it runs on.
//
// Compiled with hidden visibility (core/CMakeLists.txt): the Python module does not export these
// names, so a process that also loads the real libhwy keeps each library's answer its own.

#include <hwy/targets.h>

#include <atomic>
#include <cstdint>

#if HWY_ARCH_X86
#include <cpuid.h>
#endif

namespace hwy {
namespace {

std::atomic<std::int64_t> targetsForTest{0};
std::atomic<std::int64_t> disabledTargets{0};

#if HWY_ARCH_X86
bool bit(std::uint32_t word, int index) { return (word >> index) & 1u; }

struct CpuidWords {
    std::uint32_t a = 0, b = 0, c = 0, d = 0;
};

CpuidWords cpuid(std::uint32_t leaf, std::uint32_t subleaf) {
    CpuidWords w;
    if (!__get_cpuid_count(leaf, subleaf, &w.a, &w.b, &w.c, &w.d)) return {};
    return w;
}

std::uint64_t readXcr0() {
    std::uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (std::uint64_t{hi} << 32) | lo;
}

std::int64_t detectX86() {
    const CpuidWords l1 = cpuid(1, 0);
    const std::uint32_t maxLeaf = cpuid(0, 0).a;
    const CpuidWords l7 = maxLeaf >= 7 ? cpuid(7, 0) : CpuidWords{};
    const CpuidWords l71 = maxLeaf >= 7 && l7.a >= 1 ? cpuid(7, 1) : CpuidWords{};
    const CpuidWords ext = cpuid(0x80000000u, 0).a >= 0x80000001u ? cpuid(0x80000001u, 0) : CpuidWords{};

    // Registers the OS saves on a context switch (XCR0): XMM, YMM, and the AVX-512 opmask and
    // upper ZMM state. Without OSXSAVE none of the AVX targets may run.
    const bool osxsave = bit(l1.c, 27);
    const std::uint64_t xcr0 = osxsave ? readXcr0() : 0;
    const bool osXmmYmm = (xcr0 & 0x6) == 0x6;
    const bool osZmm = osXmmYmm && (xcr0 & 0xE0) == 0xE0;

    // "sse2,ssse3"
    const bool ssse3 = bit(l1.d, 25) && bit(l1.d, 26) && bit(l1.c, 0) && bit(l1.c, 9);
    // + "sse4.1,sse4.2,pclmul,aes" (and POPCNT, which every such CPU has)
    const bool sse4 = ssse3 && bit(l1.c, 19) && bit(l1.c, 20) && bit(l1.c, 1) && bit(l1.c, 25) && bit(l1.c, 23);
    // + "avx,avx2,bmi,bmi2,fma,f16c" (and LZCNT)
    const bool avx2 = sse4 && osXmmYmm && bit(l1.c, 28) && bit(l7.b, 5) && bit(l7.b, 3) && bit(l7.b, 8) &&
                      bit(l1.c, 12) && bit(l1.c, 29) && bit(ext.c, 5);
    // + "avx512f,avx512vl,avx512dq,avx512bw" (and CD)
    const bool avx3 = avx2 && osZmm && bit(l7.b, 16) && bit(l7.b, 31) && bit(l7.b, 17) && bit(l7.b, 30) &&
                      bit(l7.b, 28);
    // + "vpclmulqdq,avx512vbmi,avx512vbmi2,vaes,avxvnni,avx512bitalg,avx512vpopcntdq" (and the
    // AVX-512 VNNI, GFNI). Highway's own detection does not ask for AVX-VNNI (leaf 7.1), which its
    // compiler flags allow; this one does. No AugLab kernel is compiled for this target today.
    const bool avx3dl = avx3 && bit(l7.c, 10) && bit(l7.c, 1) && bit(l7.c, 6) && bit(l7.c, 9) &&
                        bit(l71.a, 4) && bit(l7.c, 12) && bit(l7.c, 14) && bit(l7.c, 11) && bit(l7.c, 8);

    std::int64_t targets = 0;
    if (ssse3) targets |= HWY_SSSE3;
    if (sse4) targets |= HWY_SSE4;
    if (avx2) targets |= HWY_AVX2;
    if (avx3) targets |= HWY_AVX3;
    if (avx3dl) targets |= HWY_AVX3_DL;
    return targets;
}
#endif

std::int64_t detect() {
    std::int64_t targets = HWY_SCALAR | HWY_EMU128;  // portable C++: every CPU
#if HWY_ARCH_X86
    targets |= detectX86();
#endif
    return targets;
}

}  // namespace

// Bitfield of the targets this CPU runs (HWY_* bits, as Highway's own); a test may narrow it.
int64_t SupportedTargets() {
    std::int64_t targets = targetsForTest.load();
    if (targets == 0) {
        // Detected once: CPUID is slow under some hypervisors, and the answer does not change.
        static const std::int64_t detected = detect();
        targets = detected;
    }
    targets &= ~(disabledTargets.load() & ~HWY_ENABLED_BASELINE);
    return targets == 0 ? HWY_STATIC_TARGET : targets;
}

void DisableTargets(int64_t disabled_targets) {
    disabledTargets.store(disabled_targets);
    GetChosenTarget().DeInit();  // the next dispatch chooses again
}

void SetSupportedTargetsForTest(int64_t targets) {
    targetsForTest.store(targets);
    GetChosenTarget().DeInit();
}

// The target every HWY_DYNAMIC_DISPATCH call uses; its first call chooses it (FunctionCache).
ChosenTarget& GetChosenTarget() {
    static ChosenTarget chosen;
    return chosen;
}

}  // namespace hwy
