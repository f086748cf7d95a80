#version 330 core
// MedianStep: cv2.medianBlur per colour channel, border replicate; alpha kept. The median is the
// smallest value v with more than ksize*ksize/2 window values <= v, found by bisection on 0..255.
uniform usampler2D image;
uniform int ksize;
layout(location = 0) out uvec4 colour;

void main() {
    ivec2 o = outputPixel();
    ivec2 last = textureSize(image, 0) - 1;
    int r = ksize / 2, middle = ksize * ksize / 2;
    uvec3 lo = uvec3(0u), hi = uvec3(255u);
    for (int step = 0; step < 8; ++step) {
        uvec3 mid = (lo + hi) / 2u;
        ivec3 count = ivec3(0);
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx) {
                uvec3 v = texelFetch(image, clamp(o + ivec2(dx, dy), ivec2(0), last), 0).rgb;
                count += ivec3(lessThanEqual(v, mid));
            }
        bvec3 enough = greaterThan(count, ivec3(middle));
        for (int c = 0; c < 3; ++c) {
            if (enough[c])
                hi[c] = mid[c];
            else
                lo[c] = mid[c] + 1u;
        }
    }
    colour = uvec4(lo, texelFetch(image, o, 0).a);
}
