#include "report/report_table.h"

#include <algorithm>

namespace sinklab {
namespace {

size_t display_width(const std::string& s) {  // count UTF-8 lead bytes so "±" is one column
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

const std::string& cell(const std::vector<std::string>& row, size_t i) {
  static const std::string empty;
  return i < row.size() ? row[i] : empty;
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string Table::to_markdown() const {
  std::string out;
  if (!title.empty()) out += "### " + title + "\n\n";
  auto line = [&](const std::vector<std::string>& cells) {
    out += "|";
    for (size_t i = 0; i < header.size(); ++i) {
      out += ' ';
      out += markdown_cell(cell(cells, i));
      out += " |";
    }
    out += "\n";
  };
  line(header);
  out += "|";
  for (size_t i = 0; i < header.size(); ++i) out += i == 0 ? " --- |" : " ---: |";
  out += "\n";
  for (size_t r = 0; r <= rows.size(); ++r) {
    for (const auto& [at, heading] : sections)
      if (at == r) {  // bold in the first cell: Markdown tables have no cells spanning columns
        std::vector<std::string> cells(header.size());
        if (!cells.empty()) cells[0] = "**" + heading + "**";
        line(cells);
      }
    if (r < rows.size()) line(rows[r]);
  }
  if (!notes.empty()) out += "\n";
  for (const auto& note : notes) out += note + "\n";
  return out;
}

std::string Table::to_html() const {
  std::string out;
  if (!title.empty()) out += "<h3>" + html_escape(title) + "</h3>\n";
  out += "<div class=\"scroll\"><table>\n<tr>";
  for (const auto& h : header) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr>\n";
  for (size_t r = 0; r <= rows.size(); ++r) {
    for (const auto& [at, heading] : sections)
      if (at == r)
        out += "<tr class=\"section\"><th colspan=\"" + std::to_string(std::max<size_t>(header.size(), 1)) + "\">" +
               html_escape(heading) + "</th></tr>\n";
    if (r == rows.size()) break;
    out += "<tr>";
    const std::string link = r < row_links.size() ? row_links[r] : std::string();
    for (size_t i = 0; i < header.size(); ++i) {
      const std::string text = html_escape(cell(rows[r], i));
      out += "<td>" + (i == 0 && !link.empty() ? "<a href=\"" + html_escape(link) + "\">" + text + "</a>" : text) +
             "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table></div>\n";
  for (const auto& note : notes) out += "<p class=\"note\">" + html_escape(note) + "</p>\n";
  return out;
}

std::string Table::to_text() const {
  std::vector<size_t> width(header.size(), 0);
  for (size_t i = 0; i < header.size(); ++i) {
    width[i] = display_width(header[i]);
    for (const auto& row : rows) width[i] = std::max(width[i], display_width(cell(row, i)));
  }
  std::string out;
  if (!title.empty()) out += title + "\n";
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t i = 0; i < header.size(); ++i) {
      const std::string& c = cell(cells, i);
      text += c;
      if (i + 1 < header.size()) text += std::string(width[i] - display_width(c) + 2, ' ');
    }
    out += text + "\n";
  };
  line(header);
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (size_t r = 0; r <= rows.size(); ++r) {
    for (const auto& [at, heading] : sections)
      if (at == r) out += heading + "\n";
    if (r < rows.size()) line(rows[r]);
  }
  for (const auto& note : notes) out += note + "\n";
  return out;
}

std::string Table::to_csv() const {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (i > 0) out += ',';
      out += csv_field(cell(cells, i));
    }
    out += "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
  return out;
}

}  // namespace sinklab
