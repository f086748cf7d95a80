"""Rebuild the Albumentations import fixtures in this folder.

Run with the project's Python environment (albumentations==2.0.8):

    build/pyenv/bin/python tests/data/import/pipelines/make_fixtures.py

Every function below rebuilds one training pipeline taken from a public repository
(repository, path and commit are named in the comment above the function and in
SOURCES.md).  Transforms, arguments, nesting and p values follow the source.  Where the
source used a name or argument that Albumentations 2.0.8 no longer has, it is translated
to the 2.0.8 equivalent and the translation is noted next to the line ("2.0:").

Conventions used for translations (see SOURCES.md for the per-file list):

* ``always_apply=True`` becomes ``p=1.0``; ``always_apply=False`` is dropped.
* ``value=`` / ``mask_value=`` / ``cval=`` become ``fill=`` / ``fill_mask=``;
  ``mode=`` (Affine) becomes ``border_mode=``.
* ``JpegCompression`` / ``ImageCompression(quality_lower=a, quality_upper=b)``
  become ``ImageCompression(quality_range=(a, b))`` (1.x default upper is 100).
* ``RandomBrightness(limit=l)`` / ``RandomContrast(limit=l)`` become
  ``RandomBrightnessContrast`` with the other limit set to 0 (this is how 1.x
  implemented them).
* ``GaussNoise(var_limit=(a, b))`` (variance in uint8 pixel units) becomes
  ``GaussNoise(std_range=(sqrt(a)/255, sqrt(b)/255))``; a scalar var_limit v meant
  (0, v); an unspecified one meant the 1.x default (10, 50).
* ``Cutout(num_holes=n, max_h_size=h, max_w_size=w, fill_value=f)`` (fixed-size holes)
  becomes ``CoarseDropout(num_holes_range=(n, n), hole_height_range=(h, h),
  hole_width_range=(w, w), fill=f)``; ``CoarseDropout(max_holes=, max_height=, ...)``
  becomes the ``*_range`` form (1.x: an unset min_* equals its max_*).
* ``Flip`` (1.x: uniformly one of vertical, horizontal, both) becomes
  ``OneOf([HorizontalFlip(p=1), VerticalFlip(p=1),
  Sequential([HorizontalFlip(p=1), VerticalFlip(p=1)], p=1)], p=<Flip p>)``.
* ``RandomResizedCrop(height=h, width=w)`` / ``RandomSizedCrop(..., height, width)``
  become ``size=(h, w)``.
* ``Downscale(scale_min=a, scale_max=b)`` -> ``scale_range=(a, b)``;
  ``RandomFog(fog_coef_lower=a, fog_coef_upper=b)`` -> ``fog_coef_range=(a, b)``.
* Removed arguments without a 2.0 equivalent are dropped and listed in SOURCES.md:
  ``ElasticTransform(alpha_affine=...)``, ``OpticalDistortion(shift_limit=...)``.
* 1.x defaults that 2.0.8 changed are pinned explicitly where the source relied on
  them, so that the fixture keeps the source's behaviour:
  border_mode=cv2.BORDER_REFLECT_101 for ShiftScaleRotate / Rotate /
  ElasticTransform / GridDistortion / OpticalDistortion,
  RandomRotate90 p=0.5, ColorJitter hue=0.2, GaussianBlur blur_limit=(3, 7) with
  sigma_limit=0 (a scalar 1.x blur_limit k meant (3, k)).
* ``ToTensorV2`` is dropped everywhere: it converts to a torch tensor (not an
  augmentation) and torch is not installed in the fixture environment.
* Custom (project-defined) transform classes are dropped; SOURCES.md names them.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import cv2

warnings.filterwarnings("ignore")

import albumentations as A  # noqa: E402

OUT_DIR = Path(__file__).resolve().parent

# 1.x default border mode of the geometric transforms (2.0 changed it to BORDER_CONSTANT).
REFLECT_101 = cv2.BORDER_REFLECT_101
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def var_to_std(var_lo: float, var_hi: float) -> tuple[float, float]:
    """1.x GaussNoise var_limit (variance, uint8 units) -> 2.0 std_range (fraction of 255)."""
    return (math.sqrt(var_lo) / 255.0, math.sqrt(var_hi) / 255.0)


def flip_1x(p: float) -> A.OneOf:
    """1.x A.Flip(p): with probability p, flip vertically, horizontally or both (1/3 each)."""
    return A.OneOf(
        [
            A.HorizontalFlip(p=1.0),
            A.VerticalFlip(p=1.0),
            A.Sequential([A.HorizontalFlip(p=1.0), A.VerticalFlip(p=1.0)], p=1.0),
        ],
        p=p,
    )


# ---------------------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------------------


# Kaggle SIIM-ISIC Melanoma Classification, 1st place.
# haqishen/SIIM-ISIC-Melanoma-Classification-1st-Place-Solution, dataset.py
# @ b2e7d31a64fa42ab3abd7cbd0046e733d213702a, get_transforms(image_size) -> transforms_train.
# image_size = 512 (first training command in README.md: --image-size 512).
def kaggle_siim_isic_1st() -> A.Compose:
    image_size = 512
    return A.Compose(
        [
            A.Transpose(p=0.5),
            A.VerticalFlip(p=0.5),
            A.HorizontalFlip(p=0.5),
            # 2.0: RandomBrightness(limit=0.2, p=0.75)
            A.RandomBrightnessContrast(brightness_limit=0.2, contrast_limit=0, p=0.75),
            # 2.0: RandomContrast(limit=0.2, p=0.75)
            A.RandomBrightnessContrast(brightness_limit=0, contrast_limit=0.2, p=0.75),
            A.OneOf(
                [
                    A.MotionBlur(blur_limit=5),
                    A.MedianBlur(blur_limit=5),
                    # 2.0: GaussianBlur(blur_limit=5) meant (3, 5), sigma from kernel size
                    A.GaussianBlur(blur_limit=(3, 5), sigma_limit=0),
                    # 2.0: GaussNoise(var_limit=(5.0, 30.0))
                    A.GaussNoise(std_range=var_to_std(5.0, 30.0)),
                ],
                p=0.7,
            ),
            A.OneOf(
                [
                    # 2.0: 1.x default shift_limit=0.05 dropped; border_mode pinned
                    A.OpticalDistortion(distort_limit=1.0, border_mode=REFLECT_101),
                    A.GridDistortion(num_steps=5, distort_limit=1.0, border_mode=REFLECT_101),
                    # 2.0: 1.x default alpha_affine=50 dropped; border_mode pinned
                    A.ElasticTransform(alpha=3, border_mode=REFLECT_101),
                ],
                p=0.7,
            ),
            A.CLAHE(clip_limit=4.0, p=0.7),
            A.HueSaturationValue(hue_shift_limit=10, sat_shift_limit=20, val_shift_limit=10, p=0.5),
            A.ShiftScaleRotate(shift_limit=0.1, scale_limit=0.1, rotate_limit=15, border_mode=0, p=0.85),
            A.Resize(image_size, image_size),
            # 2.0: Cutout(max_h_size=int(image_size*0.375), max_w_size=..., num_holes=1, p=0.7)
            A.CoarseDropout(
                num_holes_range=(1, 1),
                hole_height_range=(int(image_size * 0.375), int(image_size * 0.375)),
                hole_width_range=(int(image_size * 0.375), int(image_size * 0.375)),
                fill=0,
                p=0.7,
            ),
            A.Normalize(),
        ]
    )


# YOLOv5 classification training augmentations.
# ultralytics/yolov5, utils/augmentations.py @ 001042774dfbbc98f9e17fc4dfae8680fef7be99,
# classify_albumentations(augment=True) with its defaults (size=224, scale=(0.08, 1.0),
# ratio=(0.75, 1/0.75), hflip=0.5, vflip=0.0, jitter=0.4, ImageNet mean/std).
def yolov5_classify() -> A.Compose:
    size = 224
    return A.Compose(
        [
            # 2.0: RandomResizedCrop(height=size, width=size, ...)
            A.RandomResizedCrop(size=(size, size), scale=(0.08, 1.0), ratio=(0.75, 1.0 / 0.75)),
            A.HorizontalFlip(p=0.5),
            A.ColorJitter(0.4, 0.4, 0.4, 0),
            A.Normalize(mean=IMAGENET_MEAN, std=IMAGENET_STD),
            # ToTensorV2() dropped (needs torch)
        ]
    )


# Kaggle Cassava Leaf Disease Classification.
# KevinMathewT/Cassava-Disease-Detection-Kaggle, src/transforms.py
# @ 4e97377014a2734504007dddf9813044ccafda8b, get_train_transforms().
# config.H = config.W = 512 (src/config.py @ 0295fcb01597b42a0ab4307dadae4e86b4b5928e).
def kaggle_cassava_kevinmathewt() -> A.Compose:
    h, w = 512, 512
    return A.Compose(
        [
            A.RandomResizedCrop(size=(h, w)),  # 2.0: RandomResizedCrop(H, W)
            A.Transpose(p=0.5),
            A.HorizontalFlip(p=0.5),
            A.VerticalFlip(p=0.5),
            A.ShiftScaleRotate(p=0.5, border_mode=REFLECT_101),  # border_mode pinned (1.x default)
            A.HueSaturationValue(hue_shift_limit=0.2, sat_shift_limit=0.2, val_shift_limit=0.2, p=0.5),
            A.RandomBrightnessContrast(brightness_limit=(-0.1, 0.1), contrast_limit=(-0.1, 0.1), p=0.5),
            A.Normalize(mean=IMAGENET_MEAN, std=IMAGENET_STD, max_pixel_value=255.0, p=1.0),
            # 2.0: CoarseDropout(p=0.5) with 1.x defaults max_holes=8, max_height=8, max_width=8
            A.CoarseDropout(num_holes_range=(8, 8), hole_height_range=(8, 8), hole_width_range=(8, 8), fill=0, p=0.5),
            # 2.0: Cutout(p=0.5) with 1.x defaults num_holes=8, max_h_size=8, max_w_size=8
            A.CoarseDropout(num_holes_range=(8, 8), hole_height_range=(8, 8), hole_width_range=(8, 8), fill=0, p=0.5),
            # ToTensorV2(p=1.0) dropped (needs torch)
        ],
        p=1.0,
    )


# Brain MRI classification.
# NNiKIT/BigBrat, classification_model/augmentations.py
# @ 72cf319c7653f0728b004e9cdc2751f5bf4e3988, `transform`.
def bigbrat_classification() -> A.Compose:
    return A.Compose(
        [
            A.OneOf(
                [
                    A.Rotate(limit=45, p=0.5, border_mode=REFLECT_101),  # border_mode pinned
                    A.HorizontalFlip(p=0.5),
                ],
                p=1,
            ),
            A.OneOf(
                [
                    # 2.0: RandomContrast(p=0.5), 1.x default limit=0.2
                    A.RandomBrightnessContrast(brightness_limit=0, contrast_limit=0.2, p=0.5),
                    A.RandomGamma(p=0.5),
                    A.RandomBrightnessContrast(p=0.5),
                    A.RGBShift(r_shift_limit=25, g_shift_limit=25, b_shift_limit=25, p=0.5),
                ],
                p=0.7,
            ),
        ]
    )


# Kaggle APTOS 2019 Blindness Detection.
# BloodAxe/Kaggle-2019-Blindness-Detection, retinopathy/augmentations.py
# @ 0e7357d91d1ff055ef53e48627ef4ced8cec3427,
# get_train_transform(image_size=(512, 512), augmentation='medium', preprocessing=None,
# crop_black=True)  (README.md runs use "-a medium"; training scripts use --size 512).
# The p values below are the source's float(augmentation == LEVEL) evaluated for 'medium'.
# Custom transforms dropped: CropBlackRegions(tolerance=5), ZeroTopAndBottom(p=0.3) (with its
# Compose wrapper), IndependentRandomBrightnessContrast(0.25, 0.24) (from a OneOf).
def kaggle_aptos2019_bloodaxe() -> A.Compose:
    image_size = (512, 512)
    longest_size = max(image_size)
    light, medium, hard = 0.0, 1.0, 0.0  # float(augmentation == LIGHT / MEDIUM / HARD)
    ge_light, ge_medium = 1.0, 1.0  # float(augmentation >= LIGHT / MEDIUM)
    return A.Compose(
        [
            # CropBlackRegions(tolerance=5) dropped (custom)
            A.LongestMaxSize(longest_size, interpolation=cv2.INTER_CUBIC),
            A.PadIfNeeded(image_size[0], image_size[1], border_mode=cv2.BORDER_CONSTANT, fill=0),  # 2.0: value=0
            A.Compose(
                [
                    A.OneOf(
                        [
                            A.ShiftScaleRotate(shift_limit=0.05, scale_limit=0.1, rotate_limit=15,
                                               border_mode=cv2.BORDER_CONSTANT, fill=0),
                            A.NoOp(),
                        ]
                    )
                ],
                p=light,
            ),
            A.Compose(
                [
                    A.OneOf(
                        [
                            A.ShiftScaleRotate(shift_limit=0.05, scale_limit=0.1, rotate_limit=15,
                                               border_mode=cv2.BORDER_CONSTANT, fill=0),
                            # 2.0: shift_limit=0.15 dropped, value=0 -> fill=0
                            A.OpticalDistortion(distort_limit=0.11, border_mode=cv2.BORDER_CONSTANT, fill=0),
                            A.NoOp(),
                        ]
                    )
                ],
                p=medium,
            ),
            A.Compose(
                [
                    A.OneOf(
                        [
                            A.ShiftScaleRotate(shift_limit=0.05, scale_limit=0.1, rotate_limit=45,
                                               border_mode=cv2.BORDER_CONSTANT, fill=0),
                            # 2.0: alpha_affine=0 dropped (no-op), value=0 -> fill=0
                            A.ElasticTransform(alpha=35, sigma=5, border_mode=cv2.BORDER_CONSTANT, fill=0),
                            A.OpticalDistortion(distort_limit=0.11, border_mode=cv2.BORDER_CONSTANT, fill=0),
                            A.GridDistortion(border_mode=cv2.BORDER_CONSTANT, fill=0),
                            A.NoOp(),
                        ]
                    )
                ],
                p=hard,
            ),
            # A.Compose([ZeroTopAndBottom(p=0.3)], p=ge_medium) dropped (custom)
            A.Compose(
                [
                    # 2.0: RandomSizedCrop(min_max_height=..., height=..., width=...)
                    A.RandomSizedCrop(min_max_height=(int(image_size[0] * 0.75), image_size[0]),
                                      size=(image_size[0], image_size[1]), p=0.3),
                ],
                p=hard,
            ),
            A.OneOf([A.ISONoise(), A.NoOp()], p=hard),
            A.OneOf(
                [
                    A.RandomBrightnessContrast(brightness_limit=0.5, contrast_limit=0.4),
                    # IndependentRandomBrightnessContrast(brightness_limit=0.25, contrast_limit=0.24) dropped (custom)
                    A.RandomGamma(gamma_limit=(50, 150)),
                    A.NoOp(),
                ],
                p=ge_light,
            ),
            A.OneOf(
                [
                    A.FancyPCA(alpha=4),  # source: custom FancyPCA(alpha_std=4) -> stock FancyPCA
                    A.RGBShift(r_shift_limit=20, b_shift_limit=15, g_shift_limit=15),
                    A.HueSaturationValue(hue_shift_limit=5, sat_shift_limit=5),
                    A.NoOp(),
                ],
                p=medium,
            ),
            A.OneOf(
                [
                    A.FancyPCA(alpha=6),  # source: custom FancyPCA(alpha_std=6) -> stock FancyPCA
                    A.RGBShift(r_shift_limit=40, b_shift_limit=30, g_shift_limit=30),
                    A.HueSaturationValue(hue_shift_limit=10, sat_shift_limit=10),
                    A.NoOp(),
                ],
                p=hard,
            ),
            A.Compose([A.HorizontalFlip(p=0.5)], p=light),
            A.Compose([A.VerticalFlip(p=0.5)], p=medium),
            A.Compose([A.RandomRotate90(p=0.5), A.Transpose()], p=hard),  # RandomRotate90 p pinned (1.x default)
            A.NoOp(),  # get_preprocessing_transform(None)
            A.Normalize(),
        ]
    )


# Sign-language letter classification.
# omerferhatt/sign-lang-detect, utils/augmentation.py
# @ 065a31d64be305014b7299e9107fbcf7ed852f4f, `transforms`.
def sign_lang_classification() -> A.Compose:
    return A.Compose(
        [
            A.HorizontalFlip(p=0.5),
            A.Normalize(max_pixel_value=255.0),
            A.RandomBrightnessContrast(p=0.7),
            A.Rotate(limit=20, p=1.0, interpolation=cv2.INTER_LINEAR, border_mode=REFLECT_101),  # border_mode pinned
            A.Blur(blur_limit=3, p=0.3),
            A.Downscale(scale_range=(0.7, 0.8), p=0.3),  # 2.0: scale_min=0.7, scale_max=0.8
        ]
    )


# Kaggle Plant Pathology 2020 (FGVC7), 1st place.
# ant-research/cvpr2020-plant-pathology, dataset.py @ ae57db3a9f3866559aa95fc728588e5954b69fb9,
# generate_transforms(image_size)["train_transforms"]; image_size = [480, 768]
# (default of --image_size in utils.py @ 9720b63ea4e0c440618c5a19646aa1ae1ca7867f).
def kaggle_plant_pathology_2020_1st() -> A.Compose:
    image_size = (480, 768)
    return A.Compose(
        [
            A.Resize(height=image_size[0], width=image_size[1]),
            A.OneOf(
                [
                    # 2.0: RandomBrightness(limit=0.1, p=1)
                    A.RandomBrightnessContrast(brightness_limit=0.1, contrast_limit=0, p=1),
                    # 2.0: RandomContrast(limit=0.1, p=1)
                    A.RandomBrightnessContrast(brightness_limit=0, contrast_limit=0.1, p=1),
                ]
            ),
            A.OneOf(
                [
                    A.MotionBlur(blur_limit=3),
                    A.MedianBlur(blur_limit=3),
                    A.GaussianBlur(blur_limit=(3, 3), sigma_limit=0),  # 2.0: GaussianBlur(blur_limit=3)
                ],
                p=0.5,
            ),
            A.VerticalFlip(p=0.5),
            A.HorizontalFlip(p=0.5),
            A.ShiftScaleRotate(
                shift_limit=0.2,
                scale_limit=0.2,
                rotate_limit=20,
                interpolation=cv2.INTER_LINEAR,
                border_mode=cv2.BORDER_REFLECT_101,
                p=1,
            ),
            A.Normalize(mean=IMAGENET_MEAN, std=IMAGENET_STD, max_pixel_value=255.0, p=1.0),
        ]
    )


# Kaggle Google Landmark Recognition 2020, 3rd place.
# haqishen/Google-Landmark-Recognition-2020-3rd-Place-Solution, dataset.py
# @ 060fbc4bd409577274b2280f735d12d19e2511fe, get_transforms(image_size) -> transforms_train.
# image_size = 256 (first training command in README.md: --image-size 256).
def kaggle_landmark_2020_3rd() -> A.Compose:
    image_size = 256
    hole = int(image_size * 0.4)
    return A.Compose(
        [
            A.HorizontalFlip(p=0.5),
            A.ImageCompression(quality_range=(99, 100)),  # 2.0: quality_lower=99, quality_upper=100
            A.ShiftScaleRotate(shift_limit=0.2, scale_limit=0.2, rotate_limit=10, border_mode=0, p=0.7),
            A.Resize(image_size, image_size),
            # 2.0: Cutout(max_h_size=int(image_size*0.4), max_w_size=int(image_size*0.4), num_holes=1, p=0.5)
            A.CoarseDropout(num_holes_range=(1, 1), hole_height_range=(hole, hole),
                            hole_width_range=(hole, hole), fill=0, p=0.5),
            A.Normalize(),
        ]
    )


# Kaggle Bengali.AI Handwritten Grapheme Classification.
# ireko8/Bengali, src/augment.py @ 09c70d0a743d2760a34e77916904cde5ae0c3691, train_transform.
def kaggle_bengali_ireko8() -> A.Compose:
    return A.Compose(
        [
            A.ShiftScaleRotate(rotate_limit=15, p=0.5, border_mode=REFLECT_101),  # border_mode pinned
            A.GridDistortion(p=0.5, border_mode=REFLECT_101),  # border_mode pinned
        ]
    )


# ---------------------------------------------------------------------------------------
# Detection
# ---------------------------------------------------------------------------------------


# YOLOv8 / ultralytics Albumentations class.
# ultralytics/ultralytics, ultralytics/data/augment.py @ 0005af52af705ebb03b6ed1a0be176d52d79241c,
# Albumentations.__init__.
def ultralytics_yolo() -> A.Compose:
    return A.Compose(
        [
            A.Blur(p=0.01),
            A.MedianBlur(p=0.01),
            A.ToGray(p=0.01),
            A.CLAHE(p=0.01),
            A.RandomBrightnessContrast(p=0.0),
            A.RandomGamma(p=0.0),
            A.ImageCompression(quality_range=(75, 100), p=0.0),  # 2.0: quality_lower=75
        ],
        bbox_params=A.BboxParams(format="yolo", label_fields=["class_labels"]),
    )


# YOLOv5 Albumentations class.
# ultralytics/yolov5, utils/augmentations.py @ 001042774dfbbc98f9e17fc4dfae8680fef7be99,
# Albumentations.__init__(size=640).
def yolov5_detect() -> A.Compose:
    size = 640
    return A.Compose(
        [
            # 2.0: RandomResizedCrop(height=size, width=size, ...)
            A.RandomResizedCrop(size=(size, size), scale=(0.8, 1.0), ratio=(0.9, 1.11), p=0.0),
            A.Blur(p=0.01),
            A.MedianBlur(p=0.01),
            A.ToGray(p=0.01),
            A.CLAHE(p=0.01),
            A.RandomBrightnessContrast(p=0.0),
            A.RandomGamma(p=0.0),
            A.ImageCompression(quality_range=(75, 100), p=0.0),  # 2.0: quality_lower=75
        ],
        bbox_params=A.BboxParams(format="yolo", label_fields=["class_labels"]),
    )


# MMDetection Albu example (Mask R-CNN).
# open-mmlab/mmdetection, configs/albu_example/mask-rcnn_r50-fpn_albu-1x_coco.py
# @ cad3a14434ca6dbd85fc482ee745bbd17bf55692, albu_train_transforms + Albu(bbox_params=...).
# mmdet's Albu wrapper builds Compose(transforms, bbox_params=BboxParams(...)); because the
# config sets filter_lost_elements=True it replaces label_fields with ['idx_mapper'] and
# removes filter_lost_elements before building BboxParams (mmdet Albu.__init__).
def mmdet_albu_example() -> A.Compose:
    return A.Compose(
        [
            A.ShiftScaleRotate(shift_limit=0.0625, scale_limit=0.0, rotate_limit=0, interpolation=1, p=0.5,
                               border_mode=REFLECT_101),  # border_mode pinned
            A.RandomBrightnessContrast(brightness_limit=[0.1, 0.3], contrast_limit=[0.1, 0.3], p=0.2),
            A.OneOf(
                [
                    A.RGBShift(r_shift_limit=10, g_shift_limit=10, b_shift_limit=10, p=1.0),
                    A.HueSaturationValue(hue_shift_limit=20, sat_shift_limit=30, val_shift_limit=20, p=1.0),
                ],
                p=0.1,
            ),
            # 2.0: JpegCompression(quality_lower=85, quality_upper=95, p=0.2)
            A.ImageCompression(quality_range=(85, 95), p=0.2),
            A.ChannelShuffle(p=0.1),
            A.OneOf([A.Blur(blur_limit=3, p=1.0), A.MedianBlur(blur_limit=3, p=1.0)], p=0.1),
        ],
        bbox_params=A.BboxParams(format="pascal_voc", label_fields=["idx_mapper"], min_visibility=0.0),
    )


# MMDetection Swin-L config of a Boostcamp AI Tech trash-detection team.
# boostcampaitech3/level2-object-detection-level2-cv-18,
# Mmdetection/Swin_L/configs/_base_/datasets/coco_detection.py
# @ f15ce350a956568df543585b1cc3f4773ba876df, albu_train_transforms + Albu(bbox_params=...).
def boostcamp_swin_trash_detection() -> A.Compose:
    return A.Compose(
        [
            A.OneOf([flip_1x(p=1.0), A.RandomRotate90(p=1.0)], p=0.5),  # 2.0: Flip(p=1.0) -> flip_1x
            # 2.0: RandomResizedCrop(height=1024, width=1024, ...)
            A.RandomResizedCrop(size=(1024, 1024), scale=(0.5, 1.0), p=0.5),
            A.RandomBrightnessContrast(brightness_limit=0.1, contrast_limit=0.15, p=0.5),
            A.HueSaturationValue(hue_shift_limit=15, sat_shift_limit=25, val_shift_limit=10, p=0.5),
            A.GaussNoise(std_range=var_to_std(10.0, 50.0), p=0.3),  # 2.0: GaussNoise() 1.x default var_limit
            A.OneOf(
                [
                    A.Blur(p=1.0),
                    A.GaussianBlur(blur_limit=(3, 7), sigma_limit=0, p=1.0),  # 1.x defaults pinned
                    A.MedianBlur(blur_limit=5, p=1.0),
                    A.MotionBlur(p=1.0),
                ],
                p=0.1,
            ),
        ],
        # filter_lost_elements=True in the config -> mmdet uses label_fields=['idx_mapper']
        bbox_params=A.BboxParams(format="pascal_voc", label_fields=["idx_mapper"], min_visibility=0.0),
    )


# Kaggle Global Wheat Detection (amirassov's solution, mmdetection based).
# amirassov/kaggle-global-wheat-detection, configs/_base_/datasets/wheat_detection_mstrain.py
# @ c137e8e35401a1205d56f69a36e8863702670819, albu_train_transforms + Albumentations(bbox_params=...).
# ModifiedShiftScaleRotate (gwd/datasets/pipelines/albumentations.py) is a ShiftScaleRotate
# that only exposes its sampled params -> ShiftScaleRotate.  RandomBBoxesSafeCrop(num_rate=(0.5, 1.0),
# erosion_rate=0.2) is a project-defined crop with no stock equivalent -> dropped.
def kaggle_global_wheat_amirassov() -> A.Compose:
    fill_bgr_mean = (103.53, 116.28, 123.675)  # img_norm_cfg["mean"][::-1]
    return A.Compose(
        [
            A.RandomRotate90(p=1.0),
            A.OneOf(
                [
                    A.HueSaturationValue(hue_shift_limit=10, sat_shift_limit=35, val_shift_limit=25),
                    A.RandomGamma(),
                    A.CLAHE(),
                ],
                p=0.5,
            ),
            A.OneOf(
                [
                    A.RandomBrightnessContrast(brightness_limit=0.25, contrast_limit=0.25),
                    A.RGBShift(r_shift_limit=15, g_shift_limit=15, b_shift_limit=15),
                ],
                p=0.5,
            ),
            A.OneOf(
                [
                    A.Blur(),
                    A.MotionBlur(),
                    A.GaussNoise(std_range=var_to_std(10.0, 50.0)),  # 2.0: GaussNoise() 1.x default var_limit
                    A.ImageCompression(quality_range=(75, 100)),  # 2.0: quality_lower=75
                ],
                p=0.4,
            ),
            # 2.0: CoarseDropout(max_holes=30, max_height=30, max_width=30, min_holes=5, min_height=10,
            #                    min_width=10, fill_value=mean[::-1], p=0.4)
            A.CoarseDropout(num_holes_range=(5, 30), hole_height_range=(10, 30), hole_width_range=(10, 30),
                            fill=fill_bgr_mean, p=0.4),
            # 2.0: ModifiedShiftScaleRotate(..., value=mean[::-1]) -> ShiftScaleRotate(..., fill=...)
            A.ShiftScaleRotate(shift_limit=0.3, rotate_limit=5, scale_limit=(-0.3, 0.75), border_mode=0,
                               fill=fill_bgr_mean),
            # RandomBBoxesSafeCrop(num_rate=(0.5, 1.0), erosion_rate=0.2) dropped (custom)
        ],
        bbox_params=A.BboxParams(format="pascal_voc", label_fields=["labels"]),
    )


# Faster R-CNN training pipeline (sovit-123).
# sovit-123/fasterrcnn-pytorch-training-pipeline, utils/transforms.py
# @ 0cda3e4a1cb59d87d08d7241f06b7d0e45e97b9c, get_train_aug().
def fasterrcnn_pipeline_sovit() -> A.Compose:
    return A.Compose(
        [
            A.MotionBlur(blur_limit=3, p=0.5),
            A.Blur(blur_limit=3, p=0.5),
            A.RandomBrightnessContrast(brightness_limit=0.2, p=0.5),
            A.ColorJitter(hue=0.2, p=0.5),  # hue pinned to the 1.x default 0.2
            A.RandomGamma(p=0.2),
            A.RandomFog(p=0.2),  # 1.x defaults fog_coef 0.3..1, alpha_coef 0.08 == 2.0.8 defaults
            # ToTensorV2(p=1.0) dropped (needs torch)
        ],
        bbox_params={"format": "pascal_voc", "label_fields": ["labels"]},
    )


# ---------------------------------------------------------------------------------------
# Segmentation
# ---------------------------------------------------------------------------------------


# Cloth segmentation (ternaus).
# ternaus/cloths_segmentation, cloths_segmentation/configs/2020-10-30.yaml
# @ d5ec057c660265bfac88aa958474f847cebb3cb7, train_aug (a serialized Compose in YAML).
def ternaus_cloths_segmentation() -> A.Compose:
    return A.Compose(
        [
            A.LongestMaxSize(max_size=800, p=1),
            # 2.0: value=0, mask_value=0 -> fill, fill_mask
            A.PadIfNeeded(min_height=800, min_width=800, border_mode=0, fill=0, fill_mask=0, p=1),
            A.RandomCrop(height=512, width=512, p=1),
            A.HorizontalFlip(p=0.5),
            A.Normalize(max_pixel_value=255.0, mean=IMAGENET_MEAN, std=IMAGENET_STD, p=1),
        ],
        p=1,
    )


# MIDV-500 document segmentation (ternaus).
# ternaus/midv-500-models, midv500models/configs/2020-05-19.yaml
# @ 7b197d253e77544650094f1005469ea40ca6d883, train_aug.
def ternaus_midv500_segmentation() -> A.Compose:
    return A.Compose(
        [
            A.LongestMaxSize(max_size=768, p=1),
            A.PadIfNeeded(min_height=768, min_width=768, border_mode=0, p=1),
            A.RandomCrop(height=512, width=512, p=1),
            # 2.0: value=0, mask_value=0 -> fill, fill_mask
            A.ShiftScaleRotate(scale_limit=0.2, rotate_limit=5, border_mode=0, fill=0, fill_mask=0, p=1),
            A.HorizontalFlip(p=0.5),
            A.RandomRotate90(p=1),
            A.RandomBrightnessContrast(p=0.5),
            A.RandomGamma(p=0.5),
            A.HueSaturationValue(p=0.5),
            A.Blur(p=0.5),
            # 2.0: JpegCompression(quality_lower=20, quality_upper=95, p=0.5)
            A.ImageCompression(quality_range=(20, 95), p=0.5),
            A.Normalize(max_pixel_value=255.0, mean=IMAGENET_MEAN, std=IMAGENET_STD, p=1),
        ],
        p=1,
    )


# Kaggle SIIM-ACR Pneumothorax Segmentation, 1st place.
# sneddy/pneumothorax-segmentation, unet_pipeline/transforms/train_transforms_complex_1024.json
# @ d33316f3e629360846b5009dd2736618711a95e3 (an A.save file from albumentations 0.3.1).
def kaggle_pneumothorax_1st() -> A.Compose:
    return A.Compose(
        [
            A.HorizontalFlip(p=0.5),
            A.OneOf(
                [
                    # 2.0: RandomContrast(limit=[-0.2, 0.2], p=0.5)
                    A.RandomBrightnessContrast(brightness_limit=0, contrast_limit=(-0.2, 0.2), p=0.5),
                    A.RandomGamma(gamma_limit=(80, 120), p=0.5),
                    # 2.0: RandomBrightness(limit=[-0.2, 0.2], p=0.5)
                    A.RandomBrightnessContrast(brightness_limit=(-0.2, 0.2), contrast_limit=0, p=0.5),
                ],
                p=0.3,
            ),
            A.OneOf(
                [
                    # 2.0: alpha_affine=3.6 dropped; value/mask_value null -> default fill
                    A.ElasticTransform(alpha=120, sigma=6.0, interpolation=1, border_mode=4, approximate=False, p=0.5),
                    A.GridDistortion(num_steps=5, distort_limit=(-0.3, 0.3), interpolation=1, border_mode=4, p=0.5),
                    # 2.0: shift_limit=[-0.5, 0.5] dropped
                    A.OpticalDistortion(distort_limit=(-2, 2), interpolation=1, border_mode=4, p=0.5),
                ],
                p=0.3,
            ),
            A.ShiftScaleRotate(
                shift_limit=(-0.0625, 0.0625),
                scale_limit=(-0.09999999999999998, 0.10000000000000009),
                rotate_limit=(-45, 45),
                interpolation=1,
                border_mode=4,
                p=0.5,
            ),
            A.Resize(height=1024, width=1024, interpolation=1, p=1),  # 2.0: always_apply=True -> p=1
            A.Normalize(mean=IMAGENET_MEAN, std=IMAGENET_STD, max_pixel_value=255.0, p=1.0),
        ],
        p=1.0,
    )


# xView2 building damage segmentation (BloodAxe), spatial augmentations.
# BloodAxe/xView2-Solution, xview/augmentations.py @ f2e062ec161661da1f3753859bb22e84bc3eea8a,
# hard_spatial_augmentations(image_size, rot_angle=45).
def xview2_bloodaxe_hard_spatial() -> A.Compose:
    rot_angle = 45
    return A.Compose(
        [
            A.OneOf(
                [
                    A.NoOp(),
                    A.RandomGridShuffle(grid=(4, 4)),
                    A.RandomGridShuffle(grid=(3, 3)),
                    A.RandomGridShuffle(grid=(2, 2)),
                ]
            ),
            A.MaskDropout(max_objects=10),
            A.OneOf(
                [
                    # 2.0: value=0, mask_value=0 -> fill, fill_mask
                    A.ShiftScaleRotate(scale_limit=0.1, rotate_limit=rot_angle, border_mode=cv2.BORDER_CONSTANT,
                                       fill=0, fill_mask=0),
                    A.NoOp(),
                ]
            ),
            A.OneOf(
                [
                    # 2.0: 1.x default alpha_affine=50 dropped; value/mask_value -> fill/fill_mask
                    A.ElasticTransform(border_mode=cv2.BORDER_CONSTANT, fill=0, fill_mask=0),
                    A.GridDistortion(border_mode=cv2.BORDER_CONSTANT, fill=0, fill_mask=0),
                    A.NoOp(),
                ]
            ),
            # D4
            A.Compose([A.Transpose(), A.RandomRotate90(p=0.5)]),  # RandomRotate90 p pinned (1.x default)
        ]
    )


# xView2 building damage segmentation (BloodAxe), colour augmentations.
# BloodAxe/xView2-Solution, xview/augmentations.py @ f2e062ec161661da1f3753859bb22e84bc3eea8a,
# hard_color_augmentations().
def xview2_bloodaxe_hard_color() -> A.Compose:
    return A.Compose(
        [
            A.RandomBrightnessContrast(brightness_limit=0.3, contrast_limit=0.3, brightness_by_max=True),
            A.RandomGamma(gamma_limit=(90, 110)),
            A.OneOf(
                [
                    A.NoOp(),
                    A.MultiplicativeNoise(),
                    A.GaussNoise(std_range=var_to_std(10.0, 50.0)),  # 2.0: GaussNoise() 1.x default var_limit
                    A.ISONoise(),
                ]
            ),
            A.OneOf([A.RGBShift(), A.HueSaturationValue(), A.NoOp()]),
            A.RandomFog(fog_coef_range=(0.05, 0.3)),  # 2.0: fog_coef_lower=0.05, fog_coef_upper=0.3
        ]
    )


# CenterTrack (multi-object tracking by detection), photometric augmentations with weather.
# einstalek/centertrack_torch, dataset/augmentations.py @ 39a0493bdcb5153a15bab9581c11280b74fbb796,
# transform_fn.
def centertrack_weather_tracking() -> A.Compose:
    return A.Compose(
        [
            A.OneOf(
                [
                    # 2.0: IAAAdditiveGaussianNoise() (imgaug, scale 0.01-0.05 x 255) -> GaussNoise std_range
                    A.GaussNoise(std_range=(0.01, 0.05)),
                    A.GaussNoise(std_range=var_to_std(10.0, 50.0)),  # 2.0: GaussNoise() 1.x default var_limit
                ],
                p=0.2,
            ),
            A.OneOf([A.MotionBlur(p=0.2), A.MedianBlur(blur_limit=3, p=0.2), A.Blur(blur_limit=3, p=0.2)], p=0.2),
            A.OneOf(
                [
                    A.CLAHE(clip_limit=2),
                    A.Sharpen(),  # 2.0: IAASharpen() (its defaults are Sharpen's)
                    A.Emboss(),  # 2.0: IAAEmboss() (its defaults are Emboss's)
                    A.RandomBrightnessContrast(),
                ],
                p=0.2,
            ),
            A.OneOf([A.ChannelShuffle(), A.HueSaturationValue(), A.RGBShift(), A.ToSepia()], p=0.2),
            A.OneOf(
                [
                    A.RandomSunFlare(flare_roi=(0, 0, 1.0, 1.0), src_radius=100, p=0.1),
                    A.RandomFog(fog_coef_range=(0.2, 0.3), p=0.1),  # 2.0: fog_coef_lower=0.2, fog_coef_upper=0.3
                    A.RandomShadow(p=0.1),
                    A.RandomRain(p=0.1, blur_value=1, drop_length=20),  # 2.0: drop_length pinned (1.x default 20)
                ],
                p=0.1,
            ),
        ]
    )


# Ultrasound segmentation (UltraDINO), mmsegmentation Albu pipeline.
# jakobamb/UltraDINO, segmentation/configs/_base_/pipelines/grayscale_518_3ch.py
# @ 4edf7db5db7ad2adea3e100bffed3f6de0e0ed57, train_pipeline AlbuGray(transforms=[...]).
def ultradino_ultrasound_segmentation() -> A.Compose:
    return A.Compose(
        [
            A.Affine(
                scale=(0.8, 1.2),
                translate_percent=(0.2, 0.2),
                rotate=(-30, 30),
                shear=(-15, 15),
                fill=0,  # 2.0: cval=0
                border_mode=0,  # 2.0: mode=0
                interpolation=1,
                keep_ratio=True,
                p=0.5,
            ),
            A.HorizontalFlip(p=0.5),
            A.RandomBrightnessContrast(brightness_limit=[-0.3, 0.3], contrast_limit=[-0.3, 0.3], p=0.5),
            A.RandomGamma(gamma_limit=(80, 120), p=0.5),
            A.GaussNoise(std_range=var_to_std(10.0, 50.0), p=0.5),  # 2.0: var_limit=(10.0, 50.0)
            A.GridDistortion(distort_limit=(-0.3, 0.3), p=0.5, border_mode=0, fill=0),  # 2.0: value=0
        ]
    )


# Kaggle Understanding Clouds from Satellite Images.
# LightnessOfBeing/kaggle-understanding-cloud-organization, src/augmentations.py
# @ 093de9aac69e3df065c4295648b79eea87328004, get_transforms('train', image_size) =
# Compose([Resize(*image_size)] + get_training_augmentation2()); image_size = (320, 640)
# (README.md: first stage trained on 320x640).
def kaggle_clouds_lightnessofbeing() -> A.Compose:
    image_size = (320, 640)
    return A.Compose(
        [
            A.Resize(*image_size),
            A.HorizontalFlip(p=0.5),
            A.VerticalFlip(p=0.5),
            A.ShiftScaleRotate(scale_limit=0.3, rotate_limit=15, shift_limit=0.1, p=0.5, border_mode=0),
            A.GridDistortion(p=0.5, border_mode=REFLECT_101),  # border_mode pinned
            # 2.0: shift_limit=0.2 dropped; border_mode pinned
            A.OpticalDistortion(p=0.5, distort_limit=0.1, border_mode=REFLECT_101),
            A.RandomBrightnessContrast(p=0.5),
        ]
    )


# ---------------------------------------------------------------------------------------
# Keypoints
# ---------------------------------------------------------------------------------------


# CCPD licence-plate corner keypoints + boxes.
# ZhijuCen/chinese-plate-recognition-ccpd-remaster, plate_detection/data/augmentation.py
# @ 06982a331622974ab8344749dd481ac4bf8c88fb, default_keypoint_transform() with its defaults
# (bbox_format="pascal_voc", kp_format="xy", p=0.5).
def ccpd_plate_keypoints() -> A.Compose:
    p = 0.5
    return A.Compose(
        [
            A.Resize(320, 320),
            A.InvertImg(p=p),
            A.ToGray(p=p),
            A.Perspective(p=p),
            A.ShiftScaleRotate(p=p, border_mode=REFLECT_101),  # border_mode pinned
            flip_1x(p=p),  # 2.0: Flip(p=p)
        ],
        bbox_params=A.BboxParams("pascal_voc"),
        keypoint_params=A.KeypointParams("xy", remove_invisible=False),
    )


# RetinaFace face detector with 5 facial landmarks (ternaus); the Albumentations part is the
# photometric pipeline + resize (boxes/landmarks are handled by the project's own code).
# ternaus/retinaface, retinaface/configs/2020-11-15.yaml @ 29611c722ad400eed977b2df1816ddf914dbb2bf,
# train_aug (bbox_params: null, keypoint_params: null).
def ternaus_retinaface_landmarks() -> A.Compose:
    return A.Compose(
        [
            A.RandomBrightnessContrast(brightness_limit=0.2, contrast_limit=[0.5, 1.5], p=0.5),
            A.HueSaturationValue(hue_shift_limit=20, val_shift_limit=20, p=0.5),
            A.RandomGamma(gamma_limit=[80, 120], p=0.5),
            A.Resize(height=1024, width=1024, p=1),
            A.Normalize(max_pixel_value=255.0, mean=IMAGENET_MEAN, std=IMAGENET_STD, p=1),
        ],
        p=1,
    )


# ---------------------------------------------------------------------------------------
# OCR
# ---------------------------------------------------------------------------------------


# LaTeX-OCR (pix2tex) image-to-LaTeX training augmentations.
# lukas-blecher/LaTeX-OCR, pix2tex/dataset/transforms.py @ cba140f3a4368cfaac60b14346d8b081af1a190c,
# train_transform.
def latex_ocr_pix2tex() -> A.Compose:
    white = (255, 255, 255)
    return A.Compose(
        [
            A.Compose(
                [
                    # 2.0: value=[255, 255, 255] -> fill
                    A.ShiftScaleRotate(shift_limit=0, scale_limit=(-0.15, 0), rotate_limit=1, border_mode=0,
                                       interpolation=3, fill=white, p=1),
                    A.GridDistortion(distort_limit=0.1, border_mode=0, interpolation=3, fill=white, p=0.5),
                ],
                p=0.15,
            ),
            A.RGBShift(r_shift_limit=15, g_shift_limit=15, b_shift_limit=15, p=0.3),
            A.GaussNoise(std_range=var_to_std(0.0, 10.0), p=0.2),  # 2.0: GaussNoise(10) = var_limit (0, 10)
            A.RandomBrightnessContrast(0.05, (-0.2, 0), True, p=0.2),
            A.ImageCompression(quality_range=(95, 100), p=0.3),  # 2.0: ImageCompression(95) = quality_lower
            A.ToGray(p=1.0),  # 2.0: always_apply=True
            A.Normalize((0.7931, 0.7931, 0.7931), (0.1738, 0.1738, 0.1738)),
            # ToTensorV2() dropped (needs torch)
        ]
    )


# Table-extraction text-recognition (OCR) training augmentations.
# datvodinh/table-extraction, text-recognition/text_recognition/datamodule/transform.py
# @ 03a02347d00f4816fd092476e2bedcf248fa4331, OCRTransform(img_size=(64, 256), stage="train").
def table_extraction_ocr() -> A.Compose:
    img_size = (64, 256)
    fill_value = (255, 255, 255)
    return A.Compose(
        [
            # 2.0: value=FILL_VALUE -> fill
            A.GridDistortion(distort_limit=0.1, border_mode=0, interpolation=3, fill=fill_value, p=0.3),
            A.Defocus(radius=(1, 3), p=0.3),
            A.PixelDropout(dropout_prob=0.01, drop_value=255, p=0.3),
            A.GaussNoise(std_range=var_to_std(0.0, 5.0), p=0.3),  # 2.0: GaussNoise(5) = var_limit (0, 5)
            A.RandomBrightnessContrast(0.1, 0.2, True, p=0.3),
            A.ImageCompression(quality_range=(95, 100), p=0.3),  # 2.0: ImageCompression(95) = quality_lower
            # 2.0: position=PadIfNeeded.PositionType.BOTTOM_LEFT -> "bottom_left"; value -> fill
            A.PadIfNeeded(min_height=img_size[0], min_width=img_size[1], position="bottom_left",
                          border_mode=cv2.BORDER_CONSTANT, fill=fill_value),
            A.Normalize(mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5)),
            # ToTensorV2() dropped (needs torch)
        ]
    )


# ---------------------------------------------------------------------------------------

PIPELINES = {
    # classification
    "kaggle-siim-isic-1st": kaggle_siim_isic_1st,
    "yolov5-classify": yolov5_classify,
    "kaggle-cassava-kevinmathewt": kaggle_cassava_kevinmathewt,
    "bigbrat-classification": bigbrat_classification,
    "kaggle-aptos2019-bloodaxe": kaggle_aptos2019_bloodaxe,
    "sign-lang-classification": sign_lang_classification,
    "kaggle-plant-pathology-2020-1st": kaggle_plant_pathology_2020_1st,
    "kaggle-landmark-2020-3rd": kaggle_landmark_2020_3rd,
    "kaggle-bengali-ireko8": kaggle_bengali_ireko8,
    # detection
    "ultralytics-yolo": ultralytics_yolo,
    "yolov5-detect": yolov5_detect,
    "mmdet-albu-example": mmdet_albu_example,
    "boostcamp-swin-trash-detection": boostcamp_swin_trash_detection,
    "kaggle-global-wheat-amirassov": kaggle_global_wheat_amirassov,
    "fasterrcnn-pipeline-sovit": fasterrcnn_pipeline_sovit,
    "centertrack-weather-tracking": centertrack_weather_tracking,
    # segmentation
    "ternaus-cloths-segmentation": ternaus_cloths_segmentation,
    "ternaus-midv500-segmentation": ternaus_midv500_segmentation,
    "kaggle-pneumothorax-1st": kaggle_pneumothorax_1st,
    "xview2-bloodaxe-hard-spatial": xview2_bloodaxe_hard_spatial,
    "xview2-bloodaxe-hard-color": xview2_bloodaxe_hard_color,
    "ultradino-ultrasound-segmentation": ultradino_ultrasound_segmentation,
    "kaggle-clouds-lightnessofbeing": kaggle_clouds_lightnessofbeing,
    # keypoints
    "ccpd-plate-keypoints": ccpd_plate_keypoints,
    "ternaus-retinaface-landmarks": ternaus_retinaface_landmarks,
    # OCR
    "latex-ocr-pix2tex": latex_ocr_pix2tex,
    "table-extraction-ocr": table_extraction_ocr,
}


def main() -> int:
    failures = 0
    for name, build in PIPELINES.items():
        path = OUT_DIR / f"{name}.json"
        try:
            transform = build()
            A.save(transform, str(path), data_format="json")
            A.load(str(path), data_format="json")  # round-trip check
            with path.open(encoding="utf-8") as f:
                json.load(f)
            print(f"ok   {path.name}")
        except Exception as exc:  # noqa: BLE001 - report every failure, keep going
            failures += 1
            print(f"FAIL {path.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
    print(f"{len(PIPELINES) - failures}/{len(PIPELINES)} fixtures written to {OUT_DIR}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
