// Image files (PNG, JPEG, BMP) as trainer decodes them: the file's own
// channels, then grey. libpng and libjpeg are Debian's (not instrumented);
// what is fuzzed is trainer's use of them and its BMP reader.
#include "data/image_codec.h"
#include "fuzz_input.h"

TRAINER_FUZZ_TARGET({
  const trainer::Image image = trainer::decode_image(input, "fuzz.img");
  if (image.pixels.size() != static_cast<size_t>(image.height * image.width * image.channels)) __builtin_trap();
  trainer::decode_image(input, "fuzz.img", 1);
})
