#include "report/report_html.h"

namespace sinklab {
namespace {

constexpr const char* kStyle =
    R"(body { font-family: sans-serif; margin: 2em auto; max-width: 1400px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
h3 { font-size: 1.05em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: .9em; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
tr:nth-child(even) td { background: #fafafa; }
tr.section th { background: #e4ecf7; text-align: left; }
.note { color: #555; font-size: .9em; margin: .2em 0; }
.warn { background: #fff4e5; border: 1px solid #f0b060; padding: .5em 1em; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #444; font-size: .9em; }
code { background: #f4f4f4; padding: 0 .2em; })";

}  // namespace

std::string render_html(const HtmlPage& page) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    html_escape(page.title) + "</title>\n<style>\n" + kStyle + "\n</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(page.title) + "</h1>\n";
  for (const auto& fact : page.facts) out += "<p class=\"note\">" + html_escape(fact) + "</p>\n";
  if (!page.explorer.empty())
    out += "<p class=\"note\">Attention over training, head by head: <a href=\"" + html_escape(page.explorer) +
           "\">the sink explorer</a>" + " (a variant or run in the tables opens its run's page).</p>\n";
  if (!page.warnings.empty()) {
    out += "<div class=\"warn\">\n";
    for (const auto& w : page.warnings) out += "<p>" + html_escape(w) + "</p>\n";
    out += "</div>\n";
  }
  out += "<h2>Tables</h2>\n<p class=\"note\">Also as <a href=\"summary.md\">summary.md</a> and "
         "<a href=\"summary.csv\">summary.csv</a> (one row per run).</p>\n";
  for (const auto& table : page.tables) out += table.to_html();
  out += "<h2>Figures</h2>\n";
  if (page.figures.empty())
    out += "<p class=\"note\">No figures: the runs have no attention maps or metrics yet.</p>\n";
  for (const auto& f : page.figures) {
    const std::string base = "figures/" + html_escape(f.name);
    out += "<figure id=\"" + html_escape(f.name) + "\">\n<a href=\"" + base + ".svg\"><img src=\"" + base +
           ".png\" alt=\"" + html_escape(f.caption) + "\"></a>\n<figcaption>" + html_escape(f.caption) +
           " &mdash; <a href=\"" + base + ".svg\">SVG</a> &middot; <a href=\"" + base +
           ".gp\">gnuplot script</a> &middot; <a href=\"" + base + ".dat\">data</a></figcaption>\n</figure>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace sinklab
