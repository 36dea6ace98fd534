#include "data/csv_table.h"

#include "util/error.h"

namespace trainer {
namespace {

bool blank(const std::vector<std::string>& row) { return row.size() == 1 && row[0].find_first_not_of(" \t") == std::string::npos; }

}  // namespace

CsvTable parse_csv(const std::string& text, const std::string& name) {
  CsvTable table;
  size_t at = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  int64_t line = 1;
  while (at < text.size()) {
    const int64_t row_line = line;
    std::vector<std::string> row(1);
    bool quoted_field = false;
    // One row: fields until an unquoted line end or the end of the text.
    while (at < text.size()) {
      const char c = text[at];
      if (c == '"' && row.back().empty() && !quoted_field) {
        quoted_field = true;
        ++at;
        while (true) {
          if (at >= text.size())
            throw DataError(name + ":" + std::to_string(row_line) + ": a quoted field is not closed");
          if (text[at] == '"') {
            if (at + 1 < text.size() && text[at + 1] == '"') {
              row.back() += '"';
              at += 2;
              continue;
            }
            ++at;
            break;
          }
          if (text[at] == '\n') ++line;
          row.back() += text[at++];
        }
        continue;
      }
      if (c == ',') {
        row.emplace_back();
        quoted_field = false;
        ++at;
      } else if (c == '\n' || (c == '\r' && at + 1 < text.size() && text[at + 1] == '\n')) {
        at += c == '\r' ? 2 : 1;
        ++line;
        break;
      } else {
        if (quoted_field)
          throw DataError(name + ":" + std::to_string(line) + ": text after a quoted field's closing quote");
        row.back() += c;
        ++at;
      }
    }
    if (blank(row)) continue;
    if (table.header.empty()) {
      table.header = std::move(row);
      continue;
    }
    if (row.size() != table.header.size())
      throw DataError(name + ":" + std::to_string(row_line) + ": " + std::to_string(row.size()) + " fields, the header has " +
                      std::to_string(table.header.size()));
    table.rows.push_back(std::move(row));
    table.lines.push_back(row_line);
  }
  if (table.header.empty()) throw DataError(name + ": empty; expected a header row of column names, then rows");
  return table;
}

}  // namespace trainer
