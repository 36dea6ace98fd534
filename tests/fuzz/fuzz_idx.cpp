// IDX files (MNIST, Fashion-MNIST): the header alone, then the whole file.
#include "formats/idx_format.h"
#include "fuzz_input.h"

TRAINER_FUZZ_TARGET({
  trainer::idx_file_size(input.substr(0, trainer::kMaxIdxHeaderBytes), "fuzz.idx");
  trainer::parse_idx(input, "fuzz.idx");
})
