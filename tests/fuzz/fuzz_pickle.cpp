// The pickle subset of numpy object arrays, alone: most of its input space
// is unreachable through a zip and .npy header.
#include "formats/python_pickle.h"
#include "fuzz_input.h"

TRAINER_FUZZ_TARGET({ trainer::unpickle_int_list_array(input, "fuzz.pkl"); })
