#!/usr/bin/env python3
"""Augments a folder of images on a Ray cluster: the files `auglab-cli augment` writes, from Ray Data.

    python docs/examples/ray_augment.py --preset presets/mild-geometric.auglab.json \\
        --input ds --output ds-aug --copies 4 --workers 8              # a local Ray of 8 workers
    python docs/examples/ray_augment.py ... --address auto              # a running cluster (`ray start`)

Every output is the file `auglab-cli augment --backend cpu` writes with the same preset, seed, copies
and format, byte for byte (tests/python/test_ray.py checks it against the CLI): copy k of the input at
relative path R is `<folder of R>/<stem>_aug<k>.png`, sample index `(FNV-1a-64(R) >> 27) * 65536 + k`
of `--seed` (default: the preset's). The inputs are the ones `augment` takes (.png .jpg .jpeg .bmp
.tga .gif in any case, subfolders included, hidden names left out), decoded by `auglab.imread`, which
reads the pixels the CLI reads.

How it runs: the driver lists the folder and hands Ray Data one row per file (its path); a pool of
`--workers` actors (each reserving `--cpus-per-worker` CPUs) loads the preset once each (a callable
class) and, batch by batch, decodes the files, renders every copy with `Pipeline.batch` and writes
the outputs. So every node must see the input and output folders at the same paths (a shared file
system), as with `augment --shard`, and have `auglab` installed (`pip install ./python`).

Mixing ops (mixup, cutmix, mosaic) draw their partners as `augment` draws them: from the pool of
every file `augment` lists, sorted by relative path, the ones it cannot augment included (a corrupt
file, the second of two clashing names, a folder that cannot be listed), the file being item
`position` of it. Each actor holds that pool as a list of paths (`FolderPool`) and decodes a partner
only when a sample draws it (one file for mixup and cutmix, up to three for mosaic); a sample whose
partner cannot be read fails its input, as in `augment`.

What it does not do, unlike `augment`: no manifest, no resume (outputs are rewritten), and no labels
(for a labelled dataset use `augment`, which also leaves a mask-PNG dataset's masks out of its inputs
and its pool). Inputs that cannot be read or augmented are reported and skipped, and the exit code
is 1, as `augment` does: the copies before the one that failed are written.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
from collections.abc import Sequence
from typing import Iterator, Optional

import numpy as np

import auglab

# auglab-cli augment's inputs (core/image_io.cpp imageExtensions) and its limit on copies (the copy
# number fills the low 16 bits of the sample index).
IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".gif"}
MAX_COPIES = 65536


def sample_index(relative: str, copy: int) -> int:
    """The sample index of copy `copy` of the input at `relative` (relative to the input folder, '/'
    separators), as `augment` computes it (app/cli/augment_inputs.cpp): the top 37 bits of the
    path's 64-bit FNV-1a hash over its UTF-8 bytes, times 65536, plus the copy."""
    h = 0xCBF29CE484222325
    for byte in relative.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return ((h >> 27) << 16) | (copy & 0xFFFF)


def output_name(relative: str, copy: int, image_format: str) -> str:
    """Copy `copy` of `a/b.jpg`: `a/b_aug<copy>.png` (the stem ends at the last dot of the name)."""
    folder, _, name = relative.rpartition("/")
    stem = name[: name.rfind(".")] if "." in name else name
    return (folder + "/" if folder else "") + f"{stem}_aug{copy}.{image_format}"


def list_inputs(root: pathlib.Path, image_format: str) -> tuple[list[str], list[int], list[str]]:
    """What `augment` lists under `root` (app/cli/augment_inputs.cpp planInputs): the pool, every
    image file and every folder that cannot be listed (as `sub/`), as relative paths sorted by UTF-8
    bytes, the pool mixing ops draw partners from; the positions in it of the inputs `augment` takes;
    and the errors of the others (a folder that cannot be listed; a name that is not UTF-8; a second
    input whose outputs would have the first's names, as a.png and a.jpg)."""
    found: list[str] = []
    errors: list[str] = []

    def walk(folder: pathlib.Path, relative: str) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError as e:  # reported, as augment does; the other folders go on
            errors.append(f"cannot list folder '{folder}': {e.strerror}")
            found.append(relative + "/")  # an item of the pool still, that no partner read can open
            return
        for entry in entries:
            if entry.name.startswith("."):  # hidden: .git, ._photo.jpg, temporary files
                continue
            child = f"{relative}/{entry.name}" if relative else entry.name
            if entry.is_dir(follow_symlinks=True):
                if not entry.is_symlink():  # no link cycles
                    walk(pathlib.Path(entry.path), child)
            elif entry.is_file(follow_symlinks=True) and os.path.splitext(entry.name)[1].lower() in IMAGE_EXTENSIONS:
                found.append(child)

    walk(root, "")
    # Sorted by UTF-8 bytes, as augment sorts: the pool's numbering, and the order that decides which
    # of two clashing inputs wins.
    pool = sorted(found, key=lambda r: r.encode("utf-8", "surrogateescape"))
    positions: list[int] = []
    claimed: dict[str, str] = {}
    for position, relative in enumerate(pool):
        if relative.endswith("/"):  # a folder that cannot be listed: already reported
            continue
        try:
            relative.encode("utf-8")
        except UnicodeEncodeError:
            errors.append(f"'{root / relative}': the file name is not valid UTF-8")
            continue
        first = output_name(relative, 0, image_format)
        if first in claimed:
            errors.append(f"'{root / relative}': its outputs would have the names of those of "
                          f"'{claimed[first]}' ({first}); rename one of the two")
            continue
        claimed[first] = relative
        positions.append(position)
    return pool, positions, errors


