"""W3 of SPEC §8 with its reference in the same run: `auglab-cli augment` against the same pipeline
in Python with Albumentations 2.0.8 + OpenCV (cv2.imread, A.Compose, cv2.imwrite q95), one thread.

The pipeline is AugLab's W3 preset exported with `auglab-cli export --to albumentations` and loaded
with A.load, so both sides run the same transforms with the same parameters. The inputs are 96
distinct 512x512 JPEGs (q95) cut from the bundled photos. Prints one JSON object; asserts nothing.

    build/pyenv/bin/python tests/bench/w3_reference.py --cli build/app/cli/auglab-cli

(build/pyenv is made by tests/test_export_library; any Python with albumentations==2.0.8 will do.)
`--pipeline classification` runs issue 32's loop instead: random_resized_crop 224, horizontal_flip,
color_jitter p 0.8, coarse_dropout p 0.5 (the W5 classification pipeline) over the same inputs.
"""

import argparse
import json
import os
import pathlib
import re
import resource
import statistics
import subprocess
import tempfile
import time

import albumentations as A
import cv2
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
PRESET = {
    "format": "auglab-preset", "version": 1, "name": "w3", "seed": 1,
    "pipeline": [{"op": "affine"}, {"op": "horizontal_flip", "p": 0.5}, {"op": "coarse_dropout"},
                 {"op": "brightness_contrast"}],
}
CLASSIFICATION = [{"op": "random_resized_crop", "size": [224, 224], "p": 1}, {"op": "horizontal_flip", "p": 0.5},
                  {"op": "color_jitter", "p": 0.8}, {"op": "coarse_dropout", "p": 0.5}]


def make_inputs(folder, count):
    names = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"]
    rng = np.random.default_rng(5)
    for i in range(count):
        photo = cv2.imread(str(ROOT / "resources" / "samples" / names[i % 4]))
        scale = rng.uniform(1.1, 2.0) * 512 / min(photo.shape[:2])
        big = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        y = rng.integers(0, big.shape[0] - 511)
        x = rng.integers(0, big.shape[1] - 511)
        crop = big[y:y + 512, x:x + 512]
        if i % 8 >= 4:
            crop = crop[:, ::-1]
        cv2.imwrite(str(folder / f"img_{i:03d}.jpg"), np.ascontiguousarray(crop), [cv2.IMWRITE_JPEG_QUALITY, 95])


def albumentations_loop(transform, inputs, out):
    """What a training script's offline augmentation does, one image at a time: (images/s wall,
    images/s of CPU time)."""
    out.mkdir(parents=True, exist_ok=True)
    start, cpu = time.perf_counter(), time.process_time()
    for path in inputs:
        image = cv2.imread(str(path))
        augmented = transform(image=image)["image"]
        cv2.imwrite(str(out / path.name), augmented, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return len(inputs) / (time.perf_counter() - start), len(inputs) / (time.process_time() - cpu)


def auglab_augment(cli, preset, folder, out, jobs):
    # A new folder each run, as the Albumentations loop gets: ext4 creates files much more slowly
    # (up to 300 us each here) right after as many were deleted, so emptying the folder between
    # runs would charge one side for the other's clean-up.
    # Returns (seconds of the whole process, its own images/s from the first input read to the
    # manifest's final rewrite: the loop without the process's start-up, as the Python loop is
    # timed, seconds of CPU time of all its threads).
    assert not out.exists()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([cli, "augment", "--preset", str(preset), "--input", str(folder), "--output", str(out),
                           "--copies", "1", "--format", "jpg", "--quality", "95", "--jobs", str(jobs), "--backend",
                           "cpu"], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    in_loop = float(re.search(r"([0-9.]+) images/s", done.stdout).group(1))
    return wall, in_loop, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "app" / "cli" / "auglab-cli"))
    parser.add_argument("--images", type=int, default=96)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pipeline", choices=["w3", "classification"], default="w3")
    args = parser.parse_args()
    chosen = dict(PRESET, pipeline=CLASSIFICATION) if args.pipeline == "classification" else PRESET
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory(prefix="auglab-w3-") as tmp:
        tmp = pathlib.Path(tmp)
        folder = tmp / "in"
        folder.mkdir()
        make_inputs(folder, args.images)
        inputs = sorted(folder.iterdir())
        preset = tmp / "w3.auglab.json"
        preset.write_text(json.dumps(chosen))
        exported = tmp / "w3.albumentations.json"
        subprocess.run([args.cli, "export", "--preset", str(preset), "--to", "albumentations", "--out", str(exported)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        transform = A.load(str(exported))
        albumentations_loop(transform, inputs[:8], tmp / "warm")  # imports, first calls
        # Best of the runs, interleaved so that both sides see the same machine.
        # The ratio of each run's pair too (its median): on a shared VM whose speed drifts from one
        # second to the next, the two bests may come from different moments.
        best = dict.fromkeys(["alb", "alb_cpu", "one", "one_loop", "one_cpu", "all"], 0.0)
        pairs = []
        for run in range(args.runs):
            alb_wall, cpu = albumentations_loop(transform, inputs, tmp / f"alb-{run}")
            best["alb"], best["alb_cpu"] = max(best["alb"], alb_wall), max(best["alb_cpu"], cpu)
            wall, in_loop, cpu = auglab_augment(args.cli, preset, folder, tmp / f"one-{run}", 1)
            pairs.append((len(inputs) / wall / alb_wall, in_loop / alb_wall))
            best["one"] = max(best["one"], len(inputs) / wall)
            best["one_loop"] = max(best["one_loop"], in_loop)
            best["one_cpu"] = max(best["one_cpu"], len(inputs) / cpu)
            wall, _, _ = auglab_augment(args.cli, preset, folder, tmp / f"all-{run}", os.cpu_count())
            best["all"] = max(best["all"], len(inputs) / wall)
    print(json.dumps({
        "pipeline": args.pipeline,
        "w3_images": len(inputs),
        "w3_albumentations_opencv_1thread_ips": round(best["alb"], 1),
        "w3_augment_1job_ips": round(best["one"], 1),
        "w3_augment_1job_vs_albumentations": round(best["one"] / best["alb"], 3),
        "w3_augment_1job_in_loop_ips": round(best["one_loop"], 1),
        "w3_augment_1job_in_loop_vs_albumentations": round(best["one_loop"] / best["alb"], 3),
        "w3_augment_1job_cpu_time_vs_albumentations": round(best["one_cpu"] / best["alb_cpu"], 3),
        "w3_augment_1job_vs_albumentations_median_of_pairs": round(statistics.median(p[0] for p in pairs), 3),
        "w3_augment_1job_in_loop_vs_albumentations_median_of_pairs": round(
            statistics.median(p[1] for p in pairs), 3),
        "w3_augment_all_jobs": os.cpu_count(),
        "w3_augment_all_jobs_ips": round(best["all"], 1),
        "w3_augment_all_jobs_vs_1job": round(best["all"] / best["one"], 3),
        "w3_target_1job_vs_albumentations": 1.2,
        "w3_target_2jobs_vs_1job": 1.7,
        "note": "1job: auglab-cli augment timed as a whole process (start-up, manifest, atomic writes "
                "included); in_loop: its own rate from the first input read to the manifest's final "
                "rewrite and sync, as the Python loop is timed (its interpreter and imports excluded); "
                "cpu_time: images per CPU-second, every thread of the CLI (manifest included) against "
                "the Python process's",
        "versions": {"albumentations": A.__version__, "opencv": cv2.__version__},
    }, indent=2))


if __name__ == "__main__":
    main()
