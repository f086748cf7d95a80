// The pipeline document: one undo step per edit, a slider drag (one merge key) folded into one
// step, a drag back to the start dropped, atomic saves, autosave and recovery.

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "pipeline_document.h"
#include "preset.h"

using namespace auglab;

class TestDocument : public QObject {
    Q_OBJECT

private slots:
    void everyEditIsOneUndoStep();
    void dragMergesIntoOneStep();
    void dragBackToStartLeavesNoStep();
    void structureEdits();
    void framesChangeAnywhereBeforeTheTail();
    void optionalPixelHolesComeAsAPair();
    void saveOpenAndDirtyState();
    void failedSaveKeepsOldFileAndDirtyState();
    void importLeavesThePresetFile();
    void autosaveAndRecovery();
};

void TestDocument::everyEditIsOneUndoStep() {
    PipelineDocument doc;
    QSignalSpy changed(&doc, &PipelineDocument::changed);
    const Preset start = doc.preset();
    doc.setParam(0, "rotate_deg", Range{-5, 5});
    doc.setProbability(1, 0.25);
    doc.setEnabled(2, false);
    doc.setSeed(99);
    QCOMPARE(doc.undoStack()->count(), 4);
    QCOMPARE(changed.count(), 4);
    QVERIFY(doc.isDirty());
    QCOMPARE(doc.preset().seed, std::uint64_t(99));
    for (int i = 0; i < 4; ++i) doc.undoStack()->undo();
    QVERIFY(doc.preset() == start);
    QVERIFY(!doc.isDirty());
    doc.undoStack()->redo();
    QCOMPARE(doc.preset().pipeline[0].range("rotate_deg"), (Range{-5, 5}));
    // Setting a value to what it already is records nothing.
    doc.setParam(0, "rotate_deg", Range{-5, 5});
    QCOMPARE(doc.undoStack()->index(), 1);
}

void TestDocument::dragMergesIntoOneStep() {
    PipelineDocument doc;
    const Range before = doc.preset().pipeline[0].range("rotate_deg");
    const int key = doc.newMergeKey();
    for (int i = 1; i <= 20; ++i) doc.setParam(0, "rotate_deg", Range{-20.0 - i, 20.0 + i}, key);
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.preset().pipeline[0].range("rotate_deg"), (Range{-40, 40}));
    // The next drag is a new step.
    const int key2 = doc.newMergeKey();
    doc.setParam(0, "rotate_deg", Range{-1, 1}, key2);
    QCOMPARE(doc.undoStack()->count(), 2);
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCOMPARE(doc.preset().pipeline[0].range("rotate_deg"), before);
}

void TestDocument::dragBackToStartLeavesNoStep() {
    PipelineDocument doc;
    const Range before = doc.preset().pipeline[0].range("rotate_deg");
    const int key = doc.newMergeKey();
    doc.setParam(0, "rotate_deg", Range{-30, 30}, key);
    doc.setParam(0, "rotate_deg", before, key);
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(!doc.isDirty());
}

void TestDocument::structureEdits() {
    PipelineDocument doc;
    const std::size_t n = doc.preset().pipeline.size();
    doc.addOp("gaussian_blur");
    QCOMPARE(doc.preset().pipeline.size(), n + 1);
    QCOMPARE(doc.preset().pipeline.back().name(), std::string("gaussian_blur"));
    doc.moveOp(int(n), 0);
    QCOMPARE(doc.preset().pipeline.front().name(), std::string("gaussian_blur"));
    doc.removeOp(0);
    QCOMPARE(doc.preset().pipeline.size(), n);
    doc.moveOp(0, 99);  // out of range: ignored, no step
    QCOMPARE(doc.undoStack()->count(), 3);
}

void TestDocument::framesChangeAnywhereBeforeTheTail() {
    // The default pipeline: affine, horizontal_flip, coarse_dropout, brightness_contrast.
    PipelineDocument doc;
    QSignalSpy refused(&doc, &PipelineDocument::editRefused);
    doc.addOp("random_resized_crop");
    doc.addOp("resize");  // a crop and a resize after pixel ops: each stage has its own size
    QCOMPARE(doc.preset().pipeline[4].name(), std::string("random_resized_crop"));
    QCOMPARE(doc.preset().pipeline[5].name(), std::string("resize"));
    doc.moveOp(4, 1);  // anywhere
    QCOMPARE(doc.preset().pipeline[1].name(), std::string("random_resized_crop"));
    doc.addOp("normalize");
    doc.addOp("longest_max_size");  // placed before the training tail
    QCOMPARE(doc.preset().pipeline[6].name(), std::string("longest_max_size"));
    QCOMPARE(doc.preset().pipeline[7].name(), std::string("normalize"));
    QCOMPARE(refused.count(), 0);
    const Preset before = doc.preset();
    const int steps = doc.undoStack()->count();
    doc.moveOp(5, 7);  // the resize after the training tail: refused, nothing changes, the user is told why
    QCOMPARE(doc.preset(), before);
    QCOMPARE(doc.undoStack()->count(), steps);
    QCOMPARE(refused.count(), 1);
    QVERIFY2(refused[0][0].toString().contains("must come before the training ops"),
             qPrintable(refused[0][0].toString()));
    // What the document holds always loads back.
    QVERIFY(parsePreset(serializePreset(doc.preset())) == doc.preset());
}

