// The cost meter (SPEC §6) in the real window under Xvfb: what its rows show after the pipeline
// settles, that an edit is measured again and a slider drag only once it is over, the training size,
// unavailable backends with their reason, and the warning against the training step's rate. Timings
// are never compared with each other: only "a number above zero" is asserted about them.

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLocale>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include "suite_main.h"

#include "backend_registry.h"
#include "cost_meter.h"
#include "cost_service.h"
#include "cpu_backend.h"
#include "main_window.h"
#include "op_panel.h"
#include "pipeline_editor.h"
#include "preset.h"
#include "preview_grid.h"
#include "range_slider.h"

using namespace auglab;

namespace {

QString sample(const char* f) {
    return QString(AUGLAB_SOURCE_DIR) + "/resources/samples/" + f;
}

// Waits until the meter shows a finished measurement of the current pipeline, newer than `after`.
// Generous: under Xvfb the GL backend is llvmpipe, on the same two cores as everything else.
bool waitForMeasurement(const CostMeter& m, quint64 after = 0, int timeoutMs = 60000) {
    QElapsedTimer t;
    t.start();
    while (!(m.isCurrent() && m.shownGeneration() > after)) {
        if (t.elapsed() > timeoutMs) return false;
        QTest::qWait(20);
    }
    return true;
}

QLabel* label(const CostMeter& m, const QString& name) {
    return m.findChild<QLabel*>(name);
}

// The number a label shows, as the user reads it (group separators of the locale removed).
double shownNumber(const QLabel* l) {
    QString text = l->text();
    text.remove(QLocale().groupSeparator());
    bool ok = false;
    const double v = QLocale().toDouble(text, &ok);
    return ok ? v : -1;
}

// A backend that renders nothing and records what it was asked to render.
class RecordingBackend final : public Backend {
public:
    std::string name() const override { return "recording"; }
    void render(std::span<RenderJob> jobs) override {
        ++calls;
        for (const RenderJob& j : jobs) sizes.emplace_back(j.plan.width, j.plan.height);
    }
    int calls = 0;
    std::vector<std::pair<int, int>> sizes;
};

}  // namespace

// What the cost meter's suites share: settings at their defaults and a real window per test.
class CostSuite : public QObject {
    Q_OBJECT

protected:
    std::unique_ptr<MainWindow> makeWindow();
    std::unique_ptr<QTemporaryDir> dir_;

private slots:
    void init();
    void cleanup();
};

class TestCostMeter : public CostSuite {
    Q_OBJECT

private slots:
    void timingLoopRendersTrainingSizeBatches();
    void timingLoopStopsWhenCancelled();
    void showsCpuRateOnceThePipelineSettles();
    void editedPipelineIsMeasuredAgain();
    void sliderDragIsMeasuredOnceItSettles();
    void trainingSizeIsMeasuredAndRemembered();
    void slowerThanTheTrainingStepIsShownInRed();
};

// Needs a backend that is not available in this session (on a machine with a CUDA device and a
// hardware GL there is none to show).
class TestCostMeterUnavailable : public CostSuite {
    Q_OBJECT

private slots:
    void initTestCase();
    void unavailableBackendsShowTheirReason();
};

void TestCostMeterUnavailable::initTestCase() {
    for (const BackendInfo& b : backendInfos())
        if (!b.available) return;
    QSKIP("every backend is available in this session: none to show as unavailable");
}

void CostSuite::init() {
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
    QSettings().remove("costMeter");  // every test starts at the defaults (224x224, no training rate)
}

void CostSuite::cleanup() {
    dir_.reset();
}

std::unique_ptr<MainWindow> CostSuite::makeWindow() {
    MainWindowOptions o;
    o.autosavePath = dir_->filePath("autosave.auglab.json");
    o.restoreLayout = false;
    auto w = std::make_unique<MainWindow>(o);
    w->resize(1300, 900);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
    QApplication::setActiveWindow(w.get());
    return w;
}

