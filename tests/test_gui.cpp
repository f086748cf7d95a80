// The window and the pipeline editor driven as a user drives them, under Xvfb: real widgets, real
// mouse and key events, and assertions on what the user sees (the grid's pixels) and on the undo
// stack. Images, folders and labels: test_gui_images.cpp; other backends: test_gui_backends.cpp.

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>

#include <functional>

#include "backend_registry.h"
#include "contact_sheet.h"
#include "cpu_backend.h"
#include "cuda_backend.h"
#include "distribution_view.h"
#include "export_dialog.h"
#include "group_panel.h"
#include "image_io.h"
#include "inspector_dialog.h"
#include "main_window.h"
#include "op_panel.h"
#include "pipeline_editor.h"
#include "preset.h"
#include "preview_grid.h"
#include "range_slider.h"
#include "render_service.h"
#include "replay.h"
#include "target_rules_dialog.h"
#include "targets.h"

#include "group_panel.h"
#include "gui_test_support.h"

using namespace auglab;
using namespace auglab::testing;

class TestGui : public GuiSuite {
    Q_OBJECT

private slots:
    void opensOnImageWithLiveGrid();
    void sliderDragUpdatesGridWhileDraggingAndIsOneUndoStep();
    void rerollChangesGridLockKeepsIt();
    void badPresetShowsErrorAndKeepsPipeline();
    void crashedSessionIsRecoveredFromAutosave();
    void everySliderTunesFinely();
    void kernelSizesStayOdd();
    void numberFieldsRefuseRatherThanCut();
    void undoFromAFocusedField();
    void viewMenuBringsBackEveryPanel();
    void addedOpIsScrolledIntoViewAndHighlighted();
    void trainingTailIsShownAsSuch();
    void probabilityHasAFieldAndDisabledOpsAreGreyed();
    void realismBadgesAndFindTheEdge();
    void refusedEditStaysInTheStatusBar();
    void distributionShowsDrawnValues();
    void distributionUsesTheCropsSize();
    void exportDialogShowsTargetText();
    void importAlbumentationsIsOneUndoStep();
    void importMakesAnUntitledDocument();
    void importAsksToSaveUnsavedChangesFirst();
    void groupsAreBlocksThatNestAndTune();
};

namespace {

// A mouse event of the left button at `p`, sent to the slider itself (it may be scrolled out of
// the editor's view).
void sendMouse(RangeSlider* s, QEvent::Type type, QPoint p) {
    QMouseEvent e(type, QPointF(p), QPointF(s->mapToGlobal(p)), Qt::LeftButton,
                  type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(s, &e);
}

Preset everyOpWithDefaults() {
    Preset p;
    for (const OpDesc& d : opRegistry()) {
        OpConfig c(d);
        for (const ParamDesc& pd : d.params)  // optional sliders too (hole sizes in pixels)
            if (pd.optional) c.set(pd.key, pd.defaultValue);
        p.pipeline.push_back(c);
    }
    return p;
}

// Answers the next modal dialog the window opens (a file dialog, a question) as the user would:
// `answer` gets it once it is shown. The dialog runs its own event loop, so a timer of the window's
// looks for it; it stops with the window.
void answerNextDialog(QWidget& window, std::function<void(QWidget*)> answer) {
    auto* poll = new QTimer(&window);
    poll->setInterval(20);
    QObject::connect(poll, &QTimer::timeout, poll, [poll, answer = std::move(answer)] {
        QWidget* dialog = QApplication::activeModalWidget();
        if (!dialog || !dialog->isVisible() || dialog->objectName() == "errorMessage") return;
        poll->stop();
        poll->deleteLater();
        answer(dialog);
    });
    poll->start();
}

// Chooses `path` in a file dialog and accepts it, as typing the name and pressing Save does. The
// dialog selects its initial name once its folder has loaded, which may come after a selectFile
// made right after it was shown (and selectFile does not replace the name it was opened with): the
// name is typed into its field again until it has held for 100 ms. `then` runs once it is accepted
// (to answer the dialog that comes next: until then this one is the modal one).
void chooseFile(QFileDialog* dialog, const QString& path, std::function<void()> then = {}) {
    // The name field, as typed into (selectFile does not replace a name the dialog was opened with).
    const auto type = [](QFileDialog* d, const QString& p) {
        if (auto* edit = d->findChild<QLineEdit*>("fileNameEdit"))
            edit->setText(p);
        else
            d->selectFile(p);
    };
    auto* settle = new QTimer(dialog);
    settle->setInterval(20);
    auto held = std::make_shared<int>(0);
    QObject::connect(settle, &QTimer::timeout, dialog, [dialog, settle, path, held, type, then] {
        if (dialog->selectedFiles() != QStringList{path}) {
            type(dialog, path);
            *held = 0;
            return;
        }
        if (++*held < 5) return;
        settle->stop();
        if (then) then();
        static_cast<QDialog*>(dialog)->accept();  // QFileDialog::accept, as the Save or Open button runs it
    });
    type(dialog, path);
    settle->start();
}

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QAction* menuAction(QWidget& window, const QString& text) {
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

}  // namespace

// The window on one image with an affine alone, once its panel is the only one; returns the
// field of the rotation's upper end.
QDoubleSpinBox* affineOnly(MainWindow& w) {
    w.openImages({sample("astronaut.png")});
    Preset p;
    p.pipeline = {OpConfig::withDefaults("affine")};
    w.document()->newDocument(p);
    // The previous panels are deleted later: wait until they are gone.
    if (!QTest::qWaitFor([&] { return w.editor()->findChildren<OpPanel*>().size() == 1; })) return nullptr;
    return w.editor()->findChild<QDoubleSpinBox*>("rotate_deg_max");
}

void TestGui::opensOnImageWithLiveGrid() {
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->openImages({sample("astronaut.png")}));
    QVERIFY(waitForGrid(*w));
    QVERIFY2(w->grid()->glError().isEmpty(), qPrintable(w->grid()->glError()));
    QCOMPARE(w->shownTiles().size(), std::size_t(64));  // the default 8x8 grid
    const QImage img = seen(*w);
    // Tiles show the photo: many distinct colours, not a blank widget.
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
    QVERIFY2(colours.size() > 1000, qPrintable(QString::number(colours.size())));
}

void TestGui::sliderDragUpdatesGridWhileDraggingAndIsOneUndoStep() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    QVERIFY(waitForGrid(*w));
    const QImage before = seen(*w);
    const Preset presetBefore = w->document()->preset();
    const int undoBefore = w->document()->undoStack()->count();

