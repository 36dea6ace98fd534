// Image files (PNG, JPEG, BMP) as trainer decodes them: whole in the file's
// own channels, then in bands of rows as grey (what tiled prediction reads).
// libpng and libjpeg are Debian's (not instrumented); what is fuzzed is
// trainer's use of them and its BMP reader.
#include "images/image_codec.h"
#include "images/image_rows.h"
#include "fuzz_input.h"

TRAINER_FUZZ_TARGET({
  const trainer::Image image = trainer::decode_image(input, "fuzz.img");
  if (image.pixels.size() != static_cast<size_t>(image.height * image.width * image.channels)) __builtin_trap();
  trainer::ImageRowReader rows(input, "fuzz.img", 1);
  while (rows.rows_read() < rows.height()) {
    const trainer::Image band = rows.next_rows(3);
    if (band.height == 0 || band.pixels.size() != static_cast<size_t>(band.height * band.width)) __builtin_trap();
  }
})
