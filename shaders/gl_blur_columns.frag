#version 330 core
// gaussian_blur, second pass: column sums of the row sums, rounded to nearest even; alpha kept.
uniform sampler2D rowSums;
uniform usampler2D image;  // the blur's input, for alpha
uniform sampler2D taps;
uniform int ksize;
layout(location = 0) out uvec4 colour;

int reflect101(int p, int len) {
    if (len == 1) return 0;
    while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
    return p;
}

void main() {
    ivec2 o = outputPixel();
    int h = textureSize(rowSums, 0).y, r = ksize / 2;
    vec3 acc = vec3(0.0);
    for (int t = 0; t < ksize; ++t)
        acc += texelFetch(taps, ivec2(t, 0), 0).r * texelFetch(rowSums, ivec2(o.x, reflect101(o.y + t - r, h)), 0).rgb;
    colour = uvec4(uvec3(clamp(roundEven(acc), 0.0, 255.0)), texelFetch(image, o, 0).a);
}
