"""SPEC §8 W6: end to end through a PyTorch DataLoader, the way a classification run feeds its GPU.

2,000 JPEGs of ~500x375 (cut from the bundled photos and written once into a temporary folder),
each read, decoded, augmented (random_resized_crop 224, horizontal_flip, color_jitter p 0.8,
coarse_dropout p 0.5) and normalised to a float32 3 x 224 x 224 tensor, in batches of 64 through a
torch DataLoader with 2 workers, by:

- auglab:          auglab.Pipeline given each file's path (only the part of the JPEG its crop reads is
                   decoded; the preset ends in normalize, to_tensor: the module renders the tail, no
                   NumPy pass), via auglab.torch.AugmentedDataset over (path, label) items
- auglab_imread:   the same with auglab.imread decoding each whole file first (arrays as items)
- albumentations:  cv2.imread + cvtColor + A.Compose(the preset's Albumentations export), whose
                   Normalize and ToTensorV2 are the same tail
- torchvision:     torchvision.io.decode_jpeg + transforms.v2 (RandomResizedCrop, RandomHorizontalFlip,
                   RandomApply(ColorJitter), RandomErasing, ToDtype, Normalize): the nearest v2 pipeline
- dali_cpu:        NVIDIA DALI's file reader, decoder and ops on the CPU (2 threads), where installed
- dali_cpu_roi:    the same with DALI's own region decoding (fn.decoders.image_random_crop, then
                   fn.resize), as DALI's ImageNet examples do it

Wall time for a whole pass (workers started inside it, as an epoch starts them), the best of
--rounds, as images/s and as a ratio against Albumentations. A benchmark: it asserts nothing, and a
library that is not installed is reported as skipped with why.

    PYTHONPATH=build/python python tests/bench/dataloader.py [--images 2000] [--workers 2]
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import auglab  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
PIPELINE = [{"op": "random_resized_crop", "size": [224, 224], "p": 1}, {"op": "horizontal_flip", "p": 0.5},
            {"op": "color_jitter", "p": 0.8}, {"op": "coarse_dropout", "p": 0.5},
            {"op": "normalize", "p": 1}, {"op": "to_tensor", "p": 1}]
PRESET = {"format": "auglab-preset", "version": 1, "name": "w6", "seed": 1, "pipeline": PIPELINE}
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def make_jpegs(folder, count):
    """count JPEGs of 500x375 (or 375x500), cut at random places from the bundled photos."""
    photos = [auglab.imread(p) for p in sorted((ROOT / "resources" / "samples").glob("*.*g"))]
    rng = np.random.default_rng(3)
    paths = []
    for i in range(count):
        photo = photos[i % len(photos)][:, :, :3]
        w, h = (500, 375) if i % 4 else (375, 500)
        if photo.shape[0] < h or photo.shape[1] < w:
            reps = (-(-h // photo.shape[0]), -(-w // photo.shape[1]), 1)
            photo = np.tile(photo, reps)
        y, x = rng.integers(0, photo.shape[0] - h + 1), rng.integers(0, photo.shape[1] - w + 1)
        path = folder / f"{i:05d}.jpg"
        auglab.imwrite(path, np.ascontiguousarray(photo[y:y + h, x:x + w]), quality=90)
        paths.append(str(path))
    return paths


class Files:
    """A dataset of image files, read and augmented by `load(path, index)`."""

    def __init__(self, paths, load):
        self.paths, self.load = paths, load

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return self.load(self.paths[i], i), 0


def auglab_loader(paths, args, tmp):
    import auglab.torch as at
    pipe = auglab.Pipeline.from_json(json.dumps(PRESET))
    # AugmentedDataset takes (image, label) items and makes sample index epoch * len + item; a path
    # as the image is read by the pipeline.
    return at.AugmentedDataset(Files(paths, lambda path, i: path), pipe)


def auglab_imread_loader(paths, args, tmp):
    import auglab.torch as at
    pipe = auglab.Pipeline.from_json(json.dumps(PRESET))
    return at.AugmentedDataset(Files(paths, lambda path, i: auglab.imread(path)), pipe)


def albumentations_loader(paths, args, tmp):
    import albumentations as A
    import cv2
    cv2.setNumThreads(1)
    src, dst = pathlib.Path(tmp) / "w6.auglab.json", pathlib.Path(tmp) / "w6.albumentations.json"
    src.write_text(json.dumps(PRESET))
    subprocess.run([args.cli, "export", "--preset", str(src), "--to", "albumentations", "--out", str(dst)],
                   check=True, capture_output=True)
    transform = A.load(str(dst))

    def load(path, i):
        image = cv2.cvtColor(cv2.imread(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        return transform(image=image)["image"]

    return Files(paths, load)


def torchvision_loader(paths, args, tmp):
    import torch
    import torchvision
    from torchvision.transforms import v2
    transform = v2.Compose([v2.RandomResizedCrop(224, antialias=True), v2.RandomHorizontalFlip(),
                            v2.RandomApply([v2.ColorJitter(0.2, 0.2, 0.2, 0.2)], p=0.8),
                            v2.ToDtype(torch.float32, scale=True), v2.Normalize(MEAN, STD), v2.RandomErasing(p=0.5)])

    def load(path, i):
        return transform(torchvision.io.decode_jpeg(torchvision.io.read_file(path)))

    return Files(paths, load)


def run_loader(dataset, args):
    import torch
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch, num_workers=args.workers, shuffle=False)
    start = time.perf_counter()
    n = 0
    for batch in loader:
        images = batch[0]
        assert images.dtype == torch.float32 and tuple(images.shape[1:]) == (3, 224, 224), images.shape
        n += images.shape[0]
    return n / (time.perf_counter() - start)


def run_dali(paths, args, roi=False):
    from nvidia.dali import fn, pipeline_def, types
    files = [os.path.basename(p) for p in paths]
    folder = os.path.dirname(paths[0])

    @pipeline_def(batch_size=args.batch, num_threads=args.workers, device_id=None, prefetch_queue_depth=2)
    def w6():
        jpegs, _ = fn.readers.file(file_root=folder, files=files, name="reader")
        if roi:  # the crop drawn first, then only that window decoded
            images = fn.decoders.image_random_crop(jpegs, device="cpu", output_type=types.RGB)
            images = fn.resize(images, size=(224, 224))
        else:
            images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
            images = fn.random_resized_crop(images, size=(224, 224))
        images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
        jitter = fn.random.coin_flip(probability=0.8)
        images = fn.color_twist(images, brightness=fn.random.uniform(range=(0.8, 1.2)) ** jitter,
                                contrast=fn.random.uniform(range=(0.8, 1.2)) ** jitter,
                                saturation=fn.random.uniform(range=(0.8, 1.2)) ** jitter,
                                hue=fn.random.uniform(range=(-18, 18)) * jitter)
        images = fn.erase(images, anchor=fn.random.uniform(range=(0, 160), shape=2), shape=(64, 64),
                          axis_names="HW")
        return fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                        mean=[m * 255 for m in MEAN], std=[s * 255 for s in STD])

    pipe = w6()
    pipe.build()
    batches = -(-len(paths) // args.batch)
    start = time.perf_counter()
    n = 0
    for _ in range(batches):
        (out,) = pipe.run()
        n += len(out)
    return n / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "app" / "cli" / "auglab-cli"))
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results, skipped, versions = {}, {}, {"auglab": auglab.__version__, "python": sys.version.split()[0]}
    if importlib.util.find_spec("torch") is None:
        print("SKIP: torch is not installed here: the DataLoader benchmark needs it", file=sys.stderr)
        return
    import torch
    versions["torch"] = torch.__version__
    with tempfile.TemporaryDirectory(prefix="auglab-w6-") as tmp:
        paths = make_jpegs(pathlib.Path(tmp), args.images)
        makers = {"auglab": auglab_loader, "auglab_imread": auglab_imread_loader,
                  "albumentations": albumentations_loader, "torchvision": torchvision_loader}
        needs = {"albumentations": "albumentations", "torchvision": "torchvision"}
        for name, make in makers.items():
            if name in needs and importlib.util.find_spec(needs[name]) is None:
                skipped[name] = f"{needs[name]} is not installed here"
                continue
            if name in needs:
                versions[name] = __import__(needs[name]).__version__
            dataset = make(paths, args, tmp)
            results[name] = max(run_loader(dataset, args) for _ in range(args.rounds))
            print(f"{name:16s} {results[name]:8.1f} images/s", file=sys.stderr, flush=True)
        for name, roi in (("dali_cpu", False), ("dali_cpu_roi", True)):
            if importlib.util.find_spec("nvidia.dali") is None:
                skipped[name] = "nvidia-dali is not installed here"
                continue
            try:
                results[name] = max(run_dali(paths, args, roi) for _ in range(args.rounds))
                print(f"{name:16s} {results[name]:8.1f} images/s", file=sys.stderr, flush=True)
            except Exception as e:  # noqa: BLE001 (DALI's CPU-only mode varies by version: reported)
                skipped[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    reference = results.get("albumentations")
    result = {"versions": versions,
              "setup": {"images": args.images, "size": "500x375 JPEG", "batch": args.batch, "workers": args.workers,
                        "rounds": args.rounds, "cpus": os.cpu_count()},
              "images_per_s": results, "skipped": skipped,
              "vs_albumentations": {k: v / reference for k, v in results.items()} if reference else {}}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print("| loader | images/s | vs Albumentations |")
    print("|---|---|---|")
    for k, v in results.items():
        print(f"| {k} | {v:.0f} | {v / reference:.2f}x |" if reference else f"| {k} | {v:.0f} | |")
    ratios = [f"auglab / {dali}: {results['auglab'] / results[dali]:.2f}x" for dali in ("dali_cpu", "dali_cpu_roi")
              if "auglab" in results and dali in results]
    if ratios:
        print("\n" + "; ".join(ratios))
    if skipped:
        print("skipped: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()))
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))


if __name__ == "__main__":
    main()
