// Presets (SPEC §4, §9): the built-in presets, round trips of every op and parameter kind, registry
// defaults for omitted keys, an InputError naming the JSON path for every kind of fault, the JSON
// Schema kept in sync with the registry and checked by an independent validator (Python's
// jsonschema), atomic saves, and parsers that survive mutated and deeply nested input.

#include <signal.h>
#include <sys/resource.h>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include "suite_main.h"

#include "contact_sheet.h"
#include "cpu_backend.h"
#include "error.h"
#include "preset.h"
#include "replay.h"
#include "sampler.h"

using namespace auglab;
namespace fs = std::filesystem;

namespace {

const fs::path kPresets = fs::path(AUGLAB_SOURCE_DIR) / "presets";
const fs::path kData = fs::path(AUGLAB_SOURCE_DIR) / "tests/data/presets";
const char* const kSuffix = ".auglab.json";

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
QString qs(const fs::path& p) {
    return QString::fromStdString(p.string());
}
fs::path fsPath(const QString& s) {
    return fs::path(s.toStdU16String());
}

/// The entry of a preset document at a JSON path such as "pipeline[1].children[0]".
const nlohmann::json& entryAt(const nlohmann::json& doc, const std::string& path) {
    const nlohmann::json* at = &doc;
    std::size_t i = 0;
    while (i < path.size()) {
        if (path[i] == '.') ++i;
        if (path[i] == '[') {
            const std::size_t close = path.find(']', i);
            at = &(*at)[std::stoul(path.substr(i + 1, close - i - 1))];
            i = close + 1;
        } else {
            const std::size_t end = path.find_first_of(".[", i);
            at = &(*at)[path.substr(i, end == std::string::npos ? std::string::npos : end - i)];
            i = end == std::string::npos ? path.size() : end;
        }
    }
    return *at;
}

std::vector<fs::path> filesIn(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().filename().string().ends_with(kSuffix)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

std::string stem(const fs::path& file) {
    const std::string name = file.filename().string();
    return name.substr(0, name.size() - std::strlen(kSuffix));
}

// Built-in presets and the valid test presets: everything that must load, round-trip and validate.
std::vector<fs::path> validFiles() {
    std::vector<fs::path> files = filesIn(kPresets);
    for (const fs::path& f : filesIn(kData / "valid")) files.push_back(f);
    return files;
}

template <typename F>
QString errorOf(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    } catch (const std::exception& e) {
        return "NOT AN InputError: " + QString::fromUtf8(e.what());
    }
    return "NO ERROR";
}

// A value of each parameter away from its default. Thirds and sevenths need all 17 digits, so a
// lossy number format would show.
ParamValue awayFromDefault(const ParamDesc& pd, Fill::Mode fillMode) {
    const double span = pd.upper - pd.lower;
    switch (pd.kind) {
        case ParamKind::FloatRange:
            return Range{pd.lower + span / 3, pd.upper - span / 7};
        case ParamKind::IntRange:
            // A narrow range (channels dropped: 1..2) ends at its bound.
            return pd.odd ? Range{pd.lower + 2, pd.lower + 8}
                          : Range{std::min(pd.lower + 1, pd.upper), std::min(pd.lower + 7, pd.upper)};
        case ParamKind::Float:
            return pd.integer ? std::round(pd.lower + span / 3) : pd.lower + span / 3;
        case ParamKind::Bool:
            return !std::get<bool>(pd.defaultValue);
        case ParamKind::Choice:
            return std::get<std::string>(pd.defaultValue) == pd.choices.front() ? pd.choices.back()
                                                                                : pd.choices.front();
        case ParamKind::Size:
            return Size2{int(pd.lower) + 22, int(pd.lower) + 22};  // square: deotte_affine may follow
        case ParamKind::Triple:
            return Triple{{pd.lower / 3 + pd.upper / 7, 1.0 / 3, 2.0 / 7}};
        case ParamKind::Fill: {
            Fill f;
            f.mode = pd.allowsRandomFill ? fillMode : Fill::Mode::Constant;
            if (f.mode == Fill::Mode::Constant) f.rgb = {12, 34, 255};
            return f;
        }
    }
    return false;
}

// Presets built from the registry, so an op or parameter added later is covered without a new row.
std::vector<std::pair<std::string, Preset>> generatedPresets() {
    std::vector<std::pair<std::string, Preset>> out;
    out.emplace_back("default preset", defaultPreset());
    const std::pair<const char*, Fill::Mode> fills[] = {{"constant", Fill::Mode::Constant},
                                                        {"random", Fill::Mode::Random},
                                                        {"random_uniform", Fill::Mode::RandomUniform}};
    for (const auto& fill : fills) {
        const char* fillName = fill.first;
        const Fill::Mode mode = fill.second;  // a plain variable: clang 14 cannot capture a binding
        Preset p;
        p.name = std::string("every parameter changed, fill ") + fillName;
        p.seed = 123456789;
        bool enabled = false;
        const auto changed = [&](const OpDesc& d) {
            OpConfig op(d);
            op.enabled = enabled = !enabled;
            op.p = 1.0 / 3;
            for (const ParamDesc& pd : d.params) {
                if (pd.optional) continue;
                op.set(pd.key, awayFromDefault(pd, mode));
                // A setting that makes the op set the frame (a perspective without keep_size) would be a
                // second frame-setting op beside the crop: that one stays at its default.
                if (setsFrame(op) && !d.setsFrame) op.resetToDefault(pd.key);
                // Stripes thicker than the image are an error (as in Albumentations), and the frame
                // ops before it may leave a 1-pixel side: 1 px stripes, away from the default 0.
                if (d.id == OpId::XyMasking && pd.key.starts_with("mask_")) op.set(pd.key, Range{1, 1});
                // Likewise a shadow region or drops that a 1-pixel side cannot hold (the library raises):
                // the default region, and the default rain's height // 3 drops.
                if ((d.id == OpId::RandomShadow && pd.key.starts_with("roi_")) ||
                    (d.id == OpId::RandomRain && pd.key == "rain_type"))
                    op.resetToDefault(pd.key);
            }
            return op;
        };
        for (const OpDesc& d : opRegistry())
            if (!d.mustBeFirst) p.pipeline.push_back(changed(d));
        out.emplace_back(p.name, p);
        // An op that must come first (it composes whole images, and sets the frame) leads the ops
        // that do not set the frame.
        for (const OpDesc& first : opRegistry()) {
            if (!first.mustBeFirst) continue;
            Preset f;
            f.name = p.name + ", " + first.name + " first";
            f.seed = 987654321;
            f.pipeline.push_back(changed(first));
            for (const OpDesc& d : opRegistry())
                if (!d.setsFrame) f.pipeline.push_back(changed(d));
            out.emplace_back(f.name, f);
        }
        // Optional parameters (hole sizes in pixels) replace others; given with the rest at defaults.
        Preset optional;
        optional.name = std::string("optional parameters, fill ") + fillName;
        for (const OpDesc& d : opRegistry()) {
            OpConfig op(d);
            bool any = false;
            for (const ParamDesc& pd : d.params) {
                if (pd.optional) op.set(pd.key, awayFromDefault(pd, mode));
                // Drops longer than the image are an error (the library raises): a length 48 rows hold.
                if (d.id == OpId::RandomRain && pd.key == "drop_length") op.set(pd.key, 7.0);
                if (pd.kind == ParamKind::Fill) op.set(pd.key, awayFromDefault(pd, mode));
                any = any || pd.optional;
            }
            if (any) optional.pipeline.push_back(op);
        }
        out.emplace_back(optional.name, optional);
    }
    Preset odd;
    odd.name = "größte Saat – 種 \"quoted\"\n";
    odd.description = "tab\t, backslash \\, control \x01, slash /";
    odd.seed = UINT64_MAX;
    out.emplace_back("largest seed, Unicode and escapes", odd);
    return out;
}

std::string presetDoc(const std::string& members) {
    return R"({"format": "auglab-preset", "version": 1, )" + members + "}";
}
std::string opsDoc(const std::string& ops) {
    return presetDoc(R"("pipeline": [)" + ops + "]");
}

// Deterministic mutations of a document: byte changes, truncation, deletion, JSON tokens and
// duplicated slices inserted, and values swapped for others (which keeps many documents
// syntactically valid, so the checks after parsing are reached too). One to three at a time.
std::string mutate(std::string s, std::mt19937_64& rng) {
    // clang-format off
    static const char* const tokens[] = {"{", "}", "[", "]", ",", ":", "\"", "null", "true", "-", "0",
        "1e400", "-9223372036854775809", "\"op\"", "\"p\": 2", "\\u0000", "\\ud800", "\xff", "\xc3\xa9",
        "\n"};
    static const char* const values[] = {"-1", "0", "0.5", "1.5", "255", "256", "-400", "1e400", "-1e400",
        "18446744073709551615", "18446744073709551616", "true", "null", "\"random\"", "\"nearest\"", "\"x\"",
        "[]", "[0, 0]", "[1, 2]", "[2, 1]", "[0, 0, 0]", "[1.5, 8]", "{}", "{\"op\": \"to_gray\"}"};
    // clang-format on
    auto pick = [&rng](std::size_t n) {
        return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
    };
    for (std::size_t k = 0, count = 1 + pick(3); k < count; ++k) {
        const std::size_t at = pick(s.size() + 1);
        const std::size_t kind = pick(6);
        if (kind == 0 && !s.empty()) s[pick(s.size())] = static_cast<char>(pick(256));
        if (kind == 1) s.resize(at);
        if (kind == 2) s.erase(at, 1 + pick(16));
        if (kind == 3) s.insert(at, tokens[pick(std::size(tokens))]);
        if (kind == 4) s.insert(at, s.substr(pick(s.size() + 1), pick(64)));
        if (kind == 5) {
            const std::size_t start = s.find_first_of(":,[", at);
            const std::size_t end = start == std::string::npos ? start : s.find_first_of(",]}", start + 1);
            if (end != std::string::npos)
                s.replace(start + 1, end - start - 1, values[pick(std::size(values))]);
        }
    }
    return s;
}

// Parses 3000 mutations of `original`: each must parse or throw InputError (never crash, never
// another exception), and whatever parses must save and load back unchanged.
template <typename Parse, typename Serialize>
void fuzz(const std::string& original, Parse parse, Serialize serialize) {
    std::mt19937_64 rng(std::hash<std::string>{}(original));
    int accepted = 0, rejected = 0;
    for (int i = 0; i < 3000; ++i) {
        const std::string text = mutate(original, rng);
        try {
            const auto parsed = parse(text);
            ++accepted;
            QVERIFY2(parse(serialize(parsed)) == parsed, qPrintable("round trip changed: " + qs(text)));
        } catch (const InputError&) {
            ++rejected;
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QString("not an InputError (%1) for: %2").arg(e.what(), qs(text).left(2000))));
        }
    }
    qInfo("%d mutations accepted, %d rejected with an InputError", accepted, rejected);
    QVERIFY(accepted > 0 && rejected > 0);
}

