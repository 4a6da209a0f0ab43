// A plain main for builds without libFuzzer (NETNS_FUZZ=OFF): feeds every file
// named on the command line, or found directly inside a named directory, to
// the target once. ctest runs it over the committed seed corpus and the
// regression inputs, so every ordinary build (and every sanitizer build)
// replays the inputs that once crashed. A missing directory is not an error:
// a target may have no regressions yet.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::string> inputs_in(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  if (!S_ISDIR(st.st_mode)) return {path};
  std::vector<std::string> out;
  if (DIR* dir = ::opendir(path.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name == "." || name == ".." || name == "README.md") continue;
      out.push_back(path + "/" + name);
    }
    ::closedir(dir);
  }
  std::sort(out.begin(), out.end());  // deterministic order for logs
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    for (const std::string& file : inputs_in(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
        return 1;
      }
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      // Printed before the call: if it crashes, the last line names the input.
      std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  std::printf("replay: %zu inputs, no crash\n", count);
  return count > 0 ? 0 : 1;  // an empty corpus means a wrong path, not a pass
}
