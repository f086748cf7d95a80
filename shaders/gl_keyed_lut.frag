#version 330 core
// ShadowStep and FogStep (core/keyed_tables.h): each pixel's key (the history of the shapes that
// covered it, drawn on the host), then its key's table per colour channel; alpha kept.
uniform usampler2D image;
uniform usampler2D keys;    // R32UI, the image's size
uniform usampler2D tables;  // R8UI, 4096 wide: entry (key * 3 + channel) * 256 + value
layout(location = 0) out uvec4 colour;

uint entry(uint key, uint channel, uint v) {
    uint i = (key * 3u + channel) * 256u + v;
    return texelFetch(tables, ivec2(int(i & 4095u), int(i >> 12)), 0).r;
}

void main() {
    ivec2 p = outputPixel();
    uvec4 c = texelFetch(image, p, 0);
    uint k = texelFetch(keys, p, 0).r;
    colour = uvec4(entry(k, 0u, c.r), entry(k, 1u, c.g), entry(k, 2u, c.b), c.a);
}
