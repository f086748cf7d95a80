"""AugLab's augmentation engine for Python: the pixels you previewed, in your training loop.

``auglab.Pipeline`` loads an ``*.auglab.json`` preset (the GUI's file) and renders samples with
the same C++ engine as the preview and ``auglab-cli``. Sample ``index`` of a seed is a pure
function of (seed, index, preset, image size), so ``pipe(image, index)`` is exactly the image that
``auglab-cli apply --image F --index I --backend cpu`` writes, bit for bit, on any machine, in any
process and with any number of threads.

    import auglab
    pipe = auglab.Pipeline.load("presets/mild.auglab.json")
    out = pipe(image, index=7)                    # uint8 H x W x 3 or 4, as the CLI writes it
    x = pipe(image, 7)                            # float32 3 x H x W, for a preset ending in normalize, to_tensor
    outs = pipe.batch(images, range(64), threads=4)
    x = torch.from_dlpack(pipe.batch(images, range(64), backend="cuda", output="dlpack").stack())
    params = pipe.replay(image, 7)                # the concrete parameters (auglab-replay JSON)
    out = pipe(image, 7, partners=[p1, p2])       # mixing ops' pool: apply --partner P1 --partner P2
    image = auglab.imdecode(data)                 # a file's bytes, decoded as imread decodes the file

``auglab.torch`` (import it explicitly; needs PyTorch) wraps a dataset so that its samples depend
on (epoch, dataset index) only, not on DataLoader workers.
"""

from __future__ import annotations

import json
import operator
import os
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from . import _auglab
from ._targets import TargetRules, describe

__version__: str = _auglab.__version__
MAX_PIXELS: int = _auglab.MAX_PIXELS
"""The largest image the module takes or makes, in pixels (H x W): auglab-cli's limit (100 megapixels)."""
ImageBatch = _auglab.ImageBatch
ImageTensor = _auglab.ImageTensor
ImageBatch.__module__ = ImageTensor.__module__ = __name__
ImageBatch.__doc__ = """The outputs of ``Pipeline.batch(..., output="dlpack")``, in one allocation where they were
rendered: host memory for the CPU backend, the device's for CUDA (nothing crosses the bus).

``len(b)``, ``b[i]`` (an :class:`ImageTensor`, H x W x C) and ``b.stack()`` (one N x H x W x C
:class:`ImageTensor`, no copy: the images lie back to back; ``ValueError`` naming two sizes when
they differ). ``b.device``: ``"cpu"`` or ``"cuda:0"``. The memory is freed when the batch, its
tensors and every tensor a library made from them are gone."""
ImageTensor.__doc__ = """A ``uint8`` image (H x W x C) or a stack of them (N x H x W x C), C-contiguous, that speaks
the array API's DLPack protocol (``__dlpack__``, ``__dlpack_device__``): ``torch.from_dlpack(t)``,
``numpy.from_dlpack(t)`` (host memory), ``cupy.from_dlpack(t)`` or ``jax.dlpack.from_dlpack(t)``
take it without a copy, on its device. The images are written before the batch is returned, so any
stream may read them at once. ``__dlpack__(copy=True)`` hands over a copy; ``dl_device=(1, 0)``
a copy on the host. ``t.numpy()``: a NumPy array (a view of host memory; a copy from a device).
``t.shape``, ``t.device``."""
__all__ = ["Pipeline", "ImageBatch", "ImageTensor", "apply_replay", "imdecode", "imread", "imwrite", "MAX_PIXELS",
           "__version__"]


