#include "train/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace sinklab {

double learning_rate(const OptimizerConfig& c, int64_t step, int64_t max_steps) {
  if (c.schedule == ScheduleKind::constant) return c.lr;
  if (step < c.warmup_steps) return c.lr * static_cast<double>(step + 1) / c.warmup_steps;
  if (c.schedule == ScheduleKind::warmup) return c.lr;
  const double span = std::max<int64_t>(max_steps - c.warmup_steps, 1);
  const double progress = std::min(1.0, static_cast<double>(step - c.warmup_steps) / span);
  return c.min_lr + 0.5 * (c.lr - c.min_lr) * (1.0 + std::cos(std::numbers::pi * progress));
}

bool schedule_depends_on_max_steps(const OptimizerConfig& c) { return c.schedule == ScheduleKind::cosine; }

}  // namespace sinklab
