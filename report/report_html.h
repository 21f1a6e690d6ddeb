#pragma once
// index.html of a report: one self-contained page (inline CSS, no scripts, no network) with the
// tables and every figure, images referenced by relative path so the report folder can be moved.
#include <string>
#include <vector>

#include "report/gnuplot_script.h"
#include "report/report_table.h"

namespace sinklab {

struct HtmlPage {
  std::string title;
  std::vector<std::string> facts;     // short lines under the title (directory, run count, ...)
  std::vector<std::string> warnings;  // shown in a highlighted box (failed runs, figures not rendered)
  std::vector<Table> tables;
  std::vector<Figure> figures;        // figures/<name>.png shown, .svg/.gp/.dat linked
  std::string explorer;               // relative URL of the sink explorer page, "" when there is none
};

std::string render_html(const HtmlPage& page);

}  // namespace sinklab
