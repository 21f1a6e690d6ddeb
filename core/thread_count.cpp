#include "core/thread_count.h"

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace sinklab {

int set_thread_count(int threads) {
#ifdef SINKLAB_HAVE_OPENMP
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  return before;
#else
  (void)threads;
  return 1;
#endif
}

}  // namespace sinklab
