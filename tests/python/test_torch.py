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


def test_file_paths_are_read_by_the_pipeline(items, tmp_path):
    """Items that are image file paths: the pipeline decodes only what each sample reads, and the
    batches are those of the decoded images; a partner given as a path is read whole."""
    crop = auglab.Pipeline.from_json(json.dumps({"format": "auglab-preset", "version": 1, "seed": 4, "pipeline": [
        {"op": "random_resized_crop", "size": [32, 32], "p": 1}, {"op": "color_jitter", "p": 0.8}]}))
    paths = []
    for k, (image, label) in enumerate(items[:6]):
        paths.append(tmp_path / f"{k}.jpg")
        auglab.imwrite(paths[-1], image)
    decoded = [(auglab.imread(p), k) for k, p in enumerate(paths)]
    by_path = at.AugmentedDataset([(p, k) for k, p in enumerate(paths)], crop, epoch=1)
    by_array = at.AugmentedDataset(decoded, crop, epoch=1)
    for i in range(len(paths)):
        assert torch.equal(by_path[i][0], by_array[i][0]) and by_path[i][1] == i
    assert torch.equal(at.Transform(crop)(str(paths[2]), 7), at.Transform(crop)(decoded[2][0], 7))
    assert np.array_equal(at.as_image(paths[3]), decoded[3][0])
    mix = auglab.Pipeline.from_json(json.dumps({"format": "auglab-preset", "version": 1, "seed": 4, "pipeline": [
        {"op": "mixup", "p": 1}]}))
    assert torch.equal(at.AugmentedDataset(paths, mix)[1], at.AugmentedDataset([d for d, _ in decoded], mix)[1])


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


def test_batch_transform_is_the_transform_stacked(pipe, items):
    """BatchTransform: one tensor N x C x H x W, each image exactly Transform's, the batch's own memory."""
    images = [image for image, _ in items[:6]]
    indices = [4, 9, 0, 17, 3, 11]
    want = torch.stack([at.Transform(pipe)(image, i) for image, i in zip(images, indices)])
    x = at.BatchTransform(pipe)(images, torch.tensor(indices))
    assert x.dtype == torch.uint8 and x.device.type == "cpu" and x.shape == want.shape
    assert torch.equal(x, want)
    assert x.is_contiguous(memory_format=torch.channels_last)  # N x H x W x C as it lies, no copy
    nhwc = at.BatchTransform(pipe, channels_first=False)(torch.from_numpy(np.stack(images)), indices)
    assert torch.equal(nhwc, want.permute(0, 2, 3, 1)) and nhwc.is_contiguous()
    # Sizes that differ: stack=False gives a list; stacking names the sizes.
    mixed = [images[0], images[1][:40]]
    listed = at.BatchTransform(pipe, stack=False)(mixed, [1, 2])
    assert [tuple(t.shape) for t in listed] == [(3, 48, 64), (3, 40, 64)]
    assert torch.equal(listed[1], at.Transform(pipe)(mixed[1], 2))
    with pytest.raises(ValueError, match=r"stack: the images differ in size: \[0\] is 48 x 64 x 3, \[1\] is 40 x 64 x 3"):
        at.BatchTransform(pipe)(mixed, [1, 2])
    with pytest.raises(ValueError, match="backend"):
        at.BatchTransform(pipe, backend="gl")


@pytest.mark.parametrize("workers", [0, 2])
def test_deferred_batches_are_the_dataset_samples(items, workers):
    """defer=True: workers only read; BatchTransform renders each batch as the dataset would have,
    mixing partners from the dataset included."""
    pipe = auglab.Pipeline.from_json(json.dumps({"format": "auglab-preset", "version": 1, "seed": 4,
                                                 "pipeline": [{"op": "mixup", "p": 0.7}, {"op": "affine"}]}))
    rendered = at.AugmentedDataset(items, pipe)
    deferred = at.AugmentedDataset(items, pipe, defer=True)
    augment = at.BatchTransform(pipe, partners=at.DatasetImages(items))
    sampler = at.EpochSampler(RandomSampler(range(len(items)), generator=torch.Generator().manual_seed(5)))
    loader = DataLoader(deferred, batch_size=4, sampler=sampler, num_workers=workers, collate_fn=at.collate)
    seen = 0
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for images, indices, labels in loader:
            assert isinstance(images, list) and indices.dtype == torch.int64
            x = augment(images, indices)
            for k, label in enumerate(labels.tolist()):
                assert int(indices[k]) == epoch * len(items) + label
                assert torch.equal(x[k], rendered[(epoch, label)][0]), (epoch, label)
                seen += 1
    assert seen == 2 * len(items)
    image, label = items[2]
    assert deferred[(1, 2)][1] == len(items) + 2
    record = at.AugmentedDataset([{"image": image, "label": label}], pipe, defer=True)[0]
    assert record["index"] == 0 and record["label"] == label and record["image"] is image
    batch = at.collate([record, record])
    assert batch["index"].tolist() == [0, 0] and batch["label"].tolist() == [label, label]


def test_batch_transform_on_cuda_stays_on_the_device(pipe, items):
    images = [image for image, _ in items[:6]]
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    try:
        x = at.BatchTransform(pipe, backend="cuda")(images, range(6))
    except RuntimeError as e:
        pytest.skip(f"auglab's CUDA backend cannot run here: {e}")
    assert x.device.type == "cuda" and x.dtype == torch.uint8
    host = pipe.batch(images, range(6), backend="cuda")
    assert torch.equal(x.cpu(), torch.from_numpy(np.stack(host)).permute(0, 3, 1, 2))
    x.add_(1)  # the consumer's own memory: it may write, and the batch's next render is unaffected
    again = at.BatchTransform(pipe, backend="cuda")(images, range(6))
    assert torch.equal(again.cpu(), torch.from_numpy(np.stack(host)).permute(0, 3, 1, 2))


def test_training_tail_gives_float_tensors(items):
    """A preset ending in normalize (and to_tensor): Transform, AugmentedDataset and BatchTransform
    hand over the tail's float32 C x H x W tensors, the module's arrays without a copy; the CUDA
    BatchTransform refuses the preset, saying why."""
    crop = {"op": "random_crop", "size": [40, 56]}
    for tail in ([{"op": "normalize"}, {"op": "to_tensor"}], [{"op": "normalize"}]):
        pipe = auglab.Pipeline.from_json(json.dumps({**W2, "pipeline": W2["pipeline"] + [crop] + tail}))
        image = items[2][0]
        want = torch.from_numpy(pipe(image, 6))
        if "to_tensor" not in pipe.training_tail:
            want = want.permute(2, 0, 1)
        got = at.Transform(pipe)(image, 6)
        assert got.dtype == torch.float32 and tuple(got.shape) == (3, 40, 56) and torch.equal(got, want)
        data = at.AugmentedDataset([(image, 1)], pipe, epoch=6)
        assert torch.equal(data[0][0], want)
        batch = at.BatchTransform(pipe)([items[2][0], items[3][0]], [6, 7])
        assert batch.dtype == torch.float32 and tuple(batch.shape) == (2, 3, 40, 56)
        assert torch.equal(batch[0], want)
        last = at.BatchTransform(pipe, channels_first=False)([image], [6])
        assert torch.equal(last[0], want.permute(1, 2, 0))
        with pytest.raises(ValueError, match="training tail"):
            at.BatchTransform(pipe, backend="cuda")