// Lowers RLIMIT_FSIZE so that a write past `bytes` fails with EFBIG (SIGXFSZ ignored): a write error
// in the middle of a save that even root cannot bypass.
struct FileSizeLimit {
    explicit FileSizeLimit(rlim_t bytes) : oldHandler(::signal(SIGXFSZ, SIG_IGN)) {
        ::getrlimit(RLIMIT_FSIZE, &old);
        rlimit lowered = old;
        lowered.rlim_cur = bytes;
        ::setrlimit(RLIMIT_FSIZE, &lowered);
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &old);
        ::signal(SIGXFSZ, oldHandler);
    }
    sighandler_t oldHandler;
    rlimit old{};
};

struct SchemaVerdicts {
    QString skip;     ///< why the check cannot run here
    QString failure;  ///< the validator itself failed (e.g. the schema is not a valid schema)
    QMap<QString, QString> byFile;
};

const SchemaVerdicts& schemaVerdicts() {
    static const SchemaVerdicts verdicts = [] {
        SchemaVerdicts v;
        const QString python = "/usr/bin/python3";
        if (!QFileInfo::exists(python)) {
            v.skip = "no /usr/bin/python3 (install python3 and python3-jsonschema)";
            return v;
        }
        QStringList args{qs(kData / "validate_schema.py"), qs(kPresets / "auglab-preset.schema.json")};
        for (const fs::path& f : validFiles()) args << qs(f);
        for (const fs::path& f : filesIn(kData / "invalid")) args << qs(f);
        QProcess process;
        process.start(python, args);
        if (!process.waitForFinished(120000)) v.failure = "python3 failed: " + process.errorString();
        if (process.exitStatus() == QProcess::NormalExit && process.exitCode() == 3)
            v.skip = "Python module jsonschema missing (Debian package python3-jsonschema)";
        else if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
            v.failure = "jsonschema failed: " + QString::fromUtf8(process.readAllStandardError());
        for (const QString& line :
             QString::fromUtf8(process.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts)) {
            const qsizetype tab = line.indexOf('\t');
            v.byFile[line.left(tab)] = line.mid(tab + 1);
        }
        return v;
    }();
    return verdicts;
}

}  // namespace

