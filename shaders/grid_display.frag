#version 330 core
// Shows the grid texture: RGBA8UI, either uploaded from the CPU backend's sheet or rendered there
// by the GL backend (no readback). Integer textures are not filtered by the texture unit, so the
// bilinear filtering for the on-screen scale is done here; tiles with alpha are shown over the
// sheet's background grey.
uniform usampler2D sheet;
uniform float background;  // 0..1
in vec2 uv;
out vec4 colour;

vec4 texel(ivec2 p, ivec2 size) { return vec4(texelFetch(sheet, clamp(p, ivec2(0), size - 1), 0)) / 255.0; }

void main() {
    ivec2 size = textureSize(sheet, 0);
    vec2 p = uv * vec2(size) - 0.5;
    ivec2 i = ivec2(floor(p));
    vec2 f = p - floor(p);
    vec4 top = mix(texel(i, size), texel(i + ivec2(1, 0), size), f.x);
    vec4 bottom = mix(texel(i + ivec2(0, 1), size), texel(i + ivec2(1, 1), size), f.x);
    vec4 c = mix(top, bottom, f.y);
    colour = vec4(mix(vec3(background), c.rgb, c.a), 1.0);
}
