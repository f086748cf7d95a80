#version 330 core
// hue_saturation_value: OpenCV's 8-bit RGB2HSV (integer, tables from the CPU), the shift LUTs,
// then HSV2RGB in float with truncation as core/colour.cpp hsvToRgb8. GLSL 3.30 has no fma(), so
// the two fused products there may round differently here by one level in rare pixels.
uniform usampler2D image;
uniform isampler2D divTables;  // 256 x 2: row 0 sdiv, row 1 hdiv
uniform usampler2D shiftLuts;  // 256 x 3: rows hue, saturation, value
layout(location = 0) out uvec4 colour;

void main() {
    uvec4 c = texelFetch(image, outputPixel(), 0);
    int r = int(c.r), g = int(c.g), b = int(c.b);
    int v = max(r, max(g, b));
    int vmin = min(r, min(g, b));
    int diff = v - vmin;
    int s = (diff * texelFetch(divTables, ivec2(v, 0), 0).r + 2048) >> 12;
    int h;
    if (v == r) h = g - b;
    else if (v == g) h = b - r + 2 * diff;
    else h = r - g + 4 * diff;
    h = (h * texelFetch(divTables, ivec2(diff, 1), 0).r + 2048) >> 12;
    if (h < 0) h += 180;
    int h2 = int(texelFetch(shiftLuts, ivec2(h, 0), 0).r);
    int s2 = int(texelFetch(shiftLuts, ivec2(s, 1), 0).r);
    int v2 = int(texelFetch(shiftLuts, ivec2(v, 2), 0).r);
    float fs = float(s2) * (1.0 / 255.0), fv = float(v2) * (1.0 / 255.0);
    float fh = float(h2) * (6.0 / 180.0);
    float pre = trunc(fh);
    fh -= pre;
    int sector = int(pre) % 6;
    float t0 = fv, t1 = fv * (1.0 - fs), t2 = fv * (1.0 - fs * fh), t3 = fv * (1.0 - fs * (1.0 - fh));
    // (b, g, r) = tab[sector table], as OpenCV's HSV2RGB sector_data.
    vec3 rgb;
    if (sector == 0) rgb = vec3(t0, t3, t1);
    else if (sector == 1) rgb = vec3(t2, t0, t1);
    else if (sector == 2) rgb = vec3(t1, t0, t3);
    else if (sector == 3) rgb = vec3(t1, t2, t0);
    else if (sector == 4) rgb = vec3(t3, t1, t0);
    else rgb = vec3(t0, t1, t2);
    uvec3 out8 = uvec3(clamp(ivec3(rgb * 255.0), 0, 255));  // truncation, as v_trunc
    colour = uvec4(out8, c.a);
}