    auto* slider = w->editor()->panel(0)->findChild<RangeSlider*>("rotate_deg");
    QVERIFY(slider);
    const QPoint start = slider->handleRect(1).center();
    QTest::mousePress(slider, Qt::LeftButton, {}, start);
    QVERIFY(slider->isDragging());
    // Move in steps; after each, the grid must change while the button is still down.
    int changesSeen = 0;
    QImage last = before;
    for (int step = 1; step <= 3; ++step) {
        QTest::mouseMove(slider, start + QPoint(step * 12, 0));
        QVERIFY(waitForGrid(*w));
        const QImage now = seen(*w);
        if (now != last) ++changesSeen;
        last = now;
    }
    QVERIFY(slider->isDragging());
    QCOMPARE(changesSeen, 3);
    QTest::mouseRelease(slider, Qt::LeftButton, {}, start + QPoint(36, 0));
    QCOMPARE(w->document()->undoStack()->count(), undoBefore + 1);  // the whole drag: one step
    QVERIFY(w->document()->preset().pipeline[0].range("rotate_deg").max >
            presetBefore.pipeline[0].range("rotate_deg").max);

    // Undo restores the previous pipeline and, rendered again, exactly the previous grid.
    w->document()->undoStack()->undo();
    QVERIFY(w->document()->preset() == presetBefore);
    QVERIFY(waitForGrid(*w));
    QCOMPARE(seen(*w), before);
}

void TestGui::rerollChangesGridLockKeepsIt() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("coffee.png")});
    QVERIFY(waitForGrid(*w));
    const QImage before = seen(*w);
    const quint64 seed = w->document()->preset().seed;
    QTest::keyClick(w.get(), Qt::Key_F5);  // reroll
    QVERIFY(waitForGrid(*w));
    QVERIFY(w->document()->preset().seed != seed);
    const QImage rerolled = seen(*w);
    QVERIFY(rerolled != before);

    auto* lock = w->findChild<QCheckBox*>("lockSeed");
    QVERIFY(lock);
    QTest::mouseClick(lock, Qt::LeftButton, {}, QPoint(8, lock->height() / 2));
    QVERIFY(lock->isChecked());
    const quint64 locked = w->document()->preset().seed;
    const quint64 generation = w->shownGeneration();
    QTest::keyClick(w.get(), Qt::Key_F5);
    QTest::qWait(300);
    QCOMPARE(w->document()->preset().seed, locked);
    QCOMPARE(w->shownGeneration(), generation);
    QCOMPARE(seen(*w), rerolled);
}

void TestGui::badPresetShowsErrorAndKeepsPipeline() {
    auto w = makeWindow();
    QVERIFY(w);
    const Preset before = w->document()->preset();
    const QString bad = dir_->filePath("bad.auglab.json");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"format": "auglab-preset", "version": 1, "pipeline": [{"op": "affine"}, {"op": "coarse_dropout", "holes": [9, 8]}]})");
    f.close();
    QVERIFY(!w->openPreset(bad));
    QVERIFY2(w->lastError().contains("pipeline[1].holes: min 9 > max 8"), qPrintable(w->lastError()));
    auto* box = w->findChild<QMessageBox*>("errorMessage");
    QVERIFY(box && box->isVisible());
    QVERIFY(box->text().contains("pipeline[1].holes"));
    box->close();
    QVERIFY(w->document()->preset() == before);
}

void TestGui::crashedSessionIsRecoveredFromAutosave() {
    const QString autosave = dir_->filePath("autosave.auglab.json");
    Preset edited;
    {
        auto w = makeWindow();
        QVERIFY(w);
        w->openImages({sample("chelsea.png")});
        QVERIFY(waitForGrid(*w));
        auto* slider = w->editor()->panel(0)->findChild<RangeSlider*>("rotate_deg");
        const QPoint start = slider->handleRect(0).center();
        QTest::mousePress(slider, Qt::LeftButton, {}, start);
        QTest::mouseMove(slider, start - QPoint(25, 0));
        QTest::mouseRelease(slider, Qt::LeftButton, {}, start - QPoint(25, 0));
        edited = w->document()->preset();
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave), 5000);
        // A crash: the window goes away without its close event, so nothing cleans up.
        w.reset();
    }
    QVERIFY(QFile::exists(autosave));
    auto again = makeWindow();
    QVERIFY(again);
    QVERIFY(again->recoveredAutosave());
    QVERIFY(again->document()->preset() == edited);
    QVERIFY(again->document()->isDirty());
    QVERIFY(again->windowTitle().contains('*'));
    // A clean exit removes the autosave.
    again->document()->save(dir_->filePath("saved.auglab.json"));
    QVERIFY(again->close());
    QVERIFY(!QFile::exists(autosave));
}

