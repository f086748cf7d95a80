#version 330 core
// coarse_dropout: rectangles in output pixels, later holes painted over earlier ones, as the CPU.
uniform usampler2D image;
uniform isampler2D holes;    // n x 1, RGBA32I: x, y, w, h
uniform usampler2D colours;  // n x 1, RGBA8UI: the colour of each hole (random_uniform) or the fill
uniform int holeCount;
uniform int mode;  // 0 constant, 1 random (noise per pixel), 2 one colour per hole
uniform uvec2 seed;
layout(location = 0) out uvec4 colour;

void main() {
    ivec2 o = outputPixel();
    uvec4 c = texelFetch(image, o, 0);
    for (int i = 0; i < holeCount; ++i) {
        ivec4 h = texelFetch(holes, ivec2(i, 0), 0);
        if (o.x >= h.x && o.x < h.x + h.z && o.y >= h.y && o.y < h.y + h.w) {
            if (mode == 1) c.rgb = pixelNoiseWords(seed, o).xyz & 0xFFu;
            else c.rgb = texelFetch(colours, ivec2(i, 0), 0).rgb;
        }
    }
    colour = c;
}
