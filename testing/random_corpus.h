// A seeded source of choices for the randomized tests that decide over many small policies two
// ways and compare (decision/parity_test.cc, decision/effective_permissions_test.cc,
// store/may_match_parity_test.cc): one seed gives one corpus, so a failure replays.
//
//   RandomCorpus corpus(20240515);
//   permission.effect = corpus.Chance(30) ? Effect::kDeny : Effect::kAllow;
//   permission.resource = corpus.Pick(kPatterns);
//   permission.actions = corpus.Actions(kActions, /*any_percent=*/30);
#ifndef VERDICT_TESTING_RANDOM_CORPUS_H_
#define VERDICT_TESTING_RANDOM_CORPUS_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace verdict {

class RandomCorpus {
 public:
  explicit RandomCorpus(uint32_t seed) : rng_(seed) {}

  // 0 to n - 1, each as likely.
  int Uniform(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  // True `percent` times in a hundred.
  bool Chance(int percent) { return Uniform(100) < percent; }
  // One of `items`, each entry as likely: a value listed twice comes up twice as often.
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Uniform(static_cast<int>(items.size()))];
  }
  // Actions as a grant lists them: "*" `any_percent` times in a hundred, otherwise one of
  // `names` and, three times in ten, a second one (perhaps the same).
  std::vector<std::string> Actions(const std::vector<std::string>& names, int any_percent) {
    if (Chance(any_percent)) return {"*"};
    std::vector<std::string> actions = {Pick(names)};
    if (Chance(30)) actions.push_back(Pick(names));
    return actions;
  }
  // The generator itself, for std::shuffle and the like.
  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
};

}  // namespace verdict

#endif  // VERDICT_TESTING_RANDOM_CORPUS_H_
