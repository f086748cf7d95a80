#version 330 core
// The fused warp of a plan stage, integer for integer the CPU reference (core/cpu_warp.cpp):
// fixed-point coordinates from the shared tables, 1/32-pixel bilinear weights summing to 1024,
// OpenCV's border rules. `tables` rows: 0 adelta, 1 bdelta (per column), 2 x0, 3 y0 (per row); for a
// projective warp, the position of every output pixel instead (X, Y: 1/32 pixel, or whole pixels
// for nearest), as the CPU computes it (warp_fixed_point.h projectiveMap).
uniform usampler2D source;
uniform isampler2D tables;
uniform int projective;
uniform ivec2 sourceSize;    // the part of the texture the warp reads (WarpStep::window), or all of it
uniform ivec2 windowOrigin;  // where that part starts in the texture
uniform int border;   // 0 constant, 1 replicate, 2 reflect, 3 reflect_101, 4 wrap
uniform int nearest;  // 1: nearest neighbour, 0: bilinear
uniform uvec4 fill;
layout(location = 0) out uvec4 colour;

// GLSL leaves % undefined for negative operands: fold with non-negative ones only.
int floorMod(int p, int m) { return p >= 0 ? p % m : (m - 1) - ((-p - 1) % m); }

int borderIndex(int p, int len) {
    if (p >= 0 && p < len) return p;
    if (border == 0) return -1;
    if (border == 1) return p < 0 ? 0 : len - 1;
    if (border == 4) return floorMod(p, len);
    if (border == 3 && len == 1) return 0;
    int delta = border == 3 ? 1 : 0;
    int period = 2 * len - 2 * delta;
    int q = floorMod(p, period);
    if (q < len) return q;
    return border == 3 ? period - q : period - 1 - q;
}

uvec4 tap(int x, int y) {
    int bx = borderIndex(x, sourceSize.x), by = borderIndex(y, sourceSize.y);
    if (bx < 0 || by < 0) return fill;
    return texelFetch(source, ivec2(bx, by) + windowOrigin, 0);
}

void main() {
    ivec2 o = outputPixel();
    int X, Y;  // 1/32 pixel (linear) or whole pixels (nearest)
    if (projective == 1) {
        ivec2 p = texelFetch(tables, o, 0).rg;
        X = p.x;
        Y = p.y;
    } else {
        int a = texelFetch(tables, ivec2(o.x, 0), 0).r;
        int b = texelFetch(tables, ivec2(o.x, 1), 0).r;
        int x0 = texelFetch(tables, ivec2(o.y, 2), 0).r;
        int y0 = texelFetch(tables, ivec2(o.y, 3), 0).r;
        X = nearest == 1 ? (x0 + a) >> 10 : (x0 + a) >> 5;
        Y = nearest == 1 ? (y0 + b) >> 10 : (y0 + b) >> 5;
    }
    if (nearest == 1) {
        colour = tap(X, Y);
        return;
    }
    int sx = X >> 5, sy = Y >> 5;
    int fx = X & 31, fy = Y & 31;
    if (border == 0 && (sx >= sourceSize.x || sx + 1 < 0 || sy >= sourceSize.y || sy + 1 < 0)) {
        colour = fill;
        return;
    }
    ivec4 v = ivec4(tap(sx, sy)) * ((32 - fx) * (32 - fy)) + ivec4(tap(sx + 1, sy)) * (fx * (32 - fy)) +
              ivec4(tap(sx, sy + 1)) * ((32 - fx) * fy) + ivec4(tap(sx + 1, sy + 1)) * (fx * fy);
    colour = uvec4((v + 512) >> 10);
}