class TestPreset : public QObject {
    Q_OBJECT

private slots:
    void builtinPresets_data();
    void builtinPresets();
    void builtinIntent();
    void roundTrip_data();
    void roundTrip();
    void omittedKeysTakeDefaults_data();
    void omittedKeysTakeDefaults();
    void defaultsFollowSpec();
    void errors_data();
    void errors();
    void minAboveMaxMessage();
    void invalidFiles_data();
    void invalidFiles();
    void schemaFileMatchesRegistry();
    void schemaValidation_data();
    void schemaValidation();
    void save_data();
    void save();
    void fuzzPreset_data();
    void fuzzPreset();
    void replaySeedsSurviveOtherJsonReaders();
    void unusedValuesAreNotCompared();
    void deepNesting_data();
    void deepNesting();
};

void TestPreset::builtinPresets_data() {
    QTest::addColumn<QString>("file");
    for (const fs::path& f : filesIn(kPresets)) QTest::newRow(stem(f).c_str()) << qs(f);
}

void TestPreset::builtinPresets() {
    QFETCH(QString, file);
    const Preset p = loadPreset(fsPath(file));
    QCOMPARE(qs(p.name), qs(stem(fsPath(file))));
    QVERIFY2(p.description.size() >= 100, "the description says what the preset is for");
    QVERIFY(p.seed != 0);
    QVERIFY(!p.pipeline.empty());
    // Stored exactly as serializePreset writes it: every key explicit, so the file keeps its meaning
    // whatever later defaults are, and saving it again changes nothing.
    QCOMPARE(qs(readText(fsPath(file))), qs(serializePreset(p)));
}

