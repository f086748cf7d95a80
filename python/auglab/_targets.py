"""Boxes, keypoints and masks in the user's formats, converted to the engine's pixels and back.

The engine (core/targets.h) holds boxes as pixel edges (the image spans [0, W] x [0, H]: the
denormalised ``pascal_voc`` of Albumentations) and keypoints as pixel positions with pixel centres
at integers, angles in radians. The preset's ``targets`` section says which format the user's
arrays are in, as Albumentations' BboxParams and KeypointParams do; the moving and the filtering
are the engine's, the same as ``auglab-cli apply --annotations``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

_KEYPOINT_FORMATS = ("xy", "yx", "xya", "xys", "xyas", "xysa")


def describe(value: Any) -> str:
    """`value`'s type and a short repr, for errors: "float 2.0"."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


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

    def __init__(self, section: Dict[str, Any], declared: bool = False) -> None:
        boxes, keypoints = section["boxes"], section["keypoints"]
        # The preset has the section: the label fields it names (class_labels for boxes by default,
        # as the exported BboxParams names it) are required with what they label.
        self.declared = declared
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

    # --- one image's targets ---------------------------------------------------------------------

    def convert(self, targets: Dict[str, Any], width: int, height: int, what: str = "") -> "_ImageTargets":
        """`targets` (the call's keywords, or a partner's dict) of a width x height image in the
        engine's units; `what` names their owner in errors ("partners[2]")."""
        p = f"{what}: " if what else ""
        t = _ImageTargets()
        if targets.get("bboxes") is not None:
            coords, t.box_extra, t.box_numeric = _rows(targets["bboxes"], p + "bboxes", 4)
            t.boxes = self.boxes_to_pixels(coords, width, height)
        if targets.get("keypoints") is not None:
            coords, t.kp_extra, t.kp_numeric = _rows(targets["keypoints"], p + "keypoints", len(self.keypoint_format))
            t.keypoints = self.keypoints_to_engine(coords)
        mask = targets.get("mask")
        if mask is not None:
            t.stacked = isinstance(mask, np.ndarray) and mask.ndim == 3
            t.mask_count = mask.shape[2] if t.stacked else 1
            t.masks += [mask[..., k] for k in range(mask.shape[2])] if t.stacked else [mask]
        masks = targets.get("masks")
        if isinstance(masks, np.ndarray):  # N x H x W, as Albumentations 2 takes it
            if masks.ndim != 3:
                one = ": one mask is mask=" if masks.ndim == 2 else ""
                raise TypeError(f"{p}masks: expected a list of H x W masks or one N x H x W array, got an array of "
                                f"shape {masks.shape}{one}")
            t.masks_array = True
            masks = list(masks)
        elif masks is not None and not isinstance(masks, (list, tuple)):
            raise TypeError(f"{p}masks: expected a list of H x W masks or one N x H x W array, got {describe(masks)}")
        t.extra_masks = len(masks or [])
        t.masks += list(masks or [])
        for field in self.box_label_fields + self.keypoint_label_fields:
            if field in targets:
                owner = len(t.boxes) if field in self.box_label_fields else len(t.keypoints)
                kind = "box" if field in self.box_label_fields else "keypoint"
                if len(targets[field]) != owner:
                    raise ValueError(f"{p}{field}: expected one value per {kind} ({owner}), "
                                     f"got {len(targets[field])}")
                t.labels[field] = targets[field]
        return t

    # --- one call ------------------------------------------------------------------------------

    def apply(self, core: Any, image: np.ndarray, index: int, seed: Optional[int], targets: Dict[str, Any],
              partners: Any = None, position: Optional[int] = None, training: bool = True) -> Dict[str, Any]:
        known = set(_TARGETS) | set(self.box_label_fields) | set(self.keypoint_label_fields)
        for key in targets:
            if key not in known:
                raise TypeError(f"unexpected keyword argument {key!r} (targets: bboxes, keypoints, mask, masks; "
                                f"label fields of the preset's targets section: "
                                f"{', '.join(self.box_label_fields + self.keypoint_label_fields) or 'none'})")
        if self.declared:
            for target, fields, section in (("bboxes", self.box_label_fields, "boxes"),
                                            ("keypoints", self.keypoint_label_fields, "keypoints")):
                missing = [field for field in fields if field not in targets]
                if targets.get(target) is not None and missing:
                    raise TypeError(f"missing label field {missing[0]!r}: the preset's targets.{section}.label_fields "
                                    f"declares {fields}, so a call with {target} gives each of them (one value per "
                                    f"row), as Albumentations' Compose requires; a preset whose label_fields is [] "
                                    f"takes {target} without labels")
        if not isinstance(image, np.ndarray) or image.ndim != 3:
            core.sample(image, index, seed, None, None, training)  # the engine's own message for a wrong image
        height, width = image.shape[:2]
        own = self.convert(targets, width, height)
        pool = None if partners is None else _PartnerPool(self, partners, targets, own)
        out, b, b_ids, k, k_ids, moved_masks, transpose_mask, out_w, out_h = core.sample_targets(
            image, index, seed, own.boxes, own.keypoints, own.masks, None if pool is None else pool.images,
            position, None if pool is None else pool.targets_of, training)
        sources = {-1: own, **({} if pool is None else pool.converted)}
        b_ids, k_ids = b_ids.tolist(), k_ids.tolist()
        result: Dict[str, Any] = {"image": out}
        if "bboxes" in targets:
            result["bboxes"] = _carried(self.boxes_from_pixels(b, out_w, out_h), b_ids, sources, "box_extra",
                                        own.box_numeric)
        if "keypoints" in targets:
            result["keypoints"] = _carried(self.keypoints_from_engine(k), k_ids, sources, "kp_extra",
                                           own.kp_numeric)
        for field, values in own.labels.items():
            ids = b_ids if field in self.box_label_fields else k_ids
            if isinstance(values, np.ndarray):
                result[field] = _take({s: np.asarray(t.labels[field]) for s, t in sources.items()}, ids)
            else:
                result[field] = [sources[s].labels[field][r] for s, r in ids]
        first = 0
        if "mask" in targets and own.mask_count:
            count = own.mask_count
            result["mask"] = np.stack(moved_masks[:count], axis=-1) if own.stacked else moved_masks[0]
            if transpose_mask and result["mask"].ndim == 3:  # ToTensorV2(transpose_mask=True): K x H x W
                result["mask"] = result["mask"].transpose(2, 0, 1)
            first = count
        if "masks" in targets:
            result["masks"] = moved_masks[first:first + own.extra_masks]
            if own.masks_array:
                result["masks"] = (np.stack(result["masks"]) if result["masks"]
                                   else np.zeros((0, out_h, out_w), np.uint8))
        return result


