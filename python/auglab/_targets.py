"""Boxes, keypoints and masks in the user's formats, converted to the engine's pixels and back.

The engine (core/targets.h) holds boxes as pixel edges (the image spans [0, W] x [0, H]: the
denormalised ``pascal_voc`` of Albumentations) and keypoints as pixel positions with pixel centres
at integers, angles in radians. The preset's ``targets`` section says which format the user's
arrays are in, as Albumentations' BboxParams and KeypointParams do; the moving and the filtering
are the engine's, the same as ``auglab-cli apply --annotations``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

_KEYPOINT_FORMATS = ("xy", "yx", "xya", "xys", "xyas", "xysa")


def _rows(value: Any, what: str, width: int) -> Tuple[np.ndarray, Any, bool]:
    """(the first `width` columns as float64, the remaining columns per row or None, whether
    the rest is numeric) of an N x (width + k) array-like."""
    if isinstance(value, np.ndarray) and value.dtype != object:
        array = value.astype(np.float64, copy=False)
    else:
        rows = [list(r) for r in value]
        try:
            array = np.asarray(rows, dtype=np.float64) if rows else np.zeros((0, width))
        except (TypeError, ValueError):  # labels appended to the rows (Albumentations allows it)
            if any(len(r) < width for r in rows):
                raise ValueError(f"{what}: expected rows of at least {width} numbers") from None
            coords = np.asarray([r[:width] for r in rows], dtype=np.float64)
            return coords.reshape(-1, width), [r[width:] for r in rows], False
    if array.size == 0:
        array = array.reshape(0, max(width, array.shape[-1] if array.ndim == 2 else width))
    if array.ndim != 2 or array.shape[1] < width:
        raise ValueError(f"{what}: expected an N x {width} array (extra columns are carried along), "
                         f"got shape {array.shape}")
    extra = array[:, width:] if array.shape[1] > width else None
    return np.ascontiguousarray(array[:, :width]), extra, True


class TargetRules:
    """The preset's ``targets`` section, as the conversions need it."""

    def __init__(self, section: Dict[str, Any]) -> None:
        boxes, keypoints = section["boxes"], section["keypoints"]
        self.box_format: str = boxes["format"]
        self.box_label_fields: List[str] = list(boxes["label_fields"])
        self.keypoint_format: str = keypoints["format"]
        self.keypoint_label_fields: List[str] = list(keypoints["label_fields"])
        self.angle_in_degrees: bool = keypoints["angle_in_degrees"]
        assert self.keypoint_format in _KEYPOINT_FORMATS

    # --- boxes ---------------------------------------------------------------------------------

    def boxes_to_pixels(self, b: np.ndarray, width: int, height: int) -> np.ndarray:
        f = self.box_format
        out = b.copy()
        if f == "coco":
            out[:, 2] = b[:, 0] + b[:, 2]
            out[:, 3] = b[:, 1] + b[:, 3]
        elif f == "yolo":
            out[:, 0] = (b[:, 0] - b[:, 2] / 2) * width
            out[:, 1] = (b[:, 1] - b[:, 3] / 2) * height
            out[:, 2] = (b[:, 0] + b[:, 2] / 2) * width
            out[:, 3] = (b[:, 1] + b[:, 3] / 2) * height
        elif f == "albumentations":
            out *= (width, height, width, height)
        return out

    def boxes_from_pixels(self, b: np.ndarray, width: int, height: int) -> np.ndarray:
        f = self.box_format
        out = b.copy()
        if f == "coco":
            out[:, 2] = b[:, 2] - b[:, 0]
            out[:, 3] = b[:, 3] - b[:, 1]
        elif f == "yolo":
            out[:, 0] = (b[:, 0] + b[:, 2]) / 2 / width
            out[:, 1] = (b[:, 1] + b[:, 3]) / 2 / height
            out[:, 2] = (b[:, 2] - b[:, 0]) / width
            out[:, 3] = (b[:, 3] - b[:, 1]) / height
        elif f == "albumentations":
            out /= (width, height, width, height)
        return out

    # --- keypoints -----------------------------------------------------------------------------

    def keypoints_to_engine(self, k: np.ndarray) -> np.ndarray:
        """Format columns -> x, y, angle (radians), scale."""
        f = self.keypoint_format
        out = np.zeros((len(k), 4))
        out[:, 3] = 1.0
        for column, name in enumerate(f):
            target = "xyas".index(name)
            out[:, target] = k[:, column]
        if "a" in f and self.angle_in_degrees:
            out[:, 2] = np.deg2rad(out[:, 2])
        return out

    def keypoints_from_engine(self, k: np.ndarray) -> np.ndarray:
        f = self.keypoint_format
        out = np.zeros((len(k), len(f)))
        for column, name in enumerate(f):
            value = k[:, "xyas".index(name)]
            if name == "a" and self.angle_in_degrees:
                value = np.rad2deg(value)
            out[:, column] = value
        return out

    # --- one call ------------------------------------------------------------------------------

    def apply(self, core: Any, image: np.ndarray, index: int, seed: Optional[int],
              targets: Dict[str, Any]) -> Dict[str, Any]:
        known = set(_TARGETS) | set(self.box_label_fields) | set(self.keypoint_label_fields)
        for key in targets:
            if key not in known:
                raise TypeError(f"unexpected keyword argument {key!r} (targets: bboxes, keypoints, mask, masks; "
                                f"label fields of the preset's targets section: "
                                f"{', '.join(self.box_label_fields + self.keypoint_label_fields) or 'none'})")
        if not isinstance(image, np.ndarray) or image.ndim != 3:
            core.sample(image, index, seed)  # the engine's own message for a wrong image
        height, width = image.shape[:2]

        box_extra = kp_extra = None
        box_numeric = kp_numeric = True
        boxes = np.zeros((0, 4))
        if targets.get("bboxes") is not None:
            coords, box_extra, box_numeric = _rows(targets["bboxes"], "bboxes", 4)
            boxes = self.boxes_to_pixels(coords, width, height)
        keypoints = np.zeros((0, 4))
        n_columns = len(self.keypoint_format)
        if targets.get("keypoints") is not None:
            coords, kp_extra, kp_numeric = _rows(targets["keypoints"], "keypoints", n_columns)
            keypoints = self.keypoints_to_engine(coords)
        masks: List[np.ndarray] = []
        mask = targets.get("mask")
        stacked = isinstance(mask, np.ndarray) and mask.ndim == 3
        if mask is not None:
            masks += [mask[..., k] for k in range(mask.shape[2])] if stacked else [mask]
        extra_masks = list(targets.get("masks") or [])
        masks += extra_masks
        labels: Dict[str, Sequence[Any]] = {}
        for field in self.box_label_fields + self.keypoint_label_fields:
            if field in targets:
                owner = len(boxes) if field in self.box_label_fields else len(keypoints)
                kind = "box" if field in self.box_label_fields else "keypoint"
                if len(targets[field]) != owner:
                    raise ValueError(f"{field}: expected one value per {kind} ({owner}), "
                                     f"got {len(targets[field])}")
                labels[field] = targets[field]

        out, b, b_ids, k, k_ids, moved_masks = core.sample_targets(image, index, seed, boxes, keypoints, masks)
        out_h, out_w = out.shape[:2]
        result: Dict[str, Any] = {"image": out}
        if "bboxes" in targets:
            moved = self.boxes_from_pixels(b, out_w, out_h)
            if box_extra is None:
                result["bboxes"] = moved
            elif box_numeric:
                result["bboxes"] = np.concatenate([moved, box_extra[b_ids]], axis=1)
            else:
                result["bboxes"] = [list(row) + list(box_extra[i]) for row, i in zip(moved, b_ids)]
        if "keypoints" in targets:
            moved = self.keypoints_from_engine(k)
            if kp_extra is None:
                result["keypoints"] = moved
            elif kp_numeric:
                result["keypoints"] = np.concatenate([moved, kp_extra[k_ids]], axis=1)
            else:
                result["keypoints"] = [list(row) + list(kp_extra[i]) for row, i in zip(moved, k_ids)]
        for field, values in labels.items():
            ids = b_ids if field in self.box_label_fields else k_ids
            result[field] = values[ids] if isinstance(values, np.ndarray) else [values[i] for i in ids]
        first = 0
        if mask is not None:
            count = mask.shape[2] if stacked else 1
            result["mask"] = np.stack(moved_masks[:count], axis=-1) if stacked else moved_masks[0]
            first = count
        if "masks" in targets:
            result["masks"] = moved_masks[first:first + len(extra_masks)]
        return result


_TARGETS = ("bboxes", "keypoints", "mask", "masks")
