#version 330 core
// gaussian_blur, first pass: the float row sums of core/cpu_pixel_ops.cpp (reflect_101 border).
uniform usampler2D image;
uniform sampler2D taps;  // ksize x 1, R32F
uniform int ksize;
layout(location = 0) out vec4 sums;

int reflect101(int p, int len) {
    if (len == 1) return 0;
    while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
    return p;
}

void main() {
    ivec2 o = outputPixel();
    int w = textureSize(image, 0).x, r = ksize / 2;
    vec3 acc = vec3(0.0);
    for (int t = 0; t < ksize; ++t)
        acc += texelFetch(taps, ivec2(t, 0), 0).r * vec3(texelFetch(image, ivec2(reflect101(o.x + t - r, w), o.y), 0).rgb);
    sums = vec4(acc, 0.0);
}
