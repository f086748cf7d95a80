"""SPEC §8's W2 pipeline from Python: the `auglab` module against Albumentations 2.0.8 + OpenCV on
the same 512x512 images and the same pipeline, in the same run. A benchmark: it prints one JSON
object and asserts nothing.

The pipeline is W2's preset (affine, horizontal_flip p=0.5, coarse_dropout, brightness_contrast at
their defaults) exported with `auglab-cli export --to albumentations` and loaded with A.load, so both
sides run the same transforms with the same parameters. The inputs are distinct 512x512 RGB crops of
the bundled photos, already decoded: the figures are augmentation alone.

    PYTHONPATH=build/python build/pyenv/bin/python tests/bench/w2_python.py --cli build/app/cli/auglab-cli

(build/pyenv is made by tests/test_export_library; any Python with albumentations==2.0.8 and the
built module on PYTHONPATH will do.) Measured:
  - one thread: images/s of pipe(image, i), one image per call, against Albumentations' transform
    (OpenCV limited to one thread: cv2.setNumThreads(1));
  - pipe.batch with 1, 2 and all threads, and the ratio of 2 threads to 1;
  - the module's overhead for a 224x224 image: a call's time minus the engine's own time for the
    same sample in a C++ loop (auglab._auglab._time_engine: sampling and rendering from a source
    already made), and how much of that overhead is copying the array into the engine.
"""

import argparse
import json
import os
import pathlib
import subprocess
import tempfile
import time

import albumentations as A
import cv2
import numpy as np

import auglab

ROOT = pathlib.Path(__file__).resolve().parents[2]
W2 = {"format": "auglab-preset", "version": 1, "name": "w2", "seed": 1,
      "pipeline": [{"op": "affine"}, {"op": "horizontal_flip", "p": 0.5}, {"op": "coarse_dropout"},
                   {"op": "brightness_contrast"}]}


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


def best_rate(fn, count, runs):
    """Images per second of fn() over `count` images, best of `runs`."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return count / best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "app" / "cli" / "auglab-cli"))
    parser.add_argument("--images", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    images = inputs(args.images, 512)
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    with tempfile.TemporaryDirectory(prefix="auglab-w2-") as tmp:
        preset, exported = pathlib.Path(tmp) / "w2.auglab.json", pathlib.Path(tmp) / "w2.albumentations.json"
        preset.write_text(json.dumps(W2))
        subprocess.run([args.cli, "export", "--preset", str(preset), "--to", "albumentations", "--out", str(exported)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        transform = A.load(str(exported))
    n = len(images)
    albumentations = lambda: [transform(image=image)["image"] for image in images]  # noqa: E731
    module_calls = lambda: [pipe(image, i) for i, image in enumerate(images)]  # noqa: E731
    albumentations(), module_calls()  # warm up: imports, first calls, allocations
    # Interleaved, best of the runs, so that both sides see the same machine.
    alb = one = 0.0
    for _ in range(args.runs):
        alb = max(alb, best_rate(albumentations, n, 1))
        one = max(one, best_rate(module_calls, n, 1))
    threads = {t: best_rate(lambda t=t: pipe.batch(images, range(n), threads=t), n, args.runs)
               for t in (1, 2, os.cpu_count())}

    # Overhead at 224x224: the same sample through a whole call and through the engine alone.
    small = inputs(1, 224)[0]
    reps = 2000
    pipe(small, 3)
    call_s = min(timed(lambda: pipe(small, 3), reps) for _ in range(5))
    engine = [auglab._auglab._time_engine(pipe._core, small, 3, reps) for _ in range(5)]
    copy_and_render_s, render_s = min(e[0] for e in engine), min(e[1] for e in engine)
    print(json.dumps({
        "w2_images": n, "size": 512,
        "albumentations_1thread_ips": round(alb, 1),
        "auglab_call_1thread_ips": round(one, 1),
        "auglab_call_vs_albumentations": round(one / alb, 3),
        "auglab_batch_ips": {str(t): round(v, 1) for t, v in threads.items()},
        "auglab_batch_2threads_vs_1": round(threads[2] / threads[1], 3),
        "call_224_us": round(call_s * 1e6, 2),
        "engine_render_224_us": round(render_s * 1e6, 2),
        "overhead_224_us": round((call_s - render_s) * 1e6, 2),
        "overhead_224_copy_in_us": round((copy_and_render_s - render_s) * 1e6, 2),
        "targets": {"call_vs_albumentations": 2.0, "batch_2threads_vs_1": 1.8, "overhead_us": 20},
        "versions": {"albumentations": A.__version__, "opencv": cv2.__version__, "numpy": np.__version__,
                     "auglab": auglab.__version__},
    }, indent=2))


def timed(fn, reps):
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - start) / reps


if __name__ == "__main__":
    main()
