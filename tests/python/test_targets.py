"""Boxes, keypoints and masks through a sample, as Albumentations takes them (bboxes=, keypoints=,
mask=, label fields), moved exactly as `auglab-cli apply --annotations --mask` moves a label file's."""

from __future__ import annotations


import numpy as np
import pytest

import auglab
from conftest import PHOTOS, preset_text, write_preset

GEOMETRY = [{"op": "affine", "rotate_deg": [-25, 25], "scale_x": [0.8, 1.2], "translate_x_frac": [-0.1, 0.1]},
            {"op": "horizontal_flip", "p": 0.5},
            {"op": "random_resized_crop", "size": [240, 320], "scale": [0.5, 1.0]},
            {"op": "brightness_contrast"}]

# chelsea.png, 451 x 300: three objects, each with two keypoints (pixels).
BOXES = np.array([[40.5, 30.0, 210.0, 280.25], [200.0, 60.0, 440.0, 200.0], [5.0, 250.0, 60.0, 298.0]])
CLASSES = [2, 0, 1]
KEYPOINTS = np.array([[100.0, 80.0], [150.5, 200.0], [300.0, 100.0], [420.0, 190.0], [20.0, 260.0], [55.0, 290.0]])


def yolo_pose_text(width, height):
    lines = []
    for k, (box, cls) in enumerate(zip(BOXES, CLASSES)):
        cx, cy = (box[0] + box[2]) / 2 / width, (box[1] + box[3]) / 2 / height
        w, h = (box[2] - box[0]) / width, (box[3] - box[1]) / height
        kps = " ".join(f"{x / width:.17g} {y / height:.17g} 2" for x, y in KEYPOINTS[2 * k:2 * k + 2])
        lines.append(f"{cls} {cx:.17g} {cy:.17g} {w:.17g} {h:.17g} {kps}")
    return "\n".join(lines) + "\n"


