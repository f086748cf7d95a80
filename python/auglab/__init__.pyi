"""Type stubs of the public `auglab` API (auglab/__init__.py holds the docstrings)."""

import os
from typing import Any, Iterable, Literal, Optional, Sequence, SupportsIndex, Union, overload

import numpy as np
import numpy.typing as npt

from . import _auglab

__version__: str
MAX_PIXELS: int  # the largest image taken or made, H x W pixels: auglab-cli's 100 megapixels
__all__ = ["Pipeline", "ImageBatch", "ImageTensor", "apply_replay", "imdecode", "imread", "imwrite", "MAX_PIXELS",
           "__version__"]

_Image = npt.NDArray[np.uint8]
# As open() takes a file name (a str that is not UTF-8 is encoded with surrogateescape).
_PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
# A partner pool: a list or tuple of arrays, or any sequence (len and [i]) giving arrays lazily.
_Pool = Sequence[_Image]
_Bytes = Union[bytes, bytearray, memoryview, _Image]
# With targets, a pool's items are dicts: {"image": array, <the call's target keys>: ...}.
_TargetPool = Sequence[dict[str, Any]]

class Pipeline:
    def __init__(self, _core: _auglab.Preset) -> None: ...  # use load or from_json
    @classmethod
    def load(cls, path: _PathLike) -> Pipeline: ...
    @classmethod
    def from_json(cls, text: Union[str, bytes, bytearray]) -> Pipeline: ...
    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def training_tail(self) -> tuple[str, ...]: ...
    def __len__(self) -> int: ...
    def to_json(self) -> str: ...
    @overload
    def __call__(self, image: Union[_Image, _PathLike], index: SupportsIndex, seed: Optional[SupportsIndex] = None, *,
                 partners: Optional[_Pool] = None, position: Optional[SupportsIndex] = None,
                 training: bool = True) -> npt.NDArray[Any]: ...
    @overload
    def __call__(self, image: Union[_Image, _PathLike], index: SupportsIndex, seed: Optional[SupportsIndex] = None, *,
                 bboxes: Optional[npt.ArrayLike] = None, keypoints: Optional[npt.ArrayLike] = None,
                 mask: Optional[_Image] = None,
                 masks: Union[None, Sequence[_Image], _Image] = None,  # a list of H x W, or one N x H x W
                 partners: Optional[_TargetPool] = None, position: Optional[SupportsIndex] = None,
                 training: bool = True, **label_fields: Sequence[Any]) -> dict[str, Any]: ...
    @overload
    def batch(self, images: Union[Sequence[_Image], _Image], indices: Iterable[SupportsIndex],
              threads: Optional[int] = None, backend: str = "cpu",
              seed: Optional[SupportsIndex] = None, *, partners: Union[None, Literal["batch"], _Pool] = None,
              positions: Optional[Iterable[SupportsIndex]] = None,
              output: Literal["numpy"] = "numpy", training: bool = True) -> list[npt.NDArray[Any]]: ...
    @overload
    def batch(self, images: Union[Sequence[_Image], _Image], indices: Iterable[SupportsIndex],
              threads: Optional[int] = None, backend: str = "cpu",
              seed: Optional[SupportsIndex] = None, *, partners: Union[None, Literal["batch"], _Pool] = None,
              positions: Optional[Iterable[SupportsIndex]] = None,
              output: Literal["dlpack"], training: bool = True) -> ImageBatch: ...
    def replay(self, image: Union[_Image, tuple[SupportsIndex, SupportsIndex]], index: SupportsIndex,
               seed: Optional[SupportsIndex] = None) -> dict[str, Any]: ...

ImageBatch = _auglab.ImageBatch
ImageTensor = _auglab.ImageTensor

def apply_replay(image: _Image, replay: Union[dict[str, Any], str, bytes]) -> _Image: ...
def imdecode(buffer: _Bytes, name: str = "buffer") -> _Image: ...
def imread(path: _PathLike) -> _Image: ...
def imwrite(path: _PathLike, image: _Image, quality: SupportsIndex = 95) -> None: ...