void TestPreset::builtinIntent() {
    auto load = [](const char* name) { return loadPreset(kPresets / (std::string(name) + kSuffix)); };
    std::set<std::string> names;
    for (const fs::path& f : filesIn(kPresets)) names.insert(stem(f));
    for (const char* name :
         {"mild-geometric", "strong-geometric-cutout", "flowers-deotte", "digits-safe", "colour-only"})
        QVERIFY2(names.count(name), name);

    for (const OpConfig& op : load("colour-only").pipeline)
        QVERIFY2(op.desc().category == OpCategory::Pixel, op.name().c_str());
    for (const OpConfig& op : load("digits-safe").pipeline) {
        QVERIFY2(op.id() != OpId::HorizontalFlip && op.id() != OpId::VerticalFlip,
                 "digits are never mirrored");
        QVERIFY2(op.id() != OpId::HueSaturationValue, "no hue change for digits");
        if (op.id() == OpId::Affine) QVERIFY(op.range("rotate_deg") == (Range{-15, 15}));
    }
    // Deotte's transform: nearest neighbour, coordinates clamped to the edge, zoom per axis, ±2σ.
    const OpConfig deotte = load("flowers-deotte").pipeline.at(0);
    QCOMPARE(qs(deotte.choice("interpolation")), QString("nearest"));
    QCOMPARE(qs(deotte.choice("border")), QString("replicate"));
    QVERIFY(!deotte.flag("keep_ratio"));
    QVERIFY(deotte.range("rotate_deg") == (Range{-2 * 15, 2 * 15}));
    QVERIFY(deotte.range("translate_x_frac") == (Range{-2 * 16.0 / 512, 2 * 16.0 / 512}));
    const OpConfig strong = load("strong-geometric-cutout").pipeline.at(0);
    QVERIFY(strong.range("rotate_deg") == (Range{-30, 30}) && strong.range("scale_x") == (Range{0.75, 1.25}));
}

void TestPreset::roundTrip_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("generated");  // index into generatedPresets(), or -1 for a file
    for (const fs::path& f : validFiles()) QTest::newRow(f.filename().string().c_str()) << qs(f) << -1;
    const auto generated = generatedPresets();
    for (std::size_t i = 0; i < generated.size(); ++i)
        QTest::newRow(generated[i].first.c_str()) << QString() << static_cast<int>(i);
}

void TestPreset::roundTrip() {
    QFETCH(QString, file);
    QFETCH(int, generated);
    const Preset p = generated >= 0 ? generatedPresets()[static_cast<std::size_t>(generated)].second
                                    : loadPreset(fsPath(file));
    const std::string text = serializePreset(p);
    const Preset back = parsePreset(text);
    QVERIFY(back == p);
    QCOMPARE(qs(serializePreset(back)), qs(text));
    // What an import keeps (the origins, not part of ==) survives the file too.
    QCOMPARE(bool(back.albumentations), bool(p.albumentations));
    if (p.albumentations) QCOMPARE(back.albumentations->transform, p.albumentations->transform);
    // Every key explicit: each op lists op, enabled, p and all its parameters that have a value,
    // except that pixel hole sizes replace the fractional ones.
    const nlohmann::json doc = nlohmann::json::parse(text);
    // format, version, name, description, seed, pipeline, targets when the preset has labels, and
    // albumentations when it was imported.
    QCOMPARE(static_cast<int>(doc.size()), 6 + (p.targets ? 1 : 0) + (p.albumentations ? 1 : 0));
    QCOMPARE(doc["seed"].get<std::uint64_t>(), p.seed);
    if (p.targets) {
        // Every targets setting explicit too.
        QCOMPARE(doc["targets"]["boxes"].size(), std::size_t(10));
        QCOMPARE(doc["targets"]["keypoints"].size(), std::size_t(5));
        QVERIFY(doc["targets"].contains("mask_fill"));
    }
    for (std::size_t i = 0; i < p.pipeline.size(); ++i) {
        const OpConfig& op = p.pipeline[i];
        const bool pxHoles = op.has("hole_height_px");
        std::set<std::string> expected{"op", "enabled", "p"}, keys;
        if (op.origin) {
            expected.insert("albumentations");
            QCOMPARE(back.pipeline[i].origin->transform, op.origin->transform);
        }
        for (const ParamDesc& pd : op.desc().params)
            if (op.has(pd.key) && !(pxHoles && (pd.key == "hole_height_frac" || pd.key == "hole_width_frac")))
                expected.insert(pd.key);
        for (const auto& item : entryAt(doc, p.pipeline.path(i)).items()) keys.insert(item.key());
        QVERIFY2(keys == expected, op.name().c_str());
    }
    // Groups: every member explicit too (n and replace where the kind draws n children).
    for (std::size_t g = 0; g < p.pipeline.groups().size(); ++g) {
        const nlohmann::json& entry = entryAt(doc, p.pipeline.groupPath(g));
        std::set<std::string> keys, expected{"group", "enabled", "p", "children"};
        if (groupHasCount(p.pipeline.groups()[g].kind)) expected.insert({"n", "replace"});
        if (p.pipeline.groups()[g].origin) expected.insert("albumentations");
        for (const auto& item : entry.items()) keys.insert(item.key());
        QVERIFY(keys == expected);
        QCOMPARE(entry["group"].get<std::string>(), std::string(groupKindName(p.pipeline.groups()[g].kind)));
    }
}

