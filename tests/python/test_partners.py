"""Partners of mixing ops (mixup, cutmix, the 4-image grid): pipe(image, i, partners=[P1, ...]) is
`auglab-cli apply --image F --index i --partner P1 ...` bit for bit; augment's pool (the sequence is
the whole pool, the image its item `position`) and the batch as the pool agree with it; batches do
not depend on the thread count; a lazy pool is asked only for the partners drawn."""

from __future__ import annotations

import numpy as np
import pytest

import auglab
from conftest import PHOTOS, assert_same, preset_text, write_preset

MIXING = {
    "mixup": [{"op": "mixup", "p": 1}],
    "cutmix": [{"op": "cutmix", "p": 1}],
    "mosaic": [{"op": "mosaic", "p": 1}],
    # Between other ops, with a partner of another size than the image (resized to the output).
    "cutmix_chain": [{"op": "horizontal_flip", "p": 0.5}, {"op": "cutmix", "p": 1}, {"op": "brightness_contrast"}],
}


@pytest.fixture(scope="module")
def pool(photos):
    return [photos[p.name] for p in PHOTOS]


class LazyPool:
    """A dataset-like pool (len and [i]) that records what it is asked for."""

    def __init__(self, images):
        self.images, self.asked = images, []

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        self.asked.append(i)
        return self.images[i]


@pytest.mark.parametrize("name", sorted(MIXING))
def test_partners_match_apply(cli, pool, tmp_path, name):
    preset = write_preset(tmp_path, name, preset_text(MIXING[name]))
    pipe = auglab.Pipeline.load(preset)
    changed = 0
    for main, photo in enumerate(PHOTOS):
        others = [p for k, p in enumerate(PHOTOS) if k != main]
        for index in (0, 7, 12):
            out = tmp_path / f"{photo.stem}-{index}.png"
            cli.apply(preset, photo, index, out, *[a for p in others for a in ("--partner", p)])
            sample = pipe(pool[main], index, partners=[img for k, img in enumerate(pool) if k != main])
            assert_same(sample, auglab.imread(out), f"{name} {photo.name} {index}")
            changed += not np.array_equal(sample, pipe(pool[main], index))
    assert changed >= 6  # the partners are other photos, not the image itself


@pytest.mark.parametrize("name", sorted(MIXING))
def test_batch_pools_do_not_depend_on_threads(pool, name):
    pipe = auglab.Pipeline.from_json(preset_text(MIXING[name]))
    images = pool * 2  # 8 images: a pool in which each photo is there twice
    indices = [3 * k + 1 for k in range(len(images))]
    own = [pipe(img, i, partners=images, position=k) for k, (img, i) in enumerate(zip(images, indices))]
    given = [pipe(img, i, partners=pool[:2]) for img, i in zip(images, indices)]
    for threads in (1, 2, 3, 8, None):
        for k, out in enumerate(pipe.batch(images, indices, threads=threads, partners="batch")):
            assert_same(out, own[k], f"batch pool, threads={threads}, image {k}")
        for k, out in enumerate(pipe.batch(images, indices, threads=threads, partners=pool[:2])):
            assert_same(out, given[k], f"given pool, threads={threads}, image {k}")
        lazy = LazyPool(images)
        for k, out in enumerate(pipe.batch(images[2:6], indices[2:6], threads=threads, partners=lazy,
                                           positions=range(2, 6))):
            assert_same(out, own[k + 2], f"lazy pool, threads={threads}, image {k + 2}")


def test_position_is_apply_for_the_first_item(pool):
    """apply's pool is the image then its partners: position 0 of [image, P...] is the same sample."""
    pipe = auglab.Pipeline.from_json(preset_text(MIXING["mosaic"]))
    for index in range(4):
        assert_same(pipe(pool[0], index, partners=pool, position=0), pipe(pool[0], index, partners=pool[1:]))


