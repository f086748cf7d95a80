#pragma once
// The working preset of the GUI. Every edit goes through one QUndoStack as a PresetEdit command
// holding the preset before and after; consecutive edits with the same merge key (one slider
// drag) fold into one undo step, and a drag that ends where it began disappears. One signal,
// changed(), tells views to update. Saving is atomic; an autosave file keeps unsaved work safe
// from a crash and is offered back on the next start.

#include <functional>
#include <optional>

#include <QObject>
#include <QString>
#include <QTimer>
#include <QUndoStack>

#include "pipeline.h"

namespace auglab {

class PipelineDocument : public QObject {
    Q_OBJECT

public:
    explicit PipelineDocument(QObject* parent = nullptr);

    const Preset& preset() const { return preset_; }
    QUndoStack* undoStack() { return &undo_; }
    QString filePath() const { return path_; }
    bool isDirty() const { return !undo_.isClean() || recovered_; }
    /// Title for the window: the preset file's name (or, in no file yet, the preset's name said to
    /// be untitled) and a dirty marker.
    QString displayName() const;

    /// A fresh merge key for a gesture (a slider drag): edits carrying it merge into one step.
    int newMergeKey() { return ++lastMergeKey_; }

    // Edits, each one undo step unless merged. Indices refer to preset().pipeline. An edit that
    // would break the op order rules (pipelineOrderError) is refused with editRefused().
    void applyEdit(const Preset& after, const QString& text, int mergeKey = 0);
    void setParam(int op, const std::string& key, const ParamValue& value, int mergeKey = 0);
    /// Optional parameters: present with their defaults, or absent. Pixel hole sizes come as a pair.
    void setOptionalPresent(int op, const std::string& key, bool present);
    void resetParam(int op, const std::string& key);
    void resetOp(int op);
    void setProbability(int op, double p, int mergeKey = 0);
    void setEnabled(int op, bool enabled);
    /// Appends the op; an op that sets the frame (a crop) goes before the first pixel op instead.
    void addOp(const std::string& name);
    void removeOp(int op);
    void moveOp(int from, int to);
    /// The editor's arrows: one step up (-1) or down (+1), into and out of groups (Pipeline::stepOp).
    void stepOp(int op, int direction);
    /// Puts op `op` alone in a new group; the arrows then move neighbours in.
    void groupOp(int op, GroupKind kind);
    /// Puts group `group` in a new group around it.
    void wrapGroup(int group, GroupKind kind);
    /// Removes the group; its children stay where they are, in its parent.
    void ungroup(int group);
    void setGroupKind(int group, GroupKind kind);
    void setGroupProbability(int group, double p, int mergeKey = 0);
    void setGroupCount(int group, int n);
    void setGroupReplace(int group, bool replace);
    void setGroupEnabled(int group, bool enabled);
    void setSeed(quint64 seed);
    /// Replaces the pipeline with one read from another tool's file (File > Import): one undo step
    /// that also leaves the document untitled, so that a save asks for a name instead of writing
    /// the import over the preset file that was open. Undoing it gives that file its name back.
    void importPreset(const Preset& imported, const QString& text);

    // Files. Errors throw auglab::InputError / RuntimeError with the path and JSON path.
    void newDocument(const Preset& preset);
    void open(const QString& path);
    void save(const QString& path);

    // Autosave (empty path: off).
    void setAutosavePath(const QString& path);
    QString autosavePath() const { return autosavePath_; }
    /// Writes the autosave file now (it is also written shortly after every edit).
    void autosaveNow();
    /// A leftover autosave file from a session that did not end cleanly, if any.
    bool hasRecoverableAutosave() const;
    /// Loads the autosave file as the working preset (dirty, so it asks to be saved).
    void recoverAutosave();
    /// Removes the autosave file: on a clean exit or once the work is saved.
    void discardAutosave();

signals:
    void changed();
    /// An edit was not made because the pipeline would break an order rule (pipelineOrderError).
    void editRefused(const QString& why);
    /// An op was added or moved, and now sits at `op` (after changed()): the editor shows it.
    void opPlaced(int op);
    void dirtyChanged(bool dirty);
    void filePathChanged(const QString& path);

private:
    friend class PresetEdit;
    /// `path`, when set: the file path the step leaves the document with (an import's).
    void setPresetFromUndo(const Preset& p, const std::optional<QString>& path);
    /// One undo step to `after` (refused when it breaks an order rule); `path` as above.
    void pushEdit(const Preset& after, const QString& text, int mergeKey, const std::optional<QString>& path);
    void editGroup(int group, const std::function<void(OpGroup&)>& edit, const QString& text,
                   int mergeKey = 0);

    Preset preset_;
    QUndoStack undo_;
    QString path_;
    QString autosavePath_;
    QTimer autosaveTimer_;
    int lastMergeKey_ = 0;
    bool recovered_ = false;
};

}  // namespace auglab
