#pragma once
// The header dict every .npy file starts with ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }),
// parsed once for both readers: run_files/npy.h (files) and run_files/npz_reader.h (archive entries).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinklab {

// What is wrong with a header, without naming the file: each reader rethrows it as its own error
// (NpyError, NpzError) with the file and entry.
class NpyHeaderProblem : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NpyHeaderDict {
  std::string descr;           // as written, quotes included: "'<f4'"
  bool fortran_order = false;
  std::vector<int64_t> shape;  // [] is a scalar; every dimension >= 0
};

// Throws NpyHeaderProblem for a missing key, a shape that is not a tuple of whole numbers (or
// overflows int64), or a fortran_order other than True / False.
NpyHeaderDict parse_npy_header_dict(const std::string& header);

}  // namespace sinklab
