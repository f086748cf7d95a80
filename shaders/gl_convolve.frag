#version 330 core
// ConvolveStep: cv2.filter2D's correlation on 8-bit data, the non-zero taps summed in float in
// row-major order, border reflect_101, rounded to nearest even; alpha kept. The CPU fuses each
// multiply-add (core/cpu_pixel_ops.cpp); GLSL 3.30 has no fma(), so the driver decides: a level
// apart where a sum falls exactly on a half (SPEC §2's bounds).
uniform usampler2D image;
uniform sampler2D taps;  // ksize x ksize, R32F
uniform int ksize;
layout(location = 0) out uvec4 colour;

int reflect101(int p, int len) {
    if (len == 1) return 0;
    while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
    return p;
}

void main() {
    ivec2 o = outputPixel();
    ivec2 size = textureSize(image, 0);
    int r = ksize / 2;
    vec3 acc = vec3(0.0);
    for (int i = 0; i < ksize; ++i) {
        int y = reflect101(o.y + i - r, size.y);
        for (int j = 0; j < ksize; ++j) {
            float k = texelFetch(taps, ivec2(j, i), 0).r;
            if (k == 0.0) continue;
            acc += k * vec3(texelFetch(image, ivec2(reflect101(o.x + j - r, size.x), y), 0).rgb);
        }
    }
    colour = uvec4(uvec3(clamp(roundEven(acc), 0.0, 255.0)), texelFetch(image, o, 0).a);
}
