#include "formats/csv_table.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <memory>

#include "util/error.h"
#include "util/read_file.h"

namespace trainer {
namespace {

bool blank(const std::vector<std::string>& row) {
  return row.size() == 1 && row[0].find_first_not_of(" \t") == std::string::npos;
}

}  // namespace

CsvReader::CsvReader(Fill fill, std::string name) : fill_(std::move(fill)), name_(std::move(name)), buffer_(1 << 16) {}

int CsvReader::peek() {
  if (at_ == end_) {
    if (done_) return -1;
    at_ = 0;
    end_ = fill_(buffer_.data(), buffer_.size());
    if (end_ == 0) {
      done_ = true;
      return -1;
    }
  }
  return static_cast<unsigned char>(buffer_[at_]);
}

int CsvReader::get() {
  const int c = peek();
  if (c >= 0) ++at_;
  return c;
}

void CsvReader::append(std::string& field, char c) {
  if (c == '\0')
    throw DataError(name_ + ":" + std::to_string(line_) + ": a NUL byte; this is not CSV text",
                    "data.path names a CSV file (text), or an .npy/.npz file");
  if (field.size() >= kMaxCsvFieldBytes)
    throw DataError(name_ + ":" + std::to_string(row_line_) + ": a field longer than " +
                    byte_size_text(kMaxCsvFieldBytes) + "; this is not a table of numbers");
  field += c;
}

bool CsvReader::next_row(std::vector<std::string>& row) {
  if (!started_) {
    started_ = true;
    // A UTF-8 byte order mark: the first read holds it whole.
    if (peek() >= 0 && end_ - at_ >= 3 && std::memcmp(buffer_.data() + at_, "\xEF\xBB\xBF", 3) == 0) at_ += 3;
  }
  while (peek() >= 0) {
    row_line_ = line_;
    row.assign(1, std::string());
    bool quoted_field = false;
    // One row: fields until an unquoted line end or the end of the input.
    while (peek() >= 0) {
      const char c = static_cast<char>(get());
      if (c == '"' && row.back().empty() && !quoted_field) {
        quoted_field = true;
        for (;;) {
          const int q = get();
          if (q < 0) throw DataError(name_ + ":" + std::to_string(row_line_) + ": a quoted field is not closed");
          if (q == '"') {
            if (peek() != '"') break;
            get();
          }
          if (q == '\n') ++line_;
          append(row.back(), static_cast<char>(q));
        }
        continue;
      }
      if (c == ',') {
        row.emplace_back();
        quoted_field = false;
      } else if (c == '\n' || (c == '\r' && peek() == '\n')) {
        if (c == '\r') get();
        ++line_;
        break;
      } else {
        if (quoted_field)
          throw DataError(name_ + ":" + std::to_string(line_) + ": text after a quoted field's closing quote");
        append(row.back(), c);
      }
    }
    if (!blank(row)) return true;
  }
  return false;
}

CsvReader open_csv_file(const std::string& path) {
  const std::string problem = regular_file_problem(path);
  if (!problem.empty()) throw DataError(path + " " + problem);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw DataError(path + " cannot be read: " + std::strerror(errno));
  // Shared by the reader's copies; closed with the last.
  const auto file = std::shared_ptr<int>(new int(fd), [](int* f) {
    ::close(*f);
    delete f;
  });
  return CsvReader(
      [file, path](char* buffer, size_t capacity) -> size_t {
        for (;;) {
          const ssize_t n = ::read(*file, buffer, capacity);
          if (n >= 0) return static_cast<size_t>(n);
          if (errno != EINTR) throw DataError(path + " cannot be read: " + std::strerror(errno));
        }
      },
      path);
}

void check_csv_width(const std::vector<std::string>& row, size_t width, const std::string& name, int64_t line) {
  if (row.size() != width)
    throw DataError(name + ":" + std::to_string(line) + ": " + std::to_string(row.size()) + " fields, the header has " +
                    std::to_string(width));
}

CsvTable parse_csv(const std::string& text, const std::string& name) {
  size_t offset = 0;
  CsvReader reader(
      [&](char* buffer, size_t capacity) {
        const size_t n = std::min(capacity, text.size() - offset);
        std::memcpy(buffer, text.data() + offset, n);
        offset += n;
        return n;
      },
      name);
  CsvTable table;
  if (!reader.next_row(table.header))
    throw DataError(name + ": empty; expected a header row of column names, then rows");
  for (std::vector<std::string> row; reader.next_row(row);) {
    check_csv_width(row, table.header.size(), name, reader.row_line());
    table.rows.push_back(std::move(row));
    table.lines.push_back(reader.row_line());
  }
  return table;
}

}  // namespace trainer
