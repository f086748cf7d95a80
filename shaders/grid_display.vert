#version 330 core
// Draws the grid texture as one quad. `rect` is the quad in normalised device coordinates
// (x0, y0, x1, y1); texture row 0 is the top of the sheet, so v runs downwards.
uniform vec4 rect;
out vec2 uv;

void main() {
    // Two triangles from gl_VertexID: (0,0) (1,0) (0,1) (1,1) as a strip.
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    uv = vec2(corner.x, 1.0 - corner.y);
    gl_Position = vec4(mix(rect.xy, rect.zw, corner), 0.0, 1.0);
}
