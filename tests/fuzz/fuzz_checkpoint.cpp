// Checkpoint files up to what trainer checks before LibTorch reads them:
// the zip structure, the seal and every member's CRC-32. (LibTorch's own
// archive reader is not instrumented here.)
#include "fuzz_input.h"
#include "runs/checkpoint_seal.h"

TRAINER_FUZZ_TARGET({ trainer::verify_checkpoint(input, "fuzz.pt"); })