class Pipeline:
    """A preset, ready to render samples.

    Make one with :meth:`load` or :meth:`from_json`; both are strict, as ``auglab-cli validate``
    is: an unknown key, a wrong type, a value out of bounds or an unknown op raises ``ValueError``
    whose message names the JSON path of the fault (``pipeline[2].holes: min 9 > max 8``).

    A Pipeline is immutable, thread-safe (calls release the GIL) and picklable (it travels to
    DataLoader workers as its preset's JSON).

    Sizes: no image over :data:`MAX_PIXELS` (auglab-cli's 100 megapixels) is taken or made. An
    input array, a partner or a mask over it, and a sample whose pipeline would make one (an op's
    output, such as a resize to 16384 x 16384, or any frame between two ops) raise ``ValueError``
    naming it and the limit before anything is copied or rendered.

    Arguments of a wrong type raise ``TypeError`` naming the argument and what it expected
    (``threads: expected an integer, got float 2.0``), values out of range ``ValueError``.
    """

    __slots__ = ("_core", "_rules")

    def __init__(self, _core: "_auglab.Preset") -> None:
        if not isinstance(_core, _auglab.Preset):
            raise TypeError("use Pipeline.load(path) or Pipeline.from_json(text)")
        self._core = _core
        self._rules: Optional[TargetRules] = None

    @classmethod
    def load(cls, path: "str | os.PathLike[str]") -> "Pipeline":
        """Reads an ``*.auglab.json`` preset file. ``ValueError`` (with the file and the JSON path)
        when it is not a valid preset, ``ValueError`` too when it cannot be read. ``path``: a str,
        bytes or ``os.PathLike``, as ``open()`` takes it (a str from ``os.listdir`` for a name that
        is not UTF-8 opens that file)."""
        return cls(_auglab.Preset.load(path))

    @classmethod
    def from_json(cls, text: "str | bytes") -> "Pipeline":
        """Parses a preset document (the text of an ``*.auglab.json`` file; bytes in UTF-8)."""
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(f"text: not UTF-8 ({e})") from None
        elif not isinstance(text, str):
            raise TypeError(f"text: expected a str or bytes, got {describe(text)}")
        return cls(_auglab.Preset.from_json(text))

    # --- what the preset says -------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The preset's name."""
        return self._core.name

    @property
    def seed(self) -> int:
        """The preset's seed: the one used when a call gives none."""
        return self._core.seed

    def __len__(self) -> int:
        """The number of ops in the pipeline (those inside groups included)."""
        return self._core.op_count

    @property
    def training_tail(self) -> "tuple[str, ...]":
        """The preset's training ops (``normalize``, ``to_float``, ``from_float``, ``to_tensor``), in
        order: what a call renders after the previewed image (empty: calls return the uint8 image)."""
        return self._core.training_tail

    def to_json(self) -> str:
        """The preset as ``*.auglab.json`` text, every parameter written out."""
        return self._core.to_json()

    def __repr__(self) -> str:
        return f"auglab.Pipeline(name={self.name!r}, ops={len(self)}, seed={self.seed})"

    def __reduce__(self):
        return (Pipeline.from_json, (self.to_json(),))

    # --- samples ----------------------------------------------------------------------------------

    def __call__(self, image: "np.ndarray | str | os.PathLike", index: int, seed: Optional[int] = None, *,
                 partners: "Optional[Sequence[Any]]" = None, position: Optional[int] = None,
                 training: bool = True, **targets: Any):
        """Sample ``index`` of ``image``: what ``auglab-cli apply --index`` writes, bit for bit.

        ``image``: a NumPy ``uint8`` array, H x W x 3 (RGB) or H x W x 4 (RGBA; alpha moves with
        the geometry and is otherwise untouched), of any strides (slices, ``[::-1]`` views,
        Fortran order): it is read where it lies, into the engine's one copy of the source.
        ``image`` may also be the path of an image file (``str`` or ``os.PathLike``): the output is
        then that of ``self(imread(path), index)``, bit for bit, but only the part of the file the
        sample reads is decoded (a baseline JPEG whose first warp reads a crop of it: the rows
        below the crop are never decoded, those above only entropy-decoded, the columns beside it
        not transformed), which is most of a crop pipeline's time in a data loader. A sample that
        changes nothing returns the decoded image.
        ``index``: the sample index (an int >= 0); ``seed``: default the preset's seed.

        Without targets, returns the augmented image: a new ``uint8`` array, H' x W' x C (the
        size changes when the pipeline crops or resizes). When the sample changes no pixel (every
        op skipped by its ``p``, or only ``no_op``) and no training tail runs, the call returns
        ``image`` itself, not a copy, as Albumentations does: copy it before writing into it.

        The training tail: when the preset ends with ``normalize``, ``to_float``, ``from_float``
        or ``to_tensor`` (:attr:`training_tail`; the GUI previews the image before them), the call
        renders them too, as Albumentations 2.0.8 does, from the engine's last image in one pass
        (no NumPy pass in the training loop): ``normalize`` and ``to_float`` give ``float32``
        (the standard normalisation and ``to_float`` bit for bit the library's; the per-image
        normalisations give ``float32`` where the library returns ``float64``, equal to its values
        rounded to ``float32`` up to the last bit), ``from_float`` its ``dtype``, and
        ``to_tensor`` the C x H x W layout (a contiguous array; after ``to_tensor`` alone a C x H x
        W view of the uint8 image, as ``ToTensorV2``'s tensor is a view). A tail op whose ``p`` <
        1 is drawn as the library draws it. ``training=False``: the uint8 image before the tail,
        what ``auglab-cli apply`` writes and the GUI shows.

        ``partners``: the pool mixing ops (mixup, cutmix, the 4-image grid) draw their partners
        from. Without it the partner is the image itself, as ``apply`` does without ``--partner``.
        A sequence of images ``[P1, P2, ...]`` makes the pool ``image, P1, P2, ...``: bit for bit
        ``auglab-cli apply --image F --partner P1 --partner P2 ...``. With ``position=k`` the
        sequence is instead the whole pool and ``image`` its item ``k`` (``augment``'s pool: the
        folder's inputs in order, each drawing partners from the others). A list or tuple of
        arrays is read as it is; any other sequence (a dataset: ``len`` and ``[i]`` giving arrays)
        is asked only for the items a sample draws, when it draws them.

        With targets, as Albumentations' ``Compose(...)(image=..., bboxes=...)``, returns a dict
        with ``"image"`` and each target given, moved by the same parameters as the pixels and
        filtered by the preset's ``targets`` section (Albumentations 2.0.8's BboxParams and
        KeypointParams):

        - ``bboxes``: N x 4(+k) in the section's ``boxes.format`` (``pascal_voc`` by default;
          ``coco``, ``yolo``, ``albumentations``); extra columns ride along. Returns float64.
        - ``keypoints``: N x len(format)(+k) in ``keypoints.format`` (``xy`` by default; ``xya``
          etc., angles in degrees unless ``angle_in_degrees`` is false). Returns float64.
        - ``mask``: H x W uint8 (or H x W x K: K masks); ``masks``: a list of H x W uint8 masks, or
          one N x H x W uint8 array (as Albumentations 2 takes it), given back in the same form. A
          single H x W array as ``masks`` is a ``TypeError``: one mask is ``mask=``.
        - label fields named in ``boxes.label_fields`` / ``keypoints.label_fields`` (default
          ``class_labels`` for boxes): one value per box or keypoint, filtered with them. When the
          preset has a ``targets`` section, the fields it declares are required with what they label
          (a call with ``bboxes`` gives each of ``boxes.label_fields``, one with ``keypoints`` each of
          ``keypoints.label_fields``), as Albumentations' ``Compose`` requires: a missing one is a
          ``TypeError`` naming it. A preset without the section declares none: labels are optional.

        Partners with targets: mixing ops take a partner's labels with its pixels (the 4-image
        grid brings its boxes, keypoints and masks into its cell), so each item of ``partners`` is
        then a dict ``{"image": array, "bboxes": ..., "class_labels": ..., ...}`` with exactly the
        target keys of the call, in the same formats (converted with the partner's own size), as
        Albumentations' ``mosaic_metadata`` items: bit for bit ``auglab-cli apply --partner P1
        --partner-annotations A1 [--partner-masks M1]``. A partner's boxes and keypoints come back
        with their own label fields and extra columns (numeric rows need the call's columns); its
        ``mask``/``masks`` need the call's count of masks, at its own image's size. ``position``
        and lazy sequences work as above: an item is read once, only when a sample draws it, and
        a drawn item that is not such a dict raises ``ValueError`` naming it (a list or tuple is
        checked at once: ``TypeError`` for an item that is no dict). A plain image as a partner
        with targets is a ``ValueError``: its labels would be missing.
        """
        if not targets:
            return self._core.sample(image, index, seed, partners, position, training)
        if isinstance(image, (str, bytes, os.PathLike)):
            image = imread(image)
        return self._rules_().apply(self._core, image, index, seed, targets, partners, position, training)

    def batch(self, images: "Sequence[np.ndarray] | np.ndarray", indices: Iterable[int],
              threads: Optional[int] = None, backend: str = "cpu", seed: Optional[int] = None, *,
              partners: "Optional[str | Sequence[np.ndarray]]" = None,
              positions: Optional[Iterable[int]] = None, output: str = "numpy",
              training: bool = True) -> "list | ImageBatch":
        """Renders ``images[i]`` as sample ``indices[i]`` for every i, in parallel, and returns the
        outputs as a list of arrays (their sizes may differ). Each output is exactly
        ``self(images[i], indices[i], seed)``: the result never depends on ``threads``.

        ``output="dlpack"`` returns an :class:`ImageBatch` instead: the outputs in one allocation
        where the backend rendered them, for ``torch.from_dlpack`` and the like; with
        ``backend="cuda"`` they stay on the device (no copy to the host and back), and
        ``batch.stack()`` is the N x H x W x C tensor of a batch of one size.

        ``training``: as in ``__call__``, the outputs go through the preset's training tail (float32
        for ``normalize``); ``output="dlpack"`` hands over uint8 images only, so with a tail it
        needs ``training=False`` (``ValueError`` otherwise).

        ``images``: a sequence of arrays as ``__call__`` takes, or one N x H x W x C array.
        ``threads``: the engine's own thread pool, one image per task (default: one per hardware
        thread); the GIL is released for the whole batch. ``backend``: ``"cpu"`` (the reference)
        or ``"cuda"`` (within the README's GPU bounds of the CPU, when the module was built with
        CUDA and a device is present; ``RuntimeError`` saying why otherwise).
        An image the pipeline cannot take raises ``ValueError`` naming it (``images[3]: ...``).
        Every image's output size is checked before any is rendered: one over :data:`MAX_PIXELS`,
        or outputs that together need more than the machine's memory (RAM and swap), raise
        ``ValueError`` at once.

        ``partners`` (mixing ops), as in ``__call__``; by default each image is its own partner,
        so that ``batch`` stays ``[self(images[i], indices[i]) ...]``. The batch is never used
        as a pool unless asked, since a batch's make-up is the loader's choice, not the data's:

        - ``"batch"``: the batch itself is the pool, image i its item i (``augment`` over a
          folder holding exactly these images in this order);
        - a sequence ``[P1, ...]``: each image's pool is ``images[i], P1, ...`` (``apply
          --partner``), i.e. ``self(images[i], indices[i], partners=partners)``;
        - a sequence with ``positions``: the sequence is the whole pool and ``images[i]`` its
          item ``positions[i]`` (``augment``'s pool, for a batch of a larger dataset).

        Partners given as a list or tuple of arrays are read without the GIL; a lazy sequence is
        asked for an item with the GIL taken. Outputs never depend on ``threads`` either way.
        """
        if isinstance(images, np.ndarray) and images.ndim == 4:
            images = list(images)
        return self._core.batch(images, indices, seed, threads, backend, partners, positions, output, training)

    def replay(self, image: "np.ndarray | tuple[int, int]", index: int, seed: Optional[int] = None) -> dict:
        """The concrete parameters of sample ``index`` for ``image`` (or an ``(H, W)`` shape): the
        ``auglab-replay`` document ``auglab-cli apply --save-replay`` writes, as a dict (with
        ``"realism"``, the share of invented pixels). :func:`apply_replay` renders it again. A size
        over :data:`MAX_PIXELS` is a ``ValueError``."""
        if isinstance(image, np.ndarray):
            if image.ndim < 2:
                raise ValueError("image: expected an H x W x C array")
            height, width = image.shape[:2]
        elif (isinstance(image, (tuple, list)) and len(image) == 2
              and all(hasattr(v, "__index__") and not isinstance(v, bool) for v in image)):
            height, width = (operator.index(v) for v in image)
        else:
            raise TypeError(f"image: expected an array or an (H, W) pair of integers, got {describe(image)}")
        return json.loads(self._core.replay_json(width, height, index, seed))

    def _rules_(self) -> TargetRules:
        if self._rules is None:
            self._rules = TargetRules(json.loads(self._core.targets_json), self._core.targets_declared)
        return self._rules


