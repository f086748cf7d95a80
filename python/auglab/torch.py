"""AugLab samples in a PyTorch input pipeline, the same whatever the DataLoader's workers do.

A sample of AugLab is a pure function of (seed, sample index). Here the sample index of dataset
item ``i`` in epoch ``e`` is ``e * len(dataset) + i``: it depends on the epoch and the item alone,
never on ``num_workers``, on which worker fetched the item, on the order workers finish, or on
``persistent_workers`` (where libraries that seed per worker give other images, and an epoch
counter set on the dataset never reaches the workers: AlbumentationsX #266, #81).

Two ways to tell the workers the epoch, either enough:

- :class:`EpochSampler` wraps the loader's sampler and yields ``(epoch, i)`` keys: the epoch
  travels with each index, so no state is shared at all (the recommended way);
- :meth:`AugmentedDataset.set_epoch` writes the epoch into shared memory that every worker,
  persistent or not, forked or spawned, reads when it renders an item.

    from torch.utils.data import DataLoader, RandomSampler
    import auglab, auglab.torch

    pipe = auglab.Pipeline.load("mild-geometric.auglab.json")
    data = auglab.torch.AugmentedDataset(my_dataset, pipe)        # items (image, label) or images
    sampler = auglab.torch.EpochSampler(RandomSampler(data))
    loader = DataLoader(data, batch_size=64, sampler=sampler, num_workers=8, persistent_workers=True)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for images, labels in loader:                             # images: uint8 N x C x H x W
            ...

Images become ``uint8`` C x H x W tensors (the layout of Albumentations' ToTensorV2, not scaled);
normalisation stays with the training code.

A dataset whose items are image file paths (or ``(path, label)`` pairs) lets the pipeline read the
files itself: only the part of a JPEG that the sample's crop reads is decoded (see
:meth:`auglab.Pipeline.__call__`), bit for bit what decoding the whole file would give:

    data = auglab.torch.AugmentedDataset(list_of_paths_and_labels, pipe)

On the GPU: the workers only read and decode (``AugmentedDataset(..., defer=True)`` gives each
image untouched with its sample index, :func:`collate` keeps the images a list), and
:class:`BatchTransform` renders each batch in the training process with the CUDA backend; the
batch stays on the device and reaches torch through DLPack, without a copy:

    data = auglab.torch.AugmentedDataset(my_dataset, pipe, defer=True)
    loader = DataLoader(data, batch_size=64, sampler=sampler, num_workers=8,
                        collate_fn=auglab.torch.collate)
    augment = auglab.torch.BatchTransform(pipe, backend="cuda")
    for images, indices, labels in loader:
        x = augment(images, indices)           # uint8 N x C x H x W on cuda:0 (channels_last)

Mixing ops (mixup, cutmix, the 4-image grid) draw their partners from the dataset itself, as
``auglab-cli augment`` draws them from the folder: item ``i`` is number ``i`` of a pool of
``len(dataset)`` images, and a partner drawn is read with ``dataset[j]`` when (and only when) a
mixing op of the sample is applied, in the worker that renders the sample: one extra item read per
partner (mixup, cutmix: one; the grid: up to three), nothing for a pipeline without mixing ops. The
partner is a pure function of (seed, sample index, len(dataset)), so workers still change nothing,
provided ``dataset[j]`` gives the same image every time it is asked (a dataset that augments its own
items at random would not). ``partners=None`` takes the partner from the image itself instead.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from torch.utils.data import Dataset, Sampler, default_collate

from . import Pipeline, imread

__all__ = ["Transform", "BatchTransform", "AugmentedDataset", "DatasetImages", "EpochSampler", "collate",
           "sample_index"]

Key = Union[int, Tuple[int, int]]


def sample_index(epoch: int, item: int, length: int) -> int:
    """The sample index of dataset item ``item`` in epoch ``epoch`` of a dataset of ``length``."""
    if epoch < 0 or not 0 <= item < length:
        raise IndexError(f"item {item} of epoch {epoch} is outside a dataset of {length}")
    return epoch * length + item


def as_image(image: Any) -> np.ndarray:
    """A dataset's image as the H x W x 3 or 4 uint8 array AugLab takes: NumPy arrays as they are,
    PIL images converted to RGB (RGBA when they have alpha), uint8 tensors H x W x C or C x H x W,
    image file paths (``str``, ``os.PathLike``) read with :func:`auglab.imread`."""
    if isinstance(image, np.ndarray):
        return image
    if isinstance(image, (str, os.PathLike)):
        return imread(image)
    if isinstance(image, torch.Tensor):
        if image.dtype != torch.uint8 or image.ndim != 3:
            raise ValueError(f"image: expected a uint8 tensor of 3 dimensions, got {image.dtype} {tuple(image.shape)}")
        array = image.numpy()
        return array if array.shape[2] in (3, 4) else array.transpose(1, 2, 0)
    if hasattr(image, "convert") and hasattr(image, "mode"):  # a PIL image
        return np.asarray(image.convert("RGBA" if "A" in image.mode else "RGB"))
    raise TypeError(f"image: expected a NumPy array, a PIL image or a uint8 tensor, got {type(image).__name__}")


def image_of(item: Any) -> Any:
    """The image of a dataset item: the item itself, its first element (a tuple or list), or its
    ``"image"`` (a dict)."""
    if isinstance(item, dict):
        return item["image"]
    if isinstance(item, (tuple, list)):
        return item[0]
    return item


class DatasetImages(Sequence):
    """The images of ``dataset`` as a lazy partner pool: ``pool[j]`` reads ``dataset[j]`` and gives
    its image as AugLab takes it; nothing is read before a sample draws it."""

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, j: int) -> np.ndarray:  # type: ignore[override]
        return as_image(image_of(self.dataset[j]))


class Transform:
    """``pipe(image, index)`` as a ``uint8`` C x H x W tensor (``to_tensor=False``: the H x W x C
    array): for datasets that compute their own sample index (see :func:`sample_index`). A preset
    ending with the training tail gives what the tail makes (``normalize``: float32), C x H x W
    either way (``to_tensor=False``: as the pipeline returns it).
    ``partners`` and ``position`` are passed to the pipeline (see :meth:`auglab.Pipeline.__call__`):
    with a pool (a sequence of images, such as :class:`DatasetImages`) and the image's position in
    it, mixing ops draw their partners from the pool."""

    def __init__(self, pipeline: Pipeline, *, seed: Optional[int] = None, to_tensor: bool = True) -> None:
        self.pipeline, self.seed, self.to_tensor = pipeline, seed, to_tensor

    def __call__(self, image: Any, index: int, *, partners: Optional[Sequence[Any]] = None,
                 position: Optional[int] = None) -> Union[torch.Tensor, np.ndarray]:
        # A file path goes to the pipeline as it is: only the part of the file the sample reads is decoded.
        source = image if isinstance(image, (str, os.PathLike)) else as_image(image)
        out = self.pipeline(source, index, self.seed, partners=partners, position=position)
        if not self.to_tensor:
            return out
        x = torch.from_numpy(out)
        return x if "to_tensor" in self.pipeline.training_tail else x.permute(2, 0, 1)

    def __repr__(self) -> str:
        return f"auglab.torch.Transform({self.pipeline!r}, seed={self.seed}, to_tensor={self.to_tensor})"


class BatchTransform:
    """A batch in one call: ``augment(images, indices)`` renders ``images[i]`` as sample
    ``indices[i]`` with :meth:`auglab.Pipeline.batch` and returns one ``uint8`` tensor N x C x H x W
    (``channels_first=False``: N x H x W x C) on the backend's device: ``"cpu"`` (host memory) or
    ``"cuda"`` (the batch rendered on the GPU stays there). The tensor is the batch's own memory,
    taken through DLPack: no copy; channels first is a view of it (``channels_last`` in torch's
    terms). Images of one batch must come out at one size (a pipeline that ends with a fixed-size
    crop or resize); ``stack=False`` returns a list of H x W x C tensors instead.

    ``images``: a list of H x W x C arrays (or anything :func:`as_image` takes), or a uint8 tensor
    N x H x W x C on the host. ``partners``: the pool mixing ops draw from, such as
    ``DatasetImages(dataset)``; the image of sample index ``s`` is then item ``s % len(partners)``,
    as in :class:`AugmentedDataset`. ``threads``: the CPU threads that copy sources in and build
    plans (and render, on the CPU backend).

    A preset ending with the training tail (``normalize`` ...): on the CPU backend the batch is the
    tail's output (float32 for ``normalize``), stacked by torch; the CUDA backend hands over uint8
    images only, so such a preset is refused there (``ValueError``): normalise on the device."""

    def __init__(self, pipeline: Pipeline, *, backend: str = "cpu", seed: Optional[int] = None,
                 threads: Optional[int] = None, channels_first: bool = True, stack: bool = True,
                 partners: Optional[Sequence[Any]] = None) -> None:
        if backend not in ("cpu", "cuda"):
            raise ValueError(f'backend: expected "cpu" or "cuda", got {backend!r}')
        if backend == "cuda" and pipeline.training_tail:
            raise ValueError(f"pipeline: ends with the training tail {', '.join(pipeline.training_tail)}, which the "
                             f"CUDA backend does not render (its batches are uint8 on the device): remove it from "
                             f"the preset and normalise the tensor on the device, or use backend='cpu'")
        self.pipeline, self.backend, self.seed, self.threads = pipeline, backend, seed, threads
        self.channels_first, self.stack, self.partners = channels_first, stack, partners

    def __call__(self, images: Any, indices: Any) -> Union[torch.Tensor, list]:
        if isinstance(images, torch.Tensor) and images.ndim == 4:
            images = list(images.numpy())
        arrays = [as_image(image) for image in images]
        keys = [int(i) for i in (indices.tolist() if isinstance(indices, torch.Tensor) else indices)]
        pool: dict = {}
        if self.partners is not None:
            pool = {"partners": self.partners, "positions": [k % len(self.partners) for k in keys]}
        tail = self.pipeline.training_tail
        if tail:  # the tail's output: NumPy arrays, float32 for normalize
            outs = [torch.from_numpy(a) for a in self.pipeline.batch(arrays, keys, self.threads, self.backend,
                                                                      self.seed, **pool)]
            if self.channels_first != ("to_tensor" in tail):  # to_tensor made them C x H x W
                outs = [t.permute(2, 0, 1) if self.channels_first else t.permute(1, 2, 0) for t in outs]
            return torch.stack(outs) if self.stack else outs
        batch = self.pipeline.batch(arrays, keys, self.threads, self.backend, self.seed, output="dlpack", **pool)
        if not self.stack:
            outs = [torch.from_dlpack(t) for t in batch]
            return [t.permute(2, 0, 1) for t in outs] if self.channels_first else outs
        x = torch.from_dlpack(batch.stack())
        return x.permute(0, 3, 1, 2) if self.channels_first else x

    def __repr__(self) -> str:
        return f"auglab.torch.BatchTransform({self.pipeline!r}, backend={self.backend!r}, seed={self.seed})"


def collate(items: Sequence[Any]) -> Any:
    """The ``collate_fn`` for ``AugmentedDataset(..., defer=True)``: items ``(image, index,
    *rest)`` become ``(images, indices, *rest)`` with the images a list (their sizes may differ),
    the indices an int64 tensor and the rest collated as PyTorch's default does; dict items become a
    dict the same way."""
    if not items:
        raise ValueError("collate: no items")
    first = items[0]
    if isinstance(first, dict):
        out = {key: default_collate([item[key] for item in items]) for key in first if key not in ("image", "index")}
        return {"image": [item["image"] for item in items],
                "index": torch.tensor([item["index"] for item in items], dtype=torch.int64), **out}
    rest = [default_collate([item[k] for item in items]) for k in range(2, len(first))]
    return ([item[0] for item in items], torch.tensor([item[1] for item in items], dtype=torch.int64), *rest)


class AugmentedDataset(Dataset):
    """``dataset`` with each image replaced by its AugLab sample.

    Items of ``dataset`` may be images, tuples or lists whose first element is the image (the rest
    is passed on: labels), or dicts with an ``"image"``. ``data[i]`` renders item ``i`` in the
    epoch last given to :meth:`set_epoch`; ``data[(epoch, i)]`` (what :class:`EpochSampler` asks
    for) in that epoch. Either way the sample index is ``epoch * len(dataset) + i``.

    ``partners``: ``"dataset"`` (the default) makes the dataset the pool mixing ops draw partners
    from, item ``i`` at position ``i``, each partner read lazily with ``dataset[j]`` (see the
    module's notes); ``None`` takes the partner from the image itself.

    ``defer=True`` renders nothing: an item's image comes back untouched (as the H x W x C array
    AugLab takes) followed by its sample index, ``(image, index, *rest)`` (dicts: an ``"index"``
    key), for :func:`collate` and a :class:`BatchTransform` that renders the whole batch, on the
    GPU with ``backend="cuda"``. The indices are those the dataset would have rendered with.
    """

    def __init__(self, dataset: Any, pipeline: Pipeline, *, seed: Optional[int] = None, to_tensor: bool = True,
                 epoch: int = 0, partners: Optional[str] = "dataset", defer: bool = False) -> None:
        if partners not in ("dataset", None):
            raise ValueError(f'partners: expected "dataset" or None, got {partners!r}')
        self.dataset, self.defer = dataset, defer
        self.partners = DatasetImages(dataset) if partners == "dataset" else None
        self.transform = Transform(pipeline, seed=seed, to_tensor=to_tensor)
        # Shared memory: DataLoader workers, persistent or not, forked or spawned, see set_epoch.
        self._epoch = torch.tensor([epoch], dtype=torch.int64).share_memory_()

    @property
    def epoch(self) -> int:
        return int(self._epoch[0])

    def set_epoch(self, epoch: int) -> None:
        """The epoch ``data[i]`` renders, in this process and in every worker of a DataLoader."""
        if epoch < 0:
            raise ValueError(f"epoch: expected >= 0, got {epoch}")
        self._epoch[0] = epoch

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, key: Key) -> Any:
        epoch, item = key if isinstance(key, tuple) else (self.epoch, key)
        index = sample_index(epoch, item, len(self.dataset))
        value = self.dataset[item]
        if self.defer:
            image = as_image(image_of(value))
            if isinstance(value, dict):
                return {**value, "image": image, "index": index}
            if isinstance(value, (tuple, list)):
                return (image, index, *value[1:])
            return (image, index)
        pool = {"partners": self.partners, "position": item} if self.partners is not None else {}
        image = self.transform(image_of(value), index, **pool)
        if isinstance(value, dict):
            return {**value, "image": image}
        if isinstance(value, (tuple, list)):
            return (image, *value[1:])
        return image


class EpochSampler(Sampler):
    """Yields ``(epoch, i)`` for each index ``i`` of ``sampler`` (a Sampler such as RandomSampler or
    DistributedSampler, any sized iterable of indices, or an int n: 0 .. n - 1 in order): the
    epoch goes to the workers with every index. ``set_epoch`` also reaches the wrapped sampler's
    own ``set_epoch`` (DistributedSampler's shuffle)."""

    def __init__(self, sampler: Union[Sampler, Iterable[int], int], epoch: int = 0) -> None:
        self.sampler: Any = range(sampler) if isinstance(sampler, int) else sampler
        self.epoch = epoch

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch
        if hasattr(self.sampler, "set_epoch"):
            self.sampler.set_epoch(epoch)

    def __iter__(self) -> Iterator[Tuple[int, int]]:
        epoch = self.epoch
        return ((epoch, int(i)) for i in self.sampler)

    def __len__(self) -> int:
        return len(self.sampler)
