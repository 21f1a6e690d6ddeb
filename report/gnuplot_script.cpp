#include "report/gnuplot_script.h"

#include <cctype>

#include "core/io/file_write.h"
#include "report/report_runs.h"

namespace sinklab {

std::string gnuplot_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string gnuplot_script(const std::string& name, const std::string& comment, int width, int height,
                           const std::string& body) {
  const std::string size = std::to_string(width) + "," + std::to_string(height);
  std::string s;
  s += "# " + comment + "\n";
  s += "# Written by `sinklab report`; edit freely and re-render with: gnuplot " + name + ".gp\n";
  s += "# Data paths are relative to this script's folder (found from ARG0), so it runs from anywhere.\n";
  s += "here = \"\"\n";
  s += "if (exists(\"ARG0\") && strlen(ARG0) > 0) {\n";
  s += "  n = strlen(ARG0)\n";
  s += "  while (n > 0) { if (ARG0[n:n] eq \"/\") { break }; n = n - 1 }\n";
  s += "  if (n > 0) { here = ARG0[1:n] }\n";
  s += "}\n";
  // `sinklab report` renders with -e "partial='.<pid>-<random>.tmp'" and renames each finished file, so a killed
  // render never leaves half a picture under its final name; run by hand, the names are final at once.
  s += "if (!exists(\"partial\")) { partial = \"\" }\n";
  s += "do for [fmt in \"png svg\"] {\n";
  s += "  reset\n";
  s += "  set encoding utf8\n";
  s += "  if (fmt eq \"png\") { set terminal pngcairo noenhanced size " + size + " font \",10\" } "
       "else { set terminal svg noenhanced size " + size + " font \",10\" background \"white\" }\n";
  s += "  set output here." + gnuplot_quote(name + ".") + ".fmt.partial\n";
  s += body;
  s += "  unset output\n";
  s += "}\n";
  return s;
}

void write_report_file(const std::filesystem::path& path, const std::string& text) {
  try {
    write_file_atomically(path, text);  // a full disk never leaves half a table under the final name
  } catch (const FileWriteError& e) {
    throw ReportError(e.what());  // names the file and the OS error
  }
}

std::string file_stem(const std::string& text) {
  std::string out;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    out += std::isalnum(u) || c == '-' || c == '_' || c == '.' ? c : '_';
  }
  return out.empty() ? "unnamed" : out;
}

}  // namespace sinklab
