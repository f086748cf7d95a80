"""Runs torchvision exports for tests/test_export_runtimes.

    python torchvision_check.py EXPORT.py INPUT.png OUTPUT.png [EXPORT.py INPUT.png OUTPUT.png ...]
    python torchvision_check.py --draws EXPORT.py HEIGHT WIDTH N
    python torchvision_check.py --perspective EXPORT.py INPUT.png REPLAY.json OUTPUT.png [...]
    python torchvision_check.py --mix EXPORT.py A.png B.png N

Each export is imported as a module and its `transform` applied to the image as torchvision reads
it (torchvision.io.decode_image, uint8 C x H x W, RGB); the output is written with
torchvision.io.write_png. torch's generator is seeded once (5). One process for all of them; exits
non-zero, naming the export, when one raises.

With --draws, each transform of the export's Compose (unwrapped from RandomApply) draws its
parameters N times for a HEIGHT x WIDTH image through torchvision's own make_params; printed as one
JSON list, per transform AugLab's key -> the N values (in AugLab's units and sign), empty for
transforms whose draws are not compared.
"""

import importlib.util
import json
import sys

import torch
import torchvision
from torchvision.io import ImageReadMode, decode_image, read_file, write_png


def draws(module_path, height, width, n):
    import json

    spec = importlib.util.spec_from_file_location("export", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    image = torch.zeros((3, height, width), dtype=torch.uint8)
    result = []
    for t in module.transform.transforms:
        if type(t).__name__ == "RandomApply":
            t = t.transforms[0]
        name, values = type(t).__name__, {}
        for _ in range(n):
            p = t.make_params([image]) if hasattr(t, "make_params") else {}
            if name == "RandomAffine":  # torchvision turns clockwise for positive angles
                row = {"rotate_deg": -p["angle"], "scale_x": p["scale"], "scale_y": p["scale"],
                       "shear_x_deg": p["shear"][0], "shear_y_deg": p["shear"][1],
                       "translate_x_frac": p["translate"][0] / width, "translate_y_frac": p["translate"][1] / height}
            elif name == "RandomResizedCrop":
                row = {"scale": p["height"] * p["width"] / (height * width), "ratio": p["width"] / p["height"]}
            elif name == "ColorJitter":
                row = {"hue_shift_deg": p["hue_factor"] * 360.0}
            elif name == "GaussianBlur":
                row = {"sigma_px": p["sigma"][0]}
            else:
                row = {}
            for key, v in row.items():
                values.setdefault(key, []).append(float(v))
        result.append(values)
    print(json.dumps(result))


def perspective(module_path, input_path, replay_path, output_path):
    """The export's Perspective helper warping with the corners of the replay's perspective op."""
    import json

    spec = importlib.util.spec_from_file_location("export", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    helper = next(t.transforms[0] if type(t).__name__ == "RandomApply" else t for t in module.transform.transforms
                  if type(t.transforms[0] if type(t).__name__ == "RandomApply" else t).__name__ == "Perspective")
    with open(replay_path) as f:
        op = next(o for o in json.load(f)["ops"] if o["op"] == "perspective" and o["applied"])
    image = decode_image(read_file(input_path), mode=ImageReadMode.RGB)
    write_png(helper.warp(image, torch.tensor(op["corners_px"], dtype=torch.float32)).contiguous(), output_path)


def mix(module_path, a_path, b_path, n):
    """The export's collate_fn over the batch [(A, 0), (B, 1)], N times, with one MixUp or CutMix in
    batch_transform: image 0 mixed with image 1 (the batch's previous one). Each output is checked
    against the written-out blend or paste with the weight its label says (label 0 of image 0);
    the weights are printed as a JSON list."""
    import json

    spec = importlib.util.spec_from_file_location("export", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kinds = [type(t.transforms[0] if type(t).__name__ == "RandomApply" else t).__name__
             for t in module.batch_transform.transforms]
    if len(kinds) != 1 or kinds[0] not in ("MixUp", "CutMix"):
        sys.exit(f"{module_path}: expected one MixUp or CutMix in batch_transform, found {kinds}")
    a = decode_image(read_file(a_path), mode=ImageReadMode.RGB)
    b = decode_image(read_file(b_path), mode=ImageReadMode.RGB)
    weights = []
    for _ in range(n):
        images, labels = module.collate_fn([(a, 0), (b, 1)])
        if images.dtype != torch.uint8 or labels.shape != (2, module.NUM_CLASSES):
            sys.exit(f"collate_fn returned {images.dtype} images and labels of shape {tuple(labels.shape)}")
        lam = float(labels[0, 0])
        if abs(float(labels[0, 1]) - (1.0 - lam)) > 1e-6:
            sys.exit(f"labels of image 0 are {labels[0].tolist()}, not lambda and 1 - lambda")
        out, A, B = images[0].double(), a.double(), b.double()
        if kinds[0] == "MixUp":
            expected = torch.floor(lam * A + (1.0 - lam) * B + 0.5)
            worst = float((out - expected).abs().max())
            if worst > 1:  # float32 in torchvision: a value at a half may round either way
                sys.exit(f"MixUp with lambda {lam}: the image is {worst} levels from lam*A + (1-lam)*B")
        else:
            fromA, fromB = (out == A).all(0), (out == B).all(0)
            if not bool((fromA | fromB).all()):
                sys.exit("CutMix: pixels that are neither image's")
            pasted = (~fromA).nonzero()
            if len(pasted):
                h = int(pasted[:, 0].max() - pasted[:, 0].min() + 1)
                w = int(pasted[:, 1].max() - pasted[:, 1].min() + 1)
                if h * w > (1.0 - lam) * A.shape[1] * A.shape[2] + 0.5:  # labels are float32
                    sys.exit(f"CutMix: pasted pixels span {w}x{h}, more than 1 - lambda = {1 - lam} of the image")
        weights.append(lam)
    print(json.dumps(weights))


def applied(module_path, n):
    """Runs the export's transform n times on a small image whose flips and inversion all differ, and
    prints, per run, which of them the output shows (an odd number of times): "h", "v", "i" joined."""
    spec = importlib.util.spec_from_file_location("export_applied", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    image = (torch.arange(3 * 6 * 8, dtype=torch.int64).reshape(3, 6, 8) * 7 % 251).to(torch.uint8)
    candidates = {}
    for h in (0, 1):
        for v in (0, 1):
            for i in (0, 1):
                x = image
                if h:
                    x = x.flip(-1)
                if v:
                    x = x.flip(-2)
                if i:
                    x = 255 - x
                candidates["h" * h + "v" * v + "i" * i] = x
    runs = []
    for _ in range(n):
        out = module.transform(image)
        found = [name for name, x in candidates.items() if torch.equal(out, x)]
        if len(found) != 1:
            sys.exit(f"an output that is no combination of flips and inversion: {out}")
        runs.append(found[0])
    print(json.dumps(runs))


def main(args):
    if len(args) == 3 and args[0] == "--applied":
        torch.manual_seed(5)
        applied(args[1], int(args[2]))
        return
    if len(args) == 5 and args[0] == "--mix":
        torch.manual_seed(5)
        mix(args[1], args[2], args[3], int(args[4]))
        return
    if len(args) >= 5 and (len(args) - 1) % 4 == 0 and args[0] == "--perspective":
        for i in range(1, len(args), 4):  # one process for all the samples: the import is the slow part
            perspective(*args[i:i + 4])
        return
    if len(args) == 5 and args[0] == "--draws":
        torch.manual_seed(5)
        draws(args[1], int(args[2]), int(args[3]), int(args[4]))
        return
    if len(args) % 3 != 0 or not args:
        sys.exit("usage: torchvision_check.py EXPORT.py INPUT.png OUTPUT.png [...]")
    torch.manual_seed(5)
    for i in range(0, len(args), 3):
        module_path, input_path, output_path = args[i:i + 3]
        spec = importlib.util.spec_from_file_location(f"export{i // 3}", module_path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
            image = decode_image(read_file(input_path), mode=ImageReadMode.RGB)
            out = module.transform(image)
            if out.dtype != torch.uint8 or out.shape[0] != 3:
                raise TypeError(f"transform returned {out.dtype} {tuple(out.shape)}, not uint8 3 x H x W")
            write_png(out.contiguous(), output_path)
        except Exception as e:  # name the export that failed, then fail
            sys.exit(f"{module_path}: {type(e).__name__}: {e}")
    print("torch", torch.__version__, "torchvision", torchvision.__version__)


if __name__ == "__main__":
    main(sys.argv[1:])
