#version 330 core
// deotte_affine's gather (core/plan.h GatherStep), value for value the CPU reference
// (core/cpu_warp.cpp gatherRows): per output pixel two float32 sums of table entries (additions
// only, so no fused multiply-add can change them), truncated toward zero and clamped, then one
// source pixel of the dim x dim frame, read at the input's scale.
uniform usampler2D source;
uniform sampler2D rows;     // outputHeight x 1, RG32F: m00 X, m10 X of the row's destination index
uniform sampler2D columns;  // outputWidth x 1, RG32F: m01 Y, m11 Y of the column's
uniform vec2 offsets;       // m02, m12
uniform ivec2 sourceSize;
uniform int dim;
uniform int lo;
uniform int hi;
layout(location = 0) out uvec4 colour;

// NaN and values outside int's range convert to INT_MIN on x86 (the notebook's TF on CPU), which
// clamps to lo; GLSL leaves that conversion undefined, so it is spelled out.
int gatherIndex(float s) {
    if (isnan(s) || s < -2147483648.0 || s >= 2147483648.0) return lo;
    return clamp(int(s), lo, hi);
}

void main() {
    ivec2 o = outputPixel();
    vec2 a = texelFetch(rows, ivec2(o.y, 0), 0).rg;
    vec2 b = texelFetch(columns, ivec2(o.x, 0), 0).rg;
    int row = dim / 2 - gatherIndex((a.x + b.x) + offsets.x);
    int col = dim / 2 - 1 + gatherIndex((a.y + b.y) + offsets.y);
    colour = texelFetch(source, ivec2(col * sourceSize.x / dim, row * sourceSize.y / dim), 0);
}
