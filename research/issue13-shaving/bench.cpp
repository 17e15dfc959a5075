#include "../../lib/Scheduling/CutBound.h"
#include <cstdio>
#include <chrono>
#include <vector>
using namespace serenity::detail;
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "r");
  struct Net { int nv; std::vector<std::array<int64_t,3>> e; };
  std::vector<Net> nets;
  int nv, ne;
  while (fscanf(f, "%d %d", &nv, &ne) == 2) {
    Net n; n.nv = nv;
    for (int i = 0; i < ne; ++i) { long long a, b, c; fscanf(f, "%lld %lld %lld", &a, &b, &c); n.e.push_back({a, b, c}); }
    nets.push_back(n);
  }
  MaxFlow mf;
  int64_t total = 0;
  int reps = atoi(argv[2]);
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r)
    for (auto &n : nets) {
      mf.reset(n.nv);
      for (auto &e : n.e) mf.addEdge(e[0], e[1], e[2]);
      total += mf.run(0, 1, int64_t(1) << 40);
    }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printf("sum %lld  cuts %zu  us/cut %.2f\n", (long long)(total / reps), nets.size() * reps, 1e6 * s / (nets.size() * reps));
}
