"""Every op of AugLab's catalogue that Albumentations 2.0.8 has, one at a time, against the library,
the way the field measures transforms (AlbumentationsX's per-transform table): 512x512 RGB crops of
the bundled photos, one thread, p = 1, the op's defaults (a few sizes given: random_crop 224,
pad_if_needed 1024, ...). Each op's preset is exported with `auglab-cli export --to albumentations`
and loaded with A.load, so both sides run the same transform with the same parameters.

CPU time per image (time.process_time_ns around each call), the two libraries interleaved image by
image in one process (the order swapped every round), the median over images and rounds. The ratio
is Albumentations' time over AugLab's: above 1, AugLab is faster. Also a call's fixed cost (a
vertical flip of 8 x 8 crops: all call, no pixels), with numpy.copy of those crops timed in the same
rotation and what the call costs beyond its output's copy (no_op returns its input on both sides, so
it shows the cost of a call that renders nothing); and the
classification pipeline of issue 32 (random_resized_crop 224, horizontal_flip, color_jitter,
coarse_dropout), with and without normalize (float32 out; with to_tensor, C x H x W,
where torch is installed for ToTensorV2). A benchmark: it prints a table (or --json) and asserts
nothing.

    PYTHONPATH=build/python build/pyenv/bin/python tests/bench/ops_vs_albumentations.py

(build/pyenv is made by tests/test_export_library: albumentations==2.0.8 with opencv 4.11; any Python
with them and the built module on PYTHONPATH will do.) `--ops a,b` measures only those; `--backend
cuda` renders AugLab's side on the GPU (where there is one).
"""

import os

# One thread everywhere, set before NumPy loads its BLAS: an idle BLAS thread spinning counts in the
# process's CPU time, which is what is measured.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import albumentations as A  # noqa: E402
import cv2  # noqa: E402
import numpy as np  # noqa: E402

import auglab  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Sizes given where an op's default is no size a training pipeline uses on 512x512 inputs.
OVERRIDES = {
    "random_crop": {"size": [224, 224]},
    "center_crop": {"size": [224, 224]},
    "crop": {"top_left": [32, 32], "bottom_right": [288, 288]},
    "random_resized_crop": {"size": [224, 224]},
    "random_sized_crop": {"size": [224, 224], "min_max_height": [256, 480]},
    "pad_if_needed": {"min_size": [1024, 1024]},
    "resize": {"size": [256, 256]},
}

# Not measured here, with why.
SKIPPED = {
    "mixup": "a mixing op: partners are batch-level in Albumentations",
    "cutmix": "a mixing op: partners are batch-level in Albumentations",
    "mosaic": "a mixing op: Albumentations' Mosaic takes its partners as metadata",
    "from_float": "takes a float image: measured after to_float (the to_float + from_float row)",
}
if importlib.util.find_spec("torch") is None:
    SKIPPED["to_tensor"] = "Albumentations' ToTensorV2 needs torch, which this environment does not have"

CLASSIFICATION = [{"op": "random_resized_crop", "size": [224, 224], "p": 1}, {"op": "horizontal_flip", "p": 0.5},
                  {"op": "color_jitter", "p": 0.8}, {"op": "coarse_dropout", "p": 0.5}]


def preset(pipeline):
    return {"format": "auglab-preset", "version": 1, "name": "bench", "seed": 1, "pipeline": pipeline}


def inputs(count, side):
    photos = [auglab.imread(p) for p in sorted((ROOT / "resources" / "samples").glob("*.*g"))]
    rng = np.random.default_rng(5)
    out = []
    for i in range(count):
        photo = photos[i % len(photos)]
        scale = rng.uniform(1.1, 2.0) * side / min(photo.shape[:2])
        big = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        y, x = rng.integers(0, big.shape[0] - side + 1), rng.integers(0, big.shape[1] - side + 1)
        out.append(np.ascontiguousarray(big[y:y + side, x:x + side, :3]))
    return out


