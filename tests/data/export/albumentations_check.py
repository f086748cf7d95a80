"""Loads AugLab's Albumentations exports with the real library (used by tests/test_export_library.cpp).

  albumentations_check.py load FILE...           A.load each file strictly: no warning, no invalid
                                                  argument, and A.to_dict of the loaded pipeline equal
                                                  to the file's "transform" (nothing dropped or renamed)
  albumentations_check.py apply IN.png FILE OUT.png [FILE OUT.png ...]
                                                  runs each loaded pipeline once on an RGB image
  albumentations_check.py grid-units FILE HEIGHT WIDTH N
                                                  draws N grid units of each GridDropout of FILE for a
                                                  HEIGHT x WIDTH image the way the library does; prints
                                                  "min max" per transform
  albumentations_check.py perspective IN.png REPLAY.json OUT.png
                                                  Albumentations' own perspective functions (the
                                                  matrix from compute_perspective_params, expand_transform
                                                  and fgeometric.perspective) fed with the corners of the
                                                  replay's perspective op, on an RGB image
  albumentations_check.py same ORIGINAL EXPORTED IN.png
                                                  the user's file and AugLab's export of it (after an
                                                  import), loaded by the library with the same seed
                                                  and run on an RGB image, give the same array (the
                                                  same values, type and shape) for each of 8 seeds
  albumentations_check.py replay-fed OP IN.png REPLAY.json OUT.png [REPLAY.json OUT.png ...]
                                                  the library's function of AugLab op OP
                                                  (channel_dropout, random_tone_curve, d4,
                                                  channel_shuffle, xy_masking) fed with the
                                                  concrete parameters of the replay's OP
  albumentations_check.py draws FILE [FILE ...] HEIGHT WIDTH N
                                                  draws each transform's parameters N times for a
                                                  HEIGHT x WIDTH image through the library's own
                                                  get_params calls; prints one JSON list (per
                                                  transform: AugLab's key -> the N values) per
                                                  FILE, a line each
  albumentations_check.py applied FILE N
                                                  runs the loaded pipeline N times (Compose with
                                                  save_applied_params, a seed per transform) and
                                                  prints, per run, the
                                                  classes of the transforms that applied, in the order
                                                  they ran, joined by ">" (one JSON list)
"""

import json
import sys
import warnings