class _ImageTargets:
    """One image's targets in the engine's units, with what rides along (extra columns, labels)."""

    def __init__(self) -> None:
        self.boxes: np.ndarray = np.zeros((0, 4))
        self.box_extra: Any = None  # the columns after the 4 coordinates, per row (None: none)
        self.box_numeric = True
        self.keypoints: np.ndarray = np.zeros((0, 4))
        self.kp_extra: Any = None
        self.kp_numeric = True
        self.masks: List[np.ndarray] = []  # the channels of `mask`, then `masks`
        self.mask_count = 0  # how many of `masks` come from `mask`
        self.stacked = False  # `mask` is H x W x K
        self.masks_array = False  # `masks` is one N x H x W array (else a list)
        self.extra_masks = 0
        self.labels: Dict[str, Sequence[Any]] = {}


def _width(extra: Any) -> int:
    return 0 if extra is None else extra.shape[1]


def _take(arrays: Dict[int, np.ndarray], ids: List[List[int]]) -> np.ndarray:
    """Row `r` of arrays[s] for each (s, r) of ids, as one array (the sources' dtypes promoted)."""
    order = sorted(arrays)
    offsets = dict(zip(order, np.cumsum([0] + [len(arrays[s]) for s in order[:-1]])))
    joined = np.concatenate([arrays[s] for s in order])
    return joined[np.asarray([offsets[s] + r for s, r in ids], dtype=np.intp)]


def _carried(moved: np.ndarray, ids: List[List[int]], sources: Dict[int, _ImageTargets], extra: str,
             numeric: bool) -> Any:
    """The moved rows with each one's extra columns from its source: an array when the call's rows
    are numbers (a partner's have as many columns: _PartnerPool checks it), else lists."""
    columns = {s: getattr(t, extra) for s, t in sources.items()}
    if numeric and columns[-1] is None:
        return moved
    if numeric:  # a partner given None for them brings no rows
        width = _width(columns[-1])
        filled = {s: np.zeros((0, width)) if c is None else c for s, c in columns.items()}
        return np.concatenate([moved, _take(filled, ids)], axis=1)
    return [list(row) + ([] if columns[s] is None else list(columns[s][r])) for row, (s, r) in zip(moved, ids)]


