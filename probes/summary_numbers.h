#pragma once
// How the probes' files print and summarize numbers: "%.6g" (NaN: an empty cell), and the median and
// mean that skip NaN (a head or bin without rows).
#include <string>
#include <vector>

namespace sinklab::probes {

std::string num(double v);
double median(std::vector<double> v);
double mean_of(const std::vector<double>& v);

}  // namespace sinklab::probes