void TestCostMeter::timingLoopRendersTrainingSizeBatches() {
    RecordingBackend backend;
    SourceLevels input(Image(40, 24, 3, 90));
    const Throughput t =
        measureThroughput(backend, input, defaultPreset().pipeline, 7, 20, 4, [] { return false; });
    QVERIFY(!t.cancelled);
    QVERIFY(t.imagesPerSecond > 0);
    QVERIFY(t.batches >= 1);
    QVERIFY(t.batchSize >= 4);  // at least minBatch per batch
    QCOMPARE(t.images, t.batches * t.batchSize);
    // Two warm-up batches of minBatch, then the timed ones; every output at the input's size.
    QCOMPARE(backend.calls, 2 + t.batches);
    QCOMPARE(int(backend.sizes.size()), 2 * 4 + t.images);
    for (const auto& s : backend.sizes) QCOMPARE(s, std::make_pair(40, 24));
}

void TestCostMeter::timingLoopStopsWhenCancelled() {
    RecordingBackend backend;
    SourceLevels input(Image(16, 16, 3, 0));
    int asked = 0;
    const Throughput t = measureThroughput(backend, input, defaultPreset().pipeline, 1, 10000, 2,
                                           [&] { return ++asked >= 2; });
    QVERIFY(t.cancelled);
    QCOMPARE(t.images, 0);
    QCOMPARE(backend.calls, 2);  // the warm-up only: no timed batch after the stop
}

void TestCostMeter::showsCpuRateOnceThePipelineSettles() {
    auto w = makeWindow();
    QVERIFY(w);
    QVERIFY(w->openImages({sample("astronaut.png")}));
    CostMeter* m = w->costMeter();
    QVERIFY(m && m->isVisible());
    QVERIFY(waitForMeasurement(*m));

    const CostResult* r = m->result("cpu");
    QVERIFY(r);
    QVERIFY2(r->ok, qPrintable(r->error));
    QVERIFY(r->pipeline == w->document()->preset().pipeline);
    QCOMPARE(r->trainingSize, QSize(224, 224));
    QCOMPARE(r->source, QString("astronaut.png"));
    QVERIFY(r->threads >= 1);
    QVERIFY(r->images >= r->batchSize && r->batchSize >= 2 * r->threads);

    // What the user sees: a number of images/s and the milliseconds per image, both above zero.
    QLabel* rate = label(*m, "cost_cpu");
    QLabel* ms = label(*m, "cost_cpu_ms");
    QVERIFY(rate && ms && rate->isVisible() && rate->isEnabled());
    QCOMPARE(rate->text(), CostMeter::formatRate(r->imagesPerSecond));
    QCOMPARE(ms->text(), CostMeter::formatMilliseconds(r->msPerImage));
    QVERIFY2(shownNumber(rate) > 0, qPrintable(rate->text()));
    QVERIFY2(shownNumber(ms) > 0, qPrintable(ms->text()));
    // It says what it measured.
    QVERIFY(rate->toolTip().contains("decoding and resizing excluded"));
    QVERIFY(rate->toolTip().contains("224x224"));
    QVERIFY(rate->toolTip().contains(QString("%1 images timed").arg(r->images)));
    QVERIFY(rate->toolTip().contains(QString("%1 CPU thread").arg(r->threads)));
    // The status bar sums it up with the fastest backend.
    auto* summary = w->statusBar()->findChild<QLabel*>("costSummary");
    QVERIFY(summary && summary->isVisible());
    QVERIFY2(summary->text().contains("img/s") && summary->text().contains("224x224"),
             qPrintable(summary->text()));
}

void TestCostMeter::editedPipelineIsMeasuredAgain() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    CostMeter* m = w->costMeter();
    QVERIFY(waitForMeasurement(*m));
    const quint64 before = m->shownGeneration();
    QSignalSpy started(m, &CostMeter::measurementStarted);

    // A wide blur: two edits in a row, measured once, after they settle.
    w->document()->addOp("gaussian_blur");
    const int op = int(w->document()->preset().pipeline.size()) - 1;
    w->document()->setParam(op, "sigma_px", Range{20, 30});
    QVERIFY(!m->isCurrent());
    QVERIFY(!label(*m, "cost_cpu")->isEnabled());  // the old number is greyed while it is outdated
    QVERIFY(waitForMeasurement(*m, before));
    QCOMPARE(started.count(), 1);

    const CostResult* r = m->result("cpu");
    QVERIFY(r && r->ok);
    QCOMPARE(r->generation, m->shownGeneration());
    QVERIFY(r->pipeline == w->document()->preset().pipeline);
    QCOMPARE(r->pipeline.back().name(), std::string("gaussian_blur"));
    QCOMPARE(r->pipeline.back().range("sigma_px").min, 20.0);
    QVERIFY(r->imagesPerSecond > 0);
    QLabel* rate = label(*m, "cost_cpu");
    QVERIFY(rate->isEnabled());
    QCOMPARE(rate->text(), CostMeter::formatRate(r->imagesPerSecond));
    QVERIFY(rate->toolTip().contains(QString("the pipeline of %1 ops").arg(r->pipeline.size())));
}

