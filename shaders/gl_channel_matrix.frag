#version 330 core
// to_sepia, channel_shuffle: a 3 x 3 matrix in cv2.transform's 8-bit fixed point (core/plan.h
// ChannelMatrixStep): (sum of coefficient x input + 512) >> 10, saturated; alpha kept.
uniform usampler2D image;
uniform ivec3 rows[3];  // output channel by input channel, in 1/1024
layout(location = 0) out uvec4 colour;

void main() {
    uvec4 c = texelFetch(image, outputPixel(), 0);
    ivec3 v = ivec3(c.rgb);
    ivec3 o;
    for (int i = 0; i < 3; ++i) o[i] = rows[i].x * v.r + rows[i].y * v.g + rows[i].z * v.b;  // integers: no dot()
    o = clamp((o + 512) >> 10, 0, 255);
    colour = uvec4(uvec3(o), c.a);
}