class FolderPool(Sequence):
    """augment's partner pool, read lazily: item j is the j-th path of the pool, decoded by
    `auglab.imread` when a mixing op draws it (the module asks for nothing else). A file that cannot
    be read raises ValueError, which fails the sample that drew it, as in augment."""

    def __init__(self, root: pathlib.Path, pool: list[str]) -> None:
        self.root, self.pool = root, pool

    def __len__(self) -> int:
        return len(self.pool)

    def __getitem__(self, j: int) -> np.ndarray:  # type: ignore[override]  # no slices: not needed
        return auglab.imread(self.root / self.pool[j])


class AugmentFiles:
    """The Ray Data step: one actor per worker, the preset parsed once in each. A batch holds rows
    of `relative` paths and their `position` in the pool; it returns one row per output written
    (`error` empty) and one per input that failed (`output` empty), each with the `worker` process
    that made it."""

    def __init__(self, preset_json: str, seed: int, copies: int, input_dir: str, output_dir: str,
                 image_format: str, quality: int, threads: int, pool: list[str]) -> None:
        self.pipe = auglab.Pipeline.from_json(preset_json)
        self.seed, self.copies, self.threads = seed, copies, threads
        self.input, self.output = pathlib.Path(input_dir), pathlib.Path(output_dir)
        self.format, self.quality = image_format, quality
        self.partners = FolderPool(self.input, pool)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        rows: dict[str, list] = {"input": [], "output": [], "index": [], "bytes": [], "error": [], "worker": []}

        def record(relative: str, output: str = "", index: int = 0, size: int = 0, error: str = "") -> None:
            for key, value in zip(rows, (relative, output, index, size, error, os.getpid())):
                rows[key].append(value)

        files = []  # (relative, position, image)
        for relative, position in zip(map(str, batch["relative"]), map(int, batch["position"])):
            try:
                files.append((relative, position, auglab.imread(self.input / relative)))
            except ValueError as e:  # corrupt, truncated, not an image: augment skips it too
                record(relative, error=str(e))
        # Every copy of the batch's files at once, on the engine's thread pool.
        jobs = [(relative, k, sample_index(relative, k)) for relative, _, _ in files for k in range(self.copies)]
        try:
            outputs = self.pipe.batch([image for _, _, image in files for _ in range(self.copies)],
                                      [index for _, _, index in jobs], threads=self.threads, seed=self.seed,
                                      partners=self.partners,
                                      positions=[position for _, position, _ in files for _ in range(self.copies)])
        except ValueError:
            # A sample that cannot be made (a hole larger than the image, a partner that cannot be
            # read): find which, copy by copy. augment stops a file at its first copy that fails,
            # the copies before it written.
            jobs, outputs = [], []
            for relative, position, image in files:
                for k in range(self.copies):
                    index = sample_index(relative, k)
                    try:
                        outputs.append(self.pipe(image, index, self.seed, partners=self.partners, position=position))
                    except ValueError as e:
                        record(relative, error=f"'{self.input / relative}': {e}")
                        break
                    jobs.append((relative, k, index))
        for (relative, k, index), image in zip(jobs, outputs):
            name = output_name(relative, k, self.format)
            path = self.output / name
            path.parent.mkdir(parents=True, exist_ok=True)
            auglab.imwrite(path, image, self.quality)  # written atomically, as augment writes
            record(relative, name, index, path.stat().st_size)
        return {key: np.array(values, dtype=np.uint64 if key == "index" else None)
                for key, values in rows.items()}


