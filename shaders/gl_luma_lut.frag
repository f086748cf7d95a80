#version 330 core
// EqualizeStep on the luma: OpenCV's 8-bit RGB2YCrCb, Y through the table, YCrCb2RGB (14-bit fixed
// point, core/colour.h rgbToYCrCb8 and yCrCbToRgb8); alpha kept.
uniform usampler2D image;
uniform usampler2D lut;  // 256 x 1
layout(location = 0) out uvec4 colour;

void main() {
    uvec4 c = texelFetch(image, outputPixel(), 0);
    int r = int(c.r), g = int(c.g), b = int(c.b);
    int y = (r * 4899 + g * 9617 + b * 1868 + 8192) >> 14;
    int cr = clamp(((r - y) * 11682 + (128 << 14) + 8192) >> 14, 0, 255) - 128;
    int cb = clamp(((b - y) * 9241 + (128 << 14) + 8192) >> 14, 0, 255) - 128;
    int l = int(texelFetch(lut, ivec2(y, 0), 0).r);
    int bo = clamp(l + ((cb * 29049 + 8192) >> 14), 0, 255);
    int go = clamp(l + ((cb * -5636 + cr * -11698 + 8192) >> 14), 0, 255);
    int ro = clamp(l + ((cr * 22987 + 8192) >> 14), 0, 255);
    colour = uvec4(uint(ro), uint(go), uint(bo), c.a);
}