class _PartnerPool:
    """The partners of a call with targets: items ``{"image": array, <the call's targets>}``, read
    (a lazy sequence's only when a sample draws them, once) for the engine's pixel pool
    (``images``) and, when a 4-image grid draws them, for their labels (``targets_of``)."""

    def __init__(self, rules: TargetRules, partners: Any, targets: Dict[str, Any], own: _ImageTargets) -> None:
        self._rules, self._own = rules, own
        self._keys = ("image", *targets)
        self._items: Dict[int, Mapping[str, Any]] = {}
        self.converted: Dict[int, _ImageTargets] = {}
        if isinstance(partners, (list, tuple)):
            for k, item in enumerate(partners):
                self._items[k] = self._checked(k, item)
            self.images: Any = [item["image"] for item in self._items.values()]
            return
        if (isinstance(partners, (np.ndarray, str, bytes, Mapping)) or not hasattr(partners, "__len__")
                or not hasattr(partners, "__getitem__")):
            raise TypeError(f"partners: expected a sequence of partners (a list of dicts {self._shape()}, or any "
                            f"object with len() and [i] giving them), got {type(partners).__name__}")
        self._lazy = partners
        self.images = _LazyImages(self)

    def _shape(self) -> str:
        return "{" + ", ".join(f"'{key}': ..." for key in self._keys) + "}"

    def _checked(self, k: int, item: Any) -> Mapping[str, Any]:
        if isinstance(item, np.ndarray):
            raise ValueError(f"partners[{k}]: an image alone, but the call has targets: give each partner as a "
                             f"dict {self._shape()} with its own targets in the call's formats (as apply's "
                             f"--partner-annotations gives a partner's labels)")
        if not isinstance(item, Mapping):
            raise TypeError(f"partners[{k}]: expected a dict {self._shape()}, got {type(item).__name__}")
        for key in self._keys:
            if key not in item:
                raise ValueError(f"partners[{k}]: no {key!r}: each partner gives 'image' and the call's targets "
                                 f"({', '.join(self._keys[1:])})")
        for key in item:
            if key not in self._keys:
                raise ValueError(f"partners[{k}]: unexpected key {key!r}: each partner gives 'image' and the "
                                 f"call's targets ({', '.join(self._keys[1:])}), nothing else")
        return item

    def item(self, k: int) -> Mapping[str, Any]:
        if k not in self._items:
            self._items[k] = self._checked(k, self._lazy[k])
        return self._items[k]

    def targets_of(self, k: int) -> Tuple[np.ndarray, np.ndarray, List[np.ndarray], int, int]:
        """Item k's targets in the engine's units, with its image's width and height."""
        item, what, own = self.item(k), f"partners[{k}]", self._own
        shape = getattr(item["image"], "shape", ())
        if len(shape) != 3:
            raise ValueError(f"{what}: image: expected an H x W x 3 or 4 array, got {type(item['image']).__name__}")
        height, width = shape[:2]
        t = self._rules.convert(item, width, height, what)
        for name, numeric, extra, theirs, their_extra in (
                ("bboxes", own.box_numeric, own.box_extra, t.box_numeric, t.box_extra),
                ("keypoints", own.kp_numeric, own.kp_extra, t.kp_numeric, t.kp_extra)):
            # Numeric rows come back as one array: a partner's need the call's columns.
            if numeric and (not theirs or _width(their_extra) != _width(extra)) and item.get(name) is not None:
                raise ValueError(f"{what}: {name}: expected the columns of the call's {name} "
                                 f"({_width(extra)} after the coordinates, numbers)")
        if (t.stacked, t.mask_count, t.extra_masks) != (own.stacked, own.mask_count, own.extra_masks):
            raise ValueError(f"{what}: mask, masks: expected as many masks as the call's "
                             f"({own.mask_count} in mask, {own.extra_masks} in masks), got "
                             f"{t.mask_count} and {t.extra_masks}")
        self.converted[k] = t
        return t.boxes, t.keypoints, t.masks, width, height


class _LazyImages:
    """A lazy partner pool's images, as the engine reads a lazy pool of images."""

    def __init__(self, pool: _PartnerPool) -> None:
        self._pool = pool

    def __len__(self) -> int:
        return len(self._pool._lazy)

    def __getitem__(self, k: int) -> Any:
        return self._pool.item(k)["image"]


_TARGETS = ("bboxes", "keypoints", "mask", "masks")
