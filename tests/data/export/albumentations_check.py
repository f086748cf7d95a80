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
    bad = [(type(t).__name__, t.invalid_args) for t in pipeline.transforms if getattr(t, "invalid_args", [])]
    if bad:
        raise SystemExit(f"{path}: invalid arguments {bad}")
    pipeline.strict = True  # Compose validates every transform's arguments again
    saved = json.loads(json.dumps(A.to_dict(pipeline)))
    if saved["transform"] != doc["transform"]:
        for a, b in zip(saved["transform"]["transforms"], doc["transform"]["transforms"]):
            if a != b:
                print(f"{path}: library wrote {json.dumps(a, sort_keys=True)}", file=sys.stderr)
                print(f"{path}: file has      {json.dumps(b, sort_keys=True)}", file=sys.stderr)
        raise SystemExit(f"{path}: A.to_dict(A.load(file)) differs from the file")
    if saved.get("__version__") != doc.get("__version__"):
        raise SystemExit(f"{path}: version {saved.get('__version__')} != {doc.get('__version__')}")
    return pipeline


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
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