void TestPreset::omittedKeysTakeDefaults_data() {
    QTest::addColumn<QString>("op");
    for (const OpDesc& d : opRegistry()) QTest::newRow(d.name.c_str()) << qs(d.name);
}

void TestPreset::omittedKeysTakeDefaults() {
    QFETCH(QString, op);
    const Preset p = parsePreset(opsDoc(R"({"op": ")" + op.toStdString() + R"("})"));
    const Preset blank;
    QCOMPARE(qs(p.name), qs(blank.name));
    QCOMPARE(qs(p.description), QString());
    QCOMPARE(p.seed, std::uint64_t{0});
    QCOMPARE(static_cast<int>(p.pipeline.size()), 1);
    const OpConfig& c = p.pipeline[0];
    QVERIFY(c.enabled);
    QCOMPARE(c.p, 1.0);
    QVERIFY(c == OpConfig(c.desc()));  // every parameter at the registry's default, optional ones absent
}

void TestPreset::defaultsFollowSpec() {
    // The file spells out SPEC §3's defaults, typed in from the SPEC, independently of the registry.
    // Ops that must come first (they compose whole images) have a file each, with the
    // Albumentations 2.0.8 defaults SPEC §3 refers to.
    const Preset spec = loadPreset(kData / "valid/spec-defaults.auglab.json");
    std::size_t next = 0;
    for (const OpDesc& d : opRegistry()) {
        if (d.mustBeFirst) {
            const Preset own = loadPreset(kData / "valid" / ("spec-defaults-" + d.name + ".auglab.json"));
            QCOMPARE(own.pipeline.size(), std::size_t(1));
            QVERIFY2(own.pipeline[0] == OpConfig(d), d.name.c_str());
            continue;
        }
        QVERIFY2(next < spec.pipeline.size(), d.name.c_str());
        QCOMPARE(qs(spec.pipeline[next].name()), qs(d.name));
        QVERIFY2(spec.pipeline[next] == OpConfig(d), d.name.c_str());
        ++next;
    }
    QCOMPARE(next, spec.pipeline.size());
}

void TestPreset::errors_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");  // the start of the message
    auto row = [](const char* name, const std::string& text, const char* expected) {
        QTest::newRow(name) << QByteArray::fromStdString(text) << QString::fromUtf8(expected);
    };
    // Syntax: the document name, line and column.
    row("missing bracket", "{\"format\": \"auglab-preset\",\n  \"version\": 1,\n  \"pipeline\": [}\n",
        "preset: invalid JSON at line 3, column 16: syntax error while parsing value");
    row("trailing comma", presetDoc(R"("pipeline": [],)"), "preset: invalid JSON at line 1, column 58:");
    row("not JSON", "rotate 15 degrees", "preset: invalid JSON at line 1, column 1:");
    row("empty", "", "preset: invalid JSON at line 1, column 1:");
    row("number overflow", opsDoc(R"({"op": "affine", "rotate_deg": [-1e400, 10]})"),
        "preset: invalid JSON at line 1, column 88: number overflow parsing '-1e400'");
    row("invalid UTF-8", presetDoc("\"name\": \"\xff\", \"pipeline\": []"),
        "preset: invalid JSON at line 1, column 52:");
    row("duplicate key", presetDoc(R"("version": 1, "pipeline": [])"),
        "preset: version: duplicate key \"version\"");
    row("duplicate op key", opsDoc(R"({"op": "to_gray"}, {"op": "affine", "p": 0.5, "p": 1})"),
        "preset: pipeline[1].p: duplicate key \"p\"");
    // 1.0 is the integer 1 (JSON Schema's integer, the bundled schema's type); 1.5 is not.
    row("version 1.5", R"({"format": "auglab-preset", "version": 1.5, "pipeline": []})",
        "version: expected an integer, got 1.5");
    // Faults the JSON Schema cannot express; all others are files in tests/data/presets/invalid.
    row("float min above max", opsDoc(R"({"op": "affine", "rotate_deg": [10, -10]})"),
        "pipeline[0].rotate_deg: min 10 > max -10");
}

void TestPreset::errors() {
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    const QString message = errorOf([&] { parsePreset(text.toStdString()); });
    QVERIFY2(message.startsWith(expected), qPrintable("got: " + message));
}

