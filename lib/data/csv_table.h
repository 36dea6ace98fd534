#pragma once
// CSV files as RFC 4180 writes them (torch-free): a header row of column
// names, then rows of fields separated by commas; a field in double quotes
// may hold commas, line breaks and doubled quotes. CRLF or LF line ends; a
// UTF-8 byte order mark and blank lines are ignored.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int64_t> lines;  // the line of the file each row starts on (from 1)
};

// Throws DataError naming `name` and the line: an unclosed quote, a row of
// another width than the header, no header.
CsvTable parse_csv(const std::string& text, const std::string& name);

}  // namespace trainer
