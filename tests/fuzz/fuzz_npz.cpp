// .npz archives as Keras's reuters.npz: zip, then each member as .npy, then
// its pickle or its integers, then the range checks of the loader.
#include "formats/npy_format.h"
#include "formats/python_pickle.h"
#include "data/reuters_npz.h"
#include "formats/zip_archive.h"
#include "fuzz_input.h"

TRAINER_FUZZ_TARGET({
  for (const auto& [name, content] : trainer::read_zip_members(input, "fuzz.npz")) {
    const trainer::NpyArray array = trainer::parse_npy(content, name);
    trainer::RawReuters raw;
    if (array.descr == "|O")
      raw.sequences = trainer::unpickle_int_list_array(array.data, name);
    else
      raw.labels = trainer::npy_to_int64(array, name);
    trainer::check_reuters_ranges(raw, name);
  }
})