void TestPreset::minAboveMaxMessage() {
    const std::string text =
        opsDoc(R"({"op": "affine"}, {"op": "horizontal_flip"}, {"op": "coarse_dropout", "holes": [9, 8]})");
    QCOMPARE(errorOf([&] { parsePreset(text); }), QString("pipeline[2].holes: min 9 > max 8"));
}

void TestPreset::invalidFiles_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("expected");
    // messages.txt: one "FILE: message" line per file of the folder. invalid-rules/ holds files the
    // schema accepts (rules it cannot express: op order, group sizes, a one_of's weights).
    std::size_t total = 0;
    for (const char* folder : {"invalid", "invalid-rules"}) {
        std::map<std::string, QString> messages;
        std::ifstream manifest(kData / folder / "messages.txt");
        for (std::string line; std::getline(manifest, line);) {
            const auto colon = line.find(": ");
            if (!line.starts_with("#") && colon != std::string::npos)
                messages[line.substr(0, colon)] = qs(line.substr(colon + 2));
        }
        total += messages.size();
        for (const fs::path& f : filesIn(kData / folder)) {
            const std::string name = f.filename().string();
            QTest::newRow(name.c_str()) << qs(f) << messages[name];
            messages.erase(name);
        }
        for (const auto& [name, message] : messages) QTest::newRow(name.c_str()) << QString() << message;
    }
    QVERIFY(total >= 50);
}

void TestPreset::invalidFiles() {
    QFETCH(QString, file);
    QFETCH(QString, expected);
    QVERIFY2(!file.isEmpty(), "messages.txt names a file that does not exist");
    QVERIFY2(!expected.isEmpty(), "no line in messages.txt for this file");
    const QString message = errorOf([&] { loadPreset(fsPath(file)); });
    QVERIFY2(message.startsWith(file + ": " + expected), qPrintable("got: " + message));
}

void TestPreset::schemaFileMatchesRegistry() {
    const fs::path file = kPresets / "auglab-preset.schema.json";
    const nlohmann::json stored = nlohmann::json::parse(readText(file));
    const nlohmann::json generated = nlohmann::json::parse(presetSchema().dump());
    QVERIFY2(stored == generated,
             "presets/auglab-preset.schema.json is stale: regenerate it with "
             "`auglab-cli schema --out presets/auglab-preset.schema.json`");
}

void TestPreset::schemaValidation_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("valid");
    for (const fs::path& f : validFiles())
        QTest::newRow(("accepts " + f.filename().string()).c_str()) << qs(f) << true;
    for (const fs::path& f : filesIn(kData / "invalid"))
        QTest::newRow(("rejects " + f.filename().string()).c_str()) << qs(f) << false;
}

void TestPreset::schemaValidation() {
    QFETCH(QString, file);
    QFETCH(bool, valid);
    const SchemaVerdicts& v = schemaVerdicts();
    // Python's jsonschema is a dependency the set-up commands install (scripts/deps.sh).
    QVERIFY2(v.skip.isEmpty(), qPrintable(v.skip));
    QVERIFY2(v.failure.isEmpty(), qPrintable(v.failure));
    QVERIFY2(v.byFile.contains(file), "no verdict from jsonschema");
    const QString verdict = v.byFile.value(file);
    QVERIFY2(verdict.startsWith(valid ? "valid" : "invalid"), qPrintable(verdict));
}

void TestPreset::save_data() {
    // target: relative to a folder holding mine.auglab.json and a folder taken.auglab.json.
    QTest::addColumn<QString>("target");
    QTest::addColumn<int>("sizeLimit");   // bytes a process may write to one file, 0 for no limit
    QTest::addColumn<QString>("reason");  // empty when the save succeeds
    QTest::newRow("replaces the old file") << "mine.auglab.json" << 0 << "";
    QTest::newRow("target is a folder") << "taken.auglab.json" << 0 << "it is a folder";
    QTest::newRow("folder missing") << "nowhere/mine.auglab.json" << 0 << "does not exist";
    QTest::newRow("write fails over the old file") << "mine.auglab.json" << 64 << "File too large";
}

void TestPreset::save() {
    QFETCH(QString, target);
    QFETCH(int, sizeLimit);
    QFETCH(QString, reason);
    QTemporaryDir dir;
    const fs::path old = fsPath(dir.filePath("mine.auglab.json"));
    savePreset(old, defaultPreset());
    QVERIFY(QDir(dir.path()).mkdir("taken.auglab.json"));
    const std::string before = readText(old);
    const auto listing = [&] {
        return QDir(dir.path())
            .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot | QDir::System);
    };
    const QStringList entriesBefore = listing();
    const Preset other = loadPreset(kPresets / "strong-geometric-cutout.auglab.json");
    QString message;
    {
        std::optional<FileSizeLimit> limit;
        if (sizeLimit > 0) limit.emplace(static_cast<rlim_t>(sizeLimit));
        message = errorOf([&] { savePreset(fsPath(dir.filePath(target)), other); });
    }
    if (reason.isEmpty()) {  // the save succeeds: the new text replaces the old, nothing else changes
        QCOMPARE(message, QString("NO ERROR"));
        QCOMPARE(qs(readText(old)), qs(serializePreset(other)));
    } else {  // the save fails: the old file is untouched and no temporary file is left behind
        QVERIFY2(message.contains("cannot write '" + dir.filePath(target) + "'"), qPrintable(message));
        QVERIFY2(message.contains(reason), qPrintable(message));
        QVERIFY(readText(old) == before);
    }
    QCOMPARE(listing(), entriesBefore);
    QVERIFY(fs::is_empty(fsPath(dir.filePath("taken.auglab.json"))));
}

