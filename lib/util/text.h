#pragma once
// Small text helpers shared across the libraries.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

// Levenshtein distance, for "did you mean" suggestions.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word`, or "" when none is close enough to be a
// plausible typo (distance above a third of the word's length, at least 2).
std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates);

// printf("%.9g") of a float32: the shortest text that round-trips a float.
std::string format_float9(float value);

// Local time as HH:MM:SS, and as YYYYmmdd-HHMMSS for directory names.
std::string local_time_hms();
std::string local_timestamp_compact();

// "12.3 MiB": memory sizes in logs and reports.
std::string format_mib(int64_t bytes);

// "950", "12.3 K", "4.56 M", "52.2 G": a large count to three significant
// digits (multiply-adds in summaries and logs).
std::string format_count_si(double count);

// "1 epoch", "2 epochs": a count and its noun (regular plurals only).
std::string count_of(int64_t count, const std::string& noun);

std::string join(const std::vector<std::string>& parts, const std::string& separator);

// Rows as a plain-text table: each column as wide as its widest cell, two
// spaces between columns, one line per row ("\n"-terminated).
std::string format_text_table(const std::vector<std::vector<std::string>>& rows);

// "42s", "2m05s", "1h02m": a duration in tables and reports.
std::string format_time_taken(double seconds);

// This machine's name (gethostname); "" when it has none.
std::string host_name();

// `text` safe to print on a terminal: control characters (NUL, ESC,
// newlines, DEL) become visible escapes (\0, \x1b, \n), so a hostile name or
// file cannot move the cursor, clear the screen or cut a message short.
std::string printable(const std::string& text);

// A quotation of `text` for a message: printable, and at most `max_chars`
// of it followed by "... (N bytes)" when it is longer.
std::string excerpt(const std::string& text, size_t max_chars = 80);
// Names for a message ("its columns: a, b, c"): joined with ", ", cut to
// `max_chars` when a file holds thousands.
std::string listed_names(const std::vector<std::string>& names, size_t max_chars = 400);

// Whether `text` ends with `suffix` (C++20's ends_with, for C++17).
inline bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace trainer
