// The CSV reader of tabular data sets: any bytes, read as a stream in small
// pieces (so that rows and quotes cross buffer boundaries).
#include "formats/csv_table.h"
#include "fuzz_input.h"

#include <algorithm>
#include <cstring>

TRAINER_FUZZ_TARGET({
  size_t offset = 0;
  trainer::CsvReader reader(
      [&](char* buffer, size_t capacity) {
        const size_t n = std::min({capacity, input.size() - offset, size_t{7}});
        std::memcpy(buffer, input.data() + offset, n);
        offset += n;
        return n;
      },
      "fuzz.csv");
  std::vector<std::string> row;
  while (reader.next_row(row)) {
  }
  trainer::parse_csv(input, "fuzz.csv");
})
