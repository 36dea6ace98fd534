// Reuters-21578 SGML files.
#include "data/reuters_corpus.h"
#include "fuzz_input.h"

TRAINER_FUZZ_TARGET({ trainer::parse_reuters_sgml(input); })