void TestGui::kernelSizesStayOdd() {
    // A kernel size typed or stepped in the editor stays odd (the preset refuses an even one): a
    // typed 6 becomes 7, the arrows step by two, and a slider drag lands on odd sizes.
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    Preset p;
    p.pipeline = {OpConfig::withDefaults("median_blur")};
    w->document()->newDocument(p);
    QTRY_COMPARE(w->editor()->findChildren<OpPanel*>().size(), qsizetype(1));
    auto* lo = w->editor()->findChild<QDoubleSpinBox*>("kernel_size_min");
    auto* hi = w->editor()->findChild<QDoubleSpinBox*>("kernel_size_max");
    QVERIFY(lo && hi);
    const auto kernel = [&] { return w->document()->preset().pipeline[0].range("kernel_size"); };
    hi->setValue(10);
    QCOMPARE(kernel(), (Range{3, 11}));
    QCOMPARE(hi->value(), 11.0);
    hi->stepUp();
    QCOMPARE(kernel(), (Range{3, 13}));
    lo->setValue(4);
    QCOMPARE(kernel(), (Range{5, 13}));
    auto* slider = w->editor()->findChild<RangeSlider*>("kernel_size");
    QVERIFY(slider);
    const QPoint start(slider->positionForValue(13), slider->height() / 2);
    sendMouse(slider, QEvent::MouseButtonPress, start);
    sendMouse(slider, QEvent::MouseMove, start + QPoint(slider->positionForValue(18) - start.x(), 0));
    sendMouse(slider, QEvent::MouseButtonRelease,
              start + QPoint(slider->positionForValue(18) - start.x(), 0));
    const Range dragged = kernel();
    QVERIFY2(dragged.max > 13 && std::fmod(dragged.max, 2) == 1, qPrintable(QString::number(dragged.max)));
    // What the editor made loads back: the preset text is valid.
    QVERIFY(parsePreset(serializePreset(w->document()->preset())).pipeline[0].range("kernel_size") ==
            dragged);
}

void TestGui::everySliderTunesFinely() {
    // Every range slider of every op: its span is the typical range (at least 200 steps of its
    // precision for real values), both handles are reachable, and a 3-pixel drag of the upper
    // handle moves it by about 3 pixels' worth of the span, never more.
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});  // 512 x 512: pixel sizes span up to 256
    const Preset every = everyOpWithDefaults();
    w->document()->newDocument(every);
    // The panels of the previous document are deleted later: wait until only the new ones are left.
    QTRY_COMPARE(w->editor()->findChildren<OpPanel*>().size(), qsizetype(every.pipeline.size()));
    int checked = 0;
    for (RangeSlider* s : w->editor()->findChildren<RangeSlider*>()) {
        const QString name = s->objectName();
        QVERIFY2(s->viewUpper() > s->viewLower(), qPrintable(name));
        const double span = s->viewUpper() - s->viewLower();
        const int track = s->positionForValue(s->viewUpper()) - s->positionForValue(s->viewLower());
        QVERIFY2(track >= 100, qPrintable(name + ": a track of " + QString::number(track) + " px, slider " +
                                          QString::number(s->width()) + ", editor " +
                                          QString::number(w->editor()->width()) + ", window " +
                                          QString::number(w->width())));
        if (!s->integers())
            QVERIFY2(span / s->step() >= 200,
                     qPrintable(name + ": " + QString::number(span / s->step()) + " steps"));
        if (name == "rotate_deg") QCOMPARE(s->viewUpper(), 45.0);
        if (name == "hole_height_px") QCOMPARE(s->viewUpper(), 256.0);  // half the image's side
        if (!s->isEnabled()) continue;  // a row another setting makes meaningless (scale_y, keep_ratio)
        const double before = s->maximum();
        if (before >= s->viewUpper()) continue;
        const double perPixel =
            s->logarithmic() ? before * (std::exp(std::log(s->viewUpper() / s->viewLower()) / track) - 1)
                             : span / track;
        // 3 pixels, or as many as one step of an integer takes.
        const int pixels = std::max(3, int(std::ceil(s->step() / perPixel)));
        const QPoint start(s->positionForValue(before), s->height() / 2);
        sendMouse(s, QEvent::MouseButtonPress, start);
        sendMouse(s, QEvent::MouseMove, start + QPoint(pixels, 0));
        sendMouse(s, QEvent::MouseButtonRelease, start + QPoint(pixels, 0));
        const double moved = s->maximum() - before;
        QVERIFY2(moved > 0 && moved <= (pixels + 1) * perPixel + s->step(),
                 qPrintable(QString("%1: a %2-pixel drag moved %3 (a pixel is %4)")
                                .arg(name)
                                .arg(pixels)
                                .arg(moved)
                                .arg(perPixel)));
        ++checked;
    }
    QVERIFY2(checked >= 20, qPrintable(QString::number(checked)));
}

void TestGui::numberFieldsRefuseRatherThanCut() {
    auto w = makeWindow();
    QVERIFY(w);
    QDoubleSpinBox* field = affineOnly(*w);
    QVERIFY(field);
    field->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(field, "500");
    QCOMPARE(field->findChild<QLineEdit*>()->text(), QString("500"));  // as typed, not cut to "50"
    QVERIFY2(field->toolTip().contains("180"), qPrintable(field->toolTip()));
    QVERIFY(!field->styleSheet().isEmpty());
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 15.0);  // nothing committed
    // Within the bounds and beyond the slider's span: taken, and the slider widens to show it.
    field->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(field, "120");
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 120.0);
    QCOMPARE(w->editor()->findChild<RangeSlider*>("rotate_deg")->viewUpper(), 120.0);
}

