// Default main() for the benchmarks: they create network namespaces, so they
// need root; without it they say why and exit 77 (ctest: skipped).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (::geteuid() != 0) {
    std::fprintf(stderr,
                 "%s: skipped: needs root (creates network namespaces; run: sudo ./dev bench)\n",
                 argv[0]);
    return 77;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
