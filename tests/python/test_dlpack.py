"""Pipeline.batch(..., output="dlpack"): the outputs in one allocation, handed over through the array
API's DLPack protocol. On the host (the CPU backend) NumPy is the consumer here (torch in
test_torch.py); on a CUDA device, where one exists, the batch stays in device memory."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest

import auglab
from auglab import _auglab
from conftest import W2

# A fixed-size output (the batch stacks) and one whose size follows the input (it does not).
FIXED = {"format": "auglab-preset", "version": 1, "name": "fixed", "seed": 4,
         "pipeline": [{"op": "affine"}, {"op": "horizontal_flip", "p": 0.5},
                      {"op": "random_crop", "size": [32, 40]}, {"op": "brightness_contrast"}]}


@pytest.fixture(scope="module")
def images(photos):
    """Five crops of the photos, RGB and RGBA, one of them a strided view."""
    photo = list(photos.values())
    rgba = np.dstack([photo[1][:70, :90, :3], np.arange(70 * 90, dtype=np.uint8).reshape(70, 90)])
    return [np.ascontiguousarray(photo[0][:64, :80, :3]), photo[2][10:150:2, 20:200:2, :3], rgba,
            np.ascontiguousarray(photo[3][:48, :56, :3]), np.ascontiguousarray(photo[0][30:90, 40:130, :3])]


@pytest.fixture(scope="module")
def rgb(images):
    """The RGB ones: a batch of one size and one channel count stacks."""
    return [images[k] for k in (0, 1, 3, 4)]


@pytest.fixture(scope="module")
def fixed():
    return auglab.Pipeline.from_json(json.dumps(FIXED))


def test_each_tensor_is_the_numpy_output(images):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    indices = [3, 0, 7, 11, 2]
    expected = pipe.batch(images, indices)
    batch = pipe.batch(images, indices, output="dlpack")
    assert isinstance(batch, auglab.ImageBatch) and len(batch) == 5 and batch.device == "cpu"
    for k, tensor in enumerate(batch):
        assert isinstance(tensor, auglab.ImageTensor)
        assert tensor.__dlpack_device__() == (1, 0)  # kDLCPU, device 0
        assert tensor.shape == expected[k].shape
        got = np.from_dlpack(tensor)
        assert got.dtype == np.uint8 and got.shape == expected[k].shape
        np.testing.assert_array_equal(got, expected[k])
        np.testing.assert_array_equal(tensor.numpy(), expected[k])
    np.testing.assert_array_equal(np.from_dlpack(batch[-1]), expected[-1])
    with pytest.raises(IndexError, match="image 5 of a batch of 5"):
        batch[5]


def test_stack_is_the_batch_as_it_lies(rgb, fixed):
    indices = list(range(20, 24))
    expected = np.stack(fixed.batch(rgb, indices, threads=2))
    batch = fixed.batch(rgb, indices, threads=2, output="dlpack")
    stacked = batch.stack()
    assert stacked.shape == (4, 32, 40, 3)
    whole = np.from_dlpack(stacked)
    np.testing.assert_array_equal(whole, expected)
    # No copy: image 3 and the stack's slice 3 are the same bytes.
    third = np.from_dlpack(batch[3])
    assert np.shares_memory(whole[3], third)
    assert not np.shares_memory(whole[2], third)


def test_stack_names_the_sizes_that_differ(images):
    pipe = auglab.Pipeline.from_json(json.dumps(W2))
    batch = pipe.batch(images[:2], [0, 1], output="dlpack")
    with pytest.raises(ValueError, match=r"stack: the images differ in size: \[0\] is 64 x 80 x 3, \[1\] is 70 x 90 x 3"):
        batch.stack()
    with pytest.raises(ValueError, match="stack: the batch has no image"):
        pipe.batch([], [], output="dlpack").stack()


def test_memory_lives_as_long_as_any_consumer(rgb, fixed):
    gc.collect()
    before = _auglab._live_image_memories()
    batch = fixed.batch(rgb, range(4), output="dlpack")
    expected = [t.numpy().copy() for t in batch]
    taken = [np.from_dlpack(t) for t in batch]
    whole = np.from_dlpack(batch.stack())
    assert _auglab._live_image_memories() == before + 1
    del batch
    gc.collect()
    assert _auglab._live_image_memories() == before + 1  # the arrays still read it
    for k, copy in enumerate(expected):
        np.testing.assert_array_equal(taken[k], copy)
    del taken
    gc.collect()
    np.testing.assert_array_equal(whole, np.stack(expected))
    del whole
    gc.collect()
    assert _auglab._live_image_memories() == before
    # A capsule nobody consumed gives its reference back when it goes.
    batch = fixed.batch(rgb[:1], [0], output="dlpack")
    capsule = batch[0].__dlpack__()
    del batch
    gc.collect()
    assert _auglab._live_image_memories() == before + 1
    del capsule
    gc.collect()
    assert _auglab._live_image_memories() == before


def test_dlpack_keywords(images, fixed):
    batch = fixed.batch(images, range(5), output="dlpack")
    tensor = batch[1]
    shared = np.from_dlpack(tensor)
    copied = np.from_dlpack(tensor, copy=True)  # NumPy passes copy=True: new memory
    np.testing.assert_array_equal(copied, shared)
    assert not np.shares_memory(copied, shared)
    np.testing.assert_array_equal(np.from_dlpack(tensor, device="cpu"), shared)
    assert np.shares_memory(np.from_dlpack(tensor, copy=False), shared)
    tensor.__dlpack__(stream=None, max_version=(1, 0), dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match="the images are on cpu; only a copy to the host"):
        tensor.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match="dl_device: expected a \\(device type, device id\\) pair"):
        tensor.__dlpack__(dl_device="cuda")
    with pytest.raises(TypeError, match="stream: expected an integer or None, got str"):
        tensor.__dlpack__(stream="default")
    with pytest.raises(ValueError, match='output: expected "numpy" or "dlpack", got "torch"'):
        fixed.batch(images, range(5), output="torch")


def test_cuda_batch_stays_on_the_device(rgb, fixed):
    try:
        batch = fixed.batch(rgb, range(4), backend="cuda", output="dlpack")
    except RuntimeError as e:
        if auglab._auglab.cuda_built():
            pytest.skip(f"no CUDA device: {e}")
        assert "not built" in str(e)
        pytest.skip(f"this module has no CUDA backend: {e}")
    assert batch.device == "cuda:0"
    reference = fixed.batch(rgb, range(4))
    host = fixed.batch(rgb, range(4), backend="cuda")
    stacked = batch.stack()
    assert stacked.__dlpack_device__() == (2, 0)  # kDLCUDA, device 0
    assert stacked.shape == np.stack(reference).shape
    # The device's bytes, copied to the host two ways, are the host path's outputs exactly.
    np.testing.assert_array_equal(stacked.numpy(), np.stack(host))
    np.testing.assert_array_equal(np.from_dlpack(batch[2], device="cpu"), host[2])
    with pytest.raises(BufferError, match="copy=False forbids the copy to the host"):
        batch[2].__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(ValueError, match="stream: 0 is ambiguous"):
        batch[2].__dlpack__(stream=0)
    # And within SPEC §2's bounds of the CPU reference.
    for out, ref in zip(host, reference):
        d = np.abs(out.astype(int) - ref.astype(int))
        assert d.mean() <= 0.25 and d.max() <= 8 and np.mean(d > 2) <= 0.001