void TestGui::undoFromAFocusedField() {
    // Ctrl+Z while the cursor is still in a number field after Enter undoes the document's edit.
    auto w = makeWindow();
    QVERIFY(w);
    QDoubleSpinBox* field = affineOnly(*w);
    QVERIFY(field);
    field->setFocus();
    QTRY_VERIFY(field->hasFocus());
    field->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(field, "30");
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 30.0);
    QVERIFY(field->hasFocus());
    QTest::keyClick(field->findChild<QLineEdit*>(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 15.0);
    QCOMPARE(field->value(), 15.0);
    // While an edit is being typed, Ctrl+Z is the field's own.
    QTest::keyClicks(field, "9");
    QTest::keyClick(field->findChild<QLineEdit*>(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(w->document()->preset().pipeline[0].range("rotate_deg").max, 15.0);
    QVERIFY(w->document()->undoStack()->canRedo());  // the document's redo is still there
}

void TestGui::viewMenuBringsBackEveryPanel() {
    auto w = makeWindow();
    QVERIFY(w);
    QMenu* view = nullptr;
    for (QAction* a : w->menuBar()->actions())
        if (a->text().remove('&') == "View") view = a->menu();
    QVERIFY(view);
    const auto action = [&](const QString& text) -> QAction* {
        for (QAction* a : view->actions())
            if (a->text().remove('&') == text) return a;
        return nullptr;
    };
    for (const char* panel : {"Pipeline editor", "Distribution", "Cost meter", "Preview"})
        QVERIFY2(action(panel), panel);
    auto* dist = w->findChild<QDockWidget*>("distributionDock");
    dist->close();
    QVERIFY(!dist->isVisible());
    action("Distribution")->trigger();
    QTRY_VERIFY(dist->isVisible());
    dist->close();
    w->findChild<QDockWidget*>("costDock")->close();
    QVERIFY(action("Reset Layout"));
    action("Reset Layout")->trigger();
    QTRY_VERIFY(dist->isVisible() && w->findChild<QDockWidget*>("costDock")->isVisible());
    // At start the editor has the height, not the empty distribution view.
    QVERIFY(w->findChild<QDockWidget*>("pipelineDock")->height() > 2 * dist->height());
}

void TestGui::addedOpIsScrolledIntoViewAndHighlighted() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    for (const char* op : {"gaussian_blur", "gauss_noise", "hue_saturation_value", "to_gray", "grid_dropout",
                           "coarse_dropout", "hue_saturation_value", "gauss_noise", "gaussian_blur"})
        w->document()->addOp(op);
    auto* scroll = w->editor()->findChild<QScrollArea*>();
    QTRY_VERIFY(scroll->verticalScrollBar()->maximum() > 0);  // (the list is long enough to need scrolling)
    const int last = int(w->document()->preset().pipeline.size()) - 1;
    QCOMPARE(w->editor()->highlightedOp(), last);
    OpPanel* panel = w->editor()->panel(last);
    QVERIFY(panel && panel->highlighted());
    const auto inView = [&](OpPanel* p) {
        const QRect r(p->mapTo(scroll->viewport(), QPoint(0, 0)), p->size());
        return scroll->viewport()->rect().intersects(r);
    };
    QTRY_VERIFY(scroll->verticalScrollBar()->value() > 0);  // the list scrolled to it
    QVERIFY(inView(panel));
    QTRY_VERIFY_WITH_TIMEOUT(!panel->highlighted(), 3000);  // the highlight is brief
    // A move is shown the same way: the moved op, at its new place.
    w->document()->moveOp(last, 0);
    QCOMPARE(w->editor()->highlightedOp(), 0);
    QTRY_VERIFY(inView(w->editor()->panel(0)));
    QTRY_COMPARE(scroll->verticalScrollBar()->value(), 0);
}

void TestGui::trainingTailIsShownAsSuch() {
    // normalize's panel says it is training only; an op added later goes before it (the tail ends the
    // pipeline); the grid is the same with and without the tail.
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    QVERIFY(waitForGrid(*w));
    const QImage before = seen(*w);
    w->document()->addOp("normalize");
    const int tail = int(w->document()->preset().pipeline.size()) - 1;
    QCOMPARE(w->document()->preset().pipeline[std::size_t(tail)].name(), std::string("normalize"));
    OpPanel* panel = w->editor()->panel(tail);
    QVERIFY(panel);
    auto* note = panel->findChild<QLabel*>("trainingOnly");
    QVERIFY(note && note->text().contains("not previewed"));
    QVERIFY(panel->findChild<QDoubleSpinBox*>("mean_r") && panel->findChild<QDoubleSpinBox*>("std_b"));
    w->document()->addOp("horizontal_flip");
    const auto& ops = w->document()->preset().pipeline;
    QCOMPARE(ops.back().name(), std::string("normalize"));
    QCOMPARE(ops[ops.size() - 2].name(), std::string("horizontal_flip"));
    w->document()->removeOp(int(ops.size()) - 2);
    QVERIFY(waitForGrid(*w));
    QTRY_COMPARE_WITH_TIMEOUT(seen(*w), before, 10000);
}

void TestGui::probabilityHasAFieldAndDisabledOpsAreGreyed() {
    auto w = makeWindow();
    QVERIFY(w);
    Preset p;
    p.pipeline = {OpConfig::withDefaults("affine")};
    w->document()->newDocument(p);
    QTRY_COMPARE(w->editor()->findChildren<OpPanel*>().size(), qsizetype(1));
    OpPanel* panel = w->editor()->panel(0);
    auto* field = panel->findChild<QDoubleSpinBox*>("probabilityValue");
    QVERIFY(field);
    field->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(field, "0.35");
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(w->document()->preset().pipeline[0].p, 0.35);
    QCOMPARE(panel->findChild<QSlider*>("probability")->value(), 35);
    panel->findChild<QToolButton*>("resetProbability")->click();
    QCOMPARE(w->document()->preset().pipeline[0].p, 1.0);
    QCOMPARE(field->value(), 1.0);
    // A disabled op's rows are greyed out, its checkbox is not.
    auto* rotation = panel->findChild<RangeSlider*>("rotate_deg");
    QVERIFY(rotation->isEnabled());
    w->document()->setEnabled(0, false);
    QVERIFY(!rotation->isEnabled());
    QVERIFY(!field->isEnabled());
    QVERIFY(panel->findChild<QCheckBox*>()->isEnabled());
    w->document()->setEnabled(0, true);
    QVERIFY(rotation->isEnabled());
}

void TestGui::realismBadgesAndFindTheEdge() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(w->setBackend("cpu"));
    OpConfig shift = OpConfig::withDefaults("affine");
    for (const char* k : {"rotate_deg", "translate_y_frac"}) shift.set(k, Range{0, 0});
    shift.set("scale_x", Range{1, 1});
    shift.set("translate_x_frac", Range{0.25, 0.25});  // a quarter of every tile is border fill
    Preset p;
    p.seed = 9;
    p.pipeline = {shift};
    w->document()->newDocument(p);
    QTRY_VERIFY_WITH_TIMEOUT(!w->shownTiles().empty() && w->shownTiles()[0].replay.ops.size() == 1 &&
                                 w->shownTiles()[0].invented >= 0,
                             10000);
    QVERIFY2(std::abs(w->shownTiles()[0].invented - 0.25) < 0.02,
             qPrintable(QString::number(w->shownTiles()[0].invented)));
    auto* threshold = w->findChild<QSpinBox*>("realismThreshold");
    QVERIFY(threshold);
    threshold->setValue(20);
    QCOMPARE(w->grid()->badges().size(), w->shownTiles().size());  // every tile is past 20%
    QVERIFY(w->grid()->badges()[0].second.endsWith("%"));
    {
        // Drawn: a red badge in the tile's top-right corner.
        const QImage shot = w->grid()->grabFramebuffer();
        bool red = false;
        const QPoint c = w->grid()->tileCentre(0) * shot.devicePixelRatio();
        for (int y = 0; y < shot.height() && !red; ++y)
            for (int x = c.x(); x < std::min(shot.width(), c.x() + 200) && !red; ++x) {
                const QColor q = shot.pixelColor(x, y);
                red = q.red() > 150 && q.green() < 80 && q.blue() < 80;
            }
        QVERIFY(red);
    }
    auto* median = w->statusBar()->findChild<QLabel*>("realism");
    QVERIFY2(median->text().contains("median 2"), qPrintable(median->text()));
    threshold->setValue(30);
    QVERIFY(w->grid()->badges().empty());
    // Find the edge on a narrow shift: widened in one undoable edit, then undone.
    shift.set("translate_x_frac", Range{-0.02, 0.02});
    p.pipeline = {shift};
    w->document()->newDocument(p);
    const int steps = w->document()->undoStack()->count();
    const Range edge = w->findTheEdge(0, "translate_x_frac");
    QVERIFY2(edge.max > 0.1 && edge.max < 0.6, qPrintable(QString::number(edge.max)));
    QCOMPARE(w->document()->preset().pipeline[0].range("translate_x_frac"), edge);
    QCOMPARE(w->document()->undoStack()->count(), steps + 1);
    QVERIFY2(w->statusMessage().contains("widened"), qPrintable(w->statusMessage()));
    w->document()->undoStack()->undo();
    QCOMPARE(w->document()->preset().pipeline[0].range("translate_x_frac").max, 0.02);
}

