"""Runs tf-deotte and Keras exports in TensorFlow for tests/test_export_tensorflow.

    python tensorflow_check.py [--keras] EXPORT.py INPUT.png OUTPUT.png [EXPORT.py INPUT.png OUTPUT.png ...]
    python tensorflow_check.py --keras-perspective EXPORT.py INPUT.png REPLAY.json OUTPUT.png [...]
    python tensorflow_check.py --keras-mix EXPORT.py A.png B.png N
    python tensorflow_check.py --keras-applied EXPORT.py N
    python tensorflow_check.py --deotte-applied EXPORT.py N

Each export is imported as a module and its augment() applied to the image (read and written with
TensorFlow's own PNG codec): a tf-deotte function to one image, a Keras model (--keras: the
TensorFlow backend, training=True) to a batch of one. The output, rounded to uint8, is written as
PNG. One process for all of them: importing TensorFlow takes seconds. Exits non-zero, naming the
export, when one raises.
"""

import importlib.util
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import tensorflow as tf  # noqa: E402


def keras_perspective(module_path, input_path, replay_path, output_path):
    """The Keras export's Perspective layer warping with the corners of the replay's perspective op."""
    import json

    spec = importlib.util.spec_from_file_location("export", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    layers = [getattr(l, "fn", l) for l in module.augment.layers]
    layer = next(l for l in layers if type(l).__name__ == "Perspective")
    with open(replay_path) as f:
        op = next(o for o in json.load(f)["ops"] if o["op"] == "perspective" and o["applied"])
    image = tf.cast(tf.io.decode_png(tf.io.read_file(input_path), channels=3), tf.float32)[None]
    cx = [tf.constant([c[0]], tf.float32) for c in op["corners_px"]]
    cy = [tf.constant([c[1]], tf.float32) for c in op["corners_px"]]
    out = tf.cast(tf.clip_by_value(layer.warp(image, cx, cy)[0], 0.0, 255.0), tf.uint8)
    tf.io.write_file(output_path, tf.io.encode_png(out))


def keras_mix(module_path, a_path, b_path, n):
    """The Keras export's mix_batch over the batch [A, B] (labels one-hot, 2 classes), N times, with
    one MixUp or CutMix in BATCH_MIXES: image 0 is checked against the blend or paste its label
    weight w (label 0) says, its partner the other image or itself (Keras shuffles the batch)."""
    import json

    import keras

    keras.utils.set_random_seed(5)  # before the layers' seed generators are made: the same draws every run
    spec = importlib.util.spec_from_file_location("export", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kinds = [type(layer).__name__ for layer, _ in module.BATCH_MIXES]
    if len(kinds) != 1 or kinds[0] not in ("MixUp", "CutMix"):
        sys.exit(f"{module_path}: expected one MixUp or CutMix in BATCH_MIXES, found {kinds}")
    a = tf.cast(tf.io.decode_png(tf.io.read_file(a_path), channels=3), tf.float32)
    b = tf.cast(tf.io.decode_png(tf.io.read_file(b_path), channels=3), tf.float32)
    images, labels = tf.stack([a, b]), tf.constant([[1.0, 0.0], [0.0, 1.0]])
    weights = []
    for _ in range(n):
        out, mixed = module.mix_batch(images, labels)
        w = float(mixed[0, 0])
        if abs(float(mixed[0, 1]) - (1.0 - w)) > 1e-5:
            sys.exit(f"labels of image 0 are {mixed[0].numpy().tolist()}, not w and 1 - w")
        o = out[0]
        if kinds[0] == "MixUp":
            worst = float(tf.reduce_max(tf.abs(o - (w * a + (1.0 - w) * b))))
            if worst > 0.01:
                sys.exit(f"MixUp with weight {w}: the image is {worst} levels from w*A + (1-w)*B")
        else:
            from_a = tf.reduce_all(o == a, axis=-1)
            from_b = tf.reduce_all(o == b, axis=-1)
            if not bool(tf.reduce_all(from_a | from_b)):
                sys.exit("CutMix: pixels that are neither image's")
            pasted = int(tf.reduce_sum(tf.cast(~from_a, tf.int32)))
            # Keras weighs the label by the box's fractional area; the pixels pasted are those whose
            # index lies in [x0, x1): up to a row and a column more.
            if pasted > (1.0 - w) * a.shape[0] * a.shape[1] + a.shape[0] + a.shape[1] + 1:
                sys.exit(f"CutMix: {pasted} pixels pasted, more than 1 - w = {1 - w} of the image")
        weights.append(w)
    print(json.dumps(weights))


def applied_image():
    """A small image whose flips and inversion all differ, and those 8 combinations by name."""
    import numpy as np

    image = (np.arange(6 * 8 * 3, dtype=np.int64).reshape(3, 6, 8).transpose(1, 2, 0) * 7 % 251).astype(np.float32)
    candidates = {}
    for h in (0, 1):
        for v in (0, 1):
            for i in (0, 1):
                x = image
                if h:
                    x = x[:, ::-1]
                if v:
                    x = x[::-1]
                if i:
                    x = 255 - x
                candidates["h" * h + "v" * v + "i" * i] = x
    return image, candidates


def print_runs(outputs, candidates):
    import json

    import numpy as np

    runs = []
    for out in outputs:
        found = [name for name, x in candidates.items() if np.array_equal(out, x)]
        if len(found) != 1:
            sys.exit(f"an output that is no combination of flips and inversion: {out[..., 0]}")
        runs.append(found[0])
    print(json.dumps(runs))


def deotte_applied(module_path, n):
    """The tf-deotte export's augment() on N copies of the small image in tf.data (each draws on its
    own); prints which flips and inversion each output shows, as keras_applied."""
    import numpy as np

    spec = importlib.util.spec_from_file_location("export_applied", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    image, candidates = applied_image()
    ds = tf.data.Dataset.from_tensors(tf.constant(image.astype(np.uint8))).repeat(n).map(module.augment)
    outputs = [np.asarray(x).astype(np.float32) for x in ds]
    print_runs(outputs, candidates)


def keras_applied(module_path, n):
    """The Keras export's augment() on a batch of N copies of the small image (one call: each image
    draws on its own); prints, per image, which of its flips and inversion the output shows (an odd
    number of times): "h", "v", "i" joined, as one JSON list."""
    import numpy as np

    spec = importlib.util.spec_from_file_location("export_applied", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    image, candidates = applied_image()
    out = np.round(np.asarray(module.augment(tf.constant(np.repeat(image[None], n, axis=0)), training=True)))
    print_runs(list(out), candidates)


def main(args):
    if len(args) == 3 and args[0] == "--deotte-applied":
        deotte_applied(args[1], int(args[2]))
        return
    if len(args) == 3 and args[0] == "--keras-applied":
        keras_applied(args[1], int(args[2]))
        return
    if len(args) == 5 and args[0] == "--keras-mix":
        keras_mix(args[1], args[2], args[3], int(args[4]))
        return
    if len(args) >= 5 and (len(args) - 1) % 4 == 0 and args[0] == "--keras-perspective":
        for i in range(1, len(args), 4):  # one process for all the samples: the import is the slow part
            keras_perspective(*args[i:i + 4])
        return
    keras_model = bool(args) and args[0] == "--keras"
    if keras_model:
        args = args[1:]
    if len(args) % 3 != 0 or not args:
        sys.exit("usage: tensorflow_check.py EXPORT.py INPUT.png OUTPUT.png [...]")
    for i in range(0, len(args), 3):
        module_path, input_path, output_path = args[i:i + 3]
        spec = importlib.util.spec_from_file_location(f"export{i // 3}", module_path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
            image = tf.io.decode_png(tf.io.read_file(input_path), channels=0)
            if keras_model:
                out = module.augment(tf.cast(image, tf.float32)[None], training=True)[0]
                out = tf.cast(tf.clip_by_value(tf.round(out), 0.0, 255.0), tf.uint8)
            else:
                out = module.augment(image)
            tf.io.write_file(output_path, tf.io.encode_png(out))
        except Exception as e:  # name the export that failed, then fail
            sys.exit(f"{module_path}: {type(e).__name__}: {e}")
    print("tensorflow", tf.__version__)


if __name__ == "__main__":
    main(sys.argv[1:])
