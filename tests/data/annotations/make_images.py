#!/usr/bin/env python3
"""Writes the image and mask PNGs of the annotation fixtures (tests/test_annotations.cpp).

Images are small crops of ../shared/testdata/images/chelsea.png (only their sizes matter to the
tests). Masks are drawn from the rules below, which the tests state again by hand. Needs Pillow:
    python3 -m venv /tmp/cocoenv && /tmp/cocoenv/bin/pip install pillow numpy
    /tmp/cocoenv/bin/python tests/data/annotations/make_images.py
"""
import os

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTO = os.path.join(HERE, "..", "..", "..", "..", "shared", "testdata", "images", "chelsea.png")


def image(rel, w, h, at=(0, 0)):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    photo = Image.open(PHOTO).convert("RGB")
    x, y = 120 + at[0], 60 + at[1]
    photo.crop((x, y, x + w, y + h)).save(path, optimize=True)


def save(rel, img, **kw):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img.save(path, **kw)


def palette(n):
    # Pascal VOC's colour map: index 1 is (128, 0, 0), 2 (0, 128, 0), 3 (128, 128, 0).
    colours = [(0, 0, 0), (128, 0, 0), (0, 128, 0), (128, 128, 0)] + [(i, i, i) for i in range(4, n)]
    return [c for rgb in colours[:n] for c in rgb]


for i, rel in enumerate(["yolo/images/train/a.png", "yolo/images/train/b.png", "yolo/images/val/c.png",
                         "yolo_dict/images/x.png", "yolo_classes/images/y.png", "yolo_pose/images/p.png",
                         "yolo_bad_yaml/images/z.png", "coco/val/img1.png", "coco_beside/a.png",
                         "voc/JPEGImages/000001.png", "voc/JPEGImages/000002.png", "voc_beside/img1.png",
                         "voc_beside/img3.png", "masks/images/m1.png", "masks/images/m3.png",
                         "masks/images/m4.png"]):
    image(rel, 32, 24, (i * 7, i * 5))
for i, rel in enumerate(["coco/val/sub/img2.png", "voc_beside/sub/img2.png", "masks/images/sub/m2.png",
                         "masks/images/m5.png", "masks/images/m6.png", "masks/images/m7.png"]):
    image(rel, 20, 16, (i * 11, i * 3))

# m1: 8-bit gray, 1 in x 4..11 y 2..9, 2 in x 16..27 y 12..21, 255 in column 31.
m1 = np.zeros((24, 32), np.uint8)
m1[2:10, 4:12] = 1
m1[12:22, 16:28] = 2
m1[:, 31] = 255
save("masks/masks/m1.png", Image.fromarray(m1, "L"))

# m2: 8-bit palette, index x // 5 (0..3).
m2 = Image.fromarray((np.arange(20)[None, :].repeat(16, 0) // 5).astype(np.uint8), "P")
m2.putpalette(palette(256))
save("masks/masks/sub/m2.png", m2)

# m3: 30x24, the image is 32x24.
save("masks/masks/m3.png", Image.fromarray(np.zeros((24, 30), np.uint8), "L"))

# m5: 4-bit palette, index y // 4 (0..3).
m5 = Image.fromarray((np.arange(16)[:, None].repeat(20, 1) // 4).astype(np.uint8), "P")
m5.putpalette(palette(16))
save("masks/masks/m5.png", m5, bits=4)

# m6: RGB with R = G = B = (x + y) % 3: a gray mask saved in colour.
v6 = ((np.arange(20)[None, :] + np.arange(16)[:, None]) % 3).astype(np.uint8)
save("masks/masks/m6.png", Image.fromarray(np.stack([v6, v6, v6], -1), "RGB"))

# m7: a colour image, not a mask: pixel (3, 2) is (9, 0, 0).
v7 = np.zeros((16, 20, 3), np.uint8)
v7[2, 3] = (9, 0, 0)
save("masks/masks/m7.png", Image.fromarray(v7, "RGB"))
