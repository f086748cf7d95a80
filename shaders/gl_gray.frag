#version 330 core
// to_gray: OpenCV RGB2GRAY, 15-bit fixed point (core/colour.h grayOf); alpha kept.
uniform usampler2D image;
layout(location = 0) out uvec4 colour;

void main() {
    uvec4 c = texelFetch(image, outputPixel(), 0);
    uint g = (c.r * 9798u + c.g * 19235u + c.b * 3735u + 16384u) >> 15;
    colour = uvec4(g, g, g, c.a);
}
