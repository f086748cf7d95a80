"""pipe.replay returns the concrete parameters `auglab-cli apply --save-replay` writes, and
apply_replay renders them again bit for bit."""

from __future__ import annotations

import json

import pytest

import auglab
from conftest import PHOTOS, PRESETS, W2, assert_same, write_preset

PRESET_FILES = sorted(PRESETS.glob("*.auglab.json"))


@pytest.mark.parametrize("preset", PRESET_FILES + ["w2"], ids=lambda p: getattr(p, "name", p).split(".")[0])
def test_replay_is_the_cli_replay(cli, photos, tmp_path, preset):
    if preset == "w2":
        preset = write_preset(tmp_path, "w2", json.dumps(W2))
    pipe = auglab.Pipeline.load(preset)
    for photo in PHOTOS[:2]:
        for index in (0, 5, 123456789):
            saved = tmp_path / "r.json"
            cli.apply(preset, photo, index, tmp_path / "o.png", "--save-replay", saved)
            expected = json.loads(saved.read_text())
            image = photos[photo.name]
            assert pipe.replay(image, index) == expected
            assert pipe.replay(image.shape[:2], index) == expected
            assert_same(auglab.apply_replay(image, expected), pipe(image, index))
            assert_same(auglab.apply_replay(image, saved.read_text()), auglab.imread(tmp_path / "o.png"))


def test_replay_of_a_seed(photos):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    image = photos["coffee.png"]
    r = pipe.replay(image, 9, seed=31)
    assert r["seed"] == 31 and r["index"] == 9 and r["format"] == "auglab-replay"
    assert_same(auglab.apply_replay(image, r), pipe(image, 9, seed=31))


def test_a_replay_needs_its_image_size(photos):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    r = pipe.replay(photos["coffee.png"], 2)
    with pytest.raises(ValueError, match="drawn for a 600x400 image, not 451x300"):
        auglab.apply_replay(photos["chelsea.png"], r)
    with pytest.raises(ValueError, match=r"^oops: unknown key"):
        auglab.apply_replay(photos["coffee.png"], {"format": "auglab-replay", "version": 1, "oops": 1})
