#pragma once
// Next-token loss and accuracy split by the role of the query row (core/observe/position_roles.h): over
// the scored rows a task flags as active rows and over those it flags as no-op rows. The task metric of
// bigram_backcopy (trigger rows vs the rest) and induction (second copy vs first), and generic for every
// token task; models/evaluation.cpp folds each evaluation chunk into one RoleScores.
#include <cstdint>
#include <limits>

namespace sinklab {

struct RoleScore {
  double loss_sum = 0;  // nats
  int64_t scored = 0, correct = 0;
  // NaN when no scored row had the role.
  double loss() const {
    return scored == 0 ? std::numeric_limits<double>::quiet_NaN() : loss_sum / static_cast<double>(scored);
  }
  double accuracy() const {
    return scored == 0 ? std::numeric_limits<double>::quiet_NaN()
                       : static_cast<double>(correct) / static_cast<double>(scored);
  }
};

struct RoleScores {
  RoleScore active, no_op;
  // logits: [rows, classes] contiguous; targets (-1 = not scored) and roles: [rows]. The arg-max takes
  // the first largest logit, as the batch accuracy does (models/task_objective.cpp); the loss is
  // -log softmax(logits)[target], computed in double.
  void add(const float* logits, const int32_t* targets, const uint8_t* roles, int64_t rows, int64_t classes);
};

}  // namespace sinklab
