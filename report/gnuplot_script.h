#pragma once
// Building blocks of the report's gnuplot scripts. Every script finds its own folder from ARG0, so
// `gnuplot <dir>/*.gp` works from any working directory and the folder can be moved; every script
// draws its figure twice, as PNG (pngcairo) and SVG, from the same plot commands.
#include <filesystem>
#include <string>
#include <vector>

namespace sinklab {

// One figure of a report: figures/<name>.{gp,dat,png,svg}.
struct Figure {
  std::string name;
  std::string caption;
};

// A gnuplot double-quoted string literal for text.
std::string gnuplot_quote(const std::string& text);

// Script text: header comment, `here` = the script's folder, then `body` run once per terminal
// with `set output here."<name>.png"` / `.svg` already done, plus the value of the gnuplot variable
// `partial` when set (GnuplotRunner sets a temporary suffix of its own, core/io/file_write.h, and renames the
// finished files). width, height in pixels.
std::string gnuplot_script(const std::string& name, const std::string& comment, int width, int height,
                           const std::string& body);

// Writes text to path atomically (core/io/file_write.h: temp file, fsync, rename; a symlink at path is
// replaced, not followed); throws ReportError naming the file and the OS error on failure.
void write_report_file(const std::filesystem::path& path, const std::string& text);

// Letters, digits, '-', '_' and '.' kept, anything else becomes '_' (for file names).
std::string file_stem(const std::string& text);

}  // namespace sinklab
