#include "probes/figure_script.h"

namespace sinklab::probes {

std::string gnuplot_header(const std::filesystem::path& png, const std::string& title) {
  return "set terminal pngcairo noenhanced size 900,600 font \",10\"\nset output '" + png.string() +
         "'\nset datafile separator ','\nset key top left\nset grid\nset title '" + title + "'\n";
}

}  // namespace sinklab::probes