void TestGui::refusedEditStaysInTheStatusBar() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    Preset p;
    p.pipeline = {OpConfig::withDefaults("random_resized_crop"), OpConfig::withDefaults("normalize")};
    w->document()->newDocument(p);
    w->document()->moveOp(0, 1);  // a crop after the training tail: refused
    QCOMPARE(w->document()->preset().pipeline[0].name(), std::string("random_resized_crop"));
    const QString message = w->statusMessage();
    QVERIFY2(message.contains("refused") &&
                 message.contains("random_resized_crop must come before the training ops"),
             qPrintable(message));
    QVERIFY2(!message.contains("pipeline["),
             qPrintable(message));  // no index of an order that is not on screen
    // Its own label, apart from the render time and the cost (no overlap), and it stays.
    auto* label = w->statusBar()->findChild<QLabel*>("statusMessage");
    auto* time = w->statusBar()->findChild<QLabel*>("renderTime");
    QVERIFY(label && time && label != time);
    QVERIFY(waitForGrid(*w));
    QCOMPARE(w->statusMessage(), message);
    QVERIFY(!label->geometry().intersects(time->geometry()));
    QCOMPARE(label->toolTip(), message);
}

void TestGui::distributionShowsDrawnValues() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(waitForGrid(*w));
    w->editor()->selectParam(0, "rotate_deg");
    const auto& bins = w->distribution()->bins();
    int total = 0;
    for (int b : bins) total += b;
    QCOMPARE(total, 64);  // affine applies to every sample (p = 1)
    int nonEmpty = 0;
    for (int b : bins) nonEmpty += b > 0;
    QVERIFY(nonEmpty >= 8);  // 64 uniform draws over 16 bins spread out
}

