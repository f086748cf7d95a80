"""Runs boxes, keypoints and a mask through the real Albumentations (used by tests/test_targets.cpp).

  targets_check.py CASES.json OUTDIR

CASES.json: a list of cases, each {"pipeline": an AugLab Albumentations export (A.load reads it, with its bbox_params and
keypoint_params), "replay": the AugLab replay of the sample, "width", "height", "bboxes" (in the
export's bbox format) with "labels", "keypoints" ([x, y, angle, scale], format xyas) with
"keypoint_labels", "mask": a PNG path}. Every transform whose parameters are random is fed the
replay's concrete parameters through its own get_params_dependent_on_data (the random crop's
corners, the perspective's corners, the dropout's holes, the distortions' maps), so the library's Compose, processors and
filters run exactly as in training. OUTDIR/<i>.json gets case i's boxes, labels, keypoints and
keypoint labels as the library returns them, OUTDIR/<i>.png its mask.
"""

import json
import sys

import cv2
import numpy as np


def inject(transform, op):
    """Makes `transform` draw the concrete parameters of replay entry `op`."""
    from albumentations.augmentations.geometric import functional as fgeometric

    original = transform.get_params_dependent_on_data
    name = type(transform).__name__

    def fixed(params, data):
        out = original(params, data)
        shape = params["shape"][:2]
        if name in ("RandomResizedCrop", "RandomSizedCrop"):
            x, y, w, h = op["crop"]
            out["crop_coords"] = (x, y, x + w, y + h)
        elif name == "Perspective":
            points = np.array(op["corners_px"], dtype=np.float32)
            matrix, max_width, max_height = fgeometric.compute_perspective_params(points, shape)
            if op["fit_output"]:
                matrix, max_width, max_height = fgeometric.expand_transform(matrix, shape)
            out.update(matrix=matrix, max_width=max_width, max_height=max_height, matrix_bbox=matrix)
        elif name == "RandomRotate90":
            out["factor"] = op["factor"]
        elif name == "D4":
            out["group_element"] = op["element"]
        elif name in ("LongestMaxSize", "SmallestMaxSize"):  # the side length AugLab drew
            side = max(shape) if name == "LongestMaxSize" else min(shape)
            out["scale"] = op["max_size"] / side
        elif name == "RandomScale":
            out["scale"] = op["scale"]
        elif name in ("RandomCrop", "CenterCrop", "PadIfNeeded", "Crop"):  # the window and padding AugLab drew
            top, bottom, left, right = op["pad"]
            pad = {"pad_top": top, "pad_bottom": bottom, "pad_left": left, "pad_right": right}
            if name == "PadIfNeeded":
                out.update(pad)
            else:
                x, y, w, h = op["crop"]
                out["crop_coords"] = (x, y, x + w, y + h)
                out["pad_params"] = pad if top + bottom + left + right > 0 else None
        elif name == "RandomGridShuffle":  # the cells and their shuffle AugLab drew
            ys = np.insert(np.cumsum(op["row_heights"]), 0, 0)
            xs = np.insert(np.cumsum(op["col_widths"]), 0, 0)
            out["tiles"] = np.array([(ys[i], xs[j], ys[i + 1], xs[j + 1]) for i in range(len(ys) - 1)
                                     for j in range(len(xs) - 1)], dtype=np.int16)
            out["mapping"] = list(op["mapping"])
        elif name == "GridDistortion":  # the steps AugLab drew
            steps_x, steps_y = list(op["steps_x"]), list(op["steps_y"])
            if op["normalized"]:
                n = fgeometric.normalize_grid_distortion_steps(shape, op["num_steps"], steps_x, steps_y)
                steps_x, steps_y = n["steps_x"], n["steps_y"]
            out["map_x"], out["map_y"] = fgeometric.generate_grid(shape, steps_x, steps_y, op["num_steps"])
        elif name == "OpticalDistortion":  # the coefficient AugLab drew
            maps = (fgeometric.get_fisheye_distortion_maps if op["mode"] == "fisheye"
                    else fgeometric.get_camera_matrix_distortion_maps)
            out["map_x"], out["map_y"] = maps(shape, op["k"])
        elif name == "ElasticTransform":  # AugLab's noise (the test writes it out), the library's maths
            height, width = shape
            noise = np.fromfile(op["noise_file"], dtype=np.float32)

            class Noise:
                def standard_normal(self, size, dtype):
                    return noise.reshape(size).astype(dtype)

                def uniform(self, low, high, size):
                    return noise.reshape(size).astype(np.float64)

            dx, dy = fgeometric.generate_displacement_fields(
                shape, op["alpha"], op["sigma"], same_dxdy=op["same_dxdy"],
                kernel_size=(17, 17) if op["approximate"] else (0, 0), random_generator=Noise(),
                noise_distribution=op["noise_distribution"])
            maps = np.stack(np.meshgrid(np.arange(width), np.arange(height))) + np.stack([dx, dy])
            out["map_x"], out["map_y"] = maps[0].astype(np.float32), maps[1].astype(np.float32)
        elif name in ("CoarseDropout", "GridDropout", "XYMasking"):
            holes = [[h[0], h[1], h[0] + h[2], h[1] + h[3]] for h in op["holes"]]
            out["holes"] = np.array(holes, dtype=np.int64).reshape(-1, 4)
        return out

    transform.get_params_dependent_on_data = fixed


def run(case, out_json, out_png):
    import albumentations as A

    pipeline = A.from_dict(case["pipeline"])
    applied = [o for o in case["replay"]["ops"] if o["applied"]]
    if len(applied) != len(pipeline.transforms):
        raise SystemExit(f"{len(pipeline.transforms)} transforms, {len(applied)} applied ops in the replay")
    for t, op in zip(pipeline.transforms, applied):
        inject(t, dict(op, noise_file=case.get("noise")))
    image = np.zeros((case["height"], case["width"], 3), np.uint8)
    mask = cv2.imread(case["mask"], cv2.IMREAD_UNCHANGED)
    bbox_fields = pipeline.processors["bboxes"].params.label_fields or []
    kp_fields = pipeline.processors["keypoints"].params.label_fields or []
    data = {"image": image, "mask": mask, "bboxes": case["bboxes"], "keypoints": case["keypoints"]}
    if bbox_fields:
        data[bbox_fields[0]] = case["labels"]
    if kp_fields:
        data[kp_fields[0]] = case["keypoint_labels"]
    r = pipeline(**data)
    out = {
        "width": int(r["image"].shape[1]),
        "height": int(r["image"].shape[0]),
        "bboxes": [[float(v) for v in b] for b in r["bboxes"]],
        "labels": [int(v) for v in r[bbox_fields[0]]] if bbox_fields else [],
        "keypoints": [[float(v) for v in k] for k in r["keypoints"]],
        "keypoint_labels": [int(v) for v in r[kp_fields[0]]] if kp_fields else [],
    }
    with open(out_json, "w") as f:
        json.dump(out, f)
    if not cv2.imwrite(out_png, r["mask"]):
        raise SystemExit(f"cannot write {out_png}")


def main(argv):
    with open(argv[0]) as f:
        cases = json.load(f)
    for i, case in enumerate(cases):
        run(case, f"{argv[1]}/{i}.json", f"{argv[1]}/{i}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