def augment_folder(preset: pathlib.Path, input_dir: pathlib.Path, output_dir: pathlib.Path, copies: int = 1,
                   workers: int = 2, seed: Optional[int] = None, image_format: str = "png", quality: int = 95,
                   cpus_per_worker: int = 1) -> Iterator[dict]:
    """Runs the augmentation on the Ray instance this process is connected to (ray.init first) and
    yields the result rows as they come: {"input", "output", "index", "bytes", "error", "worker"}, and
    first one row with only "error" set for each input the listing leaves out. FileNotFoundError when
    there is no image file at all."""
    import ray  # here, so that the helpers above import without Ray (the test checks them alone)

    pipe = auglab.Pipeline.load(preset)
    pool, positions, errors = list_inputs(input_dir, image_format)
    for error in errors:
        yield {"input": "", "output": "", "index": 0, "bytes": 0, "error": error, "worker": 0}
    if not positions:
        if not errors:
            raise FileNotFoundError(f"no image files in '{input_dir}' or its subfolders")
        return
    # A batch is as many files as a worker has threads (each file's copies are rendered on the
    # engine's thread pool with the others'); several blocks per worker, so that the actors share
    # the files out (a block is a list of paths: small). Each actor gets the pool, a list of paths.
    dataset = ray.data.from_items([{"relative": pool[p], "position": p} for p in positions],
                                  override_num_blocks=min(len(positions), 4 * workers))
    results = dataset.map_batches(
        AugmentFiles, batch_size=cpus_per_worker, batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=workers), num_cpus=cpus_per_worker,
        fn_constructor_kwargs=dict(preset_json=pipe.to_json(), seed=pipe.seed if seed is None else seed,
                                   copies=copies, input_dir=str(input_dir), output_dir=str(output_dir),
                                   image_format=image_format, quality=quality, threads=cpus_per_worker,
                                   pool=pool))
    yield from results.iter_rows()


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description="N augmented copies of every image in a folder tree, on Ray: the files "
                    "`auglab-cli augment --backend cpu` writes with the same arguments.")
    parser.add_argument("--preset", required=True, type=pathlib.Path, help="an *.auglab.json preset")
    parser.add_argument("--input", required=True, type=pathlib.Path, help="the folder of images (subfolders too)")
    parser.add_argument("--output", required=True, type=pathlib.Path, help="where the outputs go (mirrors --input)")
    parser.add_argument("--copies", type=int, default=1, help="augmented copies of every image (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="default: the preset's seed")
    parser.add_argument("--format", choices=("png", "jpg"), default="png", help="output format (default png)")
    parser.add_argument("--quality", type=int, default=95, help="JPEG quality, 1..100 (default 95)")
    parser.add_argument("--workers", type=int, default=2, help="Ray actors rendering at once (default 2)")
    parser.add_argument("--cpus-per-worker", type=int, default=1,
                        help="CPUs each actor reserves and renders with (default 1)")
    parser.add_argument("--address", default=None,
                        help="a running Ray cluster ('auto', 'ray://host:10001'); default: start a local "
                             "Ray with workers x cpus-per-worker CPUs")
    args = parser.parse_args(argv)
    if not 1 <= args.copies <= MAX_COPIES:
        parser.error(f"--copies: expected 1..{MAX_COPIES}")
    if not 1 <= args.quality <= 100:
        parser.error("--quality: expected 1..100")
    if args.seed is not None and not 0 <= args.seed < 2**64:
        parser.error("--seed: expected 0..2^64-1")
    if args.workers < 1 or args.cpus_per_worker < 1:
        parser.error("--workers and --cpus-per-worker: expected at least 1")
    if not args.input.is_dir():
        parser.error(f"--input '{args.input}' is not a folder")
    input_dir, output_dir = args.input.resolve(), args.output.resolve()
    if output_dir == input_dir or input_dir in output_dir.parents or output_dir in input_dir.parents:
        parser.error("--output and --input may not be the same folder or lie inside each other")
    try:
        auglab.Pipeline.load(args.preset)
    except ValueError as e:
        parser.error(str(e))

    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.workers * args.cpus_per_worker, include_dashboard=False)
    written, failed, workers = 0, 0, set()
    try:
        for row in augment_folder(args.preset, input_dir, output_dir, args.copies, args.workers, args.seed,
                                  args.format, args.quality, args.cpus_per_worker):
            if row["error"]:
                failed += 1
                print(f"failed: {row['error']}", file=sys.stderr)
            else:
                written += 1
                workers.add(row["worker"])
    except FileNotFoundError as e:
        print(f"ray_augment.py: {e}", file=sys.stderr)
        return 2
    finally:
        ray.shutdown()
    print(f"ray_augment: {written} outputs written by {len(workers)} worker processes, {failed} inputs failed, "
          f"into {output_dir}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
