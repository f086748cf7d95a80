"""pipe.batch: the engine's thread pool with the GIL released, outputs identical for any thread count
and to one call per image."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

import auglab
from conftest import PHOTOS, PRESETS, W2, assert_same


@pytest.fixture(scope="module")
def images(photos):
    """Mixed sizes, RGB and RGBA, strided views among them."""
    out = []
    for photo in PHOTOS:
        image = photos[photo.name]
        out += [image, image[::-1, 10:-10], np.dstack([image, np.full(image.shape[:2], 200, np.uint8)])]
    return out


@pytest.mark.parametrize("preset", [json.dumps(W2), (PRESETS / "strong-geometric-cutout.auglab.json").read_text(),
                                    (PRESETS / "colour-only.auglab.json").read_text()], ids=["w2", "strong", "colour"])
def test_thread_count_does_not_change_outputs(images, preset):
    pipe = auglab.Pipeline.from_json(preset)
    indices = [3 * i + 1 for i in range(len(images))]
    reference = [pipe(image, index) for image, index in zip(images, indices)]
    for threads in (1, 2, 3, 8, None):
        outs = pipe.batch(images, indices, threads=threads)
        assert len(outs) == len(images)
        for i, (a, b) in enumerate(zip(outs, reference)):
            assert_same(a, b, f"threads={threads} image {i}")


def test_stacked_array_and_iterables(photos):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    stack = np.stack([photos["chelsea.png"][:, i:i + 300] for i in range(0, 120, 20)])
    outs = pipe.batch(stack, range(10, 16), threads=2)
    for k, out in enumerate(outs):
        assert_same(out, pipe(stack[k], 10 + k))
    assert_same(pipe.batch(iter(list(stack)), (i for i in range(10, 16)))[5], outs[5])
    assert pipe.batch([], []) == []


def test_seed_of_a_batch(photos):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    image = photos["coffee.png"]
    assert_same(pipe.batch([image], [4], seed=77)[0], pipe(image, 4, seed=77))


def test_python_threads_share_a_pipeline(photos):
    """Calls release the GIL and keep no state: threads calling one Pipeline get the same samples."""
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    image = photos["astronaut.png"]
    expected = [pipe(image, i) for i in range(24)]
    results = {}

    def work(first):
        for i in range(first, 24, 4):
            results[i] = pipe(image, i)

    workers = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for i in range(24):
        assert_same(results[i], expected[i], f"sample {i}")


def test_failures_name_the_first_failing_image(photos):
    pipe = auglab.Pipeline.from_json(json.dumps(
        {"format": "auglab-preset", "version": 1, "pipeline": [{"op": "random_crop", "size": [200, 200]}]}))
    good, small = photos["chelsea.png"], np.zeros((50, 50, 3), np.uint8)
    try:
        pipe(small, 0)
    except ValueError as e:
        message = str(e)
    else:
        pytest.skip("random_crop takes a small image here")
    for threads in (1, 4):
        with pytest.raises(ValueError) as e:
            pipe.batch([good, good, small, good, small], range(5), threads=threads)
        assert str(e.value) == "images[2]: " + message


def test_cuda_backend_says_why_it_cannot_run(photos):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    image = photos["chelsea.png"]
    try:
        outs = pipe.batch([image, image], [0, 1], backend="cuda")
    except RuntimeError as e:
        assert str(e), "an empty reason"
        if auglab._auglab.cuda_built():
            pytest.skip(f"no CUDA device: {e}")
        assert "not built" in str(e)
        return
    # On a device: SPEC §2's bounds against the CPU reference.
    for k, out in enumerate(outs):
        reference = pipe(image, k)
        assert out.shape == reference.shape
        d = np.abs(out.astype(int) - reference.astype(int))
        assert d.mean() <= 0.25 and d.max() <= 8 and np.mean(d > 2) <= 0.001
