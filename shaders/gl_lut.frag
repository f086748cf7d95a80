#version 330 core
// brightness_contrast: one 256-entry LUT (built by core/colour.cpp) on R, G and B; alpha kept.
uniform usampler2D image;
uniform usampler2D lut;  // 256 x 1
layout(location = 0) out uvec4 colour;

void main() {
    uvec4 c = texelFetch(image, outputPixel(), 0);
    colour = uvec4(texelFetch(lut, ivec2(int(c.r), 0), 0).r, texelFetch(lut, ivec2(int(c.g), 0), 0).r,
                   texelFetch(lut, ivec2(int(c.b), 0), 0).r, c.a);
}
