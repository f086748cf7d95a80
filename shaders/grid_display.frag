#version 330 core
// Shows the grid texture. The texture holds the tiles at display resolution already (they were
// rendered at tile size), so plain bilinear filtering is enough here.
uniform sampler2D sheet;
in vec2 uv;
out vec4 colour;

void main() {
    colour = vec4(texture(sheet, uv).rgb, 1.0);
}
