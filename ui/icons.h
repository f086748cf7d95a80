#pragma once
// Icons the panels paint themselves, for symbols no common font is sure to have: a glyph missing
// from every installed font shows as an empty box (the group button's ⧉ did, on a stock Xvfb).

#include <QIcon>

class QWidget;

namespace auglab {

/// "Put in a new group": two overlapping squares, in `widget`'s button text colour (and its
/// disabled colour), at the widget's device pixel ratio.
QIcon groupIcon(const QWidget* widget);

}  // namespace auglab
