// The weights files `model.init_from` reads: safetensors (its length, JSON
// header and byte ranges) and NumPy's .npz (zip, then each .npy member).
#include "formats/weights_file.h"
#include "fuzz_input.h"

TRAINER_FUZZ_TARGET({
  try {
    trainer::read_safetensors(input, "fuzz.safetensors");
  } catch (const trainer::Error&) {
  }
  trainer::read_npz(input, "fuzz.npz");
})