def load_strict(path):
    import albumentations as A

    with open(path) as f:
        doc = json.load(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an ignored argument is a warning in Albumentations 2.0
        pipeline = A.load(path)
    def leaves(transforms):
        for t in transforms:
            yield t
            yield from leaves(getattr(t, "transforms", []))

    bad = [(type(t).__name__, t.invalid_args) for t in leaves(pipeline.transforms) if getattr(t, "invalid_args", [])]
    if bad:
        raise SystemExit(f"{path}: invalid arguments {bad}")
    pipeline.strict = True  # Compose validates every transform's arguments again
    saved = json.loads(json.dumps(A.to_dict(pipeline)))

    # A.save writes the AdditiveNoise settings RGBShift derives from its limits, Pad's "padding" for
    # PadIfNeeded and the Affine arguments of SafeRotate, and A.load refuses them as arguments
    # (Albumentations 2.0.8): the export leaves
    # them out, so they are left out here.
    def drop_derived(transforms):
        for t in transforms:
            if t.get("__class_fullname__") == "RGBShift":
                for key in ("noise_params", "noise_type", "spatial_mode", "approximation"):
                    t.pop(key, None)
            if t.get("__class_fullname__") == "PadIfNeeded":
                t.pop("padding", None)
            if t.get("__class_fullname__") == "SafeRotate":  # the Affine arguments it passes on
                for key in ("balanced_scale", "fit_output", "keep_ratio", "rotate", "scale", "shear",
                            "translate_percent", "translate_px"):
                    t.pop(key, None)
            drop_derived(t.get("transforms", []))

    drop_derived(saved["transform"]["transforms"])
    if saved["transform"] != doc["transform"]:
        for a, b in zip(saved["transform"]["transforms"], doc["transform"]["transforms"]):
            if a != b:
                print(f"{path}: library wrote {json.dumps(a, sort_keys=True)}", file=sys.stderr)
                print(f"{path}: file has      {json.dumps(b, sort_keys=True)}", file=sys.stderr)
        raise SystemExit(f"{path}: A.to_dict(A.load(file)) differs from the file")
    if saved.get("__version__") != doc.get("__version__"):
        raise SystemExit(f"{path}: version {saved.get('__version__')} != {doc.get('__version__')}")
    return pipeline


class Recorder:
    """Stands in for a transform's py_random and records what each call returned, in order."""

    def __init__(self, rng):
        self.rng, self.values = rng, []

    def __getattr__(self, name):
        method = getattr(self.rng, name)

        def call(*args, **kwargs):
            value = method(*args, **kwargs)
            self.values.append(value)
            return value

        return call


def grid_tiles(op):
    """RandomGridShuffle's tiles (y0, x0, y1, x1), row-major, from an AugLab replay's sides."""
    import numpy as np

    ys = np.insert(np.cumsum(op["row_heights"]), 0, 0)
    xs = np.insert(np.cumsum(op["col_widths"]), 0, 0)
    return np.array([(ys[i], xs[j], ys[i + 1], xs[j + 1]) for i in range(len(ys) - 1) for j in range(len(xs) - 1)],
                    dtype=np.int16)


def draw_once(t, shape, image):
    """One draw of transform t's parameters, as the library makes them, in AugLab's keys and units."""
    height, width = shape
    name = type(t).__name__
    recorder = Recorder(t.py_random)
    t.py_random = recorder
    try:
        params = {"shape": (height, width, 3)}
        params.update(t.get_params())
        if name == "Downscale":
            return {"scale_range": params["scale"]}
        if name == "RandomGridShuffle":  # where the first cell goes, and the first row's height
            p = t.get_params_dependent_on_data(params, {"image": image})
            return {"grid": [int(p["mapping"][0]), int(p["tiles"][0][2] - p["tiles"][0][0])]}
        if name == "GridDistortion":  # the offsets of the steps drawn, x then y
            t.get_params_dependent_on_data(params, {"image": image})
            return {"distort_limit": list(recorder.values)}
        if name == "OpticalDistortion":  # the coefficient
            t.get_params_dependent_on_data(params, {"image": image})
            return {"distort_limit": recorder.values[0]}
        if name == "Affine":
            seen = {}
            translate, shear = t._get_translate_params, t._get_shear_params
            t._get_translate_params = lambda s: seen.setdefault("translate", translate(s))
            t._get_shear_params = lambda: seen.setdefault("shear", shear())
            try:
                p = t.get_params_dependent_on_data(params, {"image": image})
            finally:
                del t._get_translate_params, t._get_shear_params
            return {"rotate_deg": p["rotate"], "scale_x": p["scale"]["x"], "scale_y": p["scale"]["y"],
                    "shear_x_deg": -seen["shear"]["x"], "shear_y_deg": -seen["shear"]["y"],
                    "translate_x_frac": seen["translate"]["x"] / width,
                    "translate_y_frac": seen["translate"]["y"] / height}
        seen = {}
        if name == "Perspective":
            from albumentations.augmentations.geometric import functional as fgeometric

            generate = fgeometric.generate_perspective_points
            fgeometric.generate_perspective_points = lambda *a: seen.setdefault("points", generate(*a)).copy()
            try:
                p = t.get_params_dependent_on_data(params, {"image": image})
            finally:
                fgeometric.generate_perspective_points = generate
        else:
            p = t.get_params_dependent_on_data(params, {"image": image})
        if name == "RandomBrightnessContrast":
            return {"contrast": recorder.values[0], "brightness": recorder.values[1]}
        if name == "HueSaturationValue":  # OpenCV hue units (2 degrees) there, degrees here
            return {"hue_shift_deg": 2 * params["hue_shift"], "sat_shift": params["sat_shift"],
                    "val_shift": params["val_shift"]}
        if name == "GaussianBlur":
            return {"sigma_px": recorder.values[0]}
        if name == "Sharpen":
            return {"alpha": recorder.values[0], "lightness": recorder.values[1]}
        if name == "Emboss":
            return {"alpha": recorder.values[0], "strength": recorder.values[1]}
        if name == "PixelDropout":  # one value per channel, drawn per image (drop_value None)
            return {"drop_value": [int(v) for v in p["drop_values"][0, 0]]}
        if name == "RingingOvershoot":  # randrange's size, then the cutoff
            return {"kernel_size": params["kernel"].shape[0], "cutoff": recorder.values[-1]}
        if name == "AdvancedBlur":  # [size index,] sigma x, sigma y, angle, which side of 1, beta
            sx, sy, angle, _, beta = recorder.values[-5:]
            return {"kernel_size": params["kernel"].shape[0], "sigma_x": sx, "sigma_y": sy, "rotate": angle,
                    "beta": beta}
        if name == "SaltAndPepper":  # the amount, then the salt share
            t.get_params_dependent_on_data(params, {"image": image})
            return {"amount": recorder.values[0], "salt_vs_pepper": recorder.values[1]}
        if name == "PlanckianJitter":
            return {"temperature": params["temperature"]}
        if name == "Defocus":
            return {"radius": params["radius"], "alias_blur": params["alias_blur"]}
        if name in ("Blur", "MedianBlur"):
            return {"kernel_size": params["kernel"]}
        if name == "MotionBlur":  # [kernel size index,] angle, direction, shift x, shift y
            return {"kernel_size": params["kernel"].shape[0], "angle": recorder.values[-4],
                    "direction": recorder.values[-3]}
        if name == "RandomGamma":  # the exponent in percent here
            return {"gamma_pct": 100 * p["gamma"]}
        if name == "Solarize":
            return {"threshold_frac": params["threshold"]}
        if name == "Posterize":
            return {"bits": params["num_bits"]}
        if name == "RGBShift":  # the constant noise per channel, in levels
            return {"r_shift": float(p["noise_map"][0]), "g_shift": float(p["noise_map"][1]),
                    "b_shift": float(p["noise_map"][2])}
        if name == "GaussNoise":
            return {"std_frac": recorder.values[0], "mean_frac": recorder.values[1]}
        if name == "CoarseDropout":
            holes = p["holes"]
            h, w = holes[:, 3] - holes[:, 1], holes[:, 2] - holes[:, 0]
            return {"holes": [len(holes)], "hole_height_px": h.tolist(), "hole_width_px": w.tolist(),
                    "hole_height_frac": (h / height).tolist(), "hole_width_frac": (w / width).tolist()}
        if name == "Perspective":
            x = seen["points"]  # generate_perspective_points: tl, tr, br, bl before ordering
            w, h = width, height
            return {"scale": [x[0][0] / w, x[0][1] / h, 1 - x[1][0] / w, x[1][1] / h,
                              1 - x[2][0] / w, 1 - x[2][1] / h, x[3][0] / w, 1 - x[3][1] / h]}
        if name == "RandomRotate90":
            return {"factor": params["factor"]}
        if name in ("RandomCrop", "PadIfNeeded"):  # the window's and the padding's places
            out = {}
            if name == "RandomCrop":
                out = {"crop_x": p["crop_coords"][0], "crop_y": p["crop_coords"][1]}
            pad = p if name == "PadIfNeeded" else p["pad_params"]
            if pad is not None and pad["pad_top"] + pad["pad_bottom"] + pad["pad_left"] + pad["pad_right"] > 0:
                out.update(pad_top=pad["pad_top"], pad_left=pad["pad_left"])
            return out
        if name in ("LongestMaxSize", "SmallestMaxSize"):  # the side length drawn, from the scale
            side = max(height, width) if name == "LongestMaxSize" else min(height, width)
            return {"max_size": round(p["scale"] * side)}
        if name == "RandomSizedCrop":  # the drawn height (below the image's here) and the corner
            x1, y1, x2, y2 = p["crop_coords"]
            return {"min_max_height": y2 - y1, "crop_x": x1, "crop_y": y1}
        if name == "RandomScale":
            return {"scale_limit": params["scale"] - 1.0}
        if name == "ChannelDropout":  # how many, and which
            channels = list(p["channels_to_drop"])
            return {"channel_drop_range": len(channels), "channel": channels}
        if name == "D4":  # the element's place in the library's list
            return {"element": ["e", "r90", "r180", "r270", "v", "hvt", "h", "t"].index(params["group_element"])}
        if name == "XYMasking":  # the counts and the stripes' thicknesses, along x first
            holes = p["holes"].reshape(-1, 4)
            along_x = [h for h in holes if h[1] == 0 and h[3] == height and not (h[0] == 0 and h[2] == width)]
            along_y = [h for h in holes if not (h[1] == 0 and h[3] == height and not (h[0] == 0 and h[2] == width))]
            return {"num_masks_x": len(along_x), "num_masks_y": len(along_y),
                    "mask_x_length": [int(h[2] - h[0]) for h in along_x],
                    "mask_y_length": [int(h[3] - h[1]) for h in along_y]}
        if name == "SafeRotate":
            return {"limit": p["rotate"]}
        if name == "Rotate":  # the angle, its one draw
            return {"rotate_deg": recorder.values[0]}
        if name == "MultiplicativeNoise":  # the first channel's factor
            import numpy as np

            return {"multiplier": float(np.ravel(p["multiplier"])[0])}
        if name == "ISONoise":
            return {"color_shift": p["color_shift"], "intensity": p["intensity"]}
        if name == "CLAHE":
            return {"clip_limit": params["clip_limit"]}
        if name == "RandomFog":  # the coefficient, how many particles, the first one's x and radius
            out = {"fog_coef": p["intensity"], "particle_count": len(p["particle_positions"])}
            if p["particle_positions"]:
                out.update(first_x=p["particle_positions"][0][0], first_radius=int(p["radiuses"][0]))
            return out
        if name == "RandomShadow":  # the count, the intensities, each shadow's first vertex
            return {"num_shadows": len(p["vertices_list"]), "shadow_intensity": [float(v) for v in p["intensities"]],
                    "first_x": [int(v[0][0]) for v in p["vertices_list"]],
                    "first_y": [int(v[0][1]) for v in p["vertices_list"]]}
        if name == "RandomRain":  # the slant, how many drops, the first one's upper end
            drops = p["rain_drops"]
            out = {"slant": p["slant"], "drop_count": len(drops)}
            if len(drops):
                out.update(first_x=int(drops[0][0]), first_y=int(drops[0][1]))
            return out
        if name == "RandomSunFlare":  # the direction's fraction of a turn, the sun, the circles
            circles = p["circles"]
            return {"angle": recorder.values[0], "center_x": p["flare_center"][0], "center_y": p["flare_center"][1],
                    "num_flare_circles": len(circles), "circle_alpha": [c[0] for c in circles],
                    "circle_size": [c[2] for c in circles], "circle_red": [c[3][0] for c in circles]}
        if name == "FancyPCA":
            return {"alpha": [float(v) for v in p["alpha_vector"]]}
        if name == "ColorJitter":  # the factors, and the order's place among the 24 (lexicographic)
            import itertools

            return {"brightness": params["brightness"], "contrast": params["contrast"],
                    "saturation": params["saturation"], "hue": params["hue"],
                    "order": list(itertools.permutations(range(4))).index(tuple(params["order"]))}
        if name == "ChannelShuffle":  # the order's place among the six, in lexicographic order
            import itertools

            return {"order": list(itertools.permutations(range(3))).index(tuple(p["channels_shuffled"]))}
        if name == "ImageCompression":
            return {"quality_range": params["quality"]}
        if name == "RandomToneCurve":  # the first channel's control points
            import numpy as np

            return {"low_y": float(np.ravel(p["low_y"])[0]), "high_y": float(np.ravel(p["high_y"])[0])}
        if name == "Crop":  # the random padding's place
            pad = p["pad_params"]
            return {} if pad is None else {"pad_top": pad["pad_top"], "pad_left": pad["pad_left"]}
        if name == "RandomResizedCrop":
            x1, y1, x2, y2 = p["crop_coords"]
            return {"scale": (x2 - x1) * (y2 - y1) / (width * height), "ratio": (x2 - x1) / (y2 - y1)}
        return {}
    finally:
        t.py_random = recorder.rng


def main(argv):
    if len(argv) >= 2 and argv[0] == "load":
        for path in argv[1:]:
            load_strict(path)
            print(f"ok {path}")
        return 0
    if len(argv) >= 4 and len(argv) % 2 == 0 and argv[0] == "apply":
        import cv2

        image = cv2.cvtColor(cv2.imread(argv[1], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        for path, out_path in zip(argv[2::2], argv[3::2]):
            out = load_strict(path)(image=image)["image"]
            if not cv2.imwrite(out_path, cv2.cvtColor(out, cv2.COLOR_RGB2BGR)):
                raise SystemExit(f"cannot write {out_path}")
        import albumentations

        print(f"albumentations {albumentations.__version__}, opencv {cv2.__version__}")
        return 0
    if len(argv) >= 3 and len(argv) % 2 == 1 and argv[0] == "same-dict":
        # The library's own reading of pairs of files (an original, its round trip):
        # A.to_dict(A.load(...)) of both; per pair a line: whether they are the same, and the leaves
        # (transforms) of the original the round trip lacks.
        import albumentations as A

        def leaves(t):
            if "transforms" in t:
                return [x for c in t["transforms"] for x in leaves(c)]
            return [t]

        for original, back in zip(argv[1::2], argv[2::2]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a, b = (A.to_dict(A.load(path))["transform"] for path in (original, back))
            theirs = [json.dumps(t, sort_keys=True) for t in leaves(b)]
            missing = [t for t in leaves(a) if json.dumps(t, sort_keys=True) not in theirs]
            print(json.dumps({"same": a == b, "leaves": len(leaves(a)),
                              "missing": [t["__class_fullname__"] for t in missing]}))
        return 0
    if len(argv) == 4 and argv[0] == "same":
        import albumentations as A
        import cv2
        import numpy as np

        image = cv2.cvtColor(cv2.imread(argv[3], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        pipelines = [A.load(path) for path in argv[1:3]]
        for seed in range(7, 15):  # eight runs, each seed the same for both
            outputs = []
            for pipeline in pipelines:
                pipeline.set_random_seed(seed)
                outputs.append(pipeline(image=image)["image"])
            a, b = outputs
            if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b):
                raise SystemExit(f"seed {seed}: different outputs: {a.dtype} {a.shape} vs {b.dtype} {b.shape}")
        print(f"same: {a.dtype} {a.shape} for 8 seeds, values {float(a.min()):.4f} .. {float(a.max()):.4f}")
        return 0
    if len(argv) == 5 and argv[0] == "grid-units":
        import numpy as np
        from albumentations.augmentations.dropout import functional as fdropout

        shape, n = (int(argv[2]), int(argv[3])), int(argv[4])
        rng = np.random.default_rng(1)
        for t in load_strict(argv[1]).transforms:
            if type(t).__name__ == "GridDropout":
                units = [fdropout.calculate_grid_dimensions(shape, t.unit_size_range, t.holes_number_xy, rng)[0]
                         for _ in range(n)]
                print(min(units), max(units))
        return 0
    if len(argv) == 4 and argv[0] == "perspective":
        import cv2
        import numpy as np
        from albumentations.augmentations.geometric import functional as fgeometric

        image = cv2.cvtColor(cv2.imread(argv[1], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        with open(argv[2]) as f:
            op = next(o for o in json.load(f)["ops"] if o["op"] == "perspective" and o["applied"])
        shape = image.shape[:2]
        points = np.array(op["corners_px"], dtype=np.float32)
        matrix, max_width, max_height = fgeometric.compute_perspective_params(points, shape)
        if op["fit_output"]:
            matrix, max_width, max_height = fgeometric.expand_transform(matrix, shape)
        if [max_width, max_height] != op["max_size"]:
            raise SystemExit(f"max size {max_width}x{max_height}, the replay says {op['max_size']}")
        borders = {"constant": 0, "replicate": 1, "reflect": 2, "wrap": 3, "reflect_101": 4}
        fill = op["fill"] if len(set(op["fill"])) > 1 else float(op["fill"][0])
        out = fgeometric.perspective(image, matrix, max_width, max_height, fill, borders[op["border"]],
                                     op["keep_size"], 0 if op["interpolation"] == "nearest" else 1)
        if not cv2.imwrite(argv[3], cv2.cvtColor(out, cv2.COLOR_RGB2BGR)):
            raise SystemExit(f"cannot write {argv[3]}")
        return 0
    if len(argv) >= 4 and len(argv) % 2 == 0 and argv[0] == "motion-blur":
        import cv2
        import numpy as np
        from albumentations.augmentations.blur import functional as fblur
        from albumentations.augmentations.pixel import functional as fpixel

        class Shifts:
            """create_motion_kernel's random_state: the replay's shift, as the uniform draw it came from."""

            def __init__(self, u):
                self.u = list(u)

            def uniform(self, lo, hi):
                return self.u.pop(0)

        image = cv2.cvtColor(cv2.imread(argv[1], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        for replay_path, out_path in zip(argv[2::2], argv[3::2]):  # a line per pair
            with open(replay_path) as f:
                op = next(o for o in json.load(f)["ops"] if o["op"] == "motion_blur" and o["applied"])
            k = op["kernel_size"]
            half = (k // 2) / 2
            kernel = fblur.create_motion_kernel(k, op["angle"], op["direction"], allow_shifted=True,
                                                random_state=Shifts(s / half for s in op["shift"]))
            out = fpixel.convolve(image, kernel=kernel.astype(np.float32) / np.sum(kernel))
            if not cv2.imwrite(out_path, cv2.cvtColor(out, cv2.COLOR_RGB2BGR)):
                raise SystemExit(f"cannot write {out_path}")
            print(f"{k}x{k} kernel, {int(kernel.sum())} pixels on the line")
        return 0
    if len(argv) == 6 and argv[0] == "elastic":
        # ElasticTransform fed AugLab's noise (its replay's noise_seed, written out by the test as raw
        # float32): the library's own generate_displacement_fields (normalisation, cv2.GaussianBlur of
        # the stacked fields, alpha), its map arithmetic and remap.
        import cv2
        import numpy as np
        from albumentations.augmentations.geometric import functional as fgeometric

        image = cv2.cvtColor(cv2.imread(argv[1], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        with open(argv[2]) as f:
            op = next(o for o in json.load(f)["ops"] if o["op"] == "elastic_transform" and o["applied"])
        noise = np.fromfile(argv[3], dtype=np.float32)
        height, width = image.shape[:2]

        class Noise:
            """The random generator generate_displacement_fields calls, giving AugLab's noise."""

            def standard_normal(self, shape, dtype):
                return noise.reshape(shape).astype(dtype)

            def uniform(self, low, high, size):
                return noise.reshape(size).astype(np.float64)

        kernel_size = (17, 17) if op["approximate"] else (0, 0)
        dx, dy = fgeometric.generate_displacement_fields(
            (height, width), op["alpha"], op["sigma"], same_dxdy=op["same_dxdy"], kernel_size=kernel_size,
            random_generator=Noise(), noise_distribution=op["noise_distribution"])
        coords = np.stack(np.meshgrid(np.arange(width), np.arange(height)))
        maps = coords + np.stack([dx, dy])
        borders = {"constant": 0, "replicate": 1, "reflect": 2, "wrap": 3, "reflect_101": 4}
        fill = op["fill"] if len(set(op["fill"])) > 1 else float(op["fill"][0])
        out = fgeometric.remap(image, maps[0].astype(np.float32), maps[1].astype(np.float32),
                               0 if op["interpolation"] == "nearest" else 1, borders[op["border"]], fill)
        if not cv2.imwrite(argv[4], cv2.cvtColor(out, cv2.COLOR_RGB2BGR)):
            raise SystemExit(f"cannot write {argv[4]}")
        np.stack([maps[0], maps[1]]).astype(np.float32).tofile(argv[5])
        print(f"largest displacement {np.abs(np.stack([dx, dy])).max():.2f} px")
        return 0
    if len(argv) == 5 and argv[0] == "iso-noise":
        # ISONoise fed AugLab's noise (written by the test: int32 Poisson counts, then float64 standard
        # normals, one each per pixel in raster order): the library's own iso_noise does the rest (float
        # HLS, meanStdDev, the additions, HLS2RGB, from_float). Prints the library's lambda.
        import cv2
        import numpy as np
        from albumentations.augmentations.pixel import functional as fpixel

        image = cv2.cvtColor(cv2.imread(argv[1], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        with open(argv[2]) as f:
            op = next(o for o in json.load(f)["ops"] if o["op"] == "iso_noise" and o["applied"])
        n = image.shape[0] * image.shape[1]
        raw = open(argv[3], "rb").read()
        counts = np.frombuffer(raw[: 4 * n], dtype=np.int32).astype(np.int64)
        normals = np.frombuffer(raw[4 * n:], dtype=np.float64)
        seen = {}

        class Noise:
            """The random generator iso_noise calls, giving AugLab's noise."""

            def poisson(self, lam, size):
                seen["lambda"] = float(np.ravel(lam)[0])
                return counts.reshape(size)

            def normal(self, loc, scale, size):
                return loc + scale * normals.reshape(size)

        out = fpixel.iso_noise(image, op["color_shift"], op["intensity"], Noise())
        if not cv2.imwrite(argv[4], cv2.cvtColor(out, cv2.COLOR_RGB2BGR)):
            raise SystemExit(f"cannot write {argv[4]}")
        print(repr(seen["lambda"]))
        return 0
    if len(argv) >= 5 and len(argv) % 2 == 1 and argv[0] == "replay-fed":
        import cv2
        import numpy as np

        image = cv2.cvtColor(cv2.imread(argv[2], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        # One line per (replay, output) pair, in order: what the library was fed.
        for replay_path, out_path in zip(argv[3::2], argv[4::2]):
            with open(replay_path) as f:
                op = next(o for o in json.load(f)["ops"] if o["op"] == argv[1] and o["applied"])
            if argv[1] == "channel_dropout":
                from albumentations.augmentations.dropout.functional import channel_dropout

                out = channel_dropout(image, op["channels"], op["fill"])
                print(f"channels {op['channels']} set to {op['fill']}")
            elif argv[1] == "planckian_jitter":
                from albumentations.augmentations.pixel import functional as fpixel

                out = fpixel.planckian_jitter(image, op["temperature"], mode=op["mode"])
                print(f"{op['temperature']} K, {op['mode']}")
            elif argv[1] == "d4":
                from albumentations.augmentations.geometric import functional as fgeometric

                out = fgeometric.d4(image, op["element"])
                print(f"element {op['element']}")
            elif argv[1] == "random_tone_curve":
                from albumentations.augmentations.pixel import functional as fpixel

                low, high = op["low_y"], op["high_y"]
                if len(set(low)) == 1 and len(set(high)) == 1:  # one curve: the library's scalar form
                    out = fpixel.move_tone_curve(image, float(low[0]), float(high[0]))
                else:
                    out = fpixel.move_tone_curve(image, np.array(low), np.array(high))
                print(f"low_y {[round(v, 4) for v in low]}, high_y {[round(v, 4) for v in high]}")
            elif argv[1] == "xy_masking":
                from albumentations.augmentations.dropout.functional import cutout

                holes = np.array([[x, y, x + w, y + h] for x, y, w, h in op["holes"]]).reshape(-1, 4)
                out = cutout(image, holes, tuple(float(v) for v in op["fill"]), np.random.default_rng(0))
                print(f"holes {op['holes']}")
            elif argv[1] == "channel_shuffle":
                from albumentations.augmentations.pixel import functional as fpixel

                out = fpixel.channel_shuffle(image, op["channels"])
                print(f"channels {op['channels']}")
            elif argv[1] in ("random_resized_crop", "random_sized_crop"):  # _BaseRandomSizedCrop.apply
                from albumentations.augmentations.crops import functional as fcrops
                from albumentations.augmentations.geometric import functional as fgeometric

                x, y, w, h = op["crop"]
                inter = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR}
                out = fgeometric.resize(fcrops.crop(image, x, y, x + w, y + h), tuple(op["size"]),
                                        inter[op["interpolation"]])
                print(f"crop {op['crop']} to {op['size']}")
            elif argv[1] == "downscale":
                from albumentations.augmentations.pixel import functional as fpixel

                inter = {"nearest": 0, "linear": 1}
                out = fpixel.downscale(image, op["scale"], inter[op["down_interpolation"]], inter[op["up_interpolation"]])
                print(f"scale {op['scale']:.4f}")
            elif argv[1] == "color_jitter":  # ColorJitter.apply: the library's four functions in the replay's order
                from albumentations.augmentations.pixel import functional as fpixel

                steps = [fpixel.adjust_brightness_torchvision, fpixel.adjust_contrast_torchvision,
                         fpixel.adjust_saturation_torchvision, fpixel.adjust_hue_torchvision]
                factors = [op["brightness"], op["contrast"], op["saturation"], op["hue"]]
                out = image
                for i in op["order"]:
                    out = steps[i](out, factors[i])
                print(f"factors {[round(v, 4) for v in factors]}, order {op['order']}")
            elif argv[1] == "random_fog":
                from albumentations.augmentations.pixel import functional as fpixel

                particles = op["particles"]
                out = fpixel.add_fog(image, op["intensity"], op["alpha_coef"], [(x, y) for x, y, _ in particles],
                                     [r for _, _, r in particles])
                print(f"intensity {op['intensity']:.4f}, {len(particles)} particles")
            elif argv[1] == "random_shadow":
                from albumentations.augmentations.pixel import functional as fpixel

                shadows = op["shadows"]
                out = fpixel.add_shadow(image, [np.array(s["vertices"], dtype=np.int64) for s in shadows],
                                        np.array([s["intensity"] for s in shadows]))
                print(f"{len(shadows)} shadows, intensities {[round(s['intensity'], 4) for s in shadows]}")
            elif argv[1] == "random_rain":
                from albumentations.augmentations.pixel import functional as fpixel

                drops = np.array(op["drops"], dtype=np.int32).reshape(-1, 2)
                out = fpixel.add_rain(image, op["slant"], op["drop_length"], op["drop_width"], tuple(op["drop_color"]),
                                      op["blur_value"], op["brightness_coefficient"], drops)
                print(f"slant {op['slant']:.3f}, length {op['drop_length']}, {len(drops)} drops")
            elif argv[1] == "random_sun_flare":
                from albumentations.augmentations.pixel import functional as fpixel

                circles = [(c["alpha"], tuple(c["center"]), c["size"], tuple(c["color"])) for c in op["circles"]]
                flare = (fpixel.add_sun_flare_physics_based if op["method"] == "physics_based"
                         else fpixel.add_sun_flare_overlay)
                out = flare(image, tuple(op["center"]), op["src_radius"], tuple(op["src_color"]), circles)
                print(f"{op['method']}, sun at {op['center']}, {len(circles)} circles")
            elif argv[1] == "fancy_pca":  # a weight's sign follows its eigenvector's (LAPACK's there, a rule here)
                from albumentations.augmentations.pixel import functional as fpixel

                flat = cv2.LUT(image, np.arange(256, dtype=np.float32) / 255).reshape(-1, 3)
                values, vectors = np.linalg.eigh(np.cov(flat - np.mean(flat, axis=0), rowvar=False))
                vectors = vectors[:, values[::-1].argsort()]
                signs = np.array([1 if v[np.argmax(np.abs(v))] > 0 else -1 for v in vectors.T], dtype=np.float32)
                alpha = np.array(op["alpha_vector"], dtype=np.float32)
                out = fpixel.fancy_pca(image, alpha * signs)
                print(f"alpha {[round(float(v), 4) for v in alpha]}, signs {signs.tolist()}")
            elif argv[1] == "random_grid_shuffle":
                from albumentations.augmentations.geometric import functional as fgeometric

                tiles = grid_tiles(op)
                out = fgeometric.swap_tiles_on_image(image, tiles, op["mapping"])
                print(f"rows {op['row_heights']}, columns {op['col_widths']}, mapping {op['mapping']}")
            elif argv[1] in ("grid_distortion", "optical_distortion"):
                from albumentations.augmentations.geometric import functional as fgeometric

                shape = image.shape[:2]
                if argv[1] == "grid_distortion":
                    steps_x, steps_y = list(op["steps_x"]), list(op["steps_y"])
                    if op["normalized"]:
                        n = fgeometric.normalize_grid_distortion_steps(shape, op["num_steps"], steps_x, steps_y)
                        steps_x, steps_y = n["steps_x"], n["steps_y"]
                    map_x, map_y = fgeometric.generate_grid(shape, steps_x, steps_y, op["num_steps"])
                    print(f"{op['num_steps']} steps, x {[round(v, 4) for v in op['steps_x']]}")
                else:
                    maps = (fgeometric.get_fisheye_distortion_maps if op["mode"] == "fisheye"
                            else fgeometric.get_camera_matrix_distortion_maps)
                    map_x, map_y = maps(shape, op["k"])
                    print(f"{op['mode']} k {op['k']:.5f}")
                borders = {"constant": 0, "replicate": 1, "reflect": 2, "wrap": 3, "reflect_101": 4}
                fill = op["fill"] if len(set(op["fill"])) > 1 else float(op["fill"][0])
                out = fgeometric.remap(image, map_x, map_y, 0 if op["interpolation"] == "nearest" else 1,
                                       borders[op["border"]], fill)
            else:
                raise SystemExit(f"no replay-fed form for {argv[1]}")
            if not cv2.imwrite(out_path, cv2.cvtColor(out, cv2.COLOR_RGB2BGR)):
                raise SystemExit(f"cannot write {out_path}")
        return 0
    if len(argv) >= 5 and argv[0] == "draws":
        import numpy as np

        shape, n = (int(argv[-3]), int(argv[-2])), int(argv[-1])
        image = np.zeros(shape + (3,), np.uint8)
        for path in argv[1:-3]:
            pipeline = load_strict(path)
            pipeline.set_random_seed(1)
            result = []
            for t in pipeline.transforms:
                values = {}
                for _ in range(n):
                    for key, v in draw_once(t, shape, image).items():
                        values.setdefault(key, []).extend(v if isinstance(v, list) else [v])
                result.append(values)
            print(json.dumps(result))
        return 0
    if len(argv) == 3 and argv[0] == "applied":
        import albumentations as A
        import numpy as np

        loaded = load_strict(argv[1])
        pipeline = A.Compose(loaded.transforms, save_applied_params=True)
        # A Compose seed gives every transform the same seed, so that their draws (the gates of
        # several transforms) would be correlated: each transform and group gets a seed of its own,
        # from the outside in (a group passes its seed down to its children).
        def nodes(transforms):
            for t in transforms:
                yield t
                yield from nodes(getattr(t, "transforms", []))

        for i, t in enumerate(nodes(pipeline.transforms)):
            t.set_random_seed(1000 + i)
        image = np.zeros((24, 32, 3), np.uint8)
        runs = [">".join(name for name, _ in pipeline(image=image)["applied_transforms"]) for _ in range(int(argv[2]))]
        print(json.dumps(runs))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
