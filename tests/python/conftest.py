"""Shared fixtures of the `auglab` module's suites: the bundled photos, the built-in presets and the
auglab-cli binary the module is compared with (AUGLAB_CLI; ctest sets it)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import auglab

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "resources" / "samples"
PRESETS = ROOT / "presets"
PHOTOS = sorted(p for p in SAMPLES.iterdir() if p.suffix in (".png", ".jpg"))

# The SPEC §8 W2 pipeline (app/cli/commands_bench.cpp workloadPipeline).
W2 = {"format": "auglab-preset", "version": 1, "name": "w2", "seed": 1,
      "pipeline": [{"op": "affine"}, {"op": "horizontal_flip", "p": 0.5}, {"op": "coarse_dropout"},
                   {"op": "brightness_contrast"}]}


def preset_text(pipeline, seed=5, **extra):
    return json.dumps({"format": "auglab-preset", "version": 1, "seed": seed, "pipeline": pipeline, **extra})


# The sanitized run preloads ASan's shared runtime into this interpreter (run_suite.sh's
# AUGLAB_PRELOAD); that build's auglab-cli carries its own, and two runtimes in one process abort.
CLI_ENVIRONMENT = {key: value for key, value in os.environ.items()
                   if not (key == "LD_PRELOAD" and os.environ.get("AUGLAB_PRELOAD"))}


class Cli:
    """auglab-cli, run as a user would."""

    def __init__(self, path: str) -> None:
        self.path = path

    def run(self, *args, check=True) -> subprocess.CompletedProcess:
        r = subprocess.run([self.path, *map(str, args)], capture_output=True, text=True, env=CLI_ENVIRONMENT)
        if check and r.returncode != 0:
            raise AssertionError(f"auglab-cli {' '.join(map(str, args))} failed ({r.returncode}): {r.stderr}")
        return r

    def apply(self, preset, image, index, out, *more, check=True) -> subprocess.CompletedProcess:
        return self.run("apply", "--preset", preset, "--image", image, "--index", index, "--out", out,
                        "--backend", "cpu", *more, check=check)


@pytest.fixture(scope="session")
def cli() -> Cli:
    path = os.environ.get("AUGLAB_CLI") or str(ROOT / "build" / "app" / "cli" / "auglab-cli")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no auglab-cli at {path}: build it, or set AUGLAB_CLI")
    return Cli(path)


@pytest.fixture(scope="session")
def photos():
    """The bundled photos as the engine decodes them."""
    return {p.name: auglab.imread(p) for p in PHOTOS}


@pytest.fixture(scope="session")
def op_names(cli):
    return json.loads(cli.run("info", "--json").stdout)["ops"]


def write_preset(folder: pathlib.Path, name: str, text: str) -> pathlib.Path:
    path = folder / f"{name}.auglab.json"
    path.write_text(text)
    return path


def assert_same(a: np.ndarray, b: np.ndarray, what: str = "") -> None:
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    assert a.dtype == b.dtype == np.uint8
    if not np.array_equal(a, b):
        d = np.abs(a.astype(int) - b.astype(int))
        raise AssertionError(f"{what}: {np.count_nonzero(d)} values differ, max {d.max()}")


def pytest_terminal_summary(terminalreporter):
    """Each skipped test with its reason, in Qt Test's words: scripts/test.sh lists those lines."""
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        terminalreporter.write_line(f"SKIP   : {report.nodeid} {reason}")
