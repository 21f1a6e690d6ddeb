#include "analysis/report_heatmaps.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>

#include "analysis/npy.h"

namespace sinklab {
namespace {

// The largest map file a report reads: [4096, 4096] float32 plus a header. Bigger is not a map this
// trainer writes.
constexpr uintmax_t kMaxMapBytes = (uintmax_t{4096} * 4096 * 4) + (64u << 10);

// Why `path` must not be handed to read_npy, or "". read_npy sizes its buffer from the header's shape,
// so a corrupt header claiming 10^12 values would allocate before noticing the file is short: check
// the claim against the file size first.
std::string implausible_map(const std::filesystem::path& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return path.string() + ": cannot read its size: " + ec.message();
  if (size > kMaxMapBytes)
    return path.string() + ": " + std::to_string(size) + " bytes, more than the " + std::to_string(kMaxMapBytes) +
           " of a [4096, 4096] map";
  std::ifstream in(path, std::ios::binary);
  std::string head(static_cast<size_t>(std::min<uintmax_t>(size, 64u << 10)), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  const auto at = head.find("'shape':");
  const auto open = at == std::string::npos ? at : head.find('(', at);
  const auto close = open == std::string::npos ? open : head.find(')', open);
  if (close == std::string::npos) return "";  // read_npy names what is wrong with the header
  uintmax_t values = 1;
  const std::regex number("[0-9]+");
  const auto first = head.cbegin() + static_cast<std::ptrdiff_t>(open);
  const auto last = head.cbegin() + static_cast<std::ptrdiff_t>(close);
  for (auto it = std::sregex_iterator(first, last, number); it != std::sregex_iterator(); ++it) {
    const std::string digits = it->str();
    if (digits.size() > 12 || __builtin_mul_overflow(values, std::stoull(digits), &values) || values > size / 4)
      return path.string() + ": its header declares more values than the file's " + std::to_string(size) + " bytes hold";
  }
  return "";
}

}  // namespace

std::vector<std::pair<int, int>> find_attention_maps(const std::filesystem::path& run_dir, AttentionMapKind kind) {
  std::vector<std::pair<int, int>> found;
  const std::filesystem::path dir = run_dir / "attention";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return found;
  const std::regex pattern(std::string("layer([0-9]+)_head([0-9]+)_") + attention_map_kind_name(kind) + "\\.npy");
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string file = entry.path().filename().string();
    if (std::regex_match(file, m, pattern)) found.emplace_back(std::stoi(m[1].str()), std::stoi(m[2].str()));
  }
  std::sort(found.begin(), found.end());
  return found;
}

bool write_heatmap_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                          int rows, int cols, const std::vector<HeatmapPanel>& panels, std::ostream& log) {
  std::string data = "# " + title + "\n# one [T x T] block per panel (rows = query i, columns = key k), blocks "
                     "separated by two blank lines; panel order as in " + name + ".gp\n";
  int64_t seq_len = 0;
  for (const auto& panel : panels) {
    NpyArray map;
    if (const std::string why = implausible_map(panel.npy); !why.empty()) {
      log << "figure " << name << " skipped: " << why << "\n";
      return false;
    }
    try {
      map = read_npy(panel.npy);
    } catch (const NpyError& e) {
      log << "figure " << name << " skipped: " << e.what() << "\n";
      return false;
    }
    if (map.shape.size() != 2 || map.shape[0] != map.shape[1] || (seq_len != 0 && map.shape[0] != seq_len)) {
      log << "figure " << name << " skipped: " << panel.npy.string() << " is not a [T, T] map like the others\n";
      return false;
    }
    seq_len = map.shape[0];
    data += "# " + panel.title + "\n";
    char buf[32];
    for (int64_t i = 0; i < seq_len; ++i) {
      for (int64_t k = 0; k < seq_len; ++k) {
        std::snprintf(buf, sizeof buf, k ? " %.6g" : "%.6g", static_cast<double>(map.data[static_cast<size_t>(i * seq_len + k)]));
        data += buf;
      }
      data += "\n";
    }
    data += "\n\n";
  }
  if (panels.empty() || seq_len == 0) return false;

  char lim_text[32];
  std::snprintf(lim_text, sizeof lim_text, "%g", static_cast<double>(seq_len) - 0.5);
  const std::string lim = lim_text;
  std::string body;
  body += "  set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) + " title " + gnuplot_quote(title) + "\n";
  body += "  set palette defined (0 \"#440154\", 0.25 \"#3b528b\", 0.5 \"#21908d\", 0.75 \"#5dc963\", 1 \"#fde725\")\n";
  body += "  set cbrange [0:1]\n  set xrange [-0.5:" + lim + "]\n  set yrange [" + lim + ":-0.5]\n";
  body += "  set colorbox\n  set size ratio -1\n  set xlabel \"key\"\n  set ylabel \"query\"\n  set tics out nomirror\n";
  for (size_t p = 0; p < panels.size(); ++p) {
    body += "  set title " + gnuplot_quote(panels[p].title) + "\n";
    body += "  plot here." + gnuplot_quote(name + ".dat") + " index " + std::to_string(p) + " matrix with image notitle\n";
  }
  body += "  unset multiplot\n";
  const int width = std::max(360, 300 * cols), height = std::max(330, 280 * rows + 40);
  write_report_file(fig_dir / (name + ".dat"), data);
  write_report_file(fig_dir / (name + ".gp"), gnuplot_script(name, title, width, height, body));
  return true;
}

}  // namespace sinklab
