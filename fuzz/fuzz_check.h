// FUZZ_CHECK(condition, message): a property every input must keep. A broken one prints what
// failed and aborts, which libFuzzer (and the corpus runner) report as a finding with the input
// that caused it.
#ifndef VERDICT_FUZZ_FUZZ_CHECK_H_
#define VERDICT_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, message)                                                      \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      std::fprintf(stderr, "%s:%d: property broken: %s (%s)\n", __FILE__, __LINE__, #condition, \
                   message);                                                                \
      std::abort();                                                                         \
    }                                                                                       \
  } while (false)

#endif  // VERDICT_FUZZ_FUZZ_CHECK_H_
