// The `auglab._auglab` extension: the engine's presets, samples, batches and replays for Python.
// auglab/__init__.py wraps it in the public `auglab.Pipeline` (docstrings, targets in the user's
// formats, the replay as a dict). Errors keep the engine's words: an InputError (a preset's fault
// with its JSON path, an image the pipeline cannot take) is a ValueError, a RuntimeError stays one.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "args.h"
#include "arrays.h"
#include "contact_sheet.h"
#include "cpu_backend.h"
#include "dlpack.h"
#include "error.h"
#include "image_io.h"
#include "partner_pool.h"
#include "preset.h"
#include "sampling.h"
#include "targets_binding.h"

namespace py = pybind11;
using namespace auglab;
using namespace auglab::python;

namespace {

/// The most threads a batch takes: more would be a mistake (a count of images?), and each costs a
/// stack.
constexpr int kMaxThreads = 1024;

/// `items` as a list, for a loop over it that names the argument when it is not iterable.
py::list listOf(const py::handle& items, const std::string& what, const std::string& expected) {
    try {
        return py::list(py::iter(items));
    } catch (const py::error_already_set& e) {
        if (!e.matches(PyExc_TypeError)) throw;
        throw py::type_error(what + ": expected " + expected + ", got " + describe(items));
    }
}

/// A loaded preset: what auglab.Pipeline holds.
struct PresetHandle {
    Preset preset;
    /// The seed a call gives (None: the preset's).
    std::uint64_t seedOf(const py::handle& seed) const {
        return seed.is_none() ? preset.seed : unsigned64(seed, "seed");
    }
};

/// The pool of `partners` for one image: with `position` None, apply's pool (the image, then each
/// of `partners`); else `partners` is the whole pool and the image its item `position` (augment's).
Partners poolOf(const PartnerImages& images, const py::handle& position, const std::string& what) {
    if (position.is_none()) return images.pool(std::nullopt, what);
    return images.pool(unsigned64(position, what), what);
}

py::array sample(const PresetHandle& p, const py::handle& image, const py::handle& index,
                 const py::handle& seed, const py::handle& partners, const py::handle& position,
                 const py::handle& trainingArg) {
    const bool training = flagArg(trainingArg, "training");
    const bool isFile = py::isinstance<py::str>(image) || py::isinstance<py::bytes>(image) ||
                        py::hasattr(image, "__fspath__");
    const std::filesystem::path path = isFile ? pathArg(image, "image") : std::filesystem::path();
    const PixelView view = isFile ? PixelView{} : imageView(image, "image");
    const std::uint64_t i = unsigned64(index, "index"), s = p.seedOf(seed);
    if (partners.is_none() && !position.is_none())
        throw py::value_error("position: needs partners (the pool the image is an item of)");
    std::optional<PartnerImages> pool;
    Partners bound;
    if (!partners.is_none()) {
        pool.emplace(partners, "partners");
        bound = poolOf(*pool, position, "position");
    }
    TailedSample out;
    bool unchanged = false;
    {
        py::gil_scoped_release release;
        Replay replay;
        // A file: only the part of it the sample reads is decoded.
        Image image = isFile ? renderFile(p.preset.pipeline, s, i, path, &replay, bound)
                             : renderView(p.preset.pipeline, s, i, view, &replay, bound, &unchanged);
        std::vector<TailOp> tail = training ? appliedTail(p.preset.pipeline, replay) : std::vector<TailOp>{};
        if (unchanged && !tail.empty()) {
            image = imageFromView(view);  // what the render of a plan without stages gives
            unchanged = false;
        }
        if (!unchanged) out = withTail(std::move(image), std::move(tail));
    }
    // Nothing drawn changes a pixel: the input itself, as Albumentations returns it.
    if (unchanged) return py::reinterpret_borrow<py::array>(image);
    return arrayOf(std::move(out));
}

py::object batch(const PresetHandle& p, const py::handle& images, const py::handle& indices,
                 const py::handle& seed, const py::handle& threadsArg, const py::handle& backendArg,
                 const py::handle& partners, const py::handle& positions, const py::handle& outputArg,
                 const py::handle& trainingArg) {
    const bool training = flagArg(trainingArg, "training");
    const std::string backend = textArg(backendArg, "backend"), output = textArg(outputArg, "output");
    if (backend != "cpu" && backend != "cuda")
        throw py::value_error("backend: expected \"cpu\" or \"cuda\", got \"" + backend + "\"");
    if (output != "numpy" && output != "dlpack")
        throw py::value_error("output: expected \"numpy\" or \"dlpack\", got \"" + output + "\"");
    if (output == "dlpack" && training && hasTrainingTail(p.preset.pipeline))
        throw py::value_error(
            "output: \"dlpack\" hands over the uint8 images the engine renders, and this preset ends with the "
            "training tail (normalize, to_float, from_float, to_tensor), which it does not render: pass "
            "training=False and normalise on the device, or take output=\"numpy\"");
    const int threads =
        threadsArg.is_none() ? 0 : static_cast<int>(integerArg(threadsArg, "threads", 1, kMaxThreads));
    if (py::isinstance<py::str>(images) || py::isinstance<py::bytes>(images))
        throw py::type_error("images: expected a sequence of images, got " + describe(images));
    // The arrays stay referenced by `held` while the GIL is released.
    const py::list held = listOf(images, "images", "a sequence of images");
    BatchInput in;
    for (const py::handle item : held)
        in.views.push_back(imageView(item, "images[" + std::to_string(in.views.size()) + "]"));
    for (const py::handle item : listOf(indices, "indices", "an iterable of integers"))
        in.indices.push_back(unsigned64(item, "indices[" + std::to_string(in.indices.size()) + "]"));
    const std::uint64_t s = p.seedOf(seed);
    if (in.indices.size() != in.views.size())
        throw py::value_error("indices: expected one per image (" + std::to_string(in.views.size()) +
                              "), got " + std::to_string(in.indices.size()));
    // Partners: none (each image its own), the batch itself (image k is item k of the pool, as
    // augment's folder), or a pool given (apply's --partner, or with positions augment's folder).
    std::optional<PartnerImages> pool;
    std::vector<Partners> bound;
    const bool batchPool = py::isinstance<py::str>(partners);
    if (batchPool && partners.cast<std::string>() != "batch")
        throw py::value_error("partners: expected \"batch\", a sequence of images or None, got \"" +
                              partners.cast<std::string>() + "\"");
    if ((partners.is_none() || batchPool) && !positions.is_none())
        throw py::value_error("positions: needs partners as a sequence (the pool the images are items of)");
    if (batchPool) {
        pool.emplace(in.views);
        for (std::size_t k = 0; k < in.views.size(); ++k)
            bound.push_back({PartnerPool{in.views.size(), k}, pool->loader(0)});
    } else if (!partners.is_none()) {
        pool.emplace(partners, "partners");
        const py::list at =
            positions.is_none() ? py::list() : listOf(positions, "positions", "an iterable of integers");
        if (!positions.is_none() && at.size() != in.views.size())
            throw py::value_error("positions: expected one per image (" + std::to_string(in.views.size()) +
                                  "), got " + std::to_string(at.size()));
        for (std::size_t k = 0; k < in.views.size(); ++k)
            bound.push_back(poolOf(*pool, positions.is_none() ? py::none() : py::object(at[k]),
                                   "positions[" + std::to_string(k) + "]"));
    }
    if (!bound.empty()) in.partnersOf = [&bound](std::size_t k) { return bound[k]; };
    const int n = threads;
    std::vector<Image> out;
    std::vector<TailedSample> tailed;
    std::shared_ptr<ImageMemory> memory;
    {
        py::gil_scoped_release release;
        if (backend == "cuda" && output == "dlpack")
            memory = deviceMemory(renderBatchCudaOnDevice(p.preset.pipeline, s, in, n));
        else if (backend == "cuda")
            out = renderBatchCuda(p.preset.pipeline, s, in, n);
        else
            out = renderBatchCpu(p.preset.pipeline, s, in, n);
        if (output == "dlpack" && !memory) memory = hostMemory(std::move(out));
        if (!memory) tailed = withTails(std::move(out), p.preset.pipeline, s, in, n, training);
    }
    if (memory) return imageBatch(std::move(memory));
    py::list result;
    for (TailedSample& sample : tailed) result.append(arrayOf(std::move(sample)));
    return result;
}

std::string replayOf(const PresetHandle& p, const py::handle& widthArg, const py::handle& heightArg,
                     const py::handle& index, const py::handle& seed) {
    // Any integers: a size past int is over the pixel limit, as is one past the limit.
    const long long width = saturatedInteger(widthArg, "width"),
                    height = saturatedInteger(heightArg, "height");
    if (width < 1 || height < 1)
        throw py::value_error("image: expected at least one pixel, got " + std::to_string(height) + " x " +
                              std::to_string(width) + " (H x W)");
    if (overPixelLimit(height, width)) throw py::value_error("image: " + overPixelLimitText(height, width));
    const std::uint64_t i = unsigned64(index, "index"), s = p.seedOf(seed);
    py::gil_scoped_release release;
    return replayText(p.preset.pipeline, s, i, static_cast<int>(width), static_cast<int>(height));
}

py::array applyReplay(const py::handle& image, const py::handle& replayJson) {
    const PixelView view = imageView(image, "image");
    const Replay replay = parseReplay(textArg(replayJson, "replay"), "replay");
    Image out;
    {
        py::gil_scoped_release release;
        out = renderReplayOf(replay, view);
    }
    return arrayFromImage(std::move(out));
}

/// Decodes the bytes of an image file (any object with the buffer protocol, contiguous), as imread
/// decodes the file; `name` says what it is in errors.
py::array imdecode(const py::handle& buffer, const py::handle& nameArg) {
    const std::string name = textArg(nameArg, "name");
    if (py::isinstance<py::str>(buffer))
        throw py::type_error("buffer: expected bytes (the file's contents), got str");
    Py_buffer view;
    if (PyObject_GetBuffer(buffer.ptr(), &view, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        throw py::type_error(
            "buffer: expected bytes, bytearray, memoryview or a contiguous uint8 array, got " +
            std::string(py::str(py::type::handle_of(buffer).attr("__name__"))));
    }
    const auto* data = static_cast<const std::uint8_t*>(view.buf);
    std::vector<std::uint8_t> bytes(data, data + view.len);
    PyBuffer_Release(&view);
    LoadedImage loaded;
    {
        py::gil_scoped_release release;
        loaded = decodeImage(bytes, name);
    }
    return arrayFromImage(std::move(loaded.image));
}

py::array imread(const py::handle& file) {
    const std::filesystem::path path = pathArg(file, "path");
    LoadedImage loaded;
    {
        py::gil_scoped_release release;
        loaded = loadImage(path);
    }
    return arrayFromImage(std::move(loaded.image));
}

void imwrite(const py::handle& file, const py::handle& image, const py::handle& qualityArg) {
    const std::filesystem::path path = pathArg(file, "path");
    const int quality = static_cast<int>(integerArg(qualityArg, "quality", 1, 100));
    const PixelView view = imageView(image, "image");
    py::gil_scoped_release release;
    saveImage(path, imageFromView(view), quality);
}

/// For tests/bench/w2_python.py: the engine's own time per sample, without Python, in a C++ loop of
/// `reps`: (copy the array in and render, render from a source already made), in seconds.
py::tuple timeEngine(const PresetHandle& p, const py::handle& image, std::uint64_t index, int reps) {
    const PixelView view = imageView(image, "image");
    using Clock = std::chrono::steady_clock;
    const auto perSample = [reps](Clock::time_point t0) {
        return std::chrono::duration<double>(Clock::now() - t0).count() / reps;
    };
    double whole = 0, render = 0;
    {
        py::gil_scoped_release release;
        auto t0 = Clock::now();
        for (int i = 0; i < reps; ++i) renderView(p.preset.pipeline, p.preset.seed, index, view);
        whole = perSample(t0);
        SourceLevels source(imageFromView(view));
        CpuBackend cpu(1);
        t0 = Clock::now();
        for (int i = 0; i < reps; ++i) renderSample(p.preset.pipeline, source, p.preset.seed, index, cpu);
        render = perSample(t0);
    }
    return py::make_tuple(whole, render);
}

}  // namespace

PYBIND11_MODULE(_auglab, m) {
    m.doc() = "AugLab's engine (the C++ core) for Python; use the `auglab` package, not this module.";
#if defined(__GLIBC__)
    // As auglab-cli does (app/cli/main.cpp), image buffers freed after one sample are kept for the
    // next instead of being handed back to the kernel and faulted in again: with glibc's defaults a
    // 512x512 sample's source copy and output cost ~400 page faults, which doubled the time of a W2
    // call (1.1 ms against 0.5 ms). Process-wide, so AUGLAB_MALLOC_DEFAULTS=1 leaves glibc's settings.
    const char* keep = std::getenv("AUGLAB_MALLOC_DEFAULTS");
    const bool tuned = !(keep && *keep && std::string(keep) != "0");
    if (tuned) {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 512 << 20);
    }
    m.attr("_malloc_tuned") = tuned;
#else
    m.attr("_malloc_tuned") = false;
#endif
    m.attr("__version__") = AUGLAB_VERSION;
    m.attr("MAX_PIXELS") = kMaxImagePixels;
    py::register_exception_translator([](std::exception_ptr e) {
        try {
            if (e) std::rethrow_exception(e);
        } catch (const InputError& x) {
            // A file name in the message may be any bytes: messageText escapes what is not UTF-8.
            PyErr_SetObject(PyExc_ValueError, messageText(x.what()).ptr());
        } catch (const RuntimeError& x) {
            PyErr_SetObject(PyExc_RuntimeError, messageText(x.what()).ptr());
        }
    });

