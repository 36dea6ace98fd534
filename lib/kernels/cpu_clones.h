#pragma once
// TRAINER_CPU_CLONES before a hot loop's definition: on x86-64 the compiler
// builds the function three times (baseline SSE2, x86-64-v3 with AVX2,
// x86-64-v4 with AVX-512) and the loader picks the one this CPU runs (an
// ifunc), so one binary serves every lab machine. The baseline alone leaves
// half of an AVX2 unit idle: the optimizers' divides and square roots took
// twice as long. Files using it are built with -ffp-contract=off, so no
// clone fuses a multiply and an add the baseline rounds twice: all three
// give the same bits.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TRAINER_CPU_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define TRAINER_CPU_CLONES
#endif
