#pragma once
// The explorer page's code, compiled into the binary so that `sinklab report` needs no install
// directory. The files live beside this header as themselves (explorer.js, explorer.css,
// explorer.html); the build turns each into a char array (cmake/embed_file.cmake, called from the
// top-level CMakeLists.txt), so these hold the files' bytes exactly, '\0'-terminated.
namespace sinklab {

extern const char kExplorerJs[];   // explorer.js
extern const char kExplorerCss[];  // explorer.css
// explorer.html with placeholders @TITLE@ (HTML-escaped page title) and @ASSETS@ (the relative path
// from the page to the folder holding explorer.js and explorer.css, "" or "../../").
extern const char kExplorerHtml[];

}  // namespace sinklab
