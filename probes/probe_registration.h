#pragma once
// What one probe plug-in registers (probe_registry.cpp holds the one list, one line per probe): its id,
// name and doc line for `sinklab probe --list`, and its hooks. The collector walks layers, heads and
// rows and hands each probe its view (probe_view.h); the output writer asks each probe for its files,
// figure scripts and probes.md rows, in registry order. A null hook means the probe has nothing there
// (P3 and P6 read what P2 and P4 collect).
#include <string>
#include <utility>
#include <vector>

#include "probes/probe_view.h"

namespace sinklab::probes {

// What a probe hands the output writer after writing its CSVs into the output folder.
struct ProbeSection {
  std::vector<std::string> files;                            // the CSVs it wrote, for probes.md's file list
  std::vector<std::pair<std::string, std::string>> figures;  // (name, gnuplot script) -> figures/name.gp
  std::string claims;                                        // its rows of probes.md's table of claims
  std::string invariants;                                    // its rows of probes.md's table of invariants
};

struct ProbeRegistration {
  std::string id;    // "P1", ...
  std::string name;  // short, for --list
  std::string doc;   // one line: what it measures
  // Sizes the probe's slots of the results once the model's shape is known.
  void (*setup)(ProbeResults& results, const ProbeSettings& settings) = nullptr;
  // Every row of every head (heads run in parallel: write only this row's or head's slots).
  void (*on_row)(const ProbeRow& row, ProbeCounters& counts) = nullptr;
  // Every (row, N entry below n) of the shared top-N scan.
  void (*on_entry)(const ProbeEntry& entry, ProbeCounters& counts) = nullptr;
  ProbeSection (*write)(const ProbeOutput& output) = nullptr;
};

}  // namespace sinklab::probes