def test_lazy_pool_is_asked_only_for_partners_drawn(pool):
    mixup = auglab.Pipeline.from_json(preset_text([{"op": "mixup", "p": 1}]))
    lazy = LazyPool(pool)
    mixup(pool[1], 5, partners=lazy, position=1)
    assert len(lazy.asked) == 1 and lazy.asked[0] != 1  # one partner, never the image itself
    none = auglab.Pipeline.from_json(preset_text([{"op": "mixup", "p": 0}, {"op": "horizontal_flip", "p": 1}]))
    lazy = LazyPool(pool)
    assert_same(none(pool[1], 5, partners=lazy, position=1), none(pool[1], 5))
    assert lazy.asked == []  # no mixing op applied: nothing read


def test_without_a_mixing_op_partners_change_nothing(pool):
    pipe = auglab.Pipeline.from_json(preset_text([{"op": "affine"}, {"op": "coarse_dropout"}]))
    assert_same(pipe(pool[2], 9, partners=pool[:2]), pipe(pool[2], 9))
    assert_same(pipe.batch(pool, range(4), partners="batch")[3], pipe(pool[3], 3))


def test_partner_errors(pool):
    pipe = auglab.Pipeline.from_json(preset_text(MIXING["mixup"]))
    image = pool[0]
    with pytest.raises(ValueError, match=r"partners\[0\]: expected an H x W x 3"):
        pipe(image, 1, partners=[np.zeros((4, 4), np.uint8)])
    with pytest.raises(TypeError, match="partners: expected a sequence of images"):
        pipe(image, 1, partners=5)
    with pytest.raises(ValueError, match=r"position: expected 0 \.\. 4 - 1"):
        pipe(image, 1, partners=pool, position=4)
    with pytest.raises(ValueError, match="position: needs partners"):
        pipe(image, 1, position=0)
    with pytest.raises(ValueError, match=r"partners\[0\]: an image alone, but the call has targets"):
        pipe(image, 1, partners=pool, bboxes=[[1, 2, 30, 40]], class_labels=["a"])
    with pytest.raises(ValueError, match='partners: expected "batch"'):
        pipe.batch(pool, range(4), partners="all")
    with pytest.raises(ValueError, match="positions: expected one per image"):
        pipe.batch(pool, range(4), partners=pool, positions=[0, 1])
    with pytest.raises(ValueError, match="positions: needs partners as a sequence"):
        pipe.batch(pool, range(4), partners="batch", positions=range(4))

    class Broken(LazyPool):
        def __getitem__(self, i):
            raise KeyError(i)

    # A lazy item that fails names the image, the partner and the item, as an apply error would.
    with pytest.raises(ValueError, match=r"images\[0\]: partner image \d: partners\[\d\]: KeyError"):
        pipe.batch(pool[:2], [1, 2], partners=Broken(pool), positions=[0, 1], threads=2)


def augment_index(relative: str, copy: int) -> int:
    """augment's sample index of a copy (app/cli/augment_inputs.cpp; docs/examples/ray_augment.py)."""
    h = 0xCBF29CE484222325
    for byte in relative.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return ((h >> 27) << 16) | copy


def test_position_pool_matches_augment(cli, pool, tmp_path):
    """augment draws partners from the folder's inputs sorted by relative path: the pool with
    `position`, and the batch as the pool, give its files."""
    folder = tmp_path / "in"
    folder.mkdir()
    for photo in PHOTOS:
        (folder / photo.name).write_bytes(photo.read_bytes())
    preset = write_preset(tmp_path, "mix", preset_text([{"op": "mixup", "p": 0.8}, {"op": "cutmix", "p": 0.5},
                                                        {"op": "horizontal_flip", "p": 0.5}]))
    cli.run("augment", "--preset", preset, "--input", folder, "--output", tmp_path / "out", "--copies", 3,
            "--backend", "cpu")
    names = sorted(p.name for p in PHOTOS)
    images = [auglab.imread(folder / n) for n in names]
    pipe = auglab.Pipeline.load(preset)
    for copy in range(3):
        indices = [augment_index(n, copy) for n in names]
        outs = pipe.batch(images, indices, partners="batch", threads=2)
        for k, name in enumerate(names):
            written = auglab.imread(tmp_path / "out" / f"{name.rsplit('.', 1)[0]}_aug{copy}.png")
            assert_same(pipe(images[k], indices[k], partners=images, position=k), written, f"{name} {copy}")
            assert_same(outs[k], written, f"batch {name} {copy}")