def exported(cli, pipeline, tmp):
    """A.load of the pipeline's Albumentations export, or (None, why) when it exports nothing."""
    src, dst = pathlib.Path(tmp) / "op.auglab.json", pathlib.Path(tmp) / "op.albumentations.json"
    src.write_text(json.dumps(preset(pipeline)))
    run = subprocess.run([cli, "export", "--preset", str(src), "--to", "albumentations", "--out", str(dst)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr.strip().splitlines()[-1]
    doc = json.loads(dst.read_text())
    if not doc["transform"]["transforms"]:
        warnings = [line for line in run.stderr.splitlines() if line.startswith("warning")]
        return None, warnings[0] if warnings else "exported no transform"
    return A.load(str(dst)), None


def measure(pipe, transform, images, rounds, backend, extra=None):
    """Median CPU ns per image of each side, interleaved image by image (and of `extra(image)`, a third
    call timed in the same rotation, when given)."""
    ours, theirs, more = [], [], []
    for image in images[:2]:  # untimed: first calls load code and build caches on both sides
        pipe(image, 0) if backend == "cpu" else pipe.batch([image], [0], threads=1, backend=backend)
        transform(image=image)
    index = 0
    for r in range(rounds):
        for image in images:
            index += 1
            if backend == "cpu":
                ours_call = lambda: pipe(image, index)  # noqa: E731
            else:  # one image a batch: the call that takes a backend
                ours_call = lambda: pipe.batch([image], [index], threads=1, backend=backend)  # noqa: E731
            sides = [(ours, ours_call), (theirs, lambda: transform(image=image))]
            if extra is not None:
                sides.append((more, lambda: extra(image)))
            for times, call in (sides if (r + index) % 2 == 0 else sides[::-1]):
                start = time.process_time_ns()
                call()
                times.append(time.process_time_ns() - start)
    if extra is not None:
        return statistics.median(ours), statistics.median(theirs), statistics.median(more)
    return statistics.median(ours), statistics.median(theirs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "app" / "cli" / "auglab-cli"))
    parser.add_argument("--images", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ops", default="", help="comma-separated op names (default: the whole catalogue)")
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    images = inputs(args.images, 512)
    info = json.loads(subprocess.run([args.cli, "info", "--json"], capture_output=True, text=True, check=True).stdout)
    names = [n for n in args.ops.split(",") if n] or info["ops"]
    rows, skipped = [], {}
    cases = [(name, [dict({"op": name, "p": 1}, **OVERRIDES.get(name, {}))]) for name in names]
    cases.append(("a call's fixed cost (vertical_flip, 8 x 8)", [{"op": "vertical_flip", "p": 1}]))
    cases.append(("to_float + from_float", [{"op": "to_float", "p": 1}, {"op": "from_float", "p": 1}]))
    cases.append(("classification pipeline", CLASSIFICATION))
    cases.append(("classification + normalize", CLASSIFICATION + [{"op": "normalize", "p": 1}]))
    if "to_tensor" not in SKIPPED:
        cases.append(("classification + normalize + to_tensor",
                      CLASSIFICATION + [{"op": "normalize", "p": 1}, {"op": "to_tensor", "p": 1}]))
    with tempfile.TemporaryDirectory(prefix="auglab-ops-") as tmp:
        for name, pipeline in cases:
            if name in SKIPPED:
                skipped[name] = SKIPPED[name]
                continue
            transform, why = exported(args.cli, pipeline, tmp)
            if transform is None:
                skipped[name] = why
                continue
            pipe = auglab.Pipeline.from_json(json.dumps(preset(pipeline)))
            copy = None
            try:
                if name.startswith("a call's fixed cost"):  # numpy.copy of the input in the same rotation
                    tiny = [np.ascontiguousarray(image[:8, :8]) for image in images]
                    ours, theirs, copy = measure(pipe, transform, tiny, args.rounds, args.backend,
                                                 extra=lambda image: image.copy())
                else:
                    ours, theirs = measure(pipe, transform, images, args.rounds, args.backend)
            except Exception as e:  # noqa: BLE001 (one op that fails on a side is reported, not fatal)
                skipped[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
                continue
            rows.append({"op": name, "auglab_us": ours / 1e3, "albumentations_us": theirs / 1e3,
                         "ratio": theirs / ours})
            if copy is not None:  # what a call's output costs on its own, and the call beyond it
                rows.append({"op": "numpy.copy of the 8 x 8 crop (not AugLab)", "auglab_us": copy / 1e3,
                             "albumentations_us": None, "ratio": None})
                rows.append({"op": "a call beyond its output's copy", "auglab_us": (ours - copy) / 1e3,
                             "albumentations_us": (theirs - copy) / 1e3, "ratio": None})
            if not args.json:
                print(f"{name:32s} {ours / 1e3:9.1f} us {theirs / 1e3:9.1f} us {theirs / ours:6.2f}x",
                      file=sys.stderr, flush=True)
    single = [r["ratio"] for r in rows if r["op"] in names]
    result = {"versions": {"auglab": info["version"], "albumentations": A.__version__, "opencv": cv2.__version__,
                           "numpy": np.__version__, "python": sys.version.split()[0]},
              "setup": {"images": args.images, "size": "512x512x3", "rounds": args.rounds, "threads": 1,
                        "backend": args.backend},
              "ops": rows, "skipped": skipped,
              "summary": {"ops": len(single), "median_ratio": statistics.median(single) if single else None,
                          "min_ratio": min(single) if single else None,
                          "below_1": sorted(r["op"] for r in rows if r["op"] in names and r["ratio"] < 1)}}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print("| op | AugLab (us) | Albumentations (us) | Albumentations / AugLab |")
    print("|---|---|---|---|")
    for r in sorted(rows, key=lambda r: (r["ratio"] is not None, r["ratio"] or 0)):
        if r["ratio"] is None:
            print(f"| {r['op']} | {r['auglab_us']:.1f} | | |")
        else:
            print(f"| {r['op']} | {r['auglab_us']:.1f} | {r['albumentations_us']:.1f} | {r['ratio']:.2f}x |")
    s = result["summary"]
    print(f"\n{s['ops']} ops, median {s['median_ratio']:.2f}x, min {s['min_ratio']:.2f}x; "
          f"below 1x: {', '.join(s['below_1']) or 'none'}")
    print("skipped: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()))
    print("versions: " + ", ".join(f"{k} {v}" for k, v in result["versions"].items()))


if __name__ == "__main__":
    main()
