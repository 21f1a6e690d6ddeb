#pragma once
// The sink classes of the normalizer zoo (docs/compare.md, "Sink classes"): what a normalizer's rows
// allow a no-op row to do, and so which acceptance gate its runs must pass. Sweep files name a
// variant's class by its letter (`class: S`); reports group their zoo table by it.
#include <array>
#include <optional>
#include <string>

namespace sinklab {

enum class SinkClass { S, V, Z, C, G, U };

// Report order: simplex first, the class that cannot stop last.
inline constexpr std::array kSinkClasses = {SinkClass::S, SinkClass::V, SinkClass::Z,
                                            SinkClass::C, SinkClass::G, SinkClass::U};

// "S", "V", ... the letter a sweep file and sweep.json use.
std::string sink_class_letter(SinkClass c);
// "S: simplex rows (BOS sink necessary)": the heading of the class's rows in the zoo table.
std::string sink_class_heading(SinkClass c);
// The class named by exactly one of the letters, or nothing.
std::optional<SinkClass> parse_sink_class(const std::string& letter);
// "S, V, Z, C, G, U", for messages.
std::string sink_class_letters();

}  // namespace sinklab
