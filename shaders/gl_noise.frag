#version 330 core
// gauss_noise: per-pixel Philox words, Box-Muller, N(mean, std) truncated toward zero, added and
// clipped (core/cpu_pixel_ops.cpp). log/cos/sin may differ from the C library in the last bit, so a
// rare value can differ by one level.
uniform usampler2D image;
uniform uvec2 seed;
uniform float mean255;
uniform float std255;
uniform int perChannel;
layout(location = 0) out uvec4 colour;

vec2 boxMuller(uint w0, uint w1) {
    float u1 = (float(w0 >> 8) + 1.0) * (1.0 / 16777216.0);
    float u2 = float(w1 >> 8) * (1.0 / 16777216.0);
    float r = sqrt(-2.0 * log(u1));
    float t = 6.2831853071795864769 * u2;
    return vec2(r * cos(t), r * sin(t));
}

void main() {
    ivec2 o = outputPixel();
    uvec4 c = texelFetch(image, o, 0);
    uvec4 w = pixelNoiseWords(seed, o);
    vec2 g01 = boxMuller(w.x, w.y), g23 = boxMuller(w.z, w.w);
    vec3 z = perChannel == 1 ? vec3(g01, g23.x) : vec3(g01.x);
    ivec3 delta = ivec3(trunc(vec3(mean255) + vec3(std255) * z));
    colour = uvec4(uvec3(clamp(ivec3(c.rgb) + delta, 0, 255)), c.a);
}
