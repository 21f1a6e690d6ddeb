#include "report/report_table.h"

#include <gtest/gtest.h>

namespace sinklab {
namespace {

Table sample() {
  Table t;
  t.title = "Sample table";
  t.header = {"variant", "value"};
  t.rows = {{"a|b", "1.0 ± 0.1"}, {"long name, with comma", "2"}};
  t.notes = {"eps = 0.3"};
  return t;
}

TEST(ReportTable, MarkdownEscapesPipesAndKeepsNotes) {
  const std::string md = sample().to_markdown();
  EXPECT_NE(md.find("| variant | value |\n| --- | ---: |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| a\\|b | 1.0 ± 0.1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("\neps = 0.3\n"), std::string::npos);
}

TEST(ReportTable, CsvQuotesOnlyWhenNeeded) {
  const std::string csv = sample().to_csv();
  EXPECT_EQ(csv, "variant,value\na|b,1.0 ± 0.1\n\"long name, with comma\",2\n");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(ReportTable, TextColumnsAlignWithMultibyteCharacters) {
  Table t;
  t.header = {"x", "y"};
  t.rows = {{"±±", "1"}, {"abc", "2"}};
  const std::string text = t.to_text();
  // Column 1 is 3 characters wide plus two spaces: "±±" gets three pad spaces, "abc" two.
  EXPECT_NE(text.find("±±   1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("abc  2\n"), std::string::npos) << text;
}

TEST(ReportTable, HtmlEscapesText) {
  Table t;
  t.header = {"<h>"};
  t.rows = {{"a & b"}};
  const std::string html = t.to_html();
  EXPECT_NE(html.find("<th>&lt;h&gt;</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>a &amp; b</td>"), std::string::npos);
}

TEST(ReportTable, SectionHeadingsGroupRowsInEveryRenderingButCsv) {
  Table t;
  t.header = {"variant", "value"};
  t.rows = {{"softmax", "1"}, {"relu", "2"}};
  t.sections = {{0, "S: simplex"}, {1, "Z: <zero>"}};
  EXPECT_NE(t.to_markdown().find("| variant | value |\n| --- | ---: |\n| **S: simplex** |  |\n| softmax | 1 |\n"
                                 "| **Z: <zero>** |  |\n| relu | 2 |\n"),
            std::string::npos)
      << t.to_markdown();
  const std::string html = t.to_html();
  EXPECT_NE(html.find("<tr class=\"section\"><th colspan=\"2\">Z: &lt;zero&gt;</th></tr>\n<tr><td>relu</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(t.to_text().find("\nS: simplex\nsoftmax  1\nZ: <zero>\nrelu     2\n"), std::string::npos) << t.to_text();
  EXPECT_EQ(t.to_csv(), "variant,value\nsoftmax,1\nrelu,2\n");
}

TEST(ReportTable, RowLinksWrapTheFirstCellInHtmlOnly) {
  Table t;
  t.header = {"variant", "value"};
  t.rows = {{"softmax", "1"}, {"relu<", "2"}, {"sink_logit", "3"}};
  t.row_links = {"explorer-runs/softmax_s0/explorer.html", "", "a\"b.html"};
  const std::string html = t.to_html();
  EXPECT_NE(html.find("<tr><td><a href=\"explorer-runs/softmax_s0/explorer.html\">softmax</a></td><td>1</td></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><td>relu&lt;</td><td>2</td></tr>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td><a href=\"a&quot;b.html\">sink_logit</a></td>"), std::string::npos) << html;
  EXPECT_EQ(t.to_markdown().find("href"), std::string::npos);
  EXPECT_EQ(t.to_csv(), "variant,value\nsoftmax,1\nrelu<,2\nsink_logit,3\n");
}

}  // namespace
}  // namespace sinklab
