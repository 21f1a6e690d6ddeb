#include "models/role_scores.h"

#include <cmath>

#include "core/observe/position_roles.h"

namespace sinklab {

void RoleScores::add(const float* logits, const int32_t* targets, const uint8_t* roles, int64_t rows, int64_t classes) {
  using namespace position_role;
  for (int64_t r = 0; r < rows; ++r) {
    RoleScore* into = (roles[r] & kActiveRow) ? &active : (roles[r] & kNoOpRow) ? &no_op : nullptr;
    if (!into || targets[r] < 0) continue;
    const float* row = logits + r * classes;
    int64_t best = 0;
    for (int64_t k = 1; k < classes; ++k)
      if (row[k] > row[best]) best = k;
    double sum = 0;  // shifted by the largest logit so exp cannot overflow
    for (int64_t k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(row[k]) - row[best]);
    into->loss_sum += std::log(sum) - (static_cast<double>(row[targets[r]]) - row[best]);
    ++into->scored;
    into->correct += best == targets[r];
  }
}

}  // namespace sinklab