void TestCostMeter::sliderDragIsMeasuredOnceItSettles() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("chelsea.png")});
    CostMeter* m = w->costMeter();
    QVERIFY(waitForMeasurement(*m));
    const quint64 before = m->shownGeneration();
    QSignalSpy started(m, &CostMeter::measurementStarted);
    QSignalSpy grids(w.get(), &MainWindow::gridShown);

    auto* slider = w->editor()->panel(0)->findChild<RangeSlider*>("rotate_deg");
    QVERIFY(slider);
    const QPoint start = slider->handleRect(1).center();
    QTest::mousePress(slider, Qt::LeftButton, {}, start);
    QVERIFY(slider->isDragging());
    // Ten moves, 40 ms apart: the pipeline is never still for the debounce interval, so nothing is
    // measured. Only a stall of the test process longer than the interval could let one start:
    // such stalls are counted, and allowed for.
    QElapsedTimer gap;
    gap.start();
    int stalls = 0;
    for (int step = 1; step <= 10; ++step) {
        QTest::mouseMove(slider, start + QPoint(step * 4, 0));
        if (gap.restart() >= m->debounceMs()) ++stalls;
        QTest::qWait(40);
    }
    QVERIFY(slider->isDragging());
    const int duringDrag = int(started.count());
    QVERIFY2(duringDrag <= stalls,
             qPrintable(QString("%1 measurements, %2 stalls").arg(duringDrag).arg(stalls)));
    QVERIFY(grids.count() >= 1);  // the grid did follow the drag meanwhile
    QTest::mouseRelease(slider, Qt::LeftButton, {}, start + QPoint(40, 0));

    // Once the drag has settled: one measurement, of the pipeline the drag ended with.
    QVERIFY(waitForMeasurement(*m, before));
    QCOMPARE(int(started.count()), duringDrag + 1);
    QVERIFY(m->result("cpu")->pipeline == w->document()->preset().pipeline);
    QVERIFY(w->document()->preset().pipeline[0].range("rotate_deg").max > 20);
}

void TestCostMeter::trainingSizeIsMeasuredAndRemembered() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("coffee.png")});
    CostMeter* m = w->costMeter();
    auto* combo = m->findChild<QComboBox*>("trainingSize");
    auto* width = m->findChild<QSpinBox*>("trainingWidth");
    auto* height = m->findChild<QSpinBox*>("trainingHeight");
    QVERIFY(combo && width && height);
    QCOMPARE(combo->currentText(), QString("224 x 224"));  // the default
    QVERIFY(!width->isVisible());
    QVERIFY(waitForMeasurement(*m));
    QCOMPARE(m->result("cpu")->trainingSize, QSize(224, 224));

    // A listed size.
    quint64 g = m->shownGeneration();
    combo->setCurrentIndex(combo->findText("128 x 128"));
    QCOMPARE(m->trainingSize(), QSize(128, 128));
    QVERIFY(waitForMeasurement(*m, g));
    QCOMPARE(m->result("cpu")->trainingSize, QSize(128, 128));
    QVERIFY(label(*m, "cost_cpu")->toolTip().contains("128x128 RGB input"));

    // A custom one, typed into its fields.
    g = m->shownGeneration();
    combo->setCurrentIndex(combo->count() - 1);
    QCOMPARE(combo->currentText(), QString("Custom…"));
    QVERIFY(width->isVisible() && height->isVisible());
    for (auto [box, text] : {std::pair{width, "320"}, std::pair{height, "240"}}) {
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, text);
        QTest::keyClick(box, Qt::Key_Return);
    }
    QCOMPARE(m->trainingSize(), QSize(320, 240));
    QVERIFY(waitForMeasurement(*m, g));
    const CostResult* r = m->result("cpu");
    QCOMPARE(r->trainingSize, QSize(320, 240));
    QVERIFY(r->ok && r->imagesPerSecond > 0);
    auto* summary = w->statusBar()->findChild<QLabel*>("costSummary");
    QVERIFY2(summary->text().contains("320x240"), qPrintable(summary->text()));

    // The next session starts at the same size.
    CostMeter again;
    QCOMPARE(again.trainingSize(), QSize(320, 240));
    QCOMPARE(again.findChild<QComboBox*>("trainingSize")->currentText(), QString("Custom…"));
    QCOMPARE(again.findChild<QSpinBox*>("trainingWidth")->value(), 320);
    QCOMPARE(again.findChild<QSpinBox*>("trainingHeight")->value(), 240);
}

