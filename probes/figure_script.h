#pragma once
// The opening every probe's gnuplot script shares: a PNG terminal writing `png`, CSV input, a grid, a title.
#include <filesystem>
#include <string>

namespace sinklab::probes {

std::string gnuplot_header(const std::filesystem::path& png, const std::string& title);

}  // namespace sinklab::probes
