#!/usr/bin/env python3
"""Writes reference/*.json: what the real pycocotools computes for the annotation fixtures, which
tests/test_annotations.cpp compares AugLab's COCO mask code with (polygons, RLE strings, masks).

Made with pycocotools 2.0.11 and numpy from PyPI:
    python3 -m venv /tmp/cocoenv && /tmp/cocoenv/bin/pip install pycocotools numpy
    /tmp/cocoenv/bin/python tests/data/annotations/make_reference.py

Masks are written as rows of '0'/'1' characters (row y, column x), so that a test reads them with
no decoding of its own; the RLE strings are pycocotools' compressed counts.
"""
import importlib.metadata
import json
import os
import random

import numpy as np
from pycocotools import mask as mask_utils
from pycocotools.coco import COCO

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(mask):
    return ["".join("1" if v else "0" for v in row) for row in mask]


def column_runs(mask):
    """Runs of the column-major mask starting with 0s (COCO's uncompressed counts), in numpy."""
    flat = np.asfortranarray(mask).flatten(order="F").astype(np.uint8)
    runs, value, run = [], 0, 0
    for v in flat:
        if v != value:
            runs.append(run)
            run, value = 0, v
        run += 1
    runs.append(run)
    return runs


def encode(mask):
    """pycocotools' compressed RLE of a mask, checked against the same counts given uncompressed."""
    h, w = mask.shape
    string = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))["counts"].decode("ascii")
    again = mask_utils.frPyObjects({"counts": column_runs(mask), "size": [h, w]}, h, w)["counts"].decode("ascii")
    assert string == again
    return string


def polygon_mask(xy, w, h):
    rle = mask_utils.frPyObjects([xy], h, w)[0]
    return mask_utils.decode(rle), rle["counts"].decode("ascii")


def polygons():
    cases = [
        ("square on pixel edges", 10, 8, [2, 2, 8, 2, 8, 6, 2, 6]),
        ("fractional triangle", 10, 8, [0.5, 0.5, 9.3, 1.7, 4.1, 7.9]),
        ("the same triangle clockwise", 10, 8, [4.1, 7.9, 9.3, 1.7, 0.5, 0.5]),
        ("repeated closing vertex", 10, 8, [1, 1, 7, 1, 7, 6, 1, 6, 1, 1]),
        ("reaching outside the image", 10, 8, [-3, -2, 12, 1, 5, 11]),
        ("negative fractions", 8, 6, [-0.3, -0.7, 4.6, -0.1, 2.2, 3.3]),
        ("thin sliver", 10, 8, [1, 1, 9, 1.1, 1, 1.2]),
        ("smaller than a pixel", 8, 8, [3.1, 3.1, 3.3, 3.1, 3.2, 3.4]),
        ("self-intersecting bow tie", 10, 8, [0, 0, 8, 6, 8, 0, 0, 6]),
        ("concave star", 16, 16, [8, 0.5, 9.8, 5.6, 15.2, 5.9, 11, 9.4, 12.6, 15, 8, 11.7, 3.4, 15, 5, 9.4,
                                  0.8, 5.9, 6.2, 5.6]),
        ("one pixel wide image", 1, 5, [0, 0, 1, 0, 1, 4.4, 0, 4.4]),
        ("one pixel high image", 6, 1, [0.2, 0, 5.5, 0, 5.5, 1, 0.2, 1]),
        ("a vertex at a half pixel", 10, 8, [2.5, 1.5, 7.5, 1.5, 7.5, 6.5, 2.5, 6.5]),
    ]
    rng = random.Random(20240611)
    for i in range(5):
        w, h = 40, 30
        n = rng.randint(5, 14)
        cx, cy = rng.uniform(10, 30), rng.uniform(8, 22)
        xy = []
        for k in range(n):
            angle = 2 * np.pi * k / n + rng.uniform(-0.2, 0.2)
            r = rng.uniform(3, 16)
            xy += [round(cx + r * np.cos(angle), 2), round(cy + r * np.sin(angle), 2)]
        cases.append(("random polygon %d" % i, w, h, xy))
    rng2 = random.Random(7)
    xy = [round(rng2.uniform(-5, 105), 3) if k % 2 == 0 else round(rng2.uniform(-5, 65), 3) for k in range(40)]
    cases.append(("large random self-intersecting", 100, 60, xy))
    out = []
    for name, w, h, xy in cases:
        m, string = polygon_mask(xy, w, h)
        assert string == encode(m)
        out.append({"name": name, "width": w, "height": h, "polygon": xy, "rle": string, "rows": rows(m)})
    return out


def rle_strings():
    cases = []
    rng = np.random.default_rng(11)
    cases.append(("noise 37x23", (rng.random((23, 37)) < 0.5)))
    cases.append(("sparse noise 50x40", (rng.random((40, 50)) < 0.03)))
    blob = np.zeros((1000, 1000), bool)
    blob[600:640, 700:705] = True
    blob[10, 999] = True
    cases.append(("a small blob in 1000x1000", blob))
    cases.append(("all ones 5x4", np.ones((4, 5), bool)))
    cases.append(("all zeros 6x3", np.zeros((3, 6), bool)))
    corner = np.zeros((3, 4), bool)
    corner[0, 0] = True
    cases.append(("starts with a one", corner))
    out = []
    for name, m in cases:
        out.append({"name": name, "width": int(m.shape[1]), "height": int(m.shape[0]),
                    "counts": [int(c) for c in column_runs(m)], "rle": encode(m)})
    return out


def coco_masks():
    coco = COCO(os.path.join(HERE, "coco", "annotations", "instances_val.json"))
    out = []
    # The annotations with a valid segmentation (the fixture's others are broken on purpose).
    for ann_id in [101, 102, 103, 201, 202]:
        ann = coco.anns[ann_id]
        m = coco.annToMask(ann)
        img = coco.imgs[ann["image_id"]]
        out.append({"annotation_id": ann_id, "file_name": img["file_name"], "width": img["width"],
                    "height": img["height"], "rle": encode(m), "area": int(m.sum()), "rows": rows(m)})
    return out


def main():
    ref = os.path.join(HERE, "reference")
    os.makedirs(ref, exist_ok=True)
    made_by = "tests/data/annotations/make_reference.py with pycocotools %s, numpy %s" % (
        importlib.metadata.version("pycocotools"), np.__version__)
    for name, cases in [("polygons.json", polygons()), ("rle_strings.json", rle_strings()),
                        ("coco_masks.json", coco_masks())]:
        with open(os.path.join(ref, name), "w") as f:
            f.write('{\n  "made_by": %s,\n  "cases": [\n' % json.dumps(made_by))
            f.write(",\n".join("    " + json.dumps(c, separators=(", ", ": ")) for c in cases))
            f.write("\n  ]\n}\n")


if __name__ == "__main__":
    main()
