#include "export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "atomic_file.h"
#include "exporter.h"

namespace auglab {

ExportDialog::ExportDialog(const Preset& preset, QWidget* parent) : QDialog(parent), preset_(preset) {
    setObjectName("exportDialog");
    setWindowTitle(tr("Export preset"));
    resize(900, 700);
    auto* layout = new QVBoxLayout(this);
    target_ = new QComboBox(this);
    target_->setObjectName("target");
    for (const ExportTarget& t : exportTargets())
        target_->addItem(QString::fromStdString(t.name + " — " + t.description),
                         QString::fromStdString(t.name));
    layout->addWidget(target_);
    preview_ = new QPlainTextEdit(this);
    preview_->setObjectName("preview");
    preview_->setReadOnly(true);
    preview_->setLineWrapMode(QPlainTextEdit::NoWrap);
    preview_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(preview_, 3);
    layout->addWidget(new QLabel(tr("What this target cannot express exactly:"), this));
    warnings_ = new QListWidget(this);
    warnings_->setObjectName("warnings");
    warnings_->setWordWrap(true);
    layout->addWidget(warnings_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    save_ = buttons->button(QDialogButtonBox::Save);
    connect(save_, &QPushButton::clicked, this, [this] {
        const QString name = target_->currentData().toString();
        QString ext = ".json";
        for (const ExportTarget& t : exportTargets())
            if (QString::fromStdString(t.name) == name) ext = QString::fromStdString(t.extension);
        QString path =
            QFileDialog::getSaveFileName(this, tr("Export as"), QString::fromStdString(preset_.name) + ext);
        if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty()) path += ext;  // a name typed without one
        if (!path.isEmpty() && saveTo(path)) accept();
    });
    layout->addWidget(buttons);
    connect(target_, &QComboBox::currentIndexChanged, this, &ExportDialog::regenerate);
    regenerate();
}

void ExportDialog::regenerate() {
    warnings_->clear();
    failed_ = false;
    if (save_) save_->setEnabled(true);
    try {
        const ExportResult r = exportPreset(preset_, target_->currentData().toString().toStdString());
        preview_->setPlainText(QString::fromStdString(r.text));
        for (const std::string& w : r.warnings) warnings_->addItem(QString::fromStdString(w));
        if (r.warnings.empty()) warnings_->addItem(tr("Nothing: this target expresses the preset exactly."));
    } catch (const std::exception& e) {
        // Nothing to save: the target cannot write this preset (e.g. groups where it has none).
        preview_->setPlainText(QString());
        warnings_->addItem(tr("Cannot export: %1").arg(QString::fromUtf8(e.what())));
        failed_ = true;
        if (save_) save_->setEnabled(false);
    }
}

QString ExportDialog::text() const {
    return preview_->toPlainText();
}

QStringList ExportDialog::warnings() const {
    QStringList out;
    for (int i = 0; i < warnings_->count(); ++i) out << warnings_->item(i)->text();
    return out;
}

bool ExportDialog::selectTarget(const QString& name) {
    const int i = target_->findData(name);
    if (i < 0) return false;
    target_->setCurrentIndex(i);
    return true;
}

bool ExportDialog::saveTo(const QString& path) {
    if (failed_) return false;  // never an empty file in place of an export
    try {
        writeFileAtomically(path.toStdString(), text().toStdString());
        emit exported(path, int(warnings().size()));
        return true;
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Export"), QString::fromUtf8(e.what()));
        return false;
    }
}

}  // namespace auglab
