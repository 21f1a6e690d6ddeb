#include "report/sink_class.h"

namespace sinklab {

std::string sink_class_letter(SinkClass c) {
  switch (c) {
    case SinkClass::S: return "S";
    case SinkClass::V: return "V";
    case SinkClass::Z: return "Z";
    case SinkClass::C: return "C";
    case SinkClass::G: return "G";
    case SinkClass::U: return "U";
  }
  return "?";
}

std::string sink_class_heading(SinkClass c) {
  switch (c) {
    case SinkClass::S: return "S: simplex rows (BOS sink necessary)";
    case SinkClass::V: return "V: virtual slot, row mass < 1 (sink not necessary)";
    case SinkClass::Z: return "Z: all-zero rows possible (no sink needed)";
    case SinkClass::C: return "C: clipped (partial sink)";
    case SinkClass::G: return "G: gated output";
    case SinkClass::U: return "U: cannot make the trigger coefficient 1/j (1x1 cannot stop)";
  }
  return "?";
}

std::optional<SinkClass> parse_sink_class(const std::string& letter) {
  for (const SinkClass c : kSinkClasses)
    if (sink_class_letter(c) == letter) return c;
  return std::nullopt;
}

std::string sink_class_letters() {
  std::string out;
  for (const SinkClass c : kSinkClasses) out += (out.empty() ? "" : ", ") + sink_class_letter(c);
  return out;
}

}  // namespace sinklab