    py::class_<PresetHandle>(m, "Preset")
        .def_static(
            "from_json",
            [](const py::handle& text) { return PresetHandle{parsePreset(textArg(text, "text"), "preset")}; },
            py::arg("text"))
        .def_static(
            "load", [](const py::handle& path) { return PresetHandle{loadPreset(pathArg(path, "path"))}; },
            py::arg("path"))
        .def("to_json", [](const PresetHandle& p) { return serializePreset(p.preset); })
        .def_property_readonly("name", [](const PresetHandle& p) { return p.preset.name; })
        .def_property_readonly("seed", [](const PresetHandle& p) { return p.preset.seed; })
        .def_property_readonly("op_count", [](const PresetHandle& p) { return p.preset.pipeline.size(); })
        .def_property_readonly("training_tail",
                               [](const PresetHandle& p) {
                                   py::list names;
                                   for (const OpConfig& op : p.preset.pipeline)
                                       if (op.desc().category == OpCategory::Training) names.append(op.name());
                                   return py::tuple(names);
                               })
        .def_property_readonly("targets_declared",
                               [](const PresetHandle& p) { return p.preset.targets.has_value(); })
        .def_property_readonly(
            "targets_json",
            [](const PresetHandle& p) {
                return targetSettingsToJson(p.preset.targets.value_or(TargetSettings{})).dump();
            })
        .def("sample", &sample, py::arg("image"), py::arg("index"), py::arg("seed") = py::none(),
             py::arg("partners") = py::none(), py::arg("position") = py::none(), py::arg("training") = true)
        .def("batch", &batch, py::arg("images"), py::arg("indices"), py::arg("seed") = py::none(),
             py::arg("threads") = py::none(), py::arg("backend") = "cpu", py::arg("partners") = py::none(),
             py::arg("positions") = py::none(), py::arg("output") = "numpy", py::arg("training") = true)
        .def("replay_json", &replayOf, py::arg("width"), py::arg("height"), py::arg("index"),
             py::arg("seed") = py::none())
        .def(
            "sample_targets",
            [](const PresetHandle& p, const py::handle& image, const py::handle& index,
               const py::handle& seed, const TargetRows& boxes, const TargetRows& keypoints,
               const py::list& masks, const py::handle& partners, const py::handle& position,
               const py::handle& partnerTargets, const py::handle& training) {
                const std::uint64_t i = unsigned64(index, "index"), s = p.seedOf(seed);
                const std::optional<std::uint64_t> at =
                    position.is_none() ? std::nullopt : std::optional(unsigned64(position, "position"));
                return sampleWithTargets(p.preset, image, i, s, boxes, keypoints, masks, partners, at,
                                         partnerTargets, flagArg(training, "training"));
            },
            py::arg("image"), py::arg("index"), py::arg("seed"), py::arg("boxes"), py::arg("keypoints"),
            py::arg("masks"), py::arg("partners") = py::none(), py::arg("position") = py::none(),
            py::arg("partner_targets") = py::none(), py::arg("training") = true);

    bindDlpack(m);
    m.def("apply_replay", &applyReplay, py::arg("image"), py::arg("replay_json"));
    m.def("imread", &imread, py::arg("path"));
    m.def("imdecode", &imdecode, py::arg("buffer"), py::arg("name") = "buffer");
    m.def("imwrite", &imwrite, py::arg("path"), py::arg("image"), py::arg("quality") = 95);
    m.def("_time_engine", &timeEngine, py::arg("preset"), py::arg("image"), py::arg("index"),
          py::arg("reps"));
    m.def("hardware_threads", [] { return std::max(1u, std::thread::hardware_concurrency()); });
    m.def("cuda_built", [] {
#if defined(AUGLAB_PYTHON_CUDA)
        return true;
#else
        return false;
#endif
    });
}