void TestGui::distributionUsesTheCropsSize() {
    // After a random_resized_crop, a shift fraction is of the crop's output, not of the photo:
    // the drawn values fill the configured range [0.1, 0.3].
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    QVERIFY(waitForGrid(*w));
    Preset p = w->document()->preset();
    OpConfig crop = OpConfig::withDefaults("random_resized_crop");
    crop.set("size", Size2{60, 100});
    OpConfig affine = OpConfig::withDefaults("affine");
    affine.set("translate_x_frac", Range{0.1, 0.3});
    p.pipeline = {crop, affine};
    w->document()->applyEdit(p, "crop then shift");
    QVERIFY(waitForGrid(*w));
    w->editor()->selectParam(1, "translate_x_frac");
    // The grid shown may still be one of the pipeline before the edit (a render in flight when it was
    // made): the view updates with every grid, so wait for the new pipeline's 64 draws.
    const auto drawn = [&] {
        int total = 0;
        for (int b : w->distribution()->bins()) total += b;
        return total;
    };
    QTRY_COMPARE_WITH_TIMEOUT(drawn(), 64, 20000);
    int nonEmpty = 0;
    for (int b : w->distribution()->bins()) nonEmpty += b > 0;
    QVERIFY2(nonEmpty >= 5, qPrintable(QString::number(nonEmpty)));  // 64 draws spread over the range
}

void TestGui::exportDialogShowsTargetText() {
    auto w = makeWindow();
    QVERIFY(w);
    ExportDialog dialog(w->document()->preset(), w.get());
    QVERIFY(dialog.selectTarget("albumentations"));
    const QJsonObject j = QJsonDocument::fromJson(dialog.text().toUtf8()).object();
    QCOMPARE(j["transform"].toObject()["__class_fullname__"].toString(), QString("Compose"));
    // The default preset's first op is an affine with rotation [-20, 20].
    const QJsonObject affine = j["transform"].toObject()["transforms"].toArray()[0].toObject();
    QCOMPARE(affine["__class_fullname__"].toString(), QString("Affine"));
    QCOMPARE(affine["rotate"].toArray()[1].toDouble(), 20.0);
    QVERIFY(dialog.selectTarget("torchvision"));
    QVERIFY(dialog.text().contains("RandomAffine"));
    QVERIFY(!dialog.warnings().isEmpty());  // torchvision cannot express everything: it says what
    const QString out = dir_->filePath("exported.py");
    QVERIFY(dialog.saveTo(out));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), dialog.text());

    // Every target writes groups: DALI as conditionals.
    Preset grouped = w->document()->preset();
    grouped.pipeline.addGroup(GroupKind::OneOf, 0, 2);
    ExportDialog dali(grouped, w.get());
    QVERIFY(dali.selectTarget("dali"));
    QVERIFY(dali.text().contains("images = _one_of(images, [_step0, _step1], weights=["));
    QVERIFY(dali.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save)->isEnabled());

    // A target that cannot write the preset (torchvision mixes batches in its collate_fn, not inside
    // a group) says why and saves nothing.
    grouped.pipeline.insertInto(0, OpConfig::withDefaults("mixup"), 0);
    ExportDialog refused(grouped, w.get());
    QVERIFY(refused.selectTarget("torchvision"));
    QVERIFY2(refused.warnings().join('\n').contains("Cannot export: the torchvision export cannot write "
                                                    "pipeline[0].children[0] mixup inside a group"),
             qPrintable(refused.warnings().join('\n')));
    QVERIFY(!refused.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save)->isEnabled());
    const QString none = dir_->filePath("refused.py");
    QVERIFY(!refused.saveTo(none));
    QVERIFY(!QFile::exists(none));
    QVERIFY(refused.selectTarget("albumentations"));  // one that can: Save again
    QVERIFY(refused.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save)->isEnabled());
}

void TestGui::importAlbumentationsIsOneUndoStep() {
    auto w = makeWindow();
    QVERIFY(w);
    const Preset before = w->document()->preset();
    const int steps = w->document()->undoStack()->count();
    QVERIFY(w->importAlbumentationsFile(QString(AUGLAB_SOURCE_DIR) +
                                        "/tests/data/export/reference/example_2.0.8.json"));
    QCOMPARE(w->document()->undoStack()->count(), steps + 1);
    QVERIFY(!(w->document()->preset() == before));
    QCOMPARE(w->document()->preset().pipeline[0].name(), std::string("affine"));
    w->document()->undoStack()->undo();
    QVERIFY(w->document()->preset() == before);
}

