"""Runs the 4-image grid through the real Albumentations 2.0.8 Mosaic (used by tests/test_targets.cpp).

  mosaic_check.py CASES.json OUTDIR

CASES.json: a list of cases, each {"pipeline": an AugLab Albumentations export holding one Mosaic
(A.load reads it, with its bbox_params and keypoint_params), "replay": the AugLab replay of the
sample, "items": the pool's images by pool index, each {"image": PNG path, "mask": PNG path,
"bboxes" (pascal_voc), "labels", "keypoints" ([x, y, angle, scale]), "keypoint_labels"}}.

The library draws its centre and shuffles its partners with its own generator; here it is handed
AugLab's: its cell placements are computed by its own calculate_cell_placements from the replay's
centre (and must equal the replay's cells), its primary placement by its own
assign_items_to_grid_cells (and must be the replay's primary cell), and the other cells get the
replay's partners through mosaic_metadata. Everything after that (resizing, cropping, padding,
the nested Compose that moves boxes and keypoints, the filters) is the library's own code.
OUTDIR/<i>.png gets case i's image, OUTDIR/<i>-mask.png its mask and OUTDIR/<i>.json its boxes,
labels, keypoints and keypoint labels.
"""

import json
import sys

import cv2
import numpy as np


def rgb(path):
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise SystemExit(f"cannot read {path}")
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


def item_data(item):
    mask = cv2.imread(item["mask"], cv2.IMREAD_UNCHANGED)
    if mask is None:
        raise SystemExit(f"cannot read {item['mask']}")
    return {
        "image": rgb(item["image"]),
        "mask": mask,
        "bboxes": item["bboxes"],
        "class_labels": item["labels"],
        "keypoints": item["keypoints"],
        "keypoint_labels": item["keypoint_labels"],
    }


def run(case, out_png, out_mask, out_json):
    import albumentations as A
    from albumentations.augmentations.mixing import functional as fmixing

    pipeline = A.from_dict(case["pipeline"])
    mosaic = pipeline.transforms[0]
    if type(mosaic).__name__ != "Mosaic":
        raise SystemExit(f"expected a Mosaic first, got {type(mosaic).__name__}")
    op = case["replay"]["ops"][0]
    if op["op"] != "mosaic" or not op["applied"]:
        raise SystemExit("the replay's first op is not an applied mosaic")
    cells = [tuple(c["rect_px"]) for c in op["cells"]]
    primary = next(tuple(c["rect_px"]) for c in op["cells"] if c["primary"])
    others = [c for c in op["cells"] if not c["primary"]]

    def geometry(data):
        placements = fmixing.calculate_cell_placements(
            grid_yx=mosaic.grid_yx,
            cell_shape=mosaic.cell_shape,
            target_size=mosaic.target_size,
            center_xy=tuple(op["center_px"]),
        )
        if [tuple(int(v) for v in p) for p in placements] != cells:
            raise SystemExit(f"the library places the cells at {placements}, the replay at {cells}")
        return placements

    original_assign = fmixing.assign_items_to_grid_cells

    def assign(num_items, cell_placements, py_random):
        theirs = original_assign(num_items, cell_placements, py_random)
        first = next(iter(theirs))
        if tuple(first) != primary:
            raise SystemExit(f"the library puts the image in {first}, the replay in {primary}")
        out = {first: 0}
        k = 1
        for p in cell_placements:
            if tuple(p) != primary:
                out[p] = k
                k += 1
        return out

    items = [item_data(i) for i in case["items"]]
    mosaic._calculate_geometry = geometry
    mosaic._select_additional_items = lambda data, n: [items[c["partner"]] for c in others][:n]
    fmixing.assign_items_to_grid_cells = assign
    try:
        r = pipeline(**items[op["cells"][[c["primary"] for c in op["cells"]].index(True)]["partner"]],
                     mosaic_metadata=[items[c["partner"]] for c in others])
    finally:
        fmixing.assign_items_to_grid_cells = original_assign
    if not cv2.imwrite(out_png, cv2.cvtColor(r["image"], cv2.COLOR_RGB2BGR)):
        raise SystemExit(f"cannot write {out_png}")
    if not cv2.imwrite(out_mask, r["mask"]):
        raise SystemExit(f"cannot write {out_mask}")
    out = {
        "width": int(r["image"].shape[1]),
        "height": int(r["image"].shape[0]),
        "bboxes": [[float(v) for v in b] for b in r["bboxes"]],
        "labels": [int(v) for v in r["class_labels"]],
        "keypoints": [[float(v) for v in k] for k in r["keypoints"]],
        "keypoint_labels": [int(v) for v in r["keypoint_labels"]],
    }
    with open(out_json, "w") as f:
        json.dump(out, f)


def main(argv):
    with open(argv[0]) as f:
        cases = json.load(f)
    for i, case in enumerate(cases):
        run(case, f"{argv[1]}/{i}.png", f"{argv[1]}/{i}-mask.png", f"{argv[1]}/{i}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
