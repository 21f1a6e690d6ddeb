#include "core/thread_contention.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <thread>

namespace sinklab {
namespace {

int usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

std::optional<MachineLoad> machine_load() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  if (!(in >> load) || load < 0) return std::nullopt;
  return MachineLoad{load, usable_cores()};
}

std::string thread_contention_warning(int threads, const MachineLoad& load) {
  if (threads < 2) return {};
  const bool oversubscribed = threads > load.cores;
  if (!oversubscribed && load.load_average + threads <= load.cores) return {};
  char text[400];
  std::snprintf(text, sizeof text,
                "sinklab: warning: threads %d on %d core%s with a load average of %.2f (%s): OpenMP threads that "
                "wait on each other can then run many times slower than 1 thread; consider --threads 1 (results "
                "depend on the thread count: docs/reproducibility.md)",
                threads, load.cores, load.cores == 1 ? "" : "s", load.load_average,
                oversubscribed ? "more threads than cores" : "other programs are using the cores");
  return text;
}

}  // namespace sinklab
