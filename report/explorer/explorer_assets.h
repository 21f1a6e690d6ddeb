#pragma once
// The explorer page's code, compiled into the binary so that `sinklab report` needs no install
// directory: explorer_js.cpp, explorer_css.cpp and explorer_html.cpp hold the files' text verbatim.
namespace sinklab {

extern const char kExplorerJs[];   // explorer.js
extern const char kExplorerCss[];  // explorer.css
// explorer.html with placeholders @TITLE@ (HTML-escaped page title) and @ASSETS@ (the relative path
// from the page to the folder holding explorer.js and explorer.css, "" or "../../").
extern const char kExplorerHtml[];

}  // namespace sinklab
