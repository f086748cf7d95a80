"""auglab.imdecode(bytes) decodes as auglab.imread (and the CLI) decodes the file; bad bytes raise
ValueError, as the CLI refuses such a file."""

from __future__ import annotations

import numpy as np
import pytest

import auglab
from conftest import PHOTOS, assert_same


@pytest.mark.parametrize("photo", PHOTOS, ids=lambda p: p.name)
def test_imdecode_is_imread(photo, tmp_path):
    data = photo.read_bytes()
    expected = auglab.imread(photo)
    for given in (data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8)):
        assert_same(auglab.imdecode(given), expected, f"{photo.name} from {type(given).__name__}")
    # RGBA and 16-bit-free PNGs the module writes itself come back too.
    rgba = np.dstack([expected, np.full(expected.shape[:2], 99, np.uint8)])
    auglab.imwrite(tmp_path / "a.png", rgba)
    assert_same(auglab.imdecode((tmp_path / "a.png").read_bytes()), rgba)


def test_formats_named_by_contents_not_names(tmp_path):
    jpeg = next(p for p in PHOTOS if p.suffix == ".jpg").read_bytes()
    png = next(p for p in PHOTOS if p.suffix == ".png").read_bytes()
    assert auglab.imdecode(jpeg).shape[2] == 3 and auglab.imdecode(png).shape[2] == 3


@pytest.mark.parametrize("what", ["empty", "garbage", "truncated_jpeg", "truncated_png", "corrupt_png"])
def test_bad_bytes_raise_value_error(what, tmp_path):
    jpeg = next(p for p in PHOTOS if p.suffix == ".jpg").read_bytes()
    png = next(p for p in PHOTOS if p.suffix == ".png").read_bytes()
    data = {"empty": b"", "garbage": b"not an image at all", "truncated_jpeg": jpeg[: len(jpeg) // 2],
            "truncated_png": png[: len(png) // 2],
            "corrupt_png": png[: len(png) // 2] + bytes(500) + png[len(png) // 2 + 500:]}[what]
    with pytest.raises(ValueError, match="s3://b/k.png") as decoded:
        auglab.imdecode(data, name="s3://b/k.png")
    # The words imread (and the CLI) use for the same bytes in a file.
    path = tmp_path / "k.png"
    path.write_bytes(data)
    with pytest.raises(ValueError) as read:
        auglab.imread(path)
    assert str(read.value).replace(str(path), "s3://b/k.png") == str(decoded.value)


def test_wrong_types():
    with pytest.raises(TypeError, match="got str"):
        auglab.imdecode("photo.png")
    with pytest.raises(TypeError, match="got int"):
        auglab.imdecode(3)