void TestDocument::optionalPixelHolesComeAsAPair() {
    PipelineDocument doc;
    const int dropout = 2;
    QCOMPARE(doc.preset().pipeline[dropout].name(), std::string("coarse_dropout"));
    doc.setOptionalPresent(dropout, "hole_width_px", true);
    QVERIFY(doc.preset().pipeline[dropout].has("hole_height_px"));
    QVERIFY(doc.preset().pipeline[dropout].has("hole_width_px"));
    // What the document holds always saves and loads back.
    QVERIFY(parsePreset(serializePreset(doc.preset())) == doc.preset());
    doc.setOptionalPresent(dropout, "hole_height_px", false);
    QVERIFY(!doc.preset().pipeline[dropout].has("hole_width_px"));
}

void TestDocument::saveOpenAndDirtyState() {
    QTemporaryDir dir;
    PipelineDocument doc;
    QSignalSpy dirty(&doc, &PipelineDocument::dirtyChanged);
    doc.setParam(0, "rotate_deg", Range{-3, 3});
    QVERIFY(doc.isDirty());
    QVERIFY(doc.displayName().endsWith(" *"));
    const QString path = dir.filePath("mine.auglab.json");
    doc.save(path);
    QVERIFY(!doc.isDirty());
    QCOMPARE(doc.displayName(), QString("mine.auglab.json"));
    QVERIFY(dirty.count() >= 2);
    PipelineDocument other;
    other.open(path);
    QVERIFY(other.preset() == doc.preset());
    QCOMPARE(other.undoStack()->count(), 0);
    QCOMPARE(other.filePath(), path);
}

void TestDocument::failedSaveKeepsOldFileAndDirtyState() {
    QTemporaryDir dir;
    PipelineDocument doc;
    QVERIFY(QDir(dir.path()).mkdir("folder"));
    doc.setParam(0, "rotate_deg", Range{-3, 3});
    QVERIFY_THROWS_EXCEPTION(std::exception, doc.save(dir.filePath("folder")));
    QVERIFY(doc.isDirty());
    QVERIFY(doc.filePath().isEmpty());
}

void TestDocument::importLeavesThePresetFile() {
    // An import is one undo step after which the document is in no file (a save asks for a name),
    // even when the import equals the pipeline; undoing it gives the file its name back.
    QTemporaryDir dir;
    PipelineDocument doc;
    const QString path = dir.filePath("mine.auglab.json");
    doc.save(path);
    QSignalSpy paths(&doc, &PipelineDocument::filePathChanged);
    const Preset same = doc.preset();
    doc.importPreset(same, "Import");
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(doc.filePath().isEmpty());
    QVERIFY(doc.isDirty());
    QCOMPARE(doc.displayName(), QString::fromStdString(same.name) + " (untitled) *");
    doc.undoStack()->undo();
    QCOMPARE(doc.filePath(), path);
    QVERIFY(!doc.isDirty());
    QCOMPARE(doc.displayName(), QString("mine.auglab.json"));
    doc.undoStack()->redo();
    QVERIFY(doc.filePath().isEmpty());
    QCOMPARE(paths.count(), 3);
    // Untitled already: an import equal to the pipeline changes nothing.
    doc.importPreset(same, "Import");
    QCOMPARE(doc.undoStack()->count(), 1);
}

void TestDocument::autosaveAndRecovery() {
    QTemporaryDir dir;
    const QString autosave = dir.filePath("auto.auglab.json");
    Preset edited;
    {
        PipelineDocument doc;
        doc.setAutosavePath(autosave);
        QVERIFY(!doc.hasRecoverableAutosave());
        doc.setParam(0, "rotate_deg", Range{-7, 7});
        // Written shortly after the edit, without any call.
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave), 5000);
        edited = doc.preset();
    }
    PipelineDocument next;
    next.setAutosavePath(autosave);
    QVERIFY(next.hasRecoverableAutosave());
    next.recoverAutosave();
    QVERIFY(next.preset() == edited);
    QVERIFY(next.isDirty());  // recovered work still needs saving
    next.save(dir.filePath("kept.auglab.json"));
    QVERIFY(!QFile::exists(autosave));
    QVERIFY(!next.isDirty());
}

QTEST_MAIN(TestDocument)
#include "test_document.moc"