void TestGui::importMakesAnUntitledDocument() {
    // The user's tuned preset is open. An Albumentations file imported over it is a pipeline of its
    // own, in no file yet: the title says so, Save asks for a name (and so does the unsaved-changes
    // prompt on closing), and the tuned preset keeps its bytes. Undoing the import is back to the
    // tuned preset, file name and all.
    auto w = makeWindow();
    QVERIFY(w);
    PipelineDocument* doc = w->document();
    doc->setParam(0, "rotate_deg", Range{-7, 7});
    const QString tuned = dir_->filePath("tuned.auglab.json");
    QVERIFY(w->savePresetAs(tuned));
    const Preset tunedPreset = doc->preset();
    const QByteArray tunedBytes = fileBytes(tuned);
    QVERIFY(!tunedBytes.isEmpty());
    QVERIFY(w->importAlbumentationsFile(QString(AUGLAB_SOURCE_DIR) +
                                        "/tests/data/export/reference/example_2.0.8.json"));
    if (auto* box = w->findChild<QMessageBox*>("errorMessage")) box->close();  // the keys left out
    const Preset imported = doc->preset();
    QVERIFY(!(imported == tunedPreset));
    QVERIFY2(doc->filePath().isEmpty(), qPrintable(doc->filePath()));
    QVERIFY(doc->isDirty());
    QVERIFY2(!w->windowTitle().contains("tuned") && w->windowTitle().contains("untitled") &&
                 w->windowTitle().contains('*'),
             qPrintable(w->windowTitle()));
    // Undo: the tuned preset, under its name, as saved; redo: the import, untitled again.
    doc->undoStack()->undo();
    QVERIFY(doc->preset() == tunedPreset);
    QCOMPARE(doc->filePath(), tuned);
    QVERIFY(!doc->isDirty());
    QCOMPARE(w->windowTitle(), QString("tuned.auglab.json — AugLab"));
    doc->undoStack()->redo();
    QVERIFY(doc->preset() == imported);
    QVERIFY(doc->filePath().isEmpty());
    QVERIFY2(w->windowTitle().contains("untitled") && w->windowTitle().contains('*'),
             qPrintable(w->windowTitle()));

    // Save asks for a name; cancelled, nothing is written and the document stays as it was.
    QAction* save = menuAction(*w, "&Save Preset");
    QVERIFY(save);
    QString asked;
    answerNextDialog(*w, [&](QWidget* dialog) {
        asked = dialog->metaObject()->className();
        qobject_cast<QDialog*>(dialog)->reject();
    });
    save->trigger();
    QCOMPARE(asked, QString("QFileDialog"));
    QCOMPARE(fileBytes(tuned), tunedBytes);
    QVERIFY(doc->filePath().isEmpty() && doc->isDirty());

    // Closing: "Save them?" Save: a name is asked for, and the import is written there.
    const QString chosen = dir_->filePath("from-albumentations.auglab.json");
    QStringList dialogs;
    answerNextDialog(*w, [&](QWidget* question) {
        dialogs << question->metaObject()->className();
        auto* box = qobject_cast<QMessageBox*>(question);
        QVERIFY(box);
        answerNextDialog(*w, [&](QWidget* files) {
            dialogs << files->metaObject()->className();
            auto* fd = qobject_cast<QFileDialog*>(files);
            QVERIFY(fd);
            chooseFile(fd, chosen);
        });
        box->button(QMessageBox::Save)->click();
    });
    QVERIFY(w->close());
    QCOMPARE(dialogs, (QStringList{"QMessageBox", "QFileDialog"}));
    QCOMPARE(fileBytes(tuned), tunedBytes);
    QVERIFY(loadPreset(chosen.toStdString()) == imported);
}

void TestGui::importAsksToSaveUnsavedChangesFirst() {
    // File > Import over a preset with unsaved changes asks to save them first, as opening a preset
    // does: they go into that preset's file, and the import comes in untitled.
    auto w = makeWindow();
    QVERIFY(w);
    PipelineDocument* doc = w->document();
    const QString tuned = dir_->filePath("tuned.auglab.json");
    QVERIFY(w->savePresetAs(tuned));
    doc->setParam(0, "rotate_deg", Range{-7, 7});  // tuned further, not saved yet
    const Preset unsaved = doc->preset();
    QAction* import = menuAction(*w, "&Import Albumentations…");
    QVERIFY(import);
    QStringList dialogs;
    answerNextDialog(*w, [&](QWidget* files) {
        dialogs << files->metaObject()->className();
        auto* fd = qobject_cast<QFileDialog*>(files);
        QVERIFY(fd);
        chooseFile(fd, QString(AUGLAB_SOURCE_DIR) + "/tests/data/export/reference/example_2.0.8.json", [&] {
            answerNextDialog(*w, [&](QWidget* question) {
                dialogs << question->metaObject()->className();
                auto* box = qobject_cast<QMessageBox*>(question);
                QVERIFY(box);
                box->button(QMessageBox::Save)->click();
            });
        });
    });
    import->trigger();
    QCOMPARE(dialogs, (QStringList{"QFileDialog", "QMessageBox"}));
    QVERIFY(loadPreset(tuned.toStdString()) == unsaved);
    QCOMPARE(doc->preset().name, std::string("imported"));
    QVERIFY(doc->filePath().isEmpty());
}

int main(int argc, char** argv) {
    return runGuiSuites<TestGui>(argc, argv);
}

#include "test_gui.moc"

