"""Partners with their targets: pipe(image, i, bboxes=..., partners=[{"image": P1, "bboxes": ...}, ...])
is `auglab-cli apply --partner P1 --partner-annotations A1 --partner-masks M1 ...` bit for bit (the
4-image grid brings each drawn partner's boxes, keypoints and masks into its cell; mixup and cutmix
take its pixels); with `position` the pool is augment's over a labelled folder; the dict form is
checked and explained."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

import auglab
from conftest import PHOTOS, assert_same, preset_text, write_preset
from test_partners import augment_index

PIPELINES = {
    "mosaic": [{"op": "mosaic", "p": 1}, {"op": "affine", "rotate_deg": [-15, 15]},
               {"op": "horizontal_flip", "p": 0.5}],
    "mix": [{"op": "horizontal_flip", "p": 0.5}, {"op": "cutmix", "p": 1},
            {"op": "affine", "rotate_deg": [-20, 20], "scale_x": [0.8, 1.1]}, {"op": "mixup", "p": 0.7}],
}
# COCO boxes and keypoints (exact doubles through the CLI's JSON); the label fields name each object.
TARGETS = {"boxes": {"format": "coco", "label_fields": ["class_labels", "obj"], "min_visibility": 0.1},
           "keypoints": {"format": "xy", "label_fields": ["part"]}}
# Three objects per photo, each with two keypoints: fractions of the photo's size.
SHAPES = [(0.08, 0.1, 0.45, 0.6), (0.4, 0.2, 0.55, 0.45), (0.02, 0.7, 0.3, 0.28)]
# Category k * 3 + j + 1 is object j of photo k: a box's category says whose row it is.
CATEGORIES = [{"id": k * 3 + j + 1, "name": f"{p.stem}/{j}", "keypoints": ["a", "b"]}
              for k, p in enumerate(PHOTOS) for j in range(3)]
NAMES = {c["id"]: c["name"] for c in CATEGORIES}


def objects(k, width, height):
    """Photo k's objects: (category, COCO box [x, y, w, h], two keypoints), in pixels."""
    out = []
    for j, (fx, fy, fw, fh) in enumerate(SHAPES):
        box = [round(fx * width, 1) + 0.25, round(fy * height, 1) + 0.5, round(fw * width, 1) + 0.125,
               round(fh * height, 1)]
        keypoints = [(box[0] + box[2] * 0.3, box[1] + box[3] * 0.4), (box[0] + box[2] * 0.7, box[1] + box[3] * 0.8)]
        out.append((k * 3 + j + 1, box, keypoints))
    return out


def coco_annotations(objs, image_id, first_id):
    return [{"id": first_id + j, "image_id": image_id, "category_id": c, "bbox": box, "area": box[2] * box[3],
             "iscrowd": 0, "keypoints": [v for x, y in kps for v in (x, y, 2)], "num_keypoints": 2,
             "obj": NAMES[c]} for j, (c, box, kps) in enumerate(objs)]


