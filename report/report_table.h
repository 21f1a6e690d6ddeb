#pragma once
// A plain table of strings with the renderings a report needs: GitHub Markdown, HTML, aligned
// terminal text and CSV (RFC 4180 quoting). Tables are built once from the data and rendered
// several ways, so the Markdown, HTML and terminal versions never disagree.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace sinklab {

struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each as long as header
  std::vector<std::string> notes;              // sentences printed under the table
  // Headings that group rows: {i, text} is shown as a full-width row just before rows[i] (i ==
  // rows.size(): after the last row). Markdown, HTML and text show them; CSV has data rows only.
  std::vector<std::pair<std::size_t, std::string>> sections;
  // HTML only: row i's first cell links to row_links[i] (a relative URL) when that is not empty.
  std::vector<std::string> row_links;

  std::string to_markdown() const;
  std::string to_html() const;   // <table> (+ notes as <p>), text escaped
  std::string to_text() const;   // columns padded with spaces, measured in UTF-8 code points
  std::string to_csv() const;    // header and rows only
};

std::string html_escape(const std::string& text);
std::string csv_field(const std::string& text);  // quoted when it holds , " or a line break

}  // namespace sinklab
