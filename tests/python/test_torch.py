"""auglab.torch: samples depend on (epoch, dataset item) only, never on DataLoader workers: 0 or 2
workers, persistent or not, forked or spawned, give the same batches (the bug of AlbumentationsX
#266 and #81)."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader, RandomSampler  # noqa: E402

import auglab  # noqa: E402
import auglab.torch as at  # noqa: E402
from conftest import W2  # noqa: E402

EPOCHS = 3


@pytest.fixture(scope="module")
def items(photos):
    """(image, label) pairs: 14 crops of the photos, 64 x 48, RGB."""
    out = []
    for k in range(14):
        image = list(photos.values())[k % 4]
        out.append((np.ascontiguousarray(image[5 * k:5 * k + 48, 7 * k:7 * k + 64, :3]), k))
    return out


@pytest.fixture(scope="module")
def pipe():
    return auglab.Pipeline.from_json(json.dumps(W2))


def expected_epoch(pipe, items, epoch, order):
    return [(torch.from_numpy(pipe(items[i][0], epoch * len(items) + i)).permute(2, 0, 1), items[i][1])
            for i in order]


def run(loader, epochs, set_epoch):
    seen = []
    for epoch in range(epochs):
        set_epoch(epoch)
        batches = [(images.clone(), labels.clone()) for images, labels in loader]
        seen.append(batches)
    return seen


def flatten(batches):
    return [(image, int(label)) for images, labels in batches for image, label in zip(images, labels)]


@pytest.mark.parametrize("workers, persistent, context", [
    (0, False, None), (2, False, "fork"), (2, True, "fork"), (2, True, "spawn")])
def test_epoch_sampler_is_worker_independent(pipe, items, workers, persistent, context):
    data = at.AugmentedDataset(items, pipe)
    sampler = at.EpochSampler(RandomSampler(range(len(items)), generator=torch.Generator().manual_seed(3)))
    loader = DataLoader(data, batch_size=4, sampler=sampler, num_workers=workers, persistent_workers=persistent,
                        multiprocessing_context=context)
    orders = []
    for epoch, batches in enumerate(run(loader, EPOCHS, sampler.set_epoch)):
        got = flatten(batches)
        labels = [label for _, label in got]
        orders.append(labels)
        for (image, label), (want, want_label) in zip(got, expected_epoch(pipe, items, epoch, labels)):
            assert label == want_label and torch.equal(image, want), (epoch, label)
    assert orders[0] != orders[1], "the sampler shuffles per epoch"


@pytest.mark.parametrize("workers, persistent", [(0, False), (2, False), (2, True)])
def test_set_epoch_reaches_persistent_workers(pipe, items, workers, persistent):
    data = at.AugmentedDataset(items, pipe)
    loader = DataLoader(data, batch_size=5, num_workers=workers, persistent_workers=persistent)
    results = run(loader, EPOCHS, data.set_epoch)
    for epoch, batches in enumerate(results):
        for (image, label), (want, _) in zip(flatten(batches), expected_epoch(pipe, items, epoch, range(len(items)))):
            assert torch.equal(image, want), (epoch, label)
    assert not torch.equal(results[0][0][0], results[1][0][0]), "epochs give other samples"


def test_items_and_transform(pipe, items, photos):
    image, label = items[3]
    data = at.AugmentedDataset([image, (image, label), {"image": image, "label": label}], pipe, epoch=2)
    want = torch.from_numpy(pipe(image, 2 * 3 + 0)).permute(2, 0, 1)
    assert torch.equal(data[0], want) and data[0].dtype == torch.uint8 and data[0].shape[0] == 3
    assert data[1][1] == label and data[2]["label"] == label
    assert torch.equal(data[(0, 1)][0], torch.from_numpy(pipe(image, 1)).permute(2, 0, 1))
    transform = at.Transform(pipe, seed=9)
    assert torch.equal(transform(image, 5), torch.from_numpy(pipe(image, 5, seed=9)).permute(2, 0, 1))
    assert torch.equal(transform(torch.from_numpy(image).permute(2, 0, 1), 5), transform(image, 5))
    assert np.array_equal(at.Transform(pipe, to_tensor=False)(image, 5), pipe(image, 5))
    PIL = pytest.importorskip("PIL.Image")
    assert torch.equal(transform(PIL.fromarray(image), 5), transform(image, 5))
    with pytest.raises(IndexError):
        data[(0, 3)]


class CountingItems:
    """A dataset of (image, label) items that counts the items read (per process)."""

    def __init__(self, items):
        self.items, self.reads = items, 0

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        self.reads += 1
        return self.items[i]


@pytest.mark.parametrize("op", ["mixup", "cutmix", "mosaic"])
def test_dataset_is_the_partner_pool(items, op):
    """Item i is number i of the pool of the dataset's images, as augment numbers a folder's inputs."""
    pipe = auglab.Pipeline.from_json(json.dumps({"format": "auglab-preset", "version": 1, "seed": 4,
                                                 "pipeline": [{"op": op, "p": 1}]}))
    images = [image for image, _ in items]
    data = at.AugmentedDataset(items, pipe, epoch=1)
    alone = at.AugmentedDataset(items, pipe, epoch=1, partners=None)
    changed = 0
    for i in range(len(items)):
        want = pipe(images[i], len(items) + i, partners=images, position=i)
        assert torch.equal(data[i][0], torch.from_numpy(want).permute(2, 0, 1)), i
        assert torch.equal(alone[i][0], torch.from_numpy(pipe(images[i], len(items) + i)).permute(2, 0, 1))
        changed += not torch.equal(data[i][0], alone[i][0])
    assert changed >= len(items) // 2
    # Lazily: one item read for the sample, and one per partner drawn (the grid: up to three).
    counting = CountingItems(items)
    at.AugmentedDataset(counting, pipe)[3]
    assert 2 <= counting.reads <= (4 if op == "mosaic" else 2)
    with pytest.raises(ValueError, match="partners"):
        at.AugmentedDataset(items, pipe, partners="batch")


@pytest.mark.parametrize("workers, persistent", [(0, False), (2, True)])
def test_partners_do_not_depend_on_workers(items, workers, persistent):
    pipe = auglab.Pipeline.from_json(json.dumps({"format": "auglab-preset", "version": 1, "seed": 4,
                                                 "pipeline": [{"op": "mixup", "p": 0.7}, {"op": "affine"}]}))
    images = [image for image, _ in items]
    data = at.AugmentedDataset(items, pipe)
    sampler = at.EpochSampler(RandomSampler(range(len(items)), generator=torch.Generator().manual_seed(5)))
    loader = DataLoader(data, batch_size=4, sampler=sampler, num_workers=workers, persistent_workers=persistent)
    for epoch, batches in enumerate(run(loader, 2, sampler.set_epoch)):
        for image, label in flatten(batches):
            want = pipe(images[label], epoch * len(items) + label, partners=images, position=label)
            assert torch.equal(image, torch.from_numpy(want).permute(2, 0, 1)), (epoch, label)