void TestCostMeterUnavailable::unavailableBackendsShowTheirReason() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("rocket.jpg")});
    CostMeter* m = w->costMeter();
    QVERIFY(waitForMeasurement(*m));
    int unavailable = 0;
    for (const BackendInfo& info : backendInfos()) {
        const QString name = QString::fromStdString(info.name);
        QLabel* rate = label(*m, "cost_" + name);
        QLabel* reason = label(*m, "cost_" + name + "_ms");
        QVERIFY2(rate && reason, qPrintable(name));
        if (info.available) {
            // Measured: a number, or "failed" with what went wrong.
            const CostResult* r = m->result(name);
            QVERIFY2(r, qPrintable(name));
            if (r->ok)
                QVERIFY2(shownNumber(rate) > 0, qPrintable(name + ": " + rate->text()));
            else
                QCOMPARE(rate->text(), QString("failed"));
            continue;
        }
        ++unavailable;
        QVERIFY(!m->result(name));  // never measured
        QCOMPARE(rate->text(), QString("unavailable"));
        QVERIFY(!rate->isEnabled());
        QVERIFY(!info.detail.empty());
        QCOMPARE(reason->text(), name.toUpper() + ": " + QString::fromStdString(info.detail));
        QVERIFY(reason->isVisible());
        QCOMPARE(rate->toolTip(), QString::fromStdString(info.detail));
    }
    QVERIFY(unavailable > 0);  // initTestCase found one
}

void TestCostMeter::slowerThanTheTrainingStepIsShownInRed() {
    auto w = makeWindow();
    QVERIFY(w);
    w->openImages({sample("astronaut.png")});
    CostMeter* m = w->costMeter();
    QVERIFY(waitForMeasurement(*m));
    const quint64 g = m->generation();
    auto* rate = m->findChild<QDoubleSpinBox*>("trainingRate");
    auto* summary = w->statusBar()->findChild<QLabel*>("costSummary");
    QVERIFY(rate && summary);
    QCOMPARE(rate->text(), QString("not set"));
    QVERIFY(!m->starving());

    rate->setValue(1e7);  // ten million images/s: faster than any backend here
    QVERIFY(m->starving());
    QVERIFY2(summary->text().contains("needed"), qPrintable(summary->text()));
    QVERIFY(summary->styleSheet().contains("#c62828"));
    QVERIFY(label(*m, "cost_cpu")->styleSheet().contains("#c62828"));
    QVERIFY(label(*m, "costStatus")->text().contains("starve"));

    rate->setValue(1);  // one image/s: every backend keeps up
    QVERIFY(!m->starving());
    QVERIFY(!summary->styleSheet().contains("#c62828"));
    QVERIFY(!label(*m, "cost_cpu")->styleSheet().contains("#c62828"));
    QCOMPARE(m->generation(), g);  // the rate only changes colours: nothing is measured again
    QCOMPARE(QSettings().value("costMeter/trainingRate").toDouble(), 1.0);
}

int main(int argc, char** argv) {
    // Settings and autosaves of the tests stay out of the user's folders.
    QTemporaryDir home;
    qputenv("XDG_CONFIG_HOME", home.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath("data").toUtf8());
    auglab::PreviewGrid::configureOpenGl();
    QApplication app(argc, argv);
    return auglab::testing::runSuites<TestCostMeter, TestCostMeterUnavailable>(argc, argv);
}

#include "test_cost_meter.moc"
