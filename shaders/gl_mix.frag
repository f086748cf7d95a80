#version 330 core
// Mixing ops: a partner image of the output's size (core/plan.h MixStep). Blend: every channel
// (weight * a + (65536 - weight) * b + 32768) >> 16, in integers as the CPU; paste: the box's pixels
// are the partner's.
uniform usampler2D image;
uniform usampler2D partner;
uniform int paste;
uniform uint weight;
uniform ivec4 box;  // x, y, w, h
layout(location = 0) out uvec4 colour;

void main() {
    ivec2 o = outputPixel();
    uvec4 a = texelFetch(image, o, 0);
    uvec4 b = texelFetch(partner, o, 0);
    if (paste != 0) {
        bool inside = o.x >= box.x && o.x < box.x + box.z && o.y >= box.y && o.y < box.y + box.w;
        colour = inside ? b : a;
    } else {
        colour = (weight * a + (65536u - weight) * b + 32768u) >> 16;
    }
}
