#pragma once
// The open-model page's own script and styles (report/explorer/open_model_explorer.{js,css}), compiled
// into the binary as the explorer's assets are (report/explorer/explorer_assets.h, cmake/embed_file.cmake).
namespace sinklab {

extern const char kOpenModelExplorerJs[];   // open_model_explorer.js
extern const char kOpenModelExplorerCss[];  // open_model_explorer.css

}  // namespace sinklab