def test_boxes_keypoints_and_mask_move_as_apply_moves_them(cli, photos, tmp_path):
    photo = next(p for p in PHOTOS if p.name == "chelsea.png")
    image = photos[photo.name]
    height, width = image.shape[:2]
    labels = tmp_path / "chelsea.txt"
    labels.write_text(yolo_pose_text(width, height))
    mask = (np.add.outer(np.arange(height) // 25, np.arange(width) // 40) % 7).astype(np.uint8)
    mask_file = tmp_path / "mask.png"
    auglab.imwrite(mask_file, np.dstack([mask] * 3))  # a gray PNG: R = G = B
    text = preset_text(GEOMETRY, targets={"boxes": {"format": "yolo", "label_fields": ["class_labels"],
                                                    "min_visibility": 0.2},
                                          "keypoints": {"format": "xy"}})
    preset = write_preset(tmp_path, "targets", text)
    pipe = auglab.Pipeline.from_json(text)
    yolo = np.array([[(b[0] + b[2]) / 2 / width, (b[1] + b[3]) / 2 / height, (b[2] - b[0]) / width,
                      (b[3] - b[1]) / height] for b in BOXES])
    dropped_some = False
    for index in range(12):
        out_labels, out_mask = tmp_path / f"out{index}.txt", tmp_path / f"out{index}-mask.png"
        cli.apply(preset, photo, index, tmp_path / f"out{index}.png", "--annotations", labels, "--out-annotations",
                  out_labels, "--mask", mask_file, "--out-mask", out_mask)
        r = pipe(image, index, bboxes=yolo, class_labels=CLASSES, keypoints=KEYPOINTS, mask=mask)
        assert set(r) == {"image", "bboxes", "class_labels", "keypoints", "mask"}
        assert np.array_equal(r["image"], auglab.imread(tmp_path / f"out{index}.png"))
        assert np.array_equal(r["mask"], auglab.imread(out_mask)[..., 0]), f"mask of sample {index}"
        out_h, out_w = r["image"].shape[:2]
        rows = [line.split() for line in out_labels.read_text().splitlines()]
        assert [int(row[0]) for row in rows] == r["class_labels"], f"classes of sample {index}"
        written = np.array([[float(v) for v in row[1:5]] for row in rows]).reshape(-1, 4)
        np.testing.assert_allclose(r["bboxes"], written, atol=5e-7, err_msg=f"boxes of sample {index}")
        dropped_some |= len(rows) < len(BOXES)
        # Keypoints: the file lists each kept object's two; the module returns every kept keypoint.
        moved = r["keypoints"] / (out_w, out_h)
        for row in rows:
            for j in range(2):
                x, y, v = (float(s) for s in row[5 + 3 * j:8 + 3 * j])
                if v:
                    assert np.any(np.all(np.abs(moved - (x, y)) <= 5e-7, axis=1)), (index, x, y)
    assert dropped_some, "no sample dropped a box: the filter went untested"


def test_formats_round_trip_and_labels_follow(photos):
    """Identity geometry: every format gives its boxes back (within float32: the engine holds boxes as
    the library does, normalised in float32); label fields and extra columns follow."""
    image = photos["coffee.png"]
    height, width = image.shape[:2]
    box = np.array([[60.0, 40.0, 300.0, 220.0]])
    as_format = {"pascal_voc": box, "coco": np.array([[60.0, 40.0, 240.0, 180.0]]),
                 "yolo": np.array([[180.0 / width, 130.0 / height, 240.0 / width, 180.0 / height]]),
                 "albumentations": box / (width, height, width, height)}
    for fmt, boxes in as_format.items():
        pipe = auglab.Pipeline.from_json(preset_text([{"op": "brightness_contrast"}],
                                                     targets={"boxes": {"format": fmt}}))
        r = pipe(image, 0, bboxes=np.hstack([boxes, [[7.0]]]), class_labels=np.array(["cup"]))
        np.testing.assert_allclose(r["bboxes"][:, :4], boxes, rtol=1e-7, err_msg=fmt)
        assert r["bboxes"][0, 4] == 7.0 and list(r["class_labels"]) == ["cup"]
    # Labels appended to the rows, as Albumentations allows when no label field is declared.
    pipe = auglab.Pipeline.from_json(preset_text([{"op": "brightness_contrast"}],
                                                 targets={"boxes": {"format": "albumentations", "label_fields": []}}))
    r = pipe(image, 0, bboxes=[[0.1, 0.1, 0.5, 0.5, "cup", 3]])
    assert r["bboxes"][0][4:] == ["cup", 3]


def test_flip_moves_boxes_keypoints_and_angles(photos):
    image = photos["chelsea.png"]
    width = image.shape[1]
    pipe = auglab.Pipeline.from_json(preset_text([{"op": "horizontal_flip", "p": 1}],
                                                 targets={"keypoints": {"format": "xya", "label_fields": ["part"]}}))
    r = pipe(image, 0, bboxes=[[10, 20, 110, 220]], class_labels=["cat"], keypoints=[[10.0, 20.0, 30.0]],
             part=["nose"], masks=[np.eye(300, 451, dtype=np.uint8)])
    np.testing.assert_allclose(r["bboxes"], [[width - 110, 20, width - 10, 220]])
    np.testing.assert_allclose(r["keypoints"], [[width - 1 - 10.0, 20.0, 150.0]])  # pixel centres; 180 - 30
    assert r["part"] == ["nose"] and r["class_labels"] == ["cat"]
    assert np.array_equal(r["masks"][0], np.eye(300, 451, dtype=np.uint8)[:, ::-1])
    assert np.array_equal(r["image"], image[:, ::-1])


def test_target_errors(photos):
    image = photos["chelsea.png"]
    pipe = auglab.Pipeline.from_json(preset_text([{"op": "horizontal_flip"}]))
    with pytest.raises(TypeError, match="unexpected keyword argument 'labels'"):
        pipe(image, 0, bboxes=[[1, 1, 5, 5]], labels=[1])
    with pytest.raises(ValueError, match=r"class_labels: expected one value per box \(1\), got 2"):
        pipe(image, 0, bboxes=[[1, 1, 5, 5]], class_labels=[1, 2])
    with pytest.raises(ValueError, match="bboxes: expected an N x 4 array"):
        pipe(image, 0, bboxes=[[1, 1, 5]])
    with pytest.raises(ValueError, match=r"masks\[0\]: expected the image's size, 300 x 451, got 30 x 45"):
        pipe(image, 0, mask=np.zeros((30, 45), np.uint8))
    with pytest.raises(ValueError, match="box"):  # an invalid box, named by the engine
        pipe(image, 0, bboxes=[[50, 50, 10, 10]])
    empty = pipe(image, 0, bboxes=np.zeros((0, 4)), class_labels=[])
    assert empty["bboxes"].shape == (0, 4) and empty["class_labels"] == []


def test_masks_as_one_array(photos):
    """masks= takes a list of H x W masks or, as Albumentations 2 does, one N x H x W array, and gives
    back the same kind; a single H x W array is refused with a message saying to pass it as mask=."""
    image = photos["chelsea.png"]
    height, width = image.shape[:2]
    pipe = auglab.Pipeline.from_json(preset_text([{"op": "horizontal_flip", "p": 1}]))
    stack = np.stack([np.eye(height, width, k, dtype=np.uint8) * (k + 1) for k in range(3)])
    r = pipe(image, 0, masks=stack)
    assert isinstance(r["masks"], np.ndarray) and r["masks"].shape == (3, height, width)
    assert np.array_equal(r["masks"], stack[:, :, ::-1])
    assert np.array_equal(pipe(image, 0, masks=list(stack))["masks"][2], stack[2, :, ::-1])  # a list: a list
    none = pipe(image, 0, masks=np.zeros((0, height, width), np.uint8))["masks"]
    assert none.shape == (0, height, width)
    with pytest.raises(TypeError) as e:
        pipe(image, 0, masks=stack[0])
    assert str(e.value).startswith(f"masks: expected a list of H x W masks or one N x H x W array, got an array "
                                   f"of shape ({height}, {width}): one mask is mask="), str(e.value)
    with pytest.raises(TypeError, match=r"^masks: expected a list of H x W masks or one N x H x W array, got int"):
        pipe(image, 0, masks=3)
    with pytest.raises(ValueError, match=r"^masks\[1\]: expected the image's size, 300 x 451, got 30 x 45"):
        pipe(image, 0, masks=[stack[0], np.zeros((30, 45), np.uint8)])


BOX = [[10, 20, 110, 220]]


def test_declared_label_fields_are_required():
    """A label field the preset's targets section declares (boxes' class_labels by default, as the
    exported BboxParams declares it) must come with the boxes or keypoints it labels, as
    Albumentations' Compose requires; a preset without a targets section declares none."""
    image = np.full((300, 451, 3), 90, np.uint8)
    declared = auglab.Pipeline.from_json(preset_text(
        [{"op": "horizontal_flip"}], targets={"boxes": {"format": "pascal_voc"},
                                              "keypoints": {"label_fields": ["part", "side"]}}))
    with pytest.raises(TypeError) as e:
        declared(image, 0, bboxes=BOX)
    assert str(e.value).startswith("missing label field 'class_labels': the preset's targets.boxes.label_fields "
                                   "declares ['class_labels']"), str(e.value)
    with pytest.raises(TypeError) as e:
        declared(image, 0, keypoints=[[1, 2]], part=["nose"])
    assert str(e.value).startswith("missing label field 'side': the preset's targets.keypoints.label_fields "
                                   "declares ['part', 'side']"), str(e.value)
    # Only with what they label: a call with keypoints alone needs no class_labels.
    assert declared(image, 0, keypoints=[[1, 2]], part=["nose"], side=["l"])["part"] == ["nose"]
    assert declared(image, 0, mask=np.zeros((300, 451), np.uint8))["mask"].shape == (300, 451)
    # No label fields declared: boxes alone (labels may ride in the rows).
    bare = auglab.Pipeline.from_json(preset_text([{"op": "horizontal_flip"}],
                                                 targets={"boxes": {"label_fields": []}}))
    assert bare(image, 0, bboxes=[[10, 20, 110, 220, "cup"]])["bboxes"][0][4] == "cup"
    # No targets section at all: a preset for images alone, labels optional.
    plain = auglab.Pipeline.from_json(preset_text([{"op": "horizontal_flip"}]))
    assert set(plain(image, 0, bboxes=BOX)) == {"image", "bboxes"}
    assert plain(image, 0, bboxes=BOX, class_labels=["x"])["class_labels"] == ["x"]
