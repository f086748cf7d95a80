// Shared by every GL backend shader (prepended after the #version line at load time).
// Images live in RGBA8UI textures read with texelFetch: integer values, no filtering, so the
// shaders reproduce the CPU reference's integer arithmetic instead of the texture unit's.

// Output pixel (x, y) of the current pass; row 0 of an image is row 0 of its texture.
ivec2 outputPixel() { return ivec2(gl_FragCoord.xy); }

// 32x32 -> 64-bit product from 16-bit halves (umulExtended needs GLSL 4.00).
void mulHiLo(uint a, uint b, out uint hi, out uint lo) {
    uint a0 = a & 0xFFFFu, a1 = a >> 16, b0 = b & 0xFFFFu, b1 = b >> 16;
    uint p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint mid = (p00 >> 16) + (p01 & 0xFFFFu) + (p10 & 0xFFFFu);
    hi = p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);
    lo = a * b;
}

// Philox4x32-10, as core/philox.h.
uvec4 philox(uvec4 ctr, uvec2 key) {
    for (int round = 0; round < 10; ++round) {
        uint hi0, lo0, hi1, lo1;
        mulHiLo(0xD2511F53u, ctr.x, hi0, lo0);
        mulHiLo(0xCD9E8D57u, ctr.z, hi1, lo1);
        ctr = uvec4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
        key += uvec2(0x9E3779B9u, 0xBB67AE85u);
    }
    return ctr;
}

// Per-pixel noise words of core/plan.cpp pixelNoiseWords.
uvec4 pixelNoiseWords(uvec2 seed, ivec2 p) { return philox(uvec4(uint(p.x), uint(p.y), 0x6e6f6973u, 0u), seed); }
