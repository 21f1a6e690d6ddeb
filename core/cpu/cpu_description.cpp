#include "core/cpu/cpu_description.h"

#include "core/cpu/cpu_features.h"
#include "core/cpu/isa_level.h"

namespace sinklab {

CpuDescription describe_cpu() {
  static const CpuDescription described = [] {
    CpuDescription d;
    d.model = cpu_features::model();
    d.features = cpu_features::present();
    d.cpu_level = isa_level_name(cpu_isa_level());
    d.kernel_level = isa_level_name(kernel_isa_level());  // first: it may cap oneDNN
    d.kernel_vector_bits = cpu_features::scalable_vector_bits(kernel_isa_level());
    d.onednn_isa = cpu_features::onednn_isa();
    d.kernel_path = d.kernel_level + d.kernel_vector_bits + "+onednn:" + d.onednn_isa;
    return d;
  }();
  return described;
}

}  // namespace sinklab
