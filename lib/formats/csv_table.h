#pragma once
// CSV files as RFC 4180 writes them (torch-free): a header row of column
// names, then rows of fields separated by commas; a field in double quotes
// may hold commas, line breaks and doubled quotes. CRLF or LF line ends; a
// UTF-8 byte order mark and blank lines are ignored. Read as a stream: the
// header is checked before the body is read, and a row at a time is held.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trainer {

// The longest field (and header row) read: a text file has no business
// holding more in one cell, and a binary file mistaken for CSV stops here.
inline constexpr size_t kMaxCsvFieldBytes = size_t{1} << 20;

class CsvReader {
 public:
  // Fills `buffer` with up to `capacity` bytes; 0 at the end of the input.
  using Fill = std::function<size_t(char* buffer, size_t capacity)>;

  // `name` is used in error messages ("name:line: ...").
  CsvReader(Fill fill, std::string name);

  // The next row that is not blank into `row`; false at the end. Throws
  // DataError naming the line: an unclosed quote, text after a closing
  // quote, a NUL byte (a binary file), a field over kMaxCsvFieldBytes.
  bool next_row(std::vector<std::string>& row);
  // The line the row last returned starts on (from 1).
  int64_t row_line() const { return row_line_; }

 private:
  int peek();  // the next byte (0-255), or -1 at the end
  int get();
  // Adds `c` to a field, refusing NUL bytes and fields over the limit.
  void append(std::string& field, char c);

  Fill fill_;
  std::string name_;
  std::vector<char> buffer_;
  size_t at_ = 0, end_ = 0;
  bool done_ = false;
  int64_t line_ = 1, row_line_ = 0;
  bool started_ = false;  // past the byte order mark
};

// A CsvReader over a file; DataError when it is not a regular file.
CsvReader open_csv_file(const std::string& path);

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int64_t> lines;  // the line of the file each row starts on (from 1)
};

// A whole text read as a table. Throws DataError naming `name` and the line
// (CsvReader's refusals, a row of another width than the header, no header).
CsvTable parse_csv(const std::string& text, const std::string& name);

// The DataError for a row of another width than the header.
void check_csv_width(const std::vector<std::string>& row, size_t width, const std::string& name, int64_t line);

}  // namespace trainer
