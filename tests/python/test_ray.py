"""docs/examples/ray_augment.py, the Ray Data example, against `auglab-cli augment`: on a local Ray
of two workers it writes the files the CLI writes, byte for byte, with the CLI's names and sample
indices (ctest's python_module.ray, in build/pyenv-ray)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import auglab
from conftest import PRESETS, ROOT, SAMPLES, assert_same, preset_text, write_preset

pytest.importorskip("ray.data", reason="Ray Data is not installed (ctest's python_module.ray installs it)")

EXAMPLE = ROOT / "docs" / "examples" / "ray_augment.py"


def load_example():
    spec = importlib.util.spec_from_file_location("ray_augment", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_example(*args) -> subprocess.CompletedProcess:
    # No usage report to send from a test machine (it may have no network at all).
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    return subprocess.run([sys.executable, str(EXAMPLE), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=900)


@pytest.fixture()
def dataset(tmp_path):
    """Four bundled photos in a class-per-folder tree (PNG and JPEG, two levels), and files that
    augment leaves out: a hidden one and a text file."""
    root = tmp_path / "ds"
    for source, relative in [("chelsea.png", "cats/chelsea.png"), ("coffee.png", "cups/hot/coffee.png"),
                             ("astronaut.png", "astronaut.png"), ("rocket.jpg", "rocket.jpg")]:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / source, root / relative)
    shutil.copyfile(SAMPLES / "chelsea.png", root / "cats" / ".hidden.png")
    (root / "notes.txt").write_text("not an image\n")
    return root


def image_files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.suffix == ".png")


def test_indices_and_names_are_augments():
    """The example's sample index and output name of a file are those augment's manifest gives
    (here the README's example line: cats/chelsea.png copy 0)."""
    example = load_example()
    assert example.sample_index("cats/chelsea.png", 0) == 1735027842744320
    assert example.sample_index("cats/chelsea.png", 3) == 1735027842744323
    assert example.output_name("cats/chelsea.png", 3, "png") == "cats/chelsea_aug3.png"
    assert example.output_name("photo.v2.jpg", 0, "jpg") == "photo.v2_aug0.jpg"


def test_two_workers_write_what_augment_writes(cli, dataset, tmp_path):
    preset, seed = PRESETS / "strong-geometric-cutout.auglab.json", 77
    ray_out, cli_out = tmp_path / "ray-out", tmp_path / "cli-out"
    r = run_example("--preset", preset, "--input", dataset, "--output", ray_out, "--copies", 2,
                    "--seed", seed, "--workers", 2)
    assert r.returncode == 0, f"ray_augment.py failed ({r.returncode}):\n{r.stdout}\n{r.stderr[-4000:]}"
    assert re.search(r"8 outputs written by [12] worker processes, 0 inputs failed", r.stdout), r.stdout
    cli.run("augment", "--preset", preset, "--input", dataset, "--output", cli_out, "--copies", 2,
            "--seed", seed, "--backend", "cpu", "--jobs", 2)

    names = image_files(cli_out)
    assert names == ["astronaut_aug0.png", "astronaut_aug1.png", "cats/chelsea_aug0.png", "cats/chelsea_aug1.png",
                     "cups/hot/coffee_aug0.png", "cups/hot/coffee_aug1.png", "rocket_aug0.png", "rocket_aug1.png"]
    assert image_files(ray_out) == names
    assert sorted(p.name for p in ray_out.rglob("*") if p.suffix != ".png") == ["cats", "cups", "hot"]
    for name in names:
        a, b = (ray_out / name).read_bytes(), (cli_out / name).read_bytes()
        if a != b:  # say how far apart the pixels are
            assert_same(auglab.imread(ray_out / name), auglab.imread(cli_out / name), name)
            pytest.fail(f"{name}: the same pixels, but not the same PNG bytes ({len(a)} and {len(b)})")

    # The sample indices the manifest records are the example's.
    example = load_example()
    lines = (cli_out / "auglab-manifest.jsonl").read_text().splitlines()[1:]
    for entry in map(json.loads, lines):
        assert entry["seed"] == seed
        assert entry["index"] == example.sample_index(entry["input"], entry["copy"]), entry["input"]


def test_inputs_that_fail_are_skipped_as_augment_skips_them(cli, dataset, tmp_path):
    """A corrupt file, a clash of output names (rocket.png's outputs are rocket.jpg's) and images the
    pipeline cannot take (deotte_affine on non-square photos) fail as in augment, which says so in its
    manifest; the other inputs are done, the same files, and the exit code is 1."""
    (dataset / "cats" / "broken.png").write_bytes((SAMPLES / "chelsea.png").read_bytes()[:500])
    shutil.copyfile(SAMPLES / "rocket.jpg", dataset / "rocket.png")
    preset = write_preset(tmp_path, "square", preset_text([{"op": "deotte_affine"}, {"op": "horizontal_flip"}]))
    ray_out, cli_out = tmp_path / "ray-out", tmp_path / "cli-out"
    r = run_example("--preset", preset, "--input", dataset, "--output", ray_out, "--workers", 2)
    assert r.returncode == 1, f"{r.stdout}\n{r.stderr[-4000:]}"
    assert re.search(r"1 outputs written by 1 worker processes, 5 inputs failed", r.stdout), r.stdout
    c = cli.run("augment", "--preset", preset, "--input", dataset, "--output", cli_out, "--backend", "cpu",
                check=False)
    assert c.returncode == 1, c.stderr

    assert image_files(ray_out) == image_files(cli_out) == ["astronaut_aug0.png"]
    assert (ray_out / "astronaut_aug0.png").read_bytes() == (cli_out / "astronaut_aug0.png").read_bytes()
    entries = map(json.loads, (cli_out / "auglab-manifest.jsonl").read_text().splitlines()[1:])
    failed = sorted(e["input"] for e in entries if e["status"] == "failed")
    assert failed == ["cats/broken.png", "cats/chelsea.png", "cups/hot/coffee.png", "rocket.jpg", "rocket.png"]
    reported = [line for line in r.stderr.splitlines() if line.startswith("failed: ")]
    assert len(reported) == 5, r.stderr[-4000:]
    for name in failed:
        assert any(f"/{name}'" in line for line in reported), f"{name} is not reported:\n" + "\n".join(reported)
    assert any("rename one of the two" in line for line in reported)
    assert any("square images only" in line for line in reported)


# Mixing presets, their partners drawn from the whole folder, and whether the folder holds a corrupt
# file (the 4-image grid draws three partners a sample: with one, nearly every input would fail).
MIXING_PRESETS = {
    "mixup_cutmix": ([{"op": "horizontal_flip", "p": 0.5}, {"op": "cutmix", "p": 0.7}, {"op": "mixup", "p": 0.7}],
                     True),
    "mosaic": ([{"op": "mosaic", "p": 1}, {"op": "brightness_contrast"}], False),
}


@pytest.mark.parametrize("name", sorted(MIXING_PRESETS))
def test_mixing_ops_draw_augments_partners(cli, dataset, tmp_path, name):
    """Partners come from augment's pool, every file it lists in its order, those it cannot augment
    included: a clashing name (a partner read as any other) and a corrupt file (a partner that fails
    the sample drawing it). The same files as augment, byte for byte, and the same failures."""
    pipeline, broken = MIXING_PRESETS[name]
    if broken:
        (dataset / "cats" / "broken.png").write_bytes((SAMPLES / "chelsea.png").read_bytes()[:500])
    shutil.copyfile(SAMPLES / "rocket.jpg", dataset / "rocket.png")
    preset, seed = write_preset(tmp_path, name, preset_text(pipeline)), 11
    ray_out, cli_out = tmp_path / "ray-out", tmp_path / "cli-out"
    r = run_example("--preset", preset, "--input", dataset, "--output", ray_out, "--copies", 3,
                    "--seed", seed, "--workers", 2)
    c = cli.run("augment", "--preset", preset, "--input", dataset, "--output", cli_out, "--copies", 3,
                "--seed", seed, "--backend", "cpu", "--jobs", 2, check=False)
    assert r.returncode == c.returncode == 1, f"{r.returncode} {c.returncode}\n{r.stderr[-4000:]}\n{c.stderr}"

    entries = [json.loads(line) for line in (cli_out / "auglab-manifest.jsonl").read_text().splitlines()[1:]]
    failed = sorted(e["input"] for e in entries if e["status"] == "failed")
    names = image_files(cli_out)
    # Not vacuous: outputs with partners, and with the corrupt file an input failed on drawing it.
    if broken:
        assert len(names) >= 4 and len(failed) >= 3 and "cats/broken.png" in failed, (names, failed)
    else:
        assert len(names) == 12 and failed == ["rocket.png"], (names, failed)
    assert image_files(ray_out) == names
    for name in names:
        a, b = (ray_out / name).read_bytes(), (cli_out / name).read_bytes()
        if a != b:
            assert_same(auglab.imread(ray_out / name), auglab.imread(cli_out / name), name)
            pytest.fail(f"{name}: the same pixels, but not the same PNG bytes ({len(a)} and {len(b)})")
    assert re.search(rf"{len(names)} outputs written by [12] worker processes, {len(failed)} inputs failed",
                     r.stdout), r.stdout
    reported = [line for line in r.stderr.splitlines() if line.startswith("failed: ")]
    for input_name in failed:
        assert any(f"/{input_name}'" in line for line in reported), f"{input_name} is not reported:\n{reported}"
