"""Runs DALI exports on the CPU for tests/test_export_runtimes.

    python dali_check.py EXPORT.py INPUT OUTPUT.png [EXPORT.py INPUT OUTPUT.png ...]
    python dali_check.py --perspective EXPORT.py INPUT REPLAY.json OUTPUT.png [...]
    python dali_check.py --applied EXPORT.py N

Each export is imported as a module and its augment() run in a CPU-only DALI pipeline
(device_id=None, with conditionals enabled as grouped exports need) on the image, which DALI's own
CPU decoder reads from the file's bytes. The output is written as an 8-bit RGB PNG (zlib, no other
module). One process for all of them; exits non-zero, naming the export, when one raises.
"""

import importlib.util
import struct
import sys
import zlib

import numpy as np
import nvidia.dali as dali
from nvidia.dali import fn, pipeline_def, types


def write_png(path, rgb):
    """An 8-bit RGB PNG, filter 0 on every row."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def run(module, input_path):
    data = np.fromfile(input_path, dtype=np.uint8)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, seed=5, enable_conditionals=True)
    def pipe():
        encoded = fn.external_source(source=lambda: [data], batch=True)
        images = fn.decoders.image(encoded, device="cpu", output_type=types.RGB)
        return module.augment(images)

    p = pipe()
    p.build()
    (out,) = p.run()
    return np.ascontiguousarray(out.at(0), dtype=np.uint8)


def perspective(module_path, input_path, replay_path, output_path):
    """The export's _perspective_warp with the corners of the replay's perspective op."""
    import json

    spec = importlib.util.spec_from_file_location("export", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(replay_path) as f:
        op = next(o for o in json.load(f)["ops"] if o["op"] == "perspective" and o["applied"])
    data = np.fromfile(input_path, dtype=np.uint8)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, seed=5)
    def pipe():
        encoded = fn.external_source(source=lambda: [data], batch=True)
        images = fn.decoders.image(encoded, device="cpu", output_type=types.RGB)
        shape = images.shape(dtype=types.FLOAT)
        fixed = lambda v: fn.random.uniform(values=[float(v)])
        cx = [fixed(c[0]) for c in op["corners_px"]]
        cy = [fixed(c[1]) for c in op["corners_px"]]
        return module._perspective_warp(images, cx, cy, op["border"], float(op["fill"][0]),
                                        op["interpolation"] == "nearest", shape[1], shape[0])

    p = pipe()
    p.build()
    (out,) = p.run()
    write_png(output_path, np.ascontiguousarray(out.at(0), dtype=np.uint8))


def applied(module_path, n):
    """The export's augment() on N copies of a small image whose flips and inversion all differ
    (batches of 1000, each sample drawing on its own); prints, per output, which of them it shows
    (an odd number of times): "h", "v", "i" joined, as one JSON list."""
    import json

    spec = importlib.util.spec_from_file_location("export_applied", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    image = np.ascontiguousarray(
        (np.arange(6 * 8 * 3, dtype=np.int64).reshape(3, 6, 8).transpose(1, 2, 0) * 7 % 251).astype(np.uint8))
    candidates = {}
    for h in (0, 1):
        for v in (0, 1):
            for i in (0, 1):
                x = image.astype(np.int64)
                if h:
                    x = x[:, ::-1]
                if v:
                    x = x[::-1]
                if i:
                    x = 255 - x
                candidates["h" * h + "v" * v + "i" * i] = x
    batch = 1000

    @pipeline_def(batch_size=batch, num_threads=1, device_id=None, seed=5, enable_conditionals=True)
    def pipe():
        images = fn.external_source(source=lambda: [image] * batch, batch=True, layout="HWC")
        return module.augment(images)

    p = pipe()
    p.build()
    runs = []
    while len(runs) < n:
        (out,) = p.run()
        for k in range(min(batch, n - len(runs))):
            o = np.asarray(out.at(k)).astype(np.int64)
            found = [name for name, x in candidates.items() if np.array_equal(o, x)]
            if len(found) != 1:
                sys.exit(f"an output that is no combination of flips and inversion: {o[..., 0]}")
            runs.append(found[0])
    print(json.dumps(runs))


def main(args):
    if len(args) >= 5 and (len(args) - 1) % 4 == 0 and args[0] == "--perspective":
        for i in range(1, len(args), 4):  # one process for all the samples: the import is the slow part
            perspective(*args[i:i + 4])
        return
    if len(args) == 3 and args[0] == "--applied":
        applied(args[1], int(args[2]))
        return
    if len(args) % 3 != 0 or not args:
        sys.exit("usage: dali_check.py EXPORT.py INPUT OUTPUT.png [...]")
    for i in range(0, len(args), 3):
        module_path, input_path, output_path = args[i:i + 3]
        spec = importlib.util.spec_from_file_location(f"export{i // 3}", module_path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
            write_png(output_path, run(module, input_path))
        except Exception as e:  # name the export that failed, then fail
            sys.exit(f"{module_path}: {type(e).__name__}: {e}")
    print("dali", dali.__version__)


if __name__ == "__main__":
    main(sys.argv[1:])
