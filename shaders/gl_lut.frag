#version 330 core
// LutStep: a 256-entry table per colour channel (row c of the texture is channel c's; built by the op
// modules: brightness/contrast, gamma, levels, channel shifts and dropout) on R, G and B; alpha kept.
uniform usampler2D image;
uniform usampler2D lut;  // 256 x 3
layout(location = 0) out uvec4 colour;

void main() {
    uvec4 c = texelFetch(image, outputPixel(), 0);
    colour = uvec4(texelFetch(lut, ivec2(int(c.r), 0), 0).r, texelFetch(lut, ivec2(int(c.g), 1), 0).r,
                   texelFetch(lut, ivec2(int(c.b), 2), 0).r, c.a);
}