def mask_of(k, height, width):
    return ((np.add.outer(np.arange(height) // (17 + k), np.arange(width) // (23 + 2 * k)) % 5) + 10 * k).astype(
        np.uint8)


@pytest.fixture(scope="module")
def labelled(photos, tmp_path_factory):
    """Per photo: its image, COCO file, mask PNG and the module's targets dict (with "image")."""
    folder = tmp_path_factory.mktemp("labelled")
    out = []
    for k, photo in enumerate(PHOTOS):
        image = photos[photo.name]
        height, width = image.shape[:2]
        objs = objects(k, width, height)
        coco = folder / f"{photo.stem}.json"
        coco.write_text(json.dumps({"images": [{"id": 1, "file_name": photo.name, "width": width, "height": height}],
                                    "annotations": coco_annotations(objs, 1, 1), "categories": CATEGORIES}))
        mask = mask_of(k, height, width)
        mask_png = folder / f"{photo.stem}-mask.png"
        auglab.imwrite(mask_png, np.dstack([mask] * 3))  # a gray PNG: R = G = B
        targets = {"image": image, "bboxes": np.array([box for _, box, _ in objs]),
                   "class_labels": [c for c, _, _ in objs], "obj": [NAMES[c] for c, _, _ in objs],
                   "keypoints": np.array([kp for _, _, kps in objs for kp in kps]),
                   "part": [f"{NAMES[c]}/{s}" for c, _, _ in objs for s in range(2)], "mask": mask}
        out.append({"photo": photo, "coco": coco, "mask": mask_png, "targets": targets})
    return out


def call_targets(item):
    return {key: value for key, value in item.items() if key != "image"}


def check_labels(r, annotations, what, own=None):
    """The module's result `r` against the COCO annotations the CLI wrote for the same sample: every
    box bit for bit, in order, with its category; every keypoint of a kept object. Returns the
    categories seen. `own`: the image's own object names (their annotations carry "obj" back)."""
    assert len(annotations) == len(r["bboxes"]), f"{what}: {len(r['bboxes'])} boxes, the CLI {len(annotations)}"
    assert len(r["class_labels"]) == len(r["obj"]) == len(annotations)
    for a, box, category, name in zip(annotations, r["bboxes"], r["class_labels"], r["obj"]):
        assert np.array_equal(box, np.array(a["bbox"], dtype=np.float64)), f"{what}: {box} != {a['bbox']}"
        assert a["category_id"] == category and NAMES[category] == name, f"{what}: {name} is {a['category_id']}"
        if "obj" in a:  # the CLI writes the image's own objects' other fields back
            assert a["obj"] == name and name in own, what
    # Keypoints: the CLI writes those of the kept objects, [x, y, 2] or [0, 0, 0] per slot.
    expected = Counter((name, s, a["keypoints"][3 * s], a["keypoints"][3 * s + 1])
                       for a, name in zip(annotations, r["obj"]) for s in range(2) if a["keypoints"][3 * s + 2])
    kept = set(r["obj"])
    moved = Counter((p.rsplit("/", 1)[0], int(p.rsplit("/", 1)[1]), x, y)
                    for p, (x, y) in zip(r["part"], r["keypoints"].tolist()) if p.rsplit("/", 1)[0] in kept)
    if len(kept) == len(r["obj"]):
        assert moved == expected, f"{what}: keypoints"
    else:  # an object twice (a partner in two cells): one copy's keypoints may outlive its box
        assert not expected - moved, f"{what}: keypoints"
    return Counter(r["class_labels"])


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_partner_targets_match_apply(cli, labelled, tmp_path, name):
    text = preset_text(PIPELINES[name], targets=TARGETS)
    preset = write_preset(tmp_path, name, text)
    pipe = auglab.Pipeline.from_json(text)
    from_partners = changed = 0
    for main, item in enumerate(labelled):
        others = [o for k, o in enumerate(labelled) if k != main]
        args = [a for o in others for a in ("--partner", o["photo"], "--partner-annotations", o["coco"],
                                             "--partner-masks", o["mask"])]
        own = set(item["targets"]["obj"])
        for index in (0, 5, 11):
            what = f"{name} {item['photo'].name} {index}"
            out, out_json, out_mask = (tmp_path / f"{main}-{index}{ext}" for ext in (".png", ".json", "-mask.png"))
            cli.apply(preset, item["photo"], index, out, "--annotations", item["coco"], "--out-annotations", out_json,
                      "--mask", item["mask"], "--out-mask", out_mask, *args)
            r = pipe(item["targets"]["image"], index, **call_targets(item["targets"]),
                     partners=[o["targets"] for o in others])
            assert set(r) == {"image", "bboxes", "class_labels", "obj", "keypoints", "part", "mask"}
            assert_same(r["image"], auglab.imread(out), what)
            assert np.array_equal(r["mask"], auglab.imread(out_mask)[..., 0]), f"{what}: mask"
            seen = check_labels(r, json.loads(out_json.read_text())["annotations"], what, own)
            from_partners += sum(n for c, n in seen.items() if NAMES[c] not in own)
            plain = pipe(item["targets"]["image"], index, **call_targets(item["targets"]))
            changed += not np.array_equal(plain["image"], r["image"])
    assert changed >= 6, "the partners changed no sample"
    if name == "mosaic":
        assert from_partners >= 12, "the grid brought no partner's boxes"
    else:  # mixup and cutmix take the partner's pixels, the image keeps its own labels
        assert from_partners == 0


def test_formats_are_converted_with_the_partners_size(cli, labelled, tmp_path):
    """yolo boxes are fractions of each image's own size: a partner's of its size, not the image's."""
    text = preset_text(PIPELINES["mosaic"][:1], targets={"boxes": {"format": "yolo", "label_fields": []}})
    preset = write_preset(tmp_path, "yolo", text)
    pipe = auglab.Pipeline.from_json(text)

    def yolo(item):
        height, width = item["image"].shape[:2]
        b = item["bboxes"]
        return {"image": item["image"], "bboxes": np.stack([(b[:, 0] + b[:, 2] / 2) / width,
                                                              (b[:, 1] + b[:, 3] / 2) / height, b[:, 2] / width,
                                                              b[:, 3] / height], axis=1)}

    main, others = labelled[1], labelled[:1] + labelled[2:]  # chelsea, 451 x 300: sizes differ
    args = [a for o in others for a in ("--partner", o["photo"], "--partner-annotations", o["coco"])]
    for index in range(3):
        out, out_json = tmp_path / f"{index}.png", tmp_path / f"{index}.json"
        cli.apply(preset, main["photo"], index, out, "--annotations", main["coco"], "--out-annotations", out_json,
                  *args)
        r = pipe(main["targets"]["image"], index, bboxes=yolo(main["targets"])["bboxes"],
                 partners=[yolo(o["targets"]) for o in others])
        height, width = r["image"].shape[:2]
        written = np.array([a["bbox"] for a in json.loads(out_json.read_text())["annotations"]])
        assert len(written) > 3, "no partner's boxes"
        expected = np.stack([(written[:, 0] + written[:, 2] / 2) / width, (written[:, 1] + written[:, 3] / 2) / height,
                             written[:, 2] / width, written[:, 3] / height], axis=1)
        np.testing.assert_allclose(r["bboxes"], expected, rtol=1e-6, atol=1e-9, err_msg=f"sample {index}")


class LazyPool:
    """A dataset-like pool (len and [i]) that records what it is asked for."""

    def __init__(self, items):
        self.items, self.asked = items, []

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        self.asked.append(i)
        return self.items[i]


def test_position_pool_matches_augment_of_a_coco_folder(cli, labelled, photos, tmp_path):
    """augment over a COCO dataset takes each drawn input's labels from the dataset: the pool of
    every input's dict with `position` gives its images and its COCO file, bit for bit."""
    folder = tmp_path / "in"
    (folder / "annotations").mkdir(parents=True)
    images, annotations = [], []
    for k, photo in enumerate(PHOTOS):
        (folder / photo.name).write_bytes(photo.read_bytes())
        height, width = photos[photo.name].shape[:2]
        images.append({"id": k + 1, "file_name": photo.name, "width": width, "height": height})
        annotations += coco_annotations(objects(k, width, height), k + 1, 10 * k + 1)
    (folder / "annotations" / "instances_train.json").write_text(
        json.dumps({"images": images, "annotations": annotations, "categories": CATEGORIES}))
    text = preset_text(PIPELINES["mosaic"], targets=TARGETS)
    preset = write_preset(tmp_path, "mosaic", text)
    cli.run("augment", "--preset", preset, "--input", folder, "--output", tmp_path / "out", "--copies", 2,
            "--backend", "cpu")
    written = json.loads((tmp_path / "out" / "annotations" / "instances_train.json").read_text())
    by_file = {e["file_name"]: [a for a in written["annotations"] if a["image_id"] == e["id"]]
               for e in written["images"]}
    pipe = auglab.Pipeline.from_json(text)
    pool = [{key: value for key, value in item["targets"].items() if key != "mask"} for item in labelled]
    from_partners = 0
    for copy in range(2):
        for k, item in enumerate(labelled):
            name = item["photo"].name
            what = f"augment {name} copy {copy}"
            lazy = LazyPool(pool)
            r = pipe(pool[k]["image"], augment_index(name, copy), **call_targets(pool[k]), partners=lazy, position=k)
            assert_same(r["image"], auglab.imread(tmp_path / "out" / f"{item['photo'].stem}_aug{copy}.png"), what)
            own = set(pool[k]["obj"])
            seen = check_labels(r, by_file[f"{item['photo'].stem}_aug{copy}.png"], what, own)
            from_partners += sum(n for c, n in seen.items() if NAMES[c] not in own)
            assert k not in lazy.asked and len(set(lazy.asked)) == len(lazy.asked), f"{what}: read {lazy.asked}"
    assert from_partners >= 8, "the grid brought no partner's boxes"


def test_lazy_pool_is_read_once_and_only_for_partners_drawn(labelled):
    pipe = auglab.Pipeline.from_json(preset_text([{"op": "mixup", "p": 1}], targets=TARGETS))
    pool = [{key: value for key, value in item["targets"].items() if key != "mask"} for item in labelled]
    lazy = LazyPool(pool)
    r = pipe(pool[2]["image"], 4, **call_targets(pool[2]), partners=lazy, position=2)
    assert len(lazy.asked) == 1 and lazy.asked[0] != 2  # mixup: one partner's pixels, never the image
    assert r["obj"] == pool[2]["obj"]
    grid = auglab.Pipeline.from_json(preset_text([{"op": "mosaic", "p": 1}], targets=TARGETS))
    lazy = LazyPool(pool)
    r = grid(pool[2]["image"], 4, **call_targets(pool[2]), partners=lazy, position=2)
    assert lazy.asked and len(set(lazy.asked)) == len(lazy.asked) and 2 not in lazy.asked
    # Items a lazy pool was not asked for may be anything: they are never read.
    bad = LazyPool([None if k not in lazy.asked else item for k, item in enumerate(pool)])
    again = grid(pool[2]["image"], 4, **call_targets(pool[2]), partners=bad, position=2)
    assert_same(again["image"], r["image"]) and np.array_equal(again["bboxes"], r["bboxes"])


def test_partner_target_errors(labelled):
    pipe = auglab.Pipeline.from_json(preset_text([{"op": "mosaic", "p": 1}], targets=TARGETS))
    item = labelled[0]["targets"]
    image, call = item["image"], call_targets(item)
    partners = [o["targets"] for o in labelled[1:]]
    without = dict(partners[1])
    del without["part"]
    with pytest.raises(ValueError, match=r"partners\[1\]: no 'part': each partner gives 'image' and the call's"):
        pipe(image, 0, **call, partners=[partners[0], without])
    with pytest.raises(ValueError, match=r"partners\[0\]: unexpected key 'masks'"):
        pipe(image, 0, **call, partners=[{**partners[0], "masks": []}])
    with pytest.raises(TypeError, match=r"partners\[2\]: expected a dict \{'image': \.\.\., 'bboxes': \.\.\."):
        pipe(image, 0, **call, partners=partners[:2] + [7])
    with pytest.raises(TypeError, match="partners: expected a sequence of partners"):
        pipe(image, 0, **call, partners=5)
    # Plain images with targets: their labels would be missing.
    with pytest.raises(ValueError, match=r"partners\[0\]: an image alone, but the call has targets: give each "
                                         r"partner as a dict \{'image': \.\.\."):
        pipe(image, 0, **call, partners=[p["image"] for p in partners])
    with pytest.raises(ValueError, match=r"partners\[\d\]: an image alone"):  # a lazy pool's, when drawn
        pipe(image, 0, **call, partners=LazyPool([p["image"] for p in partners]))
    # The partner's targets are checked as the call's are, named.
    short = {**partners[0], "class_labels": [1]}
    with pytest.raises(ValueError, match=r"partners\[0\]: class_labels: expected one value per box \(3\), got 1"):
        pipe(image, 0, **call, partners=[short] * 3)
    small = {**partners[0], "mask": np.zeros((10, 10), np.uint8)}
    with pytest.raises(ValueError, match=r"partners\[0\]: masks\[0\]: expected its image's size"):
        pipe(image, 0, **call, partners=[small] * 3)
    stacked = {**partners[0], "mask": np.dstack([partners[0]["mask"]] * 2)}
    with pytest.raises(ValueError, match=r"partners\[0\]: mask, masks: expected as many masks as the call's"):
        pipe(image, 0, **call, partners=[stacked] * 3)
    wide = {**partners[0], "bboxes": np.hstack([partners[0]["bboxes"], np.ones((3, 1))])}
    with pytest.raises(ValueError, match=r"partners\[0\]: bboxes: expected the columns of the call's bboxes"):
        pipe(image, 0, **call, partners=[wide] * 3)
    with pytest.raises(ValueError, match="box"):  # an invalid box of a partner, named by the engine
        pipe(image, 0, **call, partners=[{**partners[0], "bboxes": -partners[0]["bboxes"]}] * 3)
    with pytest.raises(ValueError, match=r"position: expected 0 \.\. 3 - 1"):
        pipe(image, 0, **call, partners=partners, position=3)
    with pytest.raises(ValueError, match="position: needs partners"):
        pipe(image, 0, **call, position=0)
    # Without targets, partners stay plain images.
    assert pipe(image, 0, partners=[p["image"] for p in partners]).shape == image.shape