void TestPreset::fuzzPreset_data() {
    QTest::addColumn<QString>("file");
    for (const fs::path& f : validFiles()) QTest::newRow(f.filename().string().c_str()) << qs(f);
}

void TestPreset::fuzzPreset() {
    QFETCH(QString, file);
    fuzz(
        readText(fsPath(file)), [](const std::string& t) { return parsePreset(t); }, serializePreset);
}

namespace {

/// Replays of every op, all applied, drawn by the sampler for a 64x48 image: those whose pipeline
/// starts with the 4-image grid (`mosaicFirst`), or the others.
void replayRows(bool mosaicFirst) {
    QTest::addColumn<QByteArray>("text");
    for (auto [name, preset] : generatedPresets()) {
        if (name.find("fill") == std::string::npos) continue;
        if ((name.find("mosaic first") != std::string::npos) != mosaicFirst) continue;
        for (OpConfig& op : preset.pipeline) {
            op.enabled = true;
            op.p = 1;
        }
        const Replay replay = samplePipeline(preset.pipeline, 99, 5, 64, 48);
        QTest::newRow(name.c_str()) << QByteArray::fromStdString(serializeReplay(replay));
    }
}

void fuzzReplayRow();

}  // namespace

/// The replay reader and the renderer fed mutated replays: the slowest functions here (minutes under
/// the sanitizers), in suites of their own so that ctest runs them beside the rest.
class TestReplayFuzz : public QObject {
    Q_OBJECT

private slots:
    void fuzzReplay_data() { replayRows(false); }
    void fuzzReplay() { fuzzReplayRow(); }
};

/// The same for the pipelines that start with the grid (each mutation renders four cells).
class TestReplayFuzzMosaic : public QObject {
    Q_OBJECT

private slots:
    void fuzzReplay_data() { replayRows(true); }
    void fuzzReplay() { fuzzReplayRow(); }
};

namespace {

void fuzzReplayRow() {
    QFETCH(QByteArray, text);
    const std::string original = text.toStdString();
    const Replay replay = parseReplay(original);
    QCOMPARE(qs(serializeReplay(replay)), qs(original));
    for (const ConcreteOp& op : replay.ops) QVERIFY(op.applied);
    fuzz(
        original, [](const std::string& t) { return parseReplay(t); },
        [](const Replay& r) { return serializeReplay(r); });
    // Whatever parses also plans and renders on the CPU (or is refused with an InputError): a replay
    // that passes the reader never crashes the renderer.
    SourceLevels image(Image(64, 48, 3, 100));
    CpuBackend cpu(1);
    std::mt19937_64 rng(7);
    int rendered = 0, refused = 0;
    for (int i = 0; i < 2000; ++i) {
        Replay r;
        try {
            r = parseReplay(mutate(original, rng));
        } catch (const InputError&) {
            continue;
        }
        int w = 0, h = 0;
        frameSize(r, r.ops.size(), w, h);
        if (double(w) * h > 4e6) continue;  // a large output is legal, just slow to render here
        try {
            renderReplay(r, image, cpu);
            ++rendered;
        } catch (const InputError&) {
            ++refused;
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QString("not an InputError (%1) for a replay that parsed").arg(e.what())));
        }
    }
    qInfo("%d mutated replays rendered, %d refused with an InputError", rendered, refused);
    QVERIFY(rendered + refused > 0);  // some mutations parsed and went through the renderer
}

}  // namespace

void TestPreset::deepNesting_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");  // start of the preset parser's message
    const int n = 100000;
    const std::string open(n, '['), close(n, ']');
    std::string objects;
    for (int i = 0; i < n; ++i) objects += "{\"a\": ";
    objects += "1" + std::string(n, '}');
    // Refused at 256 levels, where they pass it (the whole path would be 100,000 levels long: it is
    // cut at 400 characters), before anything deeper is read.
    QTest::newRow("arrays") << QByteArray::fromStdString(open + close) << "preset: [0][0][0][0]";
    QTest::newRow("unclosed arrays") << QByteArray::fromStdString(open) << "preset: [0][0][0][0]";
    QTest::newRow("objects") << QByteArray::fromStdString(objects) << "preset: a.a.a.a";
    QTest::newRow("inside a range")
        << QByteArray::fromStdString(opsDoc(R"({"op": "affine", "rotate_deg": )" + open + close + "}"))
        << "preset: pipeline[0].rotate_deg[0][0]";
}

