#include "pipeline_document.h"

#include <QRegularExpression>

#include <algorithm>

#include <QFile>
#include <QFileInfo>
#include <QUndoCommand>

#include "error.h"
#include "preset.h"

namespace auglab {

/// One edit: the whole preset before and after. Presets are small, so storing both is simpler and
/// safer than per-field inverse operations, and every edit kind shares one command. An edit that
/// changes which file the document is (an import) holds the file path before and after too.
class PresetEdit : public QUndoCommand {
public:
    PresetEdit(PipelineDocument* doc, Preset before, Preset after, const QString& text, int mergeKey)
        : QUndoCommand(text),
          doc_(doc),
          before_(std::move(before)),
          after_(std::move(after)),
          key_(mergeKey) {}

    void setPaths(const QString& before, const QString& after) {
        pathBefore_ = before;
        pathAfter_ = after;
    }
    void redo() override { doc_->setPresetFromUndo(after_, pathAfter_); }
    void undo() override { doc_->setPresetFromUndo(before_, pathBefore_); }
    int id() const override { return key_ > 0 ? 1 : -1; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* o = static_cast<const PresetEdit*>(other);
        if (o->key_ != key_) return false;
        after_ = o->after_;
        // A drag that ends where it began is no edit at all.
        setObsolete(after_ == before_);
        return true;
    }

private:
    PipelineDocument* doc_;
    Preset before_, after_;
    std::optional<QString> pathBefore_, pathAfter_;
    int key_;
};

PipelineDocument::PipelineDocument(QObject* parent) : QObject(parent) {
    preset_ = defaultPreset();
    autosaveTimer_.setSingleShot(true);
    autosaveTimer_.setInterval(800);
    connect(&autosaveTimer_, &QTimer::timeout, this, &PipelineDocument::autosaveNow);
    connect(&undo_, &QUndoStack::cleanChanged, this, [this](bool) { emit dirtyChanged(isDirty()); });
}

QString PipelineDocument::displayName() const {
    // In no file yet, the preset's name is not a file's that Save would write: said so.
    const QString preset = QString::fromStdString(preset_.name);
    const QString name = !path_.isEmpty()   ? QFileInfo(path_).fileName()
                         : preset.isEmpty() ? tr("untitled")
                                            : tr("%1 (untitled)").arg(preset);
    return name + (isDirty() ? QStringLiteral(" *") : QString());
}

void PipelineDocument::setPresetFromUndo(const Preset& p, const std::optional<QString>& path) {
    preset_ = p;
    const bool moved = path && *path != path_;
    if (path) path_ = *path;
    if (!autosavePath_.isEmpty()) autosaveTimer_.start();
    emit changed();
    if (moved) emit filePathChanged(path_);
}

void PipelineDocument::applyEdit(const Preset& after, const QString& text, int mergeKey) {
    if (after == preset_) return;
    pushEdit(after, text, mergeKey, std::nullopt);
}

void PipelineDocument::importPreset(const Preset& imported, const QString& text) {
    // Even an import equal to the pipeline makes the document untitled: it came from another file.
    if (imported == preset_ && path_.isEmpty()) return;
    pushEdit(imported, text, 0, QString());
}

void PipelineDocument::pushEdit(const Preset& after, const QString& text, int mergeKey,
                                const std::optional<QString>& path) {
    std::string why = groupRulesError(after.pipeline);
    if (why.empty()) pipelineOrderError(after.pipeline, why);
    if (!why.empty()) {
        // Said with names only: the indices of the refused order are not those on screen.
        QString reason = QString::fromStdString(why);
        reason.remove(QRegularExpression(R"(( at )?pipeline(\[\d+\](\.children)?)+ ?)"));
        reason.remove(QRegularExpression(R"(\s*\(it is already pipeline\[\d+\]\))"));
        emit editRefused(tr("%1 refused: %2").arg(text, reason));
        return;
    }
    auto* edit = new PresetEdit(this, preset_, after, text, mergeKey);
    if (path) edit->setPaths(path_, *path);
    undo_.push(edit);
}

void PipelineDocument::setParam(int op, const std::string& key, const ParamValue& value, int mergeKey) {
    Preset p = preset_;
    p.pipeline.at(static_cast<std::size_t>(op)).set(key, value);
    applyEdit(p, tr("Change %1").arg(QString::fromStdString(key)), mergeKey);
}

void PipelineDocument::setOptionalPresent(int op, const std::string& key, bool present) {
    Preset p = preset_;
    OpConfig& c = p.pipeline.at(static_cast<std::size_t>(op));
    std::vector<std::string> keys{key};
    if (key == "hole_height_px" || key == "hole_width_px") keys = {"hole_height_px", "hole_width_px"};
    for (const std::string& k : keys) {
        if (present && !c.has(k)) c.set(k, c.desc().param(k)->defaultValue);
        if (!present && c.has(k)) c.unset(k);
    }
    applyEdit(p, present ? tr("Use %1").arg(QString::fromStdString(key))
                         : tr("Stop using %1").arg(QString::fromStdString(key)));
}

void PipelineDocument::resetParam(int op, const std::string& key) {
    Preset p = preset_;
    p.pipeline.at(static_cast<std::size_t>(op)).resetToDefault(key);
    applyEdit(p, tr("Reset %1").arg(QString::fromStdString(key)));
}

void PipelineDocument::resetOp(int op) {
    Preset p = preset_;
    OpConfig& c = p.pipeline.at(static_cast<std::size_t>(op));
    const bool enabled = c.enabled;
    c = OpConfig(c.desc());
    c.enabled = enabled;
    applyEdit(p, tr("Reset %1").arg(QString::fromStdString(c.name())));
}

void PipelineDocument::setProbability(int op, double prob, int mergeKey) {
    Preset p = preset_;
    p.pipeline.at(static_cast<std::size_t>(op)).p = prob;
    applyEdit(p, tr("Change probability"), mergeKey);
}

void PipelineDocument::setEnabled(int op, bool enabled) {
    Preset p = preset_;
    p.pipeline.at(static_cast<std::size_t>(op)).enabled = enabled;
    applyEdit(p, enabled ? tr("Enable op") : tr("Disable op"));
}

void PipelineDocument::addOp(const std::string& name) {
    Preset p = preset_;
    OpConfig op = OpConfig::withDefaults(name);
    auto at = p.pipeline.end();
    if (op.desc().mustBeFirst)
        at = p.pipeline.begin();
    else if (op.desc().category != OpCategory::Training)  // before the training tail
        at = std::find_if(p.pipeline.begin(), p.pipeline.end(),
                          [](const OpConfig& c) { return c.desc().category == OpCategory::Training; });
    const int index = static_cast<int>(at - p.pipeline.begin());
    p.pipeline.insert(at, std::move(op));
    const Preset before = preset_;
    applyEdit(p, tr("Add %1").arg(QString::fromStdString(name)));
    if (!(preset_ == before)) emit opPlaced(index);
}

void PipelineDocument::removeOp(int op) {
    Preset p = preset_;
    p.pipeline.erase(p.pipeline.begin() + op);
    applyEdit(p, tr("Remove op"));
}

void PipelineDocument::moveOp(int from, int to) {
    const int n = static_cast<int>(preset_.pipeline.size());
    if (from < 0 || from >= n || to < 0 || to >= n || from == to) return;
    Preset p = preset_;
    OpConfig moved = p.pipeline[static_cast<std::size_t>(from)];
    p.pipeline.erase(p.pipeline.begin() + from);
    p.pipeline.insert(p.pipeline.begin() + to, moved);
    const Preset before = preset_;
    applyEdit(p, tr("Move op"));
    if (!(preset_ == before)) emit opPlaced(to);
}

void PipelineDocument::stepOp(int op, int direction) {
    if (op < 0 || op >= static_cast<int>(preset_.pipeline.size())) return;
    Preset p = preset_;
    const int to = p.pipeline.stepOp(static_cast<std::size_t>(op), direction);
    if (to < 0) return;
    const Preset before = preset_;
    applyEdit(p, tr("Move op"));
    if (!(preset_ == before)) emit opPlaced(to);
}

void PipelineDocument::groupOp(int op, GroupKind kind) {
    Preset p = preset_;
    try {
        p.pipeline.addGroup(kind, static_cast<std::size_t>(op), 1);
    } catch (const std::invalid_argument&) {
        return;
    }
    applyEdit(p, tr("Put in a %1 group").arg(groupKindName(kind)));
}

void PipelineDocument::wrapGroup(int group, GroupKind kind) {
    Preset p = preset_;
    const OpGroup& g = p.pipeline.groups().at(static_cast<std::size_t>(group));
    p.pipeline.addGroup(kind, g.first, g.count);
    applyEdit(p, tr("Put in a %1 group").arg(groupKindName(kind)));
}

void PipelineDocument::ungroup(int group) {
    Preset p = preset_;
    p.pipeline.removeGroup(static_cast<std::size_t>(group));
    applyEdit(p, tr("Ungroup"));
}

void PipelineDocument::editGroup(int group, const std::function<void(OpGroup&)>& edit, const QString& text,
                                 int mergeKey) {
    Preset p = preset_;
    edit(p.pipeline.group(static_cast<std::size_t>(group)));
    applyEdit(p, text, mergeKey);
}

void PipelineDocument::setGroupKind(int group, GroupKind kind) {
    editGroup(
        group,
        [kind](OpGroup& g) {
            // A kind without n draws none; one that has it starts at 1 (Albumentations' default).
            if (groupHasCount(kind) != groupHasCount(g.kind)) {
                g.n = 1;
                g.replace = false;
            }
            g.kind = kind;
        },
        tr("Make the group a %1").arg(groupKindName(kind)));
}

void PipelineDocument::setGroupProbability(int group, double p, int mergeKey) {
    editGroup(
        group, [p](OpGroup& g) { g.p = p; }, tr("Change the group's probability"), mergeKey);
}

void PipelineDocument::setGroupCount(int group, int n) {
    editGroup(
        group, [n](OpGroup& g) { g.n = n; }, tr("Change how many children the group draws"));
}

void PipelineDocument::setGroupReplace(int group, bool replace) {
    editGroup(
        group, [replace](OpGroup& g) { g.replace = replace; },
        replace ? tr("Draw with replacement") : tr("Draw without replacement"));
}

void PipelineDocument::setGroupEnabled(int group, bool enabled) {
    editGroup(
        group, [enabled](OpGroup& g) { g.enabled = enabled; },
        enabled ? tr("Enable group") : tr("Disable group"));
}

void PipelineDocument::setSeed(quint64 seed) {
    Preset p = preset_;
    p.seed = seed;
    applyEdit(p, tr("Change seed"));
}

void PipelineDocument::newDocument(const Preset& preset) {
    preset_ = preset;
    undo_.clear();
    undo_.setClean();
    recovered_ = false;
    path_.clear();
    emit filePathChanged(path_);
    emit dirtyChanged(isDirty());
    emit changed();
}

void PipelineDocument::open(const QString& path) {
    Preset loaded = loadPreset(path.toStdString());  // throws before anything changes
    newDocument(loaded);
    path_ = path;
    emit filePathChanged(path_);
}

void PipelineDocument::save(const QString& path) {
    savePreset(path.toStdString(), preset_);  // atomic; throws with the old file intact
    path_ = path;
    recovered_ = false;
    undo_.setClean();
    discardAutosave();
    emit filePathChanged(path_);
    emit dirtyChanged(isDirty());
}

void PipelineDocument::setAutosavePath(const QString& path) {
    autosavePath_ = path;
}

void PipelineDocument::autosaveNow() {
    if (autosavePath_.isEmpty()) return;
    try {
        savePreset(autosavePath_.toStdString(), preset_);
    } catch (const std::exception&) {
        // An autosave that fails must not interrupt the user; the next edit tries again.
    }
}

bool PipelineDocument::hasRecoverableAutosave() const {
    return !autosavePath_.isEmpty() && QFile::exists(autosavePath_);
}

void PipelineDocument::recoverAutosave() {
    Preset p = loadPreset(autosavePath_.toStdString());
    newDocument(p);
    recovered_ = true;
    emit dirtyChanged(isDirty());
}

void PipelineDocument::discardAutosave() {
    autosaveTimer_.stop();
    if (!autosavePath_.isEmpty()) QFile::remove(autosavePath_);
}

}  // namespace auglab
