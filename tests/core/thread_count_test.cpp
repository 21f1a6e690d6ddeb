#include "core/thread_count.h"

#include <gtest/gtest.h>

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace sinklab {
namespace {

TEST(ThreadCount, TakesEffectAndReturnsThePreviousCount) {
#ifdef SINKLAB_HAVE_OPENMP
  const int original = omp_get_max_threads();
  EXPECT_EQ(set_thread_count(3), original);
  EXPECT_EQ(omp_get_max_threads(), 3);
  int seen = 0;
#pragma omp parallel
  {
#pragma omp single
    seen = omp_get_num_threads();
  }
  EXPECT_EQ(seen, 3);  // a parallel region started after the call gets that many threads
  EXPECT_EQ(set_thread_count(1), 3);
  EXPECT_EQ(omp_get_max_threads(), 1);
  EXPECT_EQ(set_thread_count(original), 1);
  EXPECT_EQ(omp_get_max_threads(), original);
#else
  EXPECT_EQ(set_thread_count(3), 1);  // no OpenMP: one thread, whatever is asked
  EXPECT_EQ(set_thread_count(1), 1);
#endif
}

}  // namespace
}  // namespace sinklab