void TestPreset::deepNesting() {
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    const std::string s = text.toStdString();
    const QString message = errorOf([&] { parsePreset(s); });
    QVERIFY2(message.startsWith(expected) && message.endsWith("...: arrays and objects nested deeper than 256 levels"),
             qPrintable(message.left(300)));
    const QString replayMessage = errorOf([&] { parseReplay(s); });
    QVERIFY2(!replayMessage.startsWith("NO") && !replayMessage.startsWith("NOT"),
             qPrintable(replayMessage.left(300)));
}

void TestPreset::replaySeedsSurviveOtherJsonReaders() {
    // Noise seeds are 64-bit: as JSON numbers, readers that keep doubles (Qt's QJsonDocument,
    // JavaScript, Python tools converting to float) would round them and change the noise.
    OpConfig noise = OpConfig::withDefaults("gauss_noise");
    OpConfig drop = OpConfig::withDefaults("coarse_dropout");
    drop.set("fill", Fill{Fill::Mode::Random, {}});
    Replay original;
    for (std::uint64_t i = 0; i < 64; ++i) {  // a sample whose seeds need all 64 bits
        original = samplePipeline({noise, drop}, 7, i, 64, 48);
        if (std::get<NoiseParams>(original.ops[0].params).noiseSeed > (std::uint64_t{1} << 60)) break;
    }
    const std::uint64_t seed = std::get<NoiseParams>(original.ops[0].params).noiseSeed;
    QVERIFY(seed > (std::uint64_t{1} << 60));
    const std::string text = serializeReplay(original);
    QVERIFY2(text.find("\"noise_seed\": \"" + std::to_string(seed) + "\"") != std::string::npos,
             text.c_str());
    // Through Qt's JSON and back.
    const QByteArray viaQt = QJsonDocument::fromJson(QByteArray::fromStdString(text)).toJson();
    QCOMPARE(serializeReplay(parseReplay(viaQt.toStdString())), text);
    // Through Python's json module and back.
    QProcess python;
    python.start("python3", {"-c", "import json, sys; sys.stdout.write(json.dumps(json.load(sys.stdin)))"});
    QVERIFY(python.waitForStarted());
    python.write(QByteArray::fromStdString(text));
    python.closeWriteChannel();
    QVERIFY(python.waitForFinished(30000));
    QCOMPARE(python.exitCode(), 0);
    QCOMPARE(serializeReplay(parseReplay(python.readAllStandardOutput().toStdString())), text);
    // Replays written before, with the seed as a number, still read, to the same value; and that
    // number is what Qt's doubles would have corrupted.
    std::string old = text;
    const std::string quoted = "\"" + std::to_string(seed) + "\"";
    for (std::size_t at; (at = old.find(quoted)) != std::string::npos;)
        old.replace(at, quoted.size(), std::to_string(seed));
    QCOMPARE(std::get<NoiseParams>(parseReplay(old).ops[0].params).noiseSeed, seed);
    const QJsonValue asDouble = QJsonDocument::fromJson(QByteArray::fromStdString(old))
                                    .object()["ops"]
                                    .toArray()[0]
                                    .toObject()["noise_seed"];
    QVERIFY(static_cast<std::uint64_t>(asDouble.toDouble()) != seed);
    // A seed that is not digits is an error naming its place.
    std::string bad = text;
    bad.replace(bad.find(quoted), quoted.size(), "\"12x\"");
    bool refused = false;
    try {
        parseReplay(bad);
    } catch (const InputError& e) {
        refused = QString(e.what()).contains("noise_seed") && QString(e.what()).contains("decimal digits");
    }
    QVERIFY(refused);
}

// A value that a flag on in both makes meaningless (ParamDesc::unusedWhenFlag) is not compared: it
// cannot survive an export that writes what it means (pixel_dropout's drop value when the value is
// drawn per image), and it changes nothing; with the flag off, or on in only one, it counts.
void TestPreset::unusedValuesAreNotCompared() {
    OpConfig a = OpConfig::withDefaults("pixel_dropout"), b = a;
    a.set("drop_value", Fill{Fill::Mode::Constant, {1, 2, 3}});
    QVERIFY(!(a == b));
    a.set("random_value", true);
    QVERIFY(!(a == b));
    b.set("random_value", true);
    QVERIFY(a == b);
    a.set("dropout_prob", 0.5);
    QVERIFY(!(a == b));
    OpConfig affine = OpConfig::withDefaults("affine"), other = affine;
    other.set("scale_y", Range{0.5, 0.6});
    affine.set("keep_ratio", false);
    other.set("keep_ratio", false);
    QVERIFY(!(affine == other));
    affine.set("keep_ratio", true);
    other.set("keep_ratio", true);
    QVERIFY(affine == other);
}


int main(int argc, char** argv) {
    return auglab::testing::runSuites<TestPreset, TestReplayFuzz, TestReplayFuzzMosaic>(argc, argv);
}
#include "test_preset.moc"
