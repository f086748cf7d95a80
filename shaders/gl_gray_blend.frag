#version 330 core
// GrayBlendStep (ColorJitter's saturation): each colour blended with the pixel's gray as
// cv2.addWeighted does on 8-bit data, rounded to nearest even and saturated; alpha kept. The CPU
// fuses c * alpha + gray * beta into one rounding (core/plan.h grayBlendOf); GLSL 3.30 has no fma(),
// so the driver decides: a level apart where a sum falls within a rounding of a half.
uniform usampler2D image;
uniform float alpha;
uniform float beta;
layout(location = 0) out uvec4 colour;

void main() {
    uvec4 c = texelFetch(image, outputPixel(), 0);
    uint g = (c.r * 9798u + c.g * 19235u + c.b * 3735u + 16384u) >> 15;
    float t = float(g) * beta;
    vec3 v = roundEven(vec3(c.rgb) * alpha + t);
    uvec3 o = uvec3(clamp(v, 0.0, 255.0));
    colour = uvec4(o, c.a);
}
