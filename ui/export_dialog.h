#pragma once
// File > Export: choose a target, read the generated text and what the target cannot express,
// then save it (atomically).

#include <QDialog>

#include "pipeline.h"

class QComboBox;
class QPlainTextEdit;
class QListWidget;
class QPushButton;

namespace auglab {

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    ExportDialog(const Preset& preset, QWidget* parent = nullptr);
    QString text() const;
    QStringList warnings() const;
    /// Selects a target by name ("albumentations", "torchvision", ...); false if unknown.
    bool selectTarget(const QString& name);
    /// Writes the current text to `path` atomically; an error is shown and false returned.
    bool saveTo(const QString& path);

signals:
    /// A file was written: its path and the number of warnings it carries.
    void exported(const QString& path, int warnings);

private:
    void regenerate();

    Preset preset_;
    QComboBox* target_ = nullptr;
    QPlainTextEdit* preview_ = nullptr;
    QListWidget* warnings_ = nullptr;
    QPushButton* save_ = nullptr;
    bool failed_ = false;  ///< the target cannot write this preset: nothing to save
};

}  // namespace auglab
