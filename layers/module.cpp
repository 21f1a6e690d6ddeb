#include "layers/module.h"

namespace sinklab {

void Module::initialize(Rng& rng) {
  initialize_own(rng);
  for (Module* c : children_) c->initialize(rng);
}

void Module::set_training(bool on) {
  training_ = on;
  for (Module* c : children_) c->set_training(on);
}

}  // namespace sinklab