void TestGui::groupsAreBlocksThatNestAndTune() {
    // The grouped preset shows one block per group, its children indented below it; the arrows move
    // an op into and out of a group (one undo step each); a block collapses; its kind, p and n are
    // edited in place; the ops in groups and the groups say how often they ran on the page.
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    PipelineDocument* doc = w->document();
    doc->newDocument(
        loadPreset(std::string(AUGLAB_SOURCE_DIR) + "/tests/data/presets/valid/groups.auglab.json"));
    QVERIFY(waitForGrid(*w));
    const Pipeline& pipeline = doc->preset().pipeline;
    QTRY_COMPARE(w->editor()->findChildren<GroupPanel*>().size(), qsizetype(pipeline.groups().size()));
    QCOMPARE(w->editor()->findChildren<OpPanel*>().size(), qsizetype(pipeline.size()));
    // Indented: a child's panel starts right of its group's block.
    GroupPanel* blurs = w->editor()->groupPanel(1);
    OpPanel* blur = w->editor()->panel(2);
    QVERIFY(blurs && blur);
    QVERIFY(blur->mapTo(w->editor(), QPoint(0, 0)).x() > blurs->mapTo(w->editor(), QPoint(0, 0)).x());
    QCOMPARE(blurs->findChild<QComboBox*>("kind")->currentText(), QString("one_of"));
    // The buttons that put an op or a group in a new group show an icon they paint: their glyph
    // (⧉) is in no common font and showed as an empty box.
    for (QToolButton* b :
         {w->editor()->panel(6)->findChild<QToolButton*>("group"), blurs->findChild<QToolButton*>("wrap")}) {
        QVERIFY(b);
        QVERIFY(b->text().isEmpty());
        const QImage icon = b->icon().pixmap(16, 16).toImage();
        int inked = 0;
        for (int y = 0; y < icon.height(); ++y)
            for (int x = 0; x < icon.width(); ++x) inked += qAlpha(icon.pixel(x, y)) > 128;
        QVERIFY2(inked >= 30, qPrintable(QString("%1: %2 pixels drawn").arg(b->objectName()).arg(inked)));
    }
    QCOMPARE(blur->findChild<QLabel*>("probabilityLabel")->text(), QString("Weight (p)"));
    // Inside a one_of, a group's p is a weight; n and replacement only where the kind draws n.
    GroupPanel* nested = w->editor()->groupPanel(2);
    QCOMPARE(nested->findChild<QDoubleSpinBox*>("groupProbability")->value(), 0.25);
    QVERIFY(!nested->findChild<QSpinBox*>("count")->isVisibleTo(nested));
    QVERIFY(
        w->editor()->groupPanel(3)->findChild<QSpinBox*>("count")->isVisibleTo(w->editor()->groupPanel(3)));
    // How often: the page's samples, on the groups and their ops.
    QTRY_VERIFY(blurs->findChild<QLabel*>("runs")->isVisibleTo(blurs));
    QVERIFY(blurs->findChild<QLabel*>("runs")->text().contains("of the page's"));
    QVERIFY(blur->findChild<QLabel*>("runs")->text().startsWith("ran "));

    // horizontal_flip (op 6, after the blurs' one_of) steps up into it, as its last child.
    QCOMPARE(pipeline[6].name(), std::string("horizontal_flip"));
    const std::size_t before = pipeline.groups()[1].count;
    w->editor()->panel(6)->findChild<QToolButton*>("moveUp")->click();
    QCOMPARE(doc->preset().pipeline.groups()[1].count, before + 1);
    QCOMPARE(doc->preset().pipeline.groupOf(6), 1);
    QTRY_COMPARE(w->editor()->findChildren<OpPanel*>().size(), qsizetype(pipeline.size()));
    doc->undoStack()->undo();  // one step
    QCOMPARE(doc->preset().pipeline.groups()[1].count, before);
    QCOMPARE(doc->preset().pipeline.groupOf(6), -1);

    // Collapse hides the children; expand shows them again.
    QTRY_VERIFY(w->editor()->groupPanel(1));
    blurs = w->editor()->groupPanel(1);
    blurs->findChild<QToolButton*>("collapse")->click();
    QVERIFY(blurs->collapsed());
    QVERIFY(!w->editor()->panel(2)->isVisibleTo(w->editor()));
    QVERIFY(w->editor()->panel(6)->isVisibleTo(w->editor()));
    blurs->findChild<QToolButton*>("collapse")->click();
    QVERIFY(w->editor()->panel(2)->isVisibleTo(w->editor()));

    // Tuning: the kind and p of a group, each one undo step.
    const int steps = doc->undoStack()->index();
    auto* kind = blurs->findChild<QComboBox*>("kind");
    kind->setCurrentIndex(1);
    emit kind->activated(1);
    QCOMPARE(doc->preset().pipeline.groups()[1].kind, GroupKind::SomeOf);
    // Its children's p are no longer weights.
    QVERIFY(w->editor()->panel(2)->findChild<QLabel*>("probabilityLabel")->text().startsWith("Probability"));
    QCOMPARE(doc->preset().pipeline.groups()[1].n, 1);
    auto* p = blurs->findChild<QDoubleSpinBox*>("groupProbability");
    p->setValue(0.3);
    QCOMPARE(doc->preset().pipeline.groups()[1].p, 0.3);
    QCOMPARE(doc->undoStack()->index(), steps + 2);
    // n above the children, without replacement, is refused (the field stops at the count).
    QCOMPARE(blurs->findChild<QSpinBox*>("count")->maximum(), 3);

    // A new group around one op, then ungrouped.
    const std::size_t groups = doc->preset().pipeline.groups().size();
    doc->groupOp(6, GroupKind::Sequential);
    QCOMPARE(doc->preset().pipeline.groups().size(), groups + 1);
    QTRY_COMPARE(w->editor()->findChildren<GroupPanel*>().size(), qsizetype(groups + 1));
    const int made = doc->preset().pipeline.groupOf(6);
    QVERIFY(made >= 0);
    w->editor()->groupPanel(made)->findChild<QToolButton*>("ungroup")->click();
    QCOMPARE(doc->preset().pipeline.groups().size(), groups);
    QCOMPARE(doc->preset().pipeline.size(), pipeline.size());
}