def apply_replay(image: np.ndarray, replay: "dict | str | bytes") -> np.ndarray:
    """Renders a replay (a dict from :meth:`Pipeline.replay`, or ``auglab-replay`` JSON text) on
    ``image``, which must have the size it was drawn for: bit for bit the sample it came from."""
    if isinstance(replay, dict):
        text = json.dumps(replay)
    elif isinstance(replay, str):
        text = replay
    elif isinstance(replay, (bytes, bytearray)):
        try:
            text = bytes(replay).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"replay: not UTF-8 ({e})") from None
    else:
        raise TypeError(f"replay: expected a dict or auglab-replay JSON text, got {describe(replay)}")
    return _auglab.apply_replay(image, text)


def imread(path: "str | os.PathLike[str]") -> np.ndarray:
    """Decodes an image file as AugLab does (libjpeg-turbo, libspng, stb): uint8 RGB, or RGBA when
    the file has alpha; gray becomes RGB, 16 bits become 8. The pixels ``auglab-cli`` reads.
    ``path``: a str, bytes or ``os.PathLike``, as ``open()`` takes it. ``ValueError`` naming the
    file when it cannot be read or decoded, or holds an image over :data:`MAX_PIXELS` (refused from
    its header, before a pixel is decoded)."""
    return _auglab.imread(path)


def imdecode(buffer: "bytes | bytearray | memoryview | np.ndarray", name: str = "buffer") -> np.ndarray:
    """Decodes the bytes of an image file (PNG, JPEG, BMP, TGA, GIF) exactly as :func:`imread`
    decodes the file: for bytes that come from elsewhere than a local path (Ray Data's
    ``read_binary_files`` on S3, an archive, a database). ``buffer``: bytes, bytearray, memoryview
    or a contiguous uint8 array. ``ValueError`` (naming ``name``) for empty, truncated, corrupt or
    non-image bytes, a CMYK JPEG or an image over 100 megapixels, as the CLI refuses a file."""
    return _auglab.imdecode(buffer, name)


def imwrite(path: "str | os.PathLike[str]", image: np.ndarray, quality: int = 95) -> None:
    """Encodes ``image`` as PNG or JPEG (by the extension; JPEG at ``quality``, 4:2:0, as
    ``cv2.imwrite``), written atomically. ``quality``: an integer 1..100."""
    _auglab.imwrite(path, image, quality)
