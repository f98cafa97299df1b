// main() for a fuzz target built without libFuzzer (the default gcc build): runs
// LLVMFuzzerTestOneInput once on every file of the directories or files named on the command
// line, so `bazel test //fuzz/...` replays each seed corpus (and any finding added to it) as a
// regression test. With --config=fuzz, libFuzzer provides main() instead.
#include <dirent.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void CollectFiles(const std::string& path, std::vector<std::string>* files) {
  struct stat status;
  if (stat(path.c_str(), &status) != 0) return;
  if (!S_ISDIR(status.st_mode)) {
    files->push_back(path);
    return;
  }
  DIR* directory = opendir(path.c_str());
  if (directory == nullptr) return;
  while (const dirent* entry = readdir(directory)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") CollectFiles(path + "/" + name, files);
  }
  closedir(directory);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) CollectFiles(argv[i], &files);
  if (files.empty()) {
    std::fprintf(stderr, "corpus_runner: no input files in the arguments\n");
    return 1;
  }
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream contents;
    contents << in.rdbuf();
    const std::string input = contents.str();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  std::printf("corpus_runner: %zu inputs, no property broken\n", files.size());
  return 0;
}
